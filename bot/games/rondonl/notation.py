"""RONDO turn notation (shared/NOTATION.md "RONDO (the original)"): one line of a turn is
a word in Rondo notation (:mod:`bot.games.rondo.notation`), or one of

* ``TAUSCH X [Y ...]`` (Dutch ``RUIL``): exchange these cards before laying, each -2
  (seed 004 "Ruilactie"); cards are letters, ``?``/``*`` Joker, ``/`` wis-kaart, written
  together or apart (``TAUSCH QX``, ``TAUSCH Q X``, ``TAUSCH Q, X``);
* ``PASSE`` (Dutch ``PAS``): no word this turn (a mark, one card drawn; seed 004
  "Een beurt overslaan");
* ``VERDECKT X`` (Dutch ``BLIND X``): the beginners' rule (seed 004 "Kun je RONDO ook
  eenvoudiger spelen?"): card X is laid face down as a wis-kaart (-2), once per turn.

A line that is exactly ``PASSE``/``PAS`` is the pass; to lay the word PAS, write it with
a field (``Feld 4: PAS``) or with spaces (``P A S``). :func:`parse_line` and
:func:`format_line` are inverse. A mailed turn is several lines (:func:`turn_lines`); a
later mail replaces only the part it holds (:func:`split_turn`: exchanges and the word).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence, Union

from bot.games.base import NotationError
from bot.games.rondo.cards import JOKER, LETTER_VALUES, LOESCHER
from bot.games.rondo.notation import Move, format_move, parse_move
from bot.games.verdict import N_, Visibility, verdict

#: Keywords by kind; the first of each language is the one the bot writes.
EXCHANGE_WORDS = {"de": "TAUSCH", "nl": "RUIL"}
PASS_WORDS = {"de": "PASSE", "nl": "PAS"}
FACEDOWN_WORDS = {"de": "VERDECKT", "nl": "BLIND"}

# a keyword needs cards after it: "RUIL" or "BLIND" alone is a word to lay
_EXCHANGE = re.compile(r"^(?:tausch|tausche|tauschen|ruil|ruilen|wissel|exchange)(?:\s*:\s*|\s+)(\S.*)$", re.I)
_FACEDOWN = re.compile(r"^(?:verdeckt|blind|omgekeerd|face-?down)(?:\s*:\s*|\s+)(\S.*)$", re.I)
_PASS = re.compile(r"^(?:passe|pass|pas|passen)\s*[.!]?$", re.I)


@dataclass(frozen=True, slots=True)
class Exchange:
    """``TAUSCH``: the cards to put under the deck, one new card drawn for each."""

    cards: str


@dataclass(frozen=True, slots=True)
class FaceDown:
    """``VERDECKT``: the card laid face down as a wis-kaart (beginners' rule)."""

    card: str


@dataclass(frozen=True, slots=True)
class Pass:
    """``PASSE``: no word this turn."""


@dataclass(frozen=True, slots=True)
class Word:
    """A word in Rondo notation."""

    move: Move


Line = Union[Exchange, FaceDown, Pass, Word]


def _cards(text: str, line: str, what: str) -> str:
    s = re.sub(r"[\s,;]+", "", text).upper().replace("*", JOKER)
    if not s:
        raise NotationError(_syntax(N_("{what}: welche Karte? Zum Beispiel '{what} Q'."), what=what), line,
                            meant=True)
    bad = [c for c in s if c not in LETTER_VALUES and c not in (JOKER, LOESCHER)]
    if bad:
        raise NotationError(_syntax(N_("{what}: '{bad}' ist keine Karte (Buchstaben A-Z, ? Joker, / Löscher)."),
                                    what=what, bad=bad[0]), line, meant=True)
    return s


def _syntax(msgid: str, **params: object):
    """A ``syntax`` verdict; the RONDO engine shows it to the mover alone."""
    return verdict("syntax", msgid, seen=Visibility.PUBLIC, **params)


def parse_line(text: str) -> Line:
    """Read one line of a turn; raises :class:`NotationError` (its verdict, code ``syntax``)."""
    src = text.strip()
    if _PASS.match(src):
        return Pass()
    if m := _EXCHANGE.match(src):
        return Exchange(_cards(m.group(1), text, "TAUSCH"))
    if m := _FACEDOWN.match(src):
        card = _cards(m.group(1), text, "VERDECKT")
        if len(card) != 1:
            raise NotationError(_syntax(N_("VERDECKT: nur eine Karte je Zug darf verdeckt als Löscher liegen.")),
                                text, meant=True)
        return FaceDown(card)
    return Word(parse_move(src))


def format_line(line: Line, lang: str = "de") -> str:
    """Write ``line`` in the player notation (keywords of ``lang``: ``de`` or ``nl``)."""
    if isinstance(line, Pass):
        return PASS_WORDS[lang]
    if isinstance(line, Exchange):
        return f"{EXCHANGE_WORDS[lang]} {' '.join(line.cards)}"
    if isinstance(line, FaceDown):
        return f"{FACEDOWN_WORDS[lang]} {line.card}"
    return format_move(line.move)


def turn_lines(submitted: Sequence[str] | None) -> list[str] | None:
    """A turn's lines (stripped, the empty ones dropped): the service passes the whole
    section as one text (``multiline``); None (no mail) stays None."""
    if submitted is None:
        return None
    return [ln.strip() for text in submitted for ln in str(text).splitlines() if ln.strip()]


def split_turn(lines: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the exchange lines, the other lines) of a turn, each in the order written; an
    unreadable line goes with the word."""
    exchanges, word = [], []
    for ln in lines:
        try:
            is_exchange = isinstance(parse_line(ln), Exchange)
        except NotationError:
            is_exchange = False
        (exchanges if is_exchange else word).append(ln)
    return exchanges, word
