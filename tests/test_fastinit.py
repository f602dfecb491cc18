"""``bot.games.fastinit.frozen_maker``: the objects it makes equal those of the
dataclass ``__init__`` field by field (equality, hash, repr, type) and stay frozen, for
every class the best turn builds that way; classes it cannot make are refused."""

from __future__ import annotations

import dataclasses

import pytest

from bot.games.fastinit import frozen_maker
from bot.games.grid import Placement as Tiled
from bot.games.gridgen import GenMove
from bot.games.typdom.movegen import BestTurn
from bot.games.typdom.notation import Placement, Turn, shared_token

TOKS = (shared_token("new", "A"), shared_token("old", "B"), shared_token("blank", "E"))

CASES = [
    (Placement, 4, (5, 6, "w", TOKS)),
    (Placement, 6, (5, 6, "s", TOKS, (), 12)),
    (Turn, 2, ((Placement(1, 2, "w", TOKS),), (3, 4))),
    (Turn, 1, ((),)),
    (GenMove, 8, (1, 2, "s", ((1, 2, "A", False),), "AB", ("AB", "XAY"), 3, 1)),
    (GenMove, 7, (1, 2, "w", (), "AB", ("AB",), 3)),
    (Tiled, 4, (3, 4, "A", True)),
    (Tiled, 3, (3, 4, "B")),
    (BestTurn, 5, ("M13w AB", 7, 2, ("AB",), None)),
]


@pytest.mark.parametrize("cls, n, args", CASES)
def test_made_objects_equal_the_dataclass_init(cls, n, args):
    made, want = frozen_maker(cls, n)(*args), cls(*args)
    assert type(made) is cls
    assert made == want and repr(made) == repr(want)
    for f in dataclasses.fields(cls):
        assert getattr(made, f.name) == getattr(want, f.name), f.name
    if cls.__hash__ is not None:
        assert hash(made) == hash(want)
    with pytest.raises((dataclasses.FrozenInstanceError, AttributeError, TypeError)):
        setattr(made, dataclasses.fields(cls)[0].name, 99)


def test_classes_it_cannot_make_are_refused():
    @dataclasses.dataclass
    class Open:
        a: int

    @dataclasses.dataclass(frozen=True)
    class Checked:
        a: int

        def __post_init__(self):
            pass

    @dataclasses.dataclass(frozen=True)
    class Factory:
        a: int
        b: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class Two:
        a: int
        b: int

    for cls, n in ((Open, 1), (Checked, 1), (Factory, 1), (Two, 1), (Two, 3)):
        with pytest.raises(TypeError):
            frozen_maker(cls, n)
    assert frozen_maker(Two, 2)(1, 2) == Two(1, 2)
