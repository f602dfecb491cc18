"""The terms each game uses in its mails (issue 32; /work/wt/TERMS.md refined against the
seeds in the rule texts and the golden gallery): one source for the docs' table
(``docs/development/terms.md`` is checked against :func:`markdown_table` by
``tests/test_wording.py``) and for the wording check's forbidden terms.

Shapes: :data:`TERMS` maps a variant key (``"rondo"``, ``"typdom-point"``, ...) and a
language (``"de"``/``"nl"``) to a :class:`Terms`; :data:`FORBIDDEN` maps the same keys to
``[(rule, regex), ...]`` the variant's mails must not match. Game names stay out of
``bot/service``: this is test data."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Terms:
    """One row per game and language; the columns of the docs' table."""
    game: str            # the game's name in its mails
    liga: str            # everything one GM runs under one name
    partie: str          # one game inside the league
    period: str          # the time from one ZAT to the next ("Runde" or "Zug")
    board: str           # the whole board
    square: str          # one square / place on it
    zat: str             # the deadline
    nmr: str             # no move received
    ersatz: str          # the replacement move
    joker: str           # the wild card / tile
    turns: bool          # one player moves per ZAT (turn game)


_DE = dict(liga="Liga", partie="Partie", zat="ZAT (Zugabgabetermin)", nmr="NMR (kein Zug eingegangen)")

#: (variant, language) -> the terms its mails speak
TERMS: dict[tuple[str, str], Terms] = {
    ("rondo", "de"): Terms(game="Rondo", period="Runde", board="Auslage (die Karten auf dem Tisch)",
                           square="Feld (1-9 der Auslage)", ersatz="Ersatzzug (Ersatzwort)", joker="Joker",
                           turns=False, **_DE),
    ("monoscrabble", "de"): Terms(game="Monoscrabble", period="Runde", board="Brett", square="Feld (H8)",
                                  ersatz="Ersatzzug", joker="Blanko", turns=False, **_DE),
    ("crossword", "de"): Terms(game="Crossword", period="Runde", board="Spielfeld (6 x 6, jeder sein eigenes)",
                               square="Feld", ersatz="– (ein Zug je Runde)", joker="–", turns=False, **_DE),
    ("typdom-kreuzwort", "de"): Terms(game="Typ-Dom Kreuzwort", period="Runde", board="Tisch", square="Feld (M13)",
                                      ersatz="Ersatzzug", joker="Jolly", turns=False, **_DE),
    ("typdom-point", "de"): Terms(game="Typ-Dom Point", period="Runde", board="Tisch", square="Feld (M13)",
                                  ersatz="Ersatzzug", joker="Jolly", turns=False, **_DE),
    ("typdom-presto", "de"): Terms(game="Typ-Dom Presto", period="Runde", board="Kreuzwort (je Partie)",
                                   square="Feld", ersatz="– (wer zuerst, gewinnt)", joker="Jolly", turns=False,
                                   **_DE),
    ("typdom-wbr", "de"): Terms(game="Wer behält recht?", period="Zug", board="Tisch", square="Feld (N13)",
                                ersatz="Ersatzzug", joker="Jolly", turns=True, **_DE),
    ("rondonl", "de"): Terms(game="RONDO", period="Zug", board="Auslage", square="Feld (1-9)",
                             ersatz="Ersatzzug", joker="Joker", turns=True, **_DE),
    ("rondonl", "nl"): Terms(game="RONDO", liga="competitie", partie="partij", period="beurt", board="rij (de kaarten op tafel)",
                             square="vak (1-9)", zat="deadline", nmr="geen zet ontvangen (NMR)",
                             ersatz="reservewoord (Reserve:)",
                             joker="joker", turns=True),
}


def variant(path: str) -> tuple[str, str]:
    """``(variant, language)`` of a gallery file ``"<game>-<lang>/<league>/<file>"``: the
    Typ-Dom board variants are told apart by the league's name."""
    folder, league = path.split("/")[:2]
    game, _, lang = folder.rpartition("-")
    if game == "typdom":
        game = "typdom-point" if "point" in league else "typdom-kreuzwort"
    return game, lang


_BOARDS_DE = {"Brett", "Tisch", "Auslage", "Spielfeld"}

#: the German words of the mail commands that have a Dutch one (the aliases in
#: bot.service.conversations: AUSWERTUNG -> UITSLAG, WEITER -> VERDER, ...)
GERMAN_COMMANDS = ("HILFE", "AUSWERTUNG", "URLAUB", "ANMELDEN", "ABMELDEN", "ADRESSE", "PAUSE", "WEITER",
                   "AUSWERTEN", "ERLAUBE", "VERBIETE", "SETZE", "ENTFERNE", "ZURUECK", "NACHRICHT", "REVIEW",
                   "FREIGEBEN", "STILL", "NEIN")


def _forbidden(key: tuple[str, str], t: Terms) -> list[tuple[str, str]]:
    rules = [("count in ZATs", r"\b\d+\s+ZATs?\b"),              # "7 ZATs": count Runden/Züge
             ("league called Runde", r"\w-Runde\b|\w-ronde\b")]   # "die Monoscrabble-Runde Demo-Mono"
    if key[1] == "de" and t.turns:
        rules.append(("Runde N in a turn game", r"\bRunden?\s+\d+"))
        # no "Runde" at all for the period ("die offene Runde", "Runde, ZAT"); the seeds'
        # round of turns is one ("eine Runde lang unverändert", "die Runde reihum")
        rules.append(("Runde in a turn game", r"\bRunden?\b(?! reihum| lang\b)"))
    if key[1] == "nl":
        rules.append(("ronde N in a turn game", r"\brondes?\s+\d+"))
        if t.turns:  # the rule's round of turns is one ("de ronde wordt dan uitgespeeld")
            rules.append(("ronde in a turn game", r"\brondes?\b(?! wordt dan uitgespeeld)"))
        rules.append(("ZAT in a Dutch mail", r"\bZATs?\b"))
        # a command as a Dutch player or game master writes it: UITSLAG, VERDER, UITWERKEN ...
        rules.append(("German command word", r"\b(?:" + "|".join(GERMAN_COMMANDS) + r")\b"))
    if key[0] == "crossword":  # the grid is the Spielfeld; Feld is one square
        rules.append(("grid called Feld", r"\b(?i:dein|deinem|sein|seinem|ihr|ihrem|eigenes|eigenen|ganzes|ganzen)"
                                          r"\s+Feld\b"))
    own = {w for w in _BOARDS_DE if w in t.board}
    if key[1] == "de" and key[0] != "crossword":
        # another game's board word (Monoscrabble's "Auslage von jetzt"); Crossword's
        # Spielfeld is a generic word, and Rondo's Auslage lies on a "Tisch"
        others = sorted(_BOARDS_DE - own - {"Spielfeld"} - ({"Tisch"} if key[0] in ("rondo", "rondonl") else set()))
        rules.append(("another game's board word", r"\b(?:" + "|".join(others) + r")\b"))
    return rules


#: (variant, language) -> [(rule, regex)] that its mails must not match
FORBIDDEN: dict[tuple[str, str], list[tuple[str, str]]] = {k: _forbidden(k, t) for k, t in TERMS.items()}

#: German words that no Dutch sentence contains (no Dutch homographs: not "die", "de",
#: "is", "in", "was", "er", "al", "man", "even", "ben", "stand") - as whole words; "ZAT" has
#: its own rule (FORBIDDEN)
GERMAN_WORDS = ("und", "der", "das", "nicht", "ist", "für", "mit", "auf", "eine", "einen", "sind", "oder",
                "auch", "nach", "wird", "dein", "deine", "deinen", "Runde", "Runden", "Zug", "Züge",
                "Spieler", "Spielleiter", "Partie", "Punkte", "zählt", "gültig", "ungültig", "Auswertung",
                "Karten", "Hinweis", "Feld", "Felder", "Liga", "Ersatzzug", "bitte", "schick")
GERMAN = re.compile(r"\b(?:" + "|".join(GERMAN_WORDS) + r")\b")

#: bracketed debug marks: "[ok]", "[x]", "[FEHLER]" (not the syntax's "[PUNKTE]")
DEBUG_MARK = re.compile(r"\[(?:ok|nok|x|v|\?|!|✓|✗|✔|✘|fehler|error|err|fail|warn|todo)\]", re.IGNORECASE)


def markdown_table(lang: str) -> str:
    """The docs' table of the ``lang`` rows (one column per variant)."""
    keys = [k for k in TERMS if k[1] == lang]
    rows = [("Spiel" if lang == "de" else "Spel", "game"), ("Liga", "liga"), ("Partie", "partie"),
            ("Runde oder Zug (ZAT bis ZAT)", "period"), ("Spielfeld (das Ganze)", "board"),
            ("Feld (eines)", "square"), ("ZAT", "zat"), ("NMR", "nmr"), ("Ersatzzug", "ersatz"),
            ("Joker/Jolly/Blanko", "joker")]
    lines = ["| Begriff | " + " | ".join(TERMS[k].game for k in keys) + " |",
             "|---" * (len(keys) + 1) + "|"]
    for label, attr in rows[1:]:
        lines.append(f"| {label} | " + " | ".join(getattr(TERMS[k], attr) for k in keys) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    for lang in ("de", "nl"):
        print(markdown_table(lang), end="\n\n")
