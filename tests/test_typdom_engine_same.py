"""``typdom.engine.evaluate`` (its passes over the tokens fused, placed tiles made by
``fastinit``; branch i35-med) judges every turn exactly as the engine before
(``tests/typdom_engine_ref.py``, main at 8d82cb0): the whole Outcome (valid, reason,
verdict, message, notes, laid tiles and words, score, notation, rack after) on valid
turns and on turns broken in every way the checks know (rack, off-board, mismatch,
gap, jolly, not-connected, no-tile, second, word, lenient readings, purchases, syntax)."""

from __future__ import annotations

import random

from bot.games.typdom import engine
from bot.games.typdom import movegen as mg
from bot.games.typdom.notation import Turn
from bot.games.typdom.table import Table
from bot.games.typdom.tiles import full_set
from tests import typdom_engine_ref as ref
from tests.typdom_tables import lexicon, tables  # noqa: F401 (fixtures)


def _broken(text: str, rng: random.Random) -> str:
    """``text`` (a placement ``M13w WORD``) changed in one of many ways."""
    coord, word = text.split(" ", 1)
    k = rng.randrange(len(word))
    how = rng.randrange(10)
    if how == 0:  # an old letter written upper case (lenient), or a new one lower case
        return f"{coord} {word[:k]}{word[k].swapcase()}{word[k + 1:]}"
    if how == 1:  # another letter
        return f"{coord} {word[:k]}{rng.choice('AEQXZ')}{word[k + 1:]}"
    if how == 2:  # a gap
        return f"{coord} {word[:k]}.{word[k + 1:]}"
    if how == 3:  # a Jolly for a letter
        return f"{coord} {word[:k]}*{word[k].upper()}{word[k + 1:]}" if word[k] != "*" else text
    if how == 4:  # the word moved a square
        col, row, d = coord[0], int(coord[1:-1]), coord[-1]
        return f"{col}{max(1, min(26, row + rng.choice((-1, 1))))}{d} {word}"
    if how == 5:  # the other direction, or none
        return f"{coord[:-1]}{rng.choice(('w', 's', ''))} {word}"
    if how == 6:  # every letter old: nothing laid
        return f"{coord} {word.replace('*', '').lower()}"
    if how == 7:  # off the table
        return f"Y{coord[1:]} {word}"
    if how == 8:  # points claimed
        return f"{text} {rng.randrange(40)}"
    return text


def _same(rows, rack, turn, lexicon, variant):
    table = Table.from_rows(rows)
    new = engine.evaluate(table, rack, turn, lexicon, variant)
    old = ref.evaluate(table, rack, turn, lexicon, variant)
    assert new == old, (turn, new, old)
    assert (new.valid, new.reason, new.message, new.notation, new.rack_after) == \
        (old.valid, old.reason, old.message, old.notation, old.rack_after)
    if new.valid:
        assert (new.score, new.tiles, new.words) == (old.score, old.tiles, old.words)
    assert [n.code for n in new.notes] == [n.code for n in old.notes]
    return new


def test_evaluate_equals_the_engine_before(lexicon, tables):  # noqa: F811
    rng = random.Random(38)
    bag = full_set()
    reasons: dict = {}
    n = 0
    for rows, rack in tables:
        jollys = mg._jollys(rows)
        moves = mg.placements(rows, rack, lexicon)
        rng.shuffle(moves)
        for m in moves[:25]:
            text = mg.gen_notation(m, rows)
            lines = [text, _broken(text, rng), _broken(_broken(text, rng), rng)]
            if len(moves) > 1:
                lines.append(f"{text}; {mg.gen_notation(moves[0], rows)}")
            if jollys:
                r, c, _letter = rng.choice(jollys)
                lines.append(f"JOLLY {Table.coord(r, c)}; {lines[rng.randrange(len(lines))]}")
            for line in lines:
                for variant in ("point", "kreuzwort"):
                    out = _same(rows, rack, line, lexicon, variant)
                    reasons[out.reason] = reasons.get(out.reason, 0) + 1
                    n += 1
            # the Turn the move generator hands over (no parse) and a foreign rack
            _same(rows, rack, Turn(placements=(mg.gen_placement(m),)), lexicon, "point")
            other = "".join(rng.sample(bag, 6))
            _same(rows, other, text, lexicon, "point")
    for line in ("KAUFEN", "KAUFEN 2", "KAUFEN 4 rot", "M13w", "JOLLY Z99; M13w AB", "A1w ABC; B2s DE; C3w FG"):
        for variant in ("point", "kreuzwort"):
            _same(tables[3][0], tables[3][1], line, lexicon, variant)
    _same(["." * 25] * 25, "ABEN", "M13w BEN", lexicon, "point")
    _same(["." * 25] * 25, "ABEN", "A1w BEN", lexicon, "point")
    assert n > 2500
    # every reason code of the checks came up (None: valid)
    assert {None, "rack", "off-board", "mismatch", "gap", "jolly", "not-connected", "no-tile", "second",
            "word"} <= set(reasons), reasons
