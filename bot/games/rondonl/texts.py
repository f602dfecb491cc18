"""The RONDO texts a player reads in the acknowledgement and the Auswertung, in the
league's language (German msgids, translations in the gettext catalogs, bot.i18n). The
German line messages come from the engines; the Dutch ones are written here per reason
code (shared/conformance/README.md and :class:`bot.games.rondonl.engine.LineResult`)."""

from __future__ import annotations

import textwrap

from bot.games.rondonl.cards import EXCHANGE_PENALTY
from bot.i18n import N_, texts

TEXTS: dict[str, str] = {
    "not_player": N_("Du spielst in dieser Partie nicht mit."),
    "summary_opening": N_("Eröffnungswort {word}, Wert {value}"),
    "summary_word": N_("{word}, {score} Punkte"),
    "hand": N_("Deine Hand: {hand}"),
    "opening_none": N_("Kein gültiges Eröffnungswort: drei Karten deiner Hand, die ein Wort bilden."),
    "opening_word": N_("Eröffnungswort {word}, Wert {value}."),
    "turn_word": N_("{word} gilt: {score} Punkte. Dein Zug ist damit beendet."),
    "turn_pass": N_("Du passt: ein Strich und eine Karte vom Stapel. Dein Zug ist damit beendet."),
    "turn_invalid": N_("Kein gültiges Wort. Du kannst bis zum ZAT einen neuen Zug schicken; sonst gibt es "
                       "einen Strich und eine Karte vom Stapel."),
}


def marks_note(lang: str, n: int) -> str:
    """``  2 Striche`` (the marks beside a player's name)."""
    return "  " + texts(lang).ngettext("{n} Strich", "{n} Striche", n)


def exchange_pending(lang: str, n: int, word: str) -> str:
    """The verdict of a turn whose word needs a card the exchange may bring: exchanges
    first (the rules' order, whatever the order of the lines), then the word."""
    return texts(lang).ngettext(
        "Erst wird getauscht ({n} Karte, -{penalty} Punkte), dann gelegt: ob {word} gilt, hängt von der "
        "gezogenen Karte ab (siehe oben). Dein Zug ist mit dieser Mail beendet; die Auswertung kommt gleich.",
        "Erst wird getauscht ({n} Karten, -{penalty} Punkte), dann gelegt: ob {word} gilt, hängt von der "
        "gezogenen Karte ab (siehe oben). Dein Zug ist mit dieser Mail beendet; die Auswertung kommt gleich.",
        n, penalty=EXCHANGE_PENALTY * n, word=word)


def exchange_only(lang: str, n: int) -> str:
    """The verdict of a turn with exchanges but no valid word."""
    return texts(lang).ngettext("{n} Karte getauscht, aber kein gültiges Wort: ein Strich und eine Karte vom "
                                "Stapel. Dein Zug ist damit beendet.",
                                "{n} Karten getauscht, aber kein gültiges Wort: ein Strich und eine Karte vom "
                                "Stapel. Dein Zug ist damit beendet.", n)


_NL_REASONS = {
    "syntax": "Regel niet leesbaar: verwacht wordt [Veld N:] KAARTEN [PUNTEN], bv. 'katER', of RUIL X, PAS.",
    "position": "Ligging onduidelijk: geef het veld aan, bv. 'Veld 3: ...'.",
    "vorgabe": "Deze kaarten heb je niet in je hand: {cards}.",
    "hand": "Deze kaart(en) heb je niet in je hand: {cards}.",
    "unchanged": "Het woord is niet veranderd: minstens één letter moet veranderen of erbij komen.",
    "no-old-letter": "Er moet minstens één letter van het vorige woord blijven liggen.",
    "extension": "Te lang: het woord mag per beurt maar één vak groeien (vakken 1-9); het eerste woord "
                 "heeft drie letters op de middelste vakken.",
    "loescher": "Een wis-kaart mag alleen een letter aan het begin of einde van het woord bedekken.",
    "too-short": "Het woord heeft minder dan drie letters.",
    "word": "{word} staat niet in het woordenboek.",
    "deck": "De stapel is leeg: ruilen kan niet meer.",
    "beginners": "Blind leggen mag alleen met de beginnersregel van de competitie.",
    "once": "Maar één kaart per beurt mag blind liggen.",
    "counted": "Niet meer geprobeerd.",
    "pending": "Heeft {cards} nodig. Er wordt geruild voor het leggen (spelregel), in welke regel de ruil ook "
               "staat: het woord telt alleen als je bij het ruilen {cards} trekt; anders een streep en een kaart "
               "van de stapel.",
    "opening": "In de opening telt alleen een woord van drie kaarten uit je hand.",
}


def t(lang: str, key: str, **kw: object) -> str:
    """Text ``key`` in ``lang`` (its gettext catalog, bot.i18n; German is the source)."""
    return texts(lang).gettext(TEXTS[key], **kw)


def line_message(lang: str, r) -> str:
    """The message for one judged line (:class:`~bot.games.rondonl.engine.LineResult`)."""
    if lang != "nl":
        return r.message
    if r.valid:
        if r.kind == "exchange":
            return f"Ruil {' '.join(r.cards)}: -{EXCHANGE_PENALTY * len(r.cards)} punten."
        if r.kind == "facedown":
            return f"{r.cards} blind als wis-kaart (-2), als het woord er een nodig heeft."
        if r.kind == "pass":
            return "Pas: geen woord, een streep, een kaart."
        if r.kind == "opening" and r.outcome is not None:
            return f"{r.outcome.word}: waarde {(r.outcome.score or 0) - (r.outcome.bonus or 0)}"
        o = r.outcome
        if o is not None and o.bonus is not None and r.kind == "word" and o.row is not None and o.word:
            return f"{o.word}: {o.score} punten"
        return r.message
    word = getattr(r.outcome, "word", None) or ""
    if r.reason == "word" and r.outcome is not None and not word:
        word = r.text.upper()
    return _NL_REASONS.get(r.reason or "", r.message).format(cards=r.cards, word=word or r.text.upper())


def line_verdict(lang: str, r) -> str:
    """One line of the acknowledgement picture: ``1. TAUSCH Q -> Tausch Q: -2 Punkte.``"""
    mark = "ok" if r.valid else ("?" if r.reason == "pending" else "--")
    return f"{r.index + 1}. {r.text} [{mark}] {line_message(lang, r)}"


#: The width of a verdict line in the acknowledgement's picture (indented by 6 there).
PICTURE_WIDTH = 66


def verdict_lines(lang: str, r) -> list[str]:
    """:func:`line_verdict` wrapped for the picture: continuation lines under the text
    after the line number, no word broken."""
    text = line_verdict(lang, r)
    indent = " " * (len(str(r.index + 1)) + 2)
    return textwrap.wrap(text, PICTURE_WIDTH, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False) or [text]
