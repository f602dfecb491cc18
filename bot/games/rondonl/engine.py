"""RONDO turns, judged purely (seed 004; shared/RULES.md "RONDO, the original").

The word rules, Joker, wis-kaarten (Loescher) and the scoring are Rondo's
(:func:`bot.games.rondo.engine.evaluate`, seed 000 II.1-II.3): a word is judged on the
row against the player's hand, given as a :class:`~bot.games.rondo.cards.Vorgabe` whose
wis-kaarten are single cards (``loescher_reusable=False``). What RONDO adds, and this
module judges:

* a turn (:func:`judge_turn`): exchanges first (``TAUSCH``: each card under the deck, a
  new one drawn from the top, -2 each, seed 004 "Ruilactie"; they happen even when no
  word follows), then the word lines in order, the first valid one counts (the main word,
  then the Ersatzwoerter); ``PASSE`` ends the trying. After a word the hand is refilled
  to 7 (seed 004 "Kaarten aanvullen tot 7"); with no word (PASSE, nothing valid, or NMR)
  the player gets a mark (streep) and draws one card, so a hand may grow past 7 (seed 004
  "Beurt overslaan = kaart pakken");
* the beginners' rule (``VERDECKT X``, seed 004 "Kun je RONDO ook eenvoudiger spelen?"):
  once per turn any card X of the hand may be laid face down as a wis-kaart (-2): the word
  is judged with X replaced by a wis-kaart; X is used only when the word lays a new one;
* the opening (:func:`judge_opening`, seed 004 "Vaststellen wie begint"): a three-letter
  word from the first hand, worth the values of its cards;
* the move search (:func:`best_word`): the best word a hand allows on a row.

Decisions where seed 004 is silent (docs/rules/rondonl.md): the cards named in
TAUSCH lines must all be in the hand before exchanging (a line naming a card not held is
refused whole); an exchange with an empty deck is refused (it would draw the same card
back); a card drawn from an empty deck is simply not drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from bot.games.base import NotationError
from bot.games.rondo.cards import LOESCHER, Row, Vorgabe
from bot.games.rondo.engine import Outcome, Position, WordList, evaluate, valid_verdict
from bot.games.rondo.movegen import best_moves, ranked_moves
from bot.games.verdict import N_, Param, Verdict, Visibility, about_mover, mover, public, verdict
from bot.games.rondonl.cards import (EXCHANGE_PENALTY, HAND_SIZE, OPENING_LETTERS, card_value, missing, sort_hand,
                                     take)
from bot.games.rondonl.notation import Exchange, FaceDown, Pass, Word, parse_line

# What the game master's copy reads instead of the sentences written to the mover
# (bot.games.verdict.about_mover).
NOT_IN_HAND = about_mover(
    N_("Diese Karten hast du nicht auf der Hand ({hand}): {missing}."),
    N_("Diese Karten sind nicht auf der Hand ({hand}): {missing}."))
SWAP_NEEDS = about_mover(
    N_("Braucht {cards}. Getauscht wird vor dem Legen (Spielregel), in welcher Zeile der Tausch auch steht: das "
       "Wort gilt nur, wenn du beim Tausch {cards} ziehst; sonst ein Strich und eine Karte vom Stapel."),
    N_("Braucht {cards}. Getauscht wird vor dem Legen (Spielregel), in welcher Zeile der Tausch auch steht: das "
       "Wort gilt nur, wenn beim Tausch {cards} gezogen wird; sonst ein Strich und eine Karte vom Stapel."))
OPENING_FROM_HAND = about_mover(
    N_("In der Eröffnung zählt nur ein Wort aus drei Karten deiner Hand."),
    N_("In der Eröffnung zählt nur ein Wort aus drei Karten der Hand."))


@dataclass
class LineResult:
    """What one line of a turn came to.

    ``kind``: ``word``, ``exchange``, ``facedown``, ``pass`` or ``syntax``; ``valid``;
    ``reason`` (a Rondo reason code of shared/conformance/README.md, or ``hand`` for
    cards not in the hand, ``beginners`` for VERDECKT without the beginners' rule,
    ``once`` for a second VERDECKT, ``deck`` for an exchange with an empty deck,
    ``opening`` for a line that is no opening word, ``pending`` for a word that needs
    cards an exchange may bring); ``outcome`` (the Rondo :class:`Outcome` of a word);
    ``cards`` (the cards of an exchange or VERDECKT line); ``facedown`` (True when the
    counted word uses the VERDECKT card); ``verdict`` (why, as data: the Rondo engine's
    verdict or this module's, every one seen by the mover alone, for it is judged
    against their hand: :func:`own`).

    Every verdict's German msgid is in the gettext catalog with its Dutch translation
    (issue 31): the text is rendered in the recipient's language."""

    index: int
    text: str
    kind: str
    valid: bool
    reason: str | None = None
    verdict: Verdict | None = None
    outcome: Outcome | None = None
    cards: str = ""
    facedown: bool = False

    @property
    def message(self) -> str:
        """The verdict in German, as the mover reads it (tests and logs)."""
        return self.verdict.text("de") if self.verdict is not None else ""


def own(v: Verdict) -> Verdict:
    """``v`` seen by the mover alone, every parameter too: a line of a turn is judged
    against the mover's hand, so what it says, and in which order its checks failed,
    tells what the hand holds (issue 31)."""
    return Verdict(v.code, v.msgid, {k: Param(p.value, Visibility.MOVER) for k, p in v.params.items()},
                   v.plural, Visibility.MOVER)


def _mine(code: str, msgid: str, **params: object) -> Verdict:
    """A verdict for the mover alone (its parameters too)."""
    return verdict(code, msgid, seen=Visibility.MOVER, **{k: mover(v) for k, v in params.items()})


#: What the mover and everybody read of a line after the counted one (or PASSE).
NOT_TRIED_LINE = N_("Nicht mehr versucht.")


def passed_verdict() -> Verdict:
    """PASSE as every player may read it."""
    return verdict("pass", N_("Passe: kein Wort, ein Strich, eine Karte."), seen=Visibility.PUBLIC)


def opening_verdict(word: str, value: int) -> Verdict:
    """An opening word as every player may read it once the opening is decided."""
    return verdict("opening_word", N_("{word}: Wert {value}"), seen=Visibility.PUBLIC, word=public(word),
                   value=public(value))


@dataclass
class Turn:
    """The result of one player's turn.

    ``lines``: a :class:`LineResult` per line; ``counted``: index of the counted line
    (the word laid, or PASSE) or None; ``word``: the counted word's :class:`Outcome`;
    ``passed``; ``exchanged``: cards put under the deck; ``exchange_drawn``: cards drawn
    for them; ``facedown``: the card laid face down, if any; ``used``: the hand cards the
    word placed; ``score``: the word's points minus 2 per exchange (seed 004: the
    exchange costs even without a word); ``mark``: True when no word was laid
    (streep); ``drawn``: cards drawn after the word (refill) or for the mark;
    ``hand``, ``deck``, ``row``: after the turn."""

    lines: list[LineResult]
    counted: int | None
    word: Outcome | None
    passed: bool
    exchanged: str
    exchange_drawn: str
    facedown: str | None
    used: str
    score: int
    mark: bool
    drawn: str
    hand: str
    deck: str
    row: Row
    complete: bool = False


def hand_vorgabe(hand: str) -> Vorgabe:
    """A hand as the cards a move may place: each wis-kaart is one card (seed 004)."""
    return Vorgabe(sort_hand(hand), loescher_reusable=False)


def _word_on(row: Row, hand: str, move: Any, lexicon: WordList, facedown: str | None) -> tuple[Outcome, bool]:
    """Judge a word against ``hand``; with a VERDECKT card, first with that card turned
    into a wis-kaart (used only when the word lays a new wis-kaart). Returns
    ``(outcome, facedown_used)``."""
    if facedown is not None:
        rest = take(hand, facedown)
        if rest is not None:
            out = evaluate(Position(row, hand_vorgabe(rest + LOESCHER)), move, lexicon)
            if out.valid and out.new_loescher >= 1:
                return out, True
    return evaluate(Position(row, hand_vorgabe(hand)), move, lexicon), False


def used_cards(out: Outcome, facedown: str | None) -> str:
    """The hand cards a valid word places: its letters and Joker, one card per new
    wis-kaart, the VERDECKT card standing in for one of them."""
    cards = out.new_cards.replace(LOESCHER, "") + LOESCHER * out.new_loescher
    if facedown is not None and out.new_loescher >= 1:
        cards = cards.replace(LOESCHER, "", 1) + facedown
    return sort_hand(cards)


def _draw(hand: str, deck: str, n: int) -> tuple[str, str, str]:
    """Draw up to ``n`` cards from the top of ``deck``: ``(hand, deck, drawn)``."""
    n = max(0, min(n, len(deck)))
    drawn = deck[:n]
    return sort_hand(hand + drawn), deck[n:], drawn


def judge_turn(row: Row, hand: str, deck: str, lines: Sequence[str] | None, lexicon: WordList, *,
               beginners: bool = False, commit: bool = True) -> Turn:
    """Judge one turn on ``row`` for the player holding ``hand``, ``deck`` top first.

    ``lines``: the turn's lines as written (exchanges, VERDECKT, words, PASSE in any
    order; words and PASSE are tried in the order written), or None for NMR.
    ``commit=False`` judges without drawing (the acknowledgement: the exchanged cards are
    not known yet, so a word is judged against the cards the player keeps and a word
    that needs more is ``pending``); ``Turn.complete`` then says whether the turn is
    over once this mail counts (a valid word, PASSE, or an exchange: an exchange cannot
    be taken back, seed 004 "Ruilactie").
    Never raises for bad input. Source: seed 004 "Het spelverloop" to "Ruilactie".
    """
    results: list[LineResult] = []
    parsed: list[tuple[int, str, Any]] = []
    for i, text in enumerate(lines or ()):
        try:
            parsed.append((i, text, parse_line(text)))
        except NotationError as exc:
            results.append(LineResult(i, text, "syntax", False, "syntax", own(exc.verdict)))

    # -- exchanges, and the VERDECKT card --------------------------------------------
    kept = hand
    exchanged = ""
    facedown: str | None = None
    for i, text, line in parsed:
        if isinstance(line, Exchange):
            rest = take(kept, line.cards)
            if rest is None:
                results.append(LineResult(i, text, "exchange", False, "hand",
                                          _mine("hand", N_("Nicht auf der Hand: {missing} (Hand {hand})."),
                                                missing=missing(kept, line.cards), hand=hand),
                                          cards=line.cards))
                continue
            if not deck:
                results.append(LineResult(i, text, "exchange", False, "deck",
                                          _mine("deck", N_("Der Stapel ist leer: kein Tausch mehr möglich.")),
                                          cards=line.cards))
                continue
            kept, exchanged = rest, exchanged + line.cards
            results.append(LineResult(i, text, "exchange", True, None,
                                      _mine("exchange", N_("Tausch {cards}: -{penalty} Punkte."),
                                            cards=" ".join(line.cards), penalty=EXCHANGE_PENALTY * len(line.cards)),
                                      cards=line.cards))
        elif isinstance(line, FaceDown):
            if not beginners:
                results.append(LineResult(i, text, "facedown", False, "beginners",
                                          _mine("beginners", N_("Verdeckte Karten gibt es nur mit der Anfängerregel "
                                                                "der Liga.")), cards=line.card))
            elif facedown is not None:
                results.append(LineResult(i, text, "facedown", False, "once",
                                          _mine("once", N_("Nur eine Karte je Zug darf verdeckt liegen.")),
                                          cards=line.card))
            elif line.card not in kept:
                results.append(LineResult(i, text, "facedown", False, "hand",
                                          _mine("hand", N_("{card} ist nicht auf der Hand ({hand})."),
                                                card=line.card, hand=hand), cards=line.card))
            else:
                facedown = line.card
                results.append(LineResult(i, text, "facedown", True, None,
                                          _mine("facedown", N_("{card} verdeckt als Löscher (-2), wenn das Wort "
                                                               "einen braucht."), card=line.card),
                                          cards=line.card))

    # -- the exchanges happen (seed 004: under the deck, a new card from the top) ------
    cur_hand, cur_deck, got = hand, deck, ""
    if commit:
        for c in exchanged:
            rest = take(cur_hand, c)
            assert rest is not None
            cur_deck = cur_deck + c
            cur_hand, cur_deck, one = _draw(rest, cur_deck, 1)
            got += one
    else:
        cur_hand = kept

    # -- words and PASSE, in order ------------------------------------------------------
    counted: int | None = None
    word: Outcome | None = None
    passed = False
    used_facedown = False
    for i, text, line in parsed:
        if isinstance(line, Pass):
            if counted is None:
                counted, passed = i, True
                results.append(LineResult(i, text, "pass", True, None, passed_verdict()))
            else:
                results.append(LineResult(i, text, "pass", False, "counted", _mine("counted", NOT_TRIED_LINE)))
        elif isinstance(line, Word):
            if counted is not None:
                results.append(LineResult(i, text, "word", False, "counted", _mine("counted", NOT_TRIED_LINE)))
                continue
            out, fd = _word_on(row, cur_hand, line.move, lexicon, facedown)
            if out.valid:
                counted, word, used_facedown = i, out, fd
                results.append(LineResult(i, text, "word", True, None, valid_verdict(out.word or "", out.score or 0),
                                          outcome=out, facedown=fd))
            elif not commit and exchanged and out.reason == "vorgabe":
                need = out.missing
                results.append(LineResult(i, text, "word", False, "pending",
                                          _mine("pending", SWAP_NEEDS,
                                                cards=need),
                                          outcome=out, cards=need))
            else:
                results.append(LineResult(i, text, "word", False, out.reason, _line_verdict(out, cur_hand),
                                          outcome=out, cards=out.missing))
    results.sort(key=lambda r: r.index)

    penalty = EXCHANGE_PENALTY * len(exchanged)
    new_row, used, drawn = row, "", ""
    fd_card = facedown if used_facedown else None
    if word is not None:
        used = used_cards(word, fd_card)
        new_row = word.row  # type: ignore[assignment]
        after = take(cur_hand, used)
        assert after is not None, (cur_hand, used)
        cur_hand = after
        if commit:
            cur_hand, cur_deck, drawn = _draw(cur_hand, cur_deck, HAND_SIZE - len(cur_hand))
        score = (word.score or 0) - penalty
    else:
        if commit:
            cur_hand, cur_deck, drawn = _draw(cur_hand, cur_deck, 1)
        score = -penalty
    complete = word is not None or passed or bool(exchanged)
    return Turn(lines=results, counted=counted, word=word, passed=passed, exchanged=exchanged,
                exchange_drawn=got, facedown=fd_card, used=used, score=score, mark=word is None,
                drawn=drawn, hand=sort_hand(cur_hand), deck=cur_deck, row=new_row, complete=complete)


def _line_verdict(out: Outcome, hand: str) -> Verdict:
    """The verdict of a word that is not valid, for the mover alone: the Rondo engine's
    (:func:`own`), but for cards not held, which the Rondo engine calls "not in the
    Vorgabe": in RONDO they are not in the hand."""
    if out.reason == "vorgabe":
        return _mine("hand", NOT_IN_HAND, hand=hand,
                     missing=out.missing)
    assert out.verdict is not None
    return own(out.verdict)


@dataclass
class Opening:
    """A player's opening word (seed 004 "Vaststellen wie begint"): ``lines`` judged,
    ``counted`` index, ``word``, ``value`` (the values of its three cards; None: none)."""

    lines: list[LineResult]
    counted: int | None = None
    word: str | None = None
    value: int | None = None
    notation: str | None = None
    extra: dict = field(default_factory=dict)


def judge_opening(hand: str, lines: Sequence[str] | None, lexicon: WordList) -> Opening:
    """Judge a player's opening lines: the first valid three-letter word made from
    ``hand`` (letters and Joker; Rondo notation, e.g. ``KAT`` or ``K*AT``) counts, worth
    the sum of its card values (Joker 1; no bonus). Never raises."""
    results: list[LineResult] = []
    op = Opening(results)
    empty = Row.empty()
    for i, text in enumerate(lines or ()):
        try:
            line = parse_line(text)
        except NotationError as exc:
            results.append(LineResult(i, text, "syntax", False, "syntax", own(exc.verdict)))
            continue
        if not isinstance(line, Word):
            results.append(LineResult(i, text, "opening", False, "opening",
                                      _mine("opening", OPENING_FROM_HAND)))
            continue
        if op.counted is not None:
            results.append(LineResult(i, text, "word", False, "counted", _mine("counted", NOT_TRIED_LINE)))
            continue
        out = evaluate(Position(empty, hand_vorgabe(hand.replace(LOESCHER, "")), 1), line.move, lexicon)
        if out.valid and len(out.word or "") == OPENING_LETTERS:
            value = (out.score or 0) - (out.bonus or 0)
            op.counted, op.word, op.value = i, out.word, value
            op.notation = out.notation(Position(empty, hand_vorgabe(hand), 1))
            results.append(LineResult(i, text, "opening", True, None, opening_verdict(out.word or "", value),
                                      outcome=out))
        else:
            why = (_line_verdict(out, hand) if not out.valid else
                   _mine("extension", N_("Das Eröffnungswort hat genau drei Buchstaben.")))
            results.append(LineResult(i, text, "word", False, out.reason or "extension", why, outcome=out,
                                      cards=out.missing))
    return op


def best_word(row: Row, hand: str, lexicon: WordList, *, beginners: bool = False) -> dict | None:
    """The best word ``hand`` allows on ``row`` (most points, then the stable order of
    :func:`bot.games.rondo.movegen.best_moves`); with the beginners' rule also with one
    card laid face down: one search with an extra wis-kaart, keeping the moves that leave
    a card of the hand to turn over (the highest-valued one is named).
    ``{"notation", "score", "word", "row", "facedown"}`` or None."""
    pos = Position(row, hand_vorgabe(hand))
    best = best_moves(pos, lexicon, 1)
    o, fd = (best[0], None) if best else (None, None)
    if beginners:
        wis = hand.count(LOESCHER)
        for cand in ranked_moves(Position(row, hand_vorgabe(hand + LOESCHER)), lexicon):  # judged as taken
            if o is not None and (cand.score or 0) <= (o.score or 0):
                break  # sorted best first: nothing better with a face-down card
            if cand.new_loescher <= wis:
                continue
            rest = take(hand, cand.new_cards.replace(LOESCHER, "") + LOESCHER * wis)
            spare = [c for c in (rest or "") if c != LOESCHER]
            if spare:
                o, fd = cand, max(spare, key=lambda c: (card_value(c), c))
                break
    if o is None:
        return None
    return {"notation": o.notation(pos), "score": o.score, "word": o.word, "row": o.row.code,  # type: ignore[union-attr]
            "facedown": fd}
