"""Typ-Dom's phase (b) over the GADDAG (issue 35: bot/games/gaddag.py,
``TouchSearcher.use_gaddag``, docs/development/gaddag-plan.md): each line's words read
from the first square they must reach outwards list exactly the records of
``gridgen.search`` with ``touch`` (and of the TouchSearcher by anchors), on self-played
tables with large racks holding both Jollys, with the Kreuzwort-Spiel's tile counts and
Point-Typ-Dom's thresholds."""

from __future__ import annotations

import random

import pytest

from bot.games.gaddag import build_gaddag, compiled_gaddag_for
from bot.games import _gridcore, gridgen
from bot.games.typdom import movegen as mg
from bot.games.typdom.tiles import full_set, sort_rack
from tests import typdom_tables
from tests.typdom_tables import _against_reference, _laid, _large_racks, _queries

lexicon, tables = typdom_tables.lexicon, typdom_tables.tables  # (the module fixtures)


def _moves(raws):
    return sorted(map(gridgen.to_move, raws), key=repr)


@pytest.mark.parametrize("sizes", [(5, 9), (17, 19)])
def test_gaddag_touch_search_equals_the_search(lexicon, tables, sizes):
    root = gridgen.graph_root(lexicon)
    groot = compiled_gaddag_for(lexicon)
    rng = random.Random(f"gaddag-{sizes}")
    letters = [c for c in full_set() if c.isalpha()]
    asked = found = 0
    for rows, _dealt in tables[4::4]:
        for n in sizes:
            rack = sort_rack(["?", "#"] + rng.sample(letters, n - 2))
            tg = _gridcore.TouchSearcher(rows, root, mg.SPEC)
            tg.use_gaddag(groot)
            ts = _gridcore.TouchSearcher(rows, root, mg.SPEC)
            for m_tiles, _s, _nt, rack2 in _queries(rows, rack, root, rng, 5):
                rows2, touch = _laid(rows, m_tiles)
                for thr, k in ((-1, 0), (-1, 3), (-1, 5), (-1, 8), (-1, 11), (15, 0), (30, 0), (60, 0), (90, 0)):
                    want = _moves(mg._search(rows2, rack2, root, touch, threshold=thr, min_tiles=k))
                    assert _moves(tg.search(m_tiles, rack2, thr, k, None)) == want, (rows, m_tiles, rack2, thr, k)
                    assert _moves(ts.search(m_tiles, rack2, thr, k, None)) == want
                    asked += 1
                    found += bool(want)
    assert asked >= 60 and found >= 20, (asked, found)


@pytest.mark.parametrize("variant", ["point", "kreuzwort"])
def test_seconds_over_the_gaddag_equal_the_reference(lexicon, tables, variant, monkeypatch):
    """Phase (b) over the GADDAG: the best second placement (key, notation, move) of
    ``_seconds_reference`` for every query and best key."""
    root = gridgen.graph_root(lexicon)
    gd = compiled_gaddag_for(lexicon)
    rng = random.Random(f"seconds-gaddag-{variant}")
    asked = found = 0
    steps0 = _gridcore.gaddag_steps()
    for rows, dealt in tables[4::3]:
        for rack in [dealt] + _large_racks(dealt, rng):
            seconds = mg._Seconds(rows, rack, root, variant, {}, gd)
            a, f = _against_reference(seconds, rows, rack, root, variant, rng, 4)
            asked, found = asked + a, found + f
    assert asked >= 200 and found >= 30, (asked, found)
    assert _gridcore.gaddag_steps() > steps0  # (the searches went over the GADDAG)


@pytest.mark.parametrize("variant", ["point", "kreuzwort"])
def test_best_turn_with_the_gaddag_flag(lexicon, tables, variant, monkeypatch):
    """``movegen.USE_GADDAG``: the best turns of large racks are those by anchors, and the
    GADDAG is used (it is in the cache) for the full list (league views:
    :func:`test_league_view_by_anchors_equals_the_reference`)."""
    compiled_gaddag_for(lexicon)  # (in the cache: the turn only loads it)
    rng = random.Random(f"best-{variant}")
    letters = [c for c in full_set() if c.isalpha()]
    turns = []
    for rows, _dealt in tables[4::4]:
        rack = sort_rack(["?", "#"] + rng.sample(letters, 11))
        monkeypatch.setattr(mg, "USE_GADDAG", False)
        want = mg.best_turn(rows, rack, lexicon, variant)
        monkeypatch.setattr(mg, "USE_GADDAG", True)
        steps0 = _gridcore.gaddag_steps()
        got = mg.best_turn(rows, rack, lexicon, variant)
        assert (got and got.to_json()) == (want and want.to_json()), (rows, rack)
        turns.append(_gridcore.gaddag_steps() > steps0)
    assert any(turns)


@pytest.mark.parametrize("variant", ["point", "kreuzwort"])
def test_league_view_by_anchors_equals_the_reference(lexicon, tables, variant):
    """A league view (``with_lists``: the GM's allowed and denied words) has no GADDAG:
    its turns run by anchors, never build one, and give the pure-Python reference's best
    turn, which plays the allowed word (a second placement, phase (b)) and not the
    denied one the full list's best turn played."""
    from bot.games import gaddag as G

    assert mg.USE_GADDAG  # (the default)
    rows, _dealt = tables[8]
    rng = random.Random("view")
    letters = [c for c in full_set() if c.isalpha()]
    rack = sort_rack(["?", "#"] + rng.sample(letters, 9))
    full = mg.best_turn(rows, rack, lexicon, variant).to_json()
    allowed = "ZIMMER" + "".join(c for c in rack if c.isalpha())[:4]  # (ZIMMER is on the table)
    view = lexicon.with_lists(allow=[allowed], deny=full["words"][:1])
    assert G.compiled_gaddag_if_cached(view) is None
    steps0 = _gridcore.gaddag_steps()
    got = mg.best_turn(rows, rack, view, variant).to_json()
    assert _gridcore.gaddag_steps() == steps0  # (by anchors)
    with gridgen.reference_search():
        want = mg.best_turn(rows, rack, view, variant).to_json()
    assert got == want
    assert allowed in got["words"] and full["words"][0] not in got["words"]


def test_missing_or_stale_file_turns_by_anchors(lexicon, tables, tmp_path, monkeypatch):
    """A turn never builds the GADDAG: with no file, or a stale or broken one, it runs
    by anchors (the same best turn) and leaves the cache as it was; after
    :func:`bot.games.gaddag.prepare` (what ``spielleiter lexicon build`` runs) it loads the
    file and reads over it, with the same best turn."""
    import marshal

    from bot.games import gaddag as G

    monkeypatch.setenv("SPIELLEITER_LEXICON_DIR", str(tmp_path))  # (the word graph stays memoised)
    monkeypatch.setattr(G, "_CMEMO", {})
    monkeypatch.setattr(G, "_MISS", {})
    rows, _dealt = tables[8]
    rng = random.Random("view")
    letters = [c for c in full_set() if c.isalpha()]
    rack = sort_rack(["?", "#"] + rng.sample(letters, 9))
    monkeypatch.setattr(mg, "USE_GADDAG", False)
    want = mg.best_turn(rows, rack, lexicon, "kreuzwort").to_json()
    monkeypatch.setattr(mg, "USE_GADDAG", True)
    path = G.gaddag_path(lexicon)
    assert path.parent == tmp_path

    def turn():
        steps0 = _gridcore.gaddag_steps()
        got = mg.best_turn(rows, rack, lexicon, "kreuzwort").to_json()
        assert got == want
        return _gridcore.gaddag_steps() > steps0

    assert not turn() and not path.exists()  # no file: by anchors, nothing built
    parts = _gridcore.gaddag_dump(compiled_gaddag_for(lexicon, tmp_path / "other"))
    G._CMEMO.clear()
    path.write_bytes(marshal.dumps((G._MAGIC, G._FORMAT, "marisa:stale", parts), 4))
    stale = path.read_bytes()
    assert not turn() and path.read_bytes() == stale  # a stale file: by anchors, left alone
    assert not turn()  # (and not read again)
    path.write_bytes(stale[:1000])
    assert not turn()  # a broken one too
    st = G.prepare(lexicon)
    assert st["built"] and st["path"] == str(path) and st["nodes"] == parts[1]
    G._CMEMO.clear()
    assert turn()  # the file is current: over the GADDAG, the same turn
    assert not G.prepare(lexicon)["built"]
    with pytest.raises(ValueError):
        G.prepare(lexicon.with_lists(allow=["QQQ"]))


def test_lexicon_build_prepares_the_gaddag(lexicon, tmp_path, monkeypatch, capsys):
    """``spielleiter lexicon build`` then writes the GADDAG of every word list a game
    reads over one (``GameRules.search_gaddag``: Typ-Dom) where the turns look for it;
    not for another source's word lists."""
    from bot.games import gaddag as G
    from bot.cli.commands import prepare_gaddags

    monkeypatch.setattr(G, "_CMEMO", {})
    monkeypatch.setattr(G, "default_cache_dir", lambda: tmp_path)  # (the word lists: as built)
    assert prepare_gaddags(None, source="opentaal") == []
    [st] = prepare_gaddags(None)
    assert st["path"] == str(tmp_path / "typdom.gaddag") and st["built"]
    out = capsys.readouterr().out
    assert "Suchgraph (GADDAG) typdom: " in out and "gebaut (built)" in out
    [st] = prepare_gaddags(None)
    assert not st["built"] and "aktuell (current)" in capsys.readouterr().out


def test_gaddag_off_again(lexicon, tables):
    """``use_gaddag(None)`` searches by anchors again; a GADDAG with a letter the word
    graph lacks, or with other letter indices, is refused."""
    root = gridgen.graph_root(lexicon)
    rows = tables[6][0]
    ts = _gridcore.TouchSearcher(rows, root, mg.SPEC)
    ts.use_gaddag(compiled_gaddag_for(lexicon))
    ts.use_gaddag(None)
    with pytest.raises(ValueError):
        ts.use_gaddag({"Ω": {"$": 1}})
    other = _gridcore.convert_gaddag(build_gaddag(["AB"]), gridgen.graph_root(lexicon))
    ts.use_gaddag(other)  # (the same letter indices: a GADDAG of fewer words is fine)
    with pytest.raises(ValueError):
        ts.use_gaddag(_gridcore.convert_gaddag(build_gaddag(["AB"]), {"A": {"B": {"$": 1}}}))
