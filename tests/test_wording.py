"""The wording check over the golden gallery (issue 32): every mail a player or game master
receives, as rendered in ``tests/gallery/``, is read for

- a text line over 76 characters (rule :func:`long_lines`),
- a bracketed debug mark like ``[ok]`` (:data:`tests.wording_terms.DEBUG_MARK`),
- German in a Dutch mail to a player (:data:`tests.wording_terms.GERMAN`),
- a term the game must not use (:data:`tests.wording_terms.FORBIDDEN`, the same data as the
  table in ``docs/development/terms.md``).

Violations that other branches of issue 32 are fixing are listed in :data:`KNOWN`; the lead
empties it after merging them (a listed file that no longer violates its rule fails too, so
the list cannot go stale)."""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import pytest

from tests.gallery import DUTCH_GM, GALLERY
from tests.wording_terms import DEBUG_MARK, FORBIDDEN, GERMAN, markdown_table, variant

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 76

#: Known violations, file -> rules: none. A mail that breaks a rule is fixed, not listed
#: here (the list was emptied when the wording work of issue 32 was merged).
KNOWN: dict[str, set[str]] = {}


def _visible(path: Path) -> str:
    """A gallery mail's text as the reader sees it: the text file, or an HTML mail's text
    without tags and attributes (``<br>``/block ends as line breaks)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        text = re.sub(r"<(style|head)\b.*?</\1>", " ", text, flags=re.S | re.I)
        text = re.sub(r"<(br|/p|/div|/tr|/h\d|/li|/table|/pre)\b[^>]*>", "\n", text, flags=re.I)
        text = htmllib.unescape(re.sub(r"<[^>]+>", " ", text))
    return text


def _block_row(lines: list[str], i: int) -> bool:
    """Line ``i`` is a row of a fixed-width block (a board or a table): it is indented, a
    neighbouring line has exactly its length, and it holds no two lower-case words in a row
    (prose does; a wrapped paragraph's lines also differ in length)."""
    line = lines[i]
    if not line.startswith(" ") or re.search(r"[a-zäöüß]{2,}\s+[a-zäöüß]{2,}", line):
        return False
    return any(0 <= j < len(lines) and len(lines[j]) == len(line) for j in (i - 1, i + 1))


def long_lines(text: str) -> list[str]:
    """The body lines over :data:`LIMIT` characters (the first line, ``Betreff:``, is the
    subject and not a body line), except fixed-width block rows (:func:`_block_row`) and
    quoted lines (``>``: the player's own text)."""
    lines = text.split("\n")[2:] if text.startswith("Betreff:") else text.split("\n")
    return [ln for i, ln in enumerate(lines)
            if len(ln) > LIMIT and not ln.startswith(">") and not _block_row(lines, i)]


def violations(name: str, text: str, html: bool = False) -> set[str]:
    """The rules the mail ``name`` (a gallery path ``<game>-<lang>/<league>/<file>``) with
    the visible ``text`` breaks: ``"line>76"``, ``"debug mark"``, ``"German in Dutch"``,
    or the rule names of :data:`tests.wording_terms.FORBIDDEN`."""
    key = variant(name)
    found = set()
    # the gallery's date placeholder is no word of the mail; an answer's subject
    # "Re: <the player's own subject>" quotes the player, whatever language they wrote in
    text = text.replace("<ZAT>", "<>")
    if text.startswith("Betreff: Re:"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    if not html and long_lines(text):
        found.add("line>76")
    if DEBUG_MARK.search(text):
        found.add("debug mark")
    to_gm = "-gm-" in name.rsplit("/", 1)[-1]
    # a mail to the game master is in the GM's language: German, but Dutch in the leagues
    # of tests.gallery.DUTCH_GM (gm_language = "nl")
    lang = ("nl" if name.split("/")[1] in DUTCH_GM else "de") if to_gm else key[1]
    if lang == "nl" and GERMAN.search(text):
        found.add("German in Dutch")
    for rule, rx in FORBIDDEN.get((key[0], lang), FORBIDDEN.get(key, [])):
        if re.search(rx, text):
            found.add(rule)
    return found


def _files() -> dict[str, Path]:
    return {str(p.relative_to(GALLERY)): p for p in sorted(GALLERY.rglob("*"))
            if p.is_file() and p.suffix in (".txt", ".html")}


@pytest.mark.parametrize("name", sorted(_files()))
def test_every_gallery_mail_reads_right(name):
    """Each gallery mail breaks no wording rule, except the ones in :data:`KNOWN` - and
    those it does break (so a fixed one leaves the list)."""
    path = _files()[name]
    got = violations(name, _visible(path), html=path.suffix == ".html")
    known = KNOWN.get(name, set())
    assert got - known == set(), f"{name}: {sorted(got - known)}"
    assert known - got == set(), f"{name} is fixed for {sorted(known - got)}: remove it from KNOWN"


def test_the_check_can_fail():
    """Bad samples through the same functions are flagged, good ones are not."""
    bad_line = "x " * 40
    assert violations("rondo-de/demo-rondo/ack-spieler-runde01.txt", f"Betreff: x\n\n{bad_line}\n") == {"line>76"}
    board = "   " + "A   " * 20
    assert violations("rondo-de/l/a.txt", f"Betreff: x\n\n{board}\n{board}\n") == set()
    assert violations("rondo-de/l/a.txt", f"Betreff: x\n\n   {'ein langer Satz ' * 6}\n") == {"line>76"}
    assert violations("rondo-de/l/a.txt", "1. CRU [ok] CRU: 11") == {"debug mark"}
    assert violations("rondo-de/l/a.txt", "Syntax: WORT [PUNKTE]") == set()
    assert "German in Dutch" in violations("rondonl-nl/l/ack-spieler-x.txt", "GOK – zählt: GOK: waarde 15")
    assert violations("rondonl-nl/l/ack-spieler-x.txt", "Die kaart is de beste die er is.") == set()
    assert "Runde N in a turn game" in violations("typdom-wbr-de/l/a.txt", "Zug 1 ... Runde 1")
    assert violations("rondo-de/l/a.txt", "Runde 1 von 2") == set()
    assert "Runde in a turn game" in violations("rondonl-de/l/gm-notice-gm-x.txt", "AUSWERTEN <Liga>: die offene Runde")
    assert violations("typdom-wbr-de/l/a.txt", "Das Wort ist eine Runde lang unverändert geblieben.") == set()
    assert violations("rondonl-de/l/a.txt", "die Runde reihum wird dann zu Ende gespielt") == set()
    assert "ronde in a turn game" in violations("rondonl-nl/l/a.txt", "de open ronde nu uitwerken")
    assert violations("rondonl-nl/l/a.txt", "de ronde wordt dan uitgespeeld") == set()
    assert "ronde N in a turn game" in violations("rondonl-nl/l/a.txt", "Stand na ronde 2")
    assert "ZAT in a Dutch mail" in violations("rondonl-nl/l/a.txt", "de deadline (ZAT)")
    assert "German command word" in violations("rondonl-nl/melding-competitie/command-gm-re-x.txt",
                                                "blijft gepauzeerd (WEITER hervat)")
    assert violations("rondonl-nl/melding-competitie/command-gm-re-x.txt", "blijft gepauzeerd (VERDER hervat)") == set()
    assert "count in ZATs" in violations("crossword-de/l/a.txt", "6 x 6 Feldern, 7 ZATs.")
    assert "league called Runde" in violations("monoscrabble-de/l/a.txt", "die Monoscrabble-Runde Demo-Mono")
    assert "grid called Feld" in violations("crossword-de/l/a.txt", "Dein Feld sieht nur du.")
    assert violations("crossword-de/l/a.txt", "auf freie Felder, ein Feld bleibt leer") == set()
    assert "another game's board word" in violations("monoscrabble-de/l/a.txt", "für die Auslage von jetzt")
    assert violations("monoscrabble-de/l/a.txt", "auf dem Brett, Feld H8") == set()
    assert "another game's board word" in violations("typdom-de/demo-typ-dom-point/a.txt", "aufs Brett")


def test_docs_show_the_table_of_terms():
    """docs/development/terms.md shows the tables of tests/wording_terms.py unchanged."""
    page = (ROOT / "docs" / "development" / "terms.md").read_text(encoding="utf-8")
    for lang in ("de", "nl"):
        assert markdown_table(lang) in page, f"regenerate the {lang} table: python -m tests.wording_terms"


#: A standings line of STAND (and of the answer after the end): rank, name, points.
_STANDING = re.compile(r"^\s*\d+\. .*?(-?\d+)( \S+)?  \(\d+ ")


def test_standings_lines_name_their_unit():
    """STAND and the answer after the end give the points with their unit ("12 Punkte",
    "12 punten"), as the Auswertung's standings do, never a bare number (issue 32)."""
    found = 0
    for path in sorted(GALLERY.rglob("*.txt")):
        if not any(k in path.name for k in ("stand", "nach-dem-ende")):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            m = _STANDING.match(line)
            if m:
                found += 1
                assert m.group(2) in (" Punkt", " Punkte", " punt", " punten"), (path.name, line)
    assert found > 20, found


def trailing_spaces(text: str) -> list[str]:
    """The lines of a text mail that end in white space, except the signature separator
    ``"-- "`` (RFC 3676: its space belongs to it)."""
    return [ln for ln in text.split("\n") if ln != "-- " and ln != ln.rstrip()]


def test_no_text_line_ends_in_a_space():
    """No line of any text mail of the gallery ends in a space (RONDO's and Rondo's
    Auslage rows did, padded to their cells' width); the signature separator "-- " keeps
    its own."""
    assert trailing_spaces("-- \nSpielleiter") == []
    assert trailing_spaces("    Feld   1    2    \n") == ["    Feld   1    2    "]
    bad = {}
    for path in sorted(GALLERY.rglob("*.txt")):
        lines = trailing_spaces(path.read_text(encoding="utf-8"))
        if lines:
            bad[str(path.relative_to(GALLERY))] = lines[:2]
    assert not bad, bad


#: A word that speaks to the reader: German and Dutch second person (the Dutch ones in
#: a sentence, not a word played: "M11w Je (JE)").
_YOU = re.compile(r"\b(?i:du|dir|dich|dein\w*|euer|eure\w*)\b|\b[Jj](?:e|ij|ou|ouw|ullie) +[a-z]")
#: Where a player's private part ends in the text of a GM copy: the next player's part,
#: the moves, the next Partie, the standings.
_PART_END = re.compile(r"^(?:.+ \((?:nur für|alleen voor) .+\):|Alle Züge|Alle zetten|-{60}|={60})")


def private_parts(text: str, html: bool = False) -> list[str]:
    """The private parts of every player in a game master's copy of an Auswertung: in the
    text part, the lines below each "X (nur für X):" up to the next such line, the moves
    ("Alle Züge"), the next Partie or the standings; in the HTML part, each framed block
    (the frame's ``border-left`` ``div``), without tags."""
    if html:
        return [re.sub(r"<[^>]+>", " ", d) for d in re.findall(r'<div style="border-left:[^"]*">(.*?)</div>', text,
                                                                 flags=re.S)]
    parts, cur = [], None
    for line in text.split("\n"):
        if _PART_END.match(line):
            if cur is not None:
                parts.append("\n".join(cur))
            cur = [] if re.search(r"\((?:nur für|alleen voor) .+\):$", line) else None
        elif cur is not None:
            cur.append(line)
    if cur is not None:
        parts.append("\n".join(cur))
    return parts


def test_gm_copies_speak_about_the_players():
    """The game master's copy of an Auswertung shows each player's private part (hand,
    rack, set, grid) under "X (nur für X):" in words about X ("Hand:", "Bank:", "X ist
    jetzt am Zug"), not in X's own ("Deine Hand", "Du bist jetzt am Zug", "jouw"), and
    without the example move meant for X; every game with private parts has such a copy
    in the gallery."""
    assert private_parts("A (nur für A):\nDeine Hand: X\n\nB (nur für B):\nHand: Y\nAlle Züge, Partie T1:\n  du") \
        == ["Deine Hand: X\n", "Hand: Y"]
    assert _YOU.search("Deine Hand: X") and _YOU.search("Je kaarten") and not _YOU.search("Hand: Y, Jeder")
    bad, games = {}, set()
    for path in sorted(GALLERY.rglob("auswertung-gm-*")):
        parts = private_parts(path.read_text(encoding="utf-8"), html=path.suffix == ".html")
        if parts:
            games.add(str(path.relative_to(GALLERY)).split("/")[0])
        said = sorted({m.group(0) for x in parts for m in _YOU.finditer(x)})
        if said:
            bad[str(path.relative_to(GALLERY))] = said
    assert not bad, bad
    assert games >= {"crossword-de", "rondonl-de", "rondonl-nl", "typdom-de", "typdom-presto-de", "typdom-wbr-de"}


#: A word that speaks to the reader anywhere in a mail: German second person, not a word
#: played in capitals ("DU C5-D5", "DIR 12 Punkte"); Dutch second person in a sentence.
_YOU_DE = re.compile(r"\b(?:[Dd]u|[Dd]ir|[Dd]ich|[Dd]ein\w*|[Ee]uer|[Ee]ure\w*)\b")
_YOU_NL = re.compile(r"\b[Jj](?:e|ij|ou|ouw|ullie) +[a-z]")


def _plain(text: str, html: bool) -> str:
    """The words of a gallery mail: the HTML without tags and entities."""
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", text)) if html else text


def test_whole_gm_copies_speak_about_the_players():
    """Not only the private parts: nothing in the game master's copy of an Auswertung
    speaks to the reader as a player - not the shared Partie part (Presto's "Dein neuer
    Satz steht unten"), not the moves ("Alle Züge"), not the footer ("Deinen Zug bitte
    ...", "Dein neuer Satz steht oben"), which says the players' instructions about them
    ("Die Spieler schicken ihre Züge bis zum ZAT ...")."""
    assert _YOU_DE.search("Deinen Zug bitte") and not _YOU_DE.search("DU C5-D5, DIR 12 Punkte")
    bad, seen = {}, 0
    for path in sorted(GALLERY.rglob("auswertung-gm-*")):
        text = _plain(path.read_text(encoding="utf-8"), path.suffix == ".html")
        dutch = "Auswertung" not in text and "Spielleiter" not in text
        said = sorted({m.group(0) for m in (_YOU_NL if dutch else _YOU_DE).finditer(text)})
        seen += 1
        if said:
            bad[str(path.relative_to(GALLERY))] = said
    assert not bad, bad
    assert seen >= 30, seen


def _mover_sentences() -> dict[str, object]:
    """Every sentence a game writes to the mover with its sentence about the mover
    (``about_mover`` constants of the games' modules), by msgid."""
    import sys

    from bot.games import load_games
    from bot.games.verdict import MoverSentence

    load_games()
    return {v: v for name, mod in list(sys.modules.items()) if name.startswith("bot.games.") and mod
            for v in vars(mod).values() if isinstance(v, MoverSentence)}


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_gm_copy_reads_verdicts_about_the_mover(lang):
    """Every verdict a game writes to the mover that has a sentence about the mover
    (bot.games.verdict.about_mover: "Nicht auf deiner Bank" -> "Nicht auf der Bank",
    "deine Bank hat" -> "die Bank hat") reads that sentence in the game master's copy
    (the GM's audience, a verdict of another player) and speaks to no one there; the
    mover's own copy keeps the mover's sentence."""
    import string

    from bot.games.verdict import GM_ONLY, Audience, mover, verdict
    from bot.i18n import translation

    sentences = _mover_sentences()
    wanted = {"Nicht auf deiner Bank ({rack}): {missing}.", "Steine, die nicht in deinem Satz ({rack}) sind: {tiles}.",
              "Diese Karten hast du nicht auf der Hand ({hand}): {missing}.",
              "Kein gültiges Eröffnungswort: drei Karten deiner Hand, die ein Wort bilden."}
    assert wanted <= set(sentences), wanted - set(sentences)
    you = _YOU_DE if lang == "de" else _YOU_NL
    bad = {}
    for msgid in sentences.values():
        fields = {f for _, f, _, _ in string.Formatter().parse(msgid) if f}
        v = verdict("x", msgid, **{f: mover("AB") for f in fields})
        for_gm = v.render(lang, GM_ONLY, "7")
        own = v.render(lang, Audience(viewer="7"), "7")
        assert own == translation(lang).gettext(msgid).format(**{f: "AB" for f in fields})
        assert for_gm != own, msgid
        if you.search(for_gm):
            bad[msgid] = for_gm
    assert not bad, bad


def test_a_stored_verdict_reads_about_the_mover_without_its_game_loaded():
    """The game master's wording travels with the verdict (its JSON): a report stored by
    one process and rendered by another that has not imported the game (no registry
    filled at import) still reads "Nicht auf der Bank" for the game master."""
    import json
    import subprocess
    import sys

    from bot.games.typdom.engine import NOT_ON_RACK
    from bot.games.verdict import mover, verdict

    stored = json.dumps(verdict("rack", NOT_ON_RACK, rack=mover("JL"), missing=mover("Q")).to_json())
    code = ("import json, sys\n"
            "from bot.games.verdict import GM_ONLY, Audience, Verdict\n"
            "v = Verdict.from_json(json.loads(sys.argv[1]))\n"
            "assert not any(m.startswith('bot.games.typdom') for m in sys.modules), sorted(sys.modules)\n"
            "print(v.render('de', GM_ONLY, '7')); print(v.render('de', Audience(viewer='7'), '7'))\n")
    out = subprocess.run([sys.executable, "-c", code, stored], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["Nicht auf der Bank (JL): Q.", "Nicht auf deiner Bank (JL): Q."], out
