"""Every rule case in ../shared/conformance/ runs, through the same code as
``spielleiter conformance``. Cases of a game the bot does not play yet are strict
xfail (they must fail now, and the marker must go when the game lands)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.conformance import case_lexicon, read_cases, run_conformance, run_top
from bot.games import get_game
from bot.games.registry import GAME_CLASSES

SHARED = Path(__file__).resolve().parents[2] / "shared" / "conformance"
FILES = sorted(SHARED.glob("*.json"))
CASES = read_cases(FILES)


def test_case_files_found():
    assert FILES, f"no case files in {SHARED}"
    assert any(c.get("game") == "rondo" for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.get("id", "?") for c in CASES])
def test_case(case, request):
    if case.get("game") not in GAME_CLASSES:
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"game {case.get('game')} not implemented yet"))
    game = get_game(case["game"])
    got = game.run_case(case, case_lexicon(case, game.alphabet))
    assert {k: got.get(k) for k in case["expect"]} == case["expect"]


def test_cli_output_format():
    rondo = SHARED / "rondo.json"
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "conformance", str(rondo)], capture_output=True,
                          text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    n = len(json.loads(rondo.read_text()))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert lines[-1] == f"{n} passed, 0 failed"
    assert all(ln.startswith("PASS ") for ln in lines[:-1])


def test_cli_reports_a_failing_case(tmp_path):
    case = json.loads((SHARED / "rondo.json").read_text())[0]
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
