"""Every rule case runs, through the same code as ``spielleiter conformance``: the cases
shipped in ``tests/cases/`` and, when the clone has ``../shared`` beside it, every file
in ``../shared/conformance/`` (new cases arrive there). Cases of a game the bot does not
play yet are strict xfail (they must fail now, and the marker must go when the game
lands)."""

from __future__ import annotations

import io
import json
import subprocess

import pytest

from bot.conformance import case_lexicon, read_cases, run_conformance, run_top
from bot.games import get_game
from bot.games.registry import GAME_CLASSES
from tests.helpers import CASES_DIR, case_files, spielleiter_exe

FILES = case_files()
CASES = [(f, c) for f in FILES for c in read_cases([f])]


def _id(f, case):
    return f"{f.parent.name}/{f.name}:{case.get('id', '?')}"


def test_case_files_found():
    assert {p.name for p in CASES_DIR.glob("*.json")} >= {"monoscrabble.json", "rondo.json", "crossword.json"}
    assert any(c.get("game") == "rondo" for _, c in CASES)


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[_id(f, c) for f, c in CASES])
def test_case(case, request):
    assert case.get("game"), "a rule case names its game (a file of other data belongs outside tests/cases/)"
    if case["game"] not in GAME_CLASSES:
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"game {case.get('game')} not implemented yet"))
    game = get_game(case["game"])
    got = game.run_case(case, case_lexicon(case, game))
    assert {k: got.get(k) for k in case["expect"]} == case["expect"]


def test_cli_passes_every_case_of_the_games_built():
    """``spielleiter conformance`` (the installed command) passes every file whose cases
    are all of games in the registry."""
    files = [f for f in FILES if all(c.get("game") in GAME_CLASSES for c in read_cases([f]))]
    assert CASES_DIR / "rondo.json" in files
    proc = subprocess.run([spielleiter_exe(), "conformance", *map(str, files)], capture_output=True,
                          text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    n = len(read_cases(files))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert lines[-1] == f"{n} passed, 0 failed"
    assert len(lines) == n + 1 and all(ln.startswith("PASS ") for ln in lines[:-1])


def test_cli_reports_a_failing_case(tmp_path):
    case = json.loads((CASES_DIR / "rondo.json").read_text())[0]
    case["expect"] = dict(case["expect"], score=999)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps([case]))
    out = io.StringIO()
    assert run_conformance([f], out) == 1
    text = out.getvalue().splitlines()
    assert text[0].startswith(f"FAIL {case['id']}: expected ") and '"score": 999' in text[0] and '"score": 16' in text[0]
    assert text[-1] == "0 passed, 1 failed"


def test_top_answers_the_seed_question(tmp_path):
    """Seed 000 II.3 c asks who finds 27 points or more in its example position."""
    cases = [{"id": "seed-27", "game": "rondo", "lexicon": "default", "round": 2, "row": "..MOND/..",
              "vorgabe": "DEST?/"},
             {"id": "small", "game": "rondo", "words": ["MOND", "MONDES", "MONDE"], "round": 2,
              "row": "..MOND/..", "vorgabe": "DEST?/"}]
    f = tmp_path / "top.json"
    f.write_text(json.dumps(cases))
    out = io.StringIO()
    assert run_top([f], out) == 0
    res = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [r["id"] for r in res] == ["seed-27", "small"]
    assert res[0]["score"] >= 27
    assert res[1] == {"id": "small", "move": "mo*NDES", "score": 24}
    # the printed move is valid notation and scores what top says
    from bot.games.rondo.engine import Position, evaluate
    from bot.lexicon import load
    o = evaluate(Position.from_codes("..MOND/..", "DEST?/", 2), res[0]["move"], load("rondo"))
    assert o.valid and o.score == res[0]["score"]


def test_a_case_without_its_game_is_an_error(tmp_path):
    """There is no default game (issue 34): a case that names none fails, saying so."""
    f = tmp_path / "cases.json"
    f.write_text(json.dumps([{"id": "ohne-spiel", "expect": {"valid": True}}]), encoding="utf-8")
    out = io.StringIO()
    assert run_conformance([f], out) == 1
    assert "FAIL ohne-spiel" in out.getvalue() and "nennt kein Spiel" in out.getvalue()
