"""The RONDO verdicts a player reads in the acknowledgement and the Auswertung, as data
(issue 31, :mod:`bot.games.verdict`): a code, the German msgid and parameters typed by
who may see them. The service renders them in the recipient's language from the gettext
catalogs (German source, Dutch translation; the game master's copy in the game master's
language). The line verdicts come from the engines (:mod:`bot.games.rondonl.engine`,
:mod:`bot.games.rondo.engine`); this module writes the turn's verdict, the summary, the
acknowledgement's picture and the standings note."""

from __future__ import annotations

from bot.games.rondonl.cards import EXCHANGE_PENALTY
from bot.games.verdict import N_, Verdict, Visibility, about_mover, mover, verdict
from bot.i18n import texts

# What the game master's copy reads instead of the sentences written to the mover
# (bot.games.verdict.about_mover).
NO_OPENING_WORD = about_mover(
    N_("Kein gültiges Eröffnungswort: drei Karten deiner Hand, die ein Wort bilden."),
    N_("Kein gültiges Eröffnungswort: drei Karten der Hand, die ein Wort bilden."))


def ngettext(singular: str, plural: str) -> tuple[str, str]:
    """Marks a plural pair for extraction (Babel reads ``ngettext`` calls as one plural
    message) without translating it; a :class:`Verdict` with ``plural`` picks the form."""
    return singular, plural


_PENDING = ngettext("Erst wird getauscht ({n} Karte, -{penalty} Punkte), dann gelegt: ob {word} gilt, hängt von der "
                    "gezogenen Karte ab (siehe oben). Dein Zug ist mit dieser Mail beendet; die Auswertung kommt "
                    "gleich.",
                    "Erst wird getauscht ({n} Karten, -{penalty} Punkte), dann gelegt: ob {word} gilt, hängt von der "
                    "gezogenen Karte ab (siehe oben). Dein Zug ist mit dieser Mail beendet; die Auswertung kommt "
                    "gleich.")
_EXCHANGE_ONLY = ngettext("{n} Karte getauscht, aber kein gültiges Wort: ein Strich und eine Karte vom Stapel. Dein "
                          "Zug ist damit beendet.",
                          "{n} Karten getauscht, aber kein gültiges Wort: ein Strich und eine Karte vom Stapel. Dein "
                          "Zug ist damit beendet.")


def _mine(code: str, msgid: str, plural: str | None = None, **params: object) -> Verdict:
    return verdict(code, msgid, plural=plural, seen=Visibility.MOVER, **{k: mover(v) for k, v in params.items()})


def not_player() -> Verdict:
    return verdict("player", N_("Du spielst in dieser Partie nicht mit."), seen=Visibility.MOVER)


def hand(pretty: str) -> Verdict:
    """The last line of the acknowledgement's picture: the mover's hand."""
    return _mine("hand", N_("Deine Hand: {hand}"), hand=pretty)


def opening_none() -> Verdict:
    return _mine("opening", NO_OPENING_WORD)


def opening_word(word: str, value: int) -> Verdict:
    return _mine("opening_word", N_("Eröffnungswort {word}, Wert {value}."), word=word, value=value)


def summary_opening(word: str, value: int) -> Verdict:
    return _mine("opening_word", N_("Eröffnungswort {word}, Wert {value}"), word=word, value=value)


def turn_word(word: str, score: int) -> Verdict:
    return _mine("valid", N_("{word} gilt: {score} Punkte. Dein Zug ist damit beendet."), word=word, score=score)


def summary_word(word: str, score: int) -> Verdict:
    return _mine("valid", N_("{word}, {score} Punkte"), word=word, score=score)


def turn_pass() -> Verdict:
    return _mine("pass", N_("Du passt: ein Strich und eine Karte vom Stapel. Dein Zug ist damit beendet."))


def turn_invalid() -> Verdict:
    return _mine("invalid", N_("Kein gültiges Wort. Du kannst bis zum ZAT einen neuen Zug schicken; sonst gibt es "
                               "einen Strich und eine Karte vom Stapel."))


def exchange_pending(n: int, word: str) -> Verdict:
    """The verdict of a turn whose word needs a card the exchange may bring: exchanges
    first (the rules' order, whatever the order of the lines), then the word."""
    return _mine("pending", _PENDING[0], _PENDING[1], n=n, penalty=EXCHANGE_PENALTY * n, word=word)


def exchange_only(n: int) -> Verdict:
    """The verdict of a turn with exchanges but no valid word."""
    return _mine("exchange", _EXCHANGE_ONLY[0], _EXCHANGE_ONLY[1], n=n)


def marks_note(lang: str, n: int) -> str:
    """``  2 Striche`` (the marks beside a player's name), in ``lang``."""
    return "  " + texts(lang).ngettext("{n} Strich", "{n} Striche", n)


def picture_line(r) -> Verdict:
    """One line of the acknowledgement's picture, for the mover:
    ``1. TAUSCH Q – Tausch Q: -2 Punkte.`` (``r``: a
    :class:`~bot.games.rondonl.engine.LineResult`); no debug marks such as ``[ok]``: the
    verdict says whether the line counts (issue 32)."""
    return _mine("line", N_("{n}. {text} – {verdict}"), n=r.index + 1, text=r.text, verdict=r.verdict)
