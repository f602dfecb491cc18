"""The RONDO deck and hands (seed 004, "Inhoud", "De kaarten", "Vorbereiding").

Seed 004 names 110 cards of three kinds (letter cards, joker-kaarten worth 1, wis-kaarten
worth -2) but prints neither the letter counts nor the letter values ("in de onderste twee
hoeken [staat] hoeveel punten deze kaarten waard zijn"). Decision (docs/rules/rondonl.md;
RULES.md "RONDO, the original": "the letter distribution follows the Dutch
edition where known, else the German deck"): the German deck of seed 000 II.1 a-b, i.e.
its 94 letter cards with their values and its 6 Joker, plus 10 wis-kaarten, which makes
the edition's 110 cards. Card codes are those of Rondo: ``A``-``Z``, ``?`` Joker,
``/`` wis-kaart (Loescher).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from bot.games.rondo.cards import (JOKER, JOKER_COUNT, JOKER_VALUE, LETTER_COUNTS, LETTER_VALUES, LOESCHER,
                                   LOESCHER_VALUE)

#: Seed 004 "Inhoud": 110 cards; 94 letters + 6 Joker from seed 000, so 10 wis-kaarten.
DECK_SIZE = 110
WIS_COUNT = DECK_SIZE - sum(LETTER_COUNTS.values()) - JOKER_COUNT
#: Seed 004 "Vorbereiding": "Iedere speler krijgt 7 kaarten"; "Kaarten aanvullen tot 7".
HAND_SIZE = 7
#: Seed 004 "Ruilactie": "voor deze ruilactie wel twee minpunten".
EXCHANGE_PENALTY = 2
#: Seed 004 "Vaststellen wie begint": a word of three letters.
OPENING_LETTERS = 3

_ORDER = {ch: i for i, ch in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ" + JOKER + LOESCHER)}


def full_deck() -> list[str]:
    """The 110 cards: 94 letter cards, 6 Joker, 10 wis-kaarten; sorted (shuffle it)."""
    deck = [ch for ch, n in LETTER_COUNTS.items() for _ in range(n)]
    return deck + [JOKER] * JOKER_COUNT + [LOESCHER] * WIS_COUNT


def card_value(card: str) -> int:
    """Points of a card code: the letter value (seed 000 II.1 a), 1 for a Joker, -2 for a
    wis-kaart (seed 004 "De kaarten"). KeyError for anything else."""
    if card == JOKER:
        return JOKER_VALUE
    if card == LOESCHER:
        return LOESCHER_VALUE
    return LETTER_VALUES[card]


def sort_hand(cards: Iterable[str]) -> str:
    """A hand as a string in the order A-Z, Joker, wis-kaart (``"AEKN?/"``)."""
    return "".join(sorted(cards, key=lambda ch: _ORDER.get(ch, 99)))


def pretty_hand(cards: str) -> str:
    """With values, as the seeds write cards: ``A2 E1 K7 ?1 /-2``."""
    return " ".join(f"{c}{card_value(c)}" for c in sort_hand(cards))


def take(hand: str, cards: Iterable[str]) -> str | None:
    """``hand`` without ``cards`` (a multiset); None when the hand lacks one of them."""
    left = Counter(hand)
    for c in cards:
        if left[c] <= 0:
            return None
        left[c] -= 1
    return sort_hand(left.elements())


def missing(hand: str, cards: Iterable[str]) -> str:
    """The cards of ``cards`` that ``hand`` does not hold (as many times as missing)."""
    need = Counter(cards)
    need.subtract(Counter(hand))
    return sort_hand(+need)
