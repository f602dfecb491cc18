"""The RONDO rule cases of tests/cases/rondonl*.json run through ``spielleiter
conformance`` (the same code path as the shared cases)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bot.conformance import case_lexicon, read_cases, run_conformance
from bot.games import get_game

FILES = sorted((Path(__file__).parent / "cases").glob("rondonl*.json"))
CASES = read_cases(FILES)


def test_files_present():
    assert FILES and len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    game = get_game(case["game"])
    got = game.run_case(case, case_lexicon(case, game))
    assert {k: got.get(k) for k in case["expect"]} == case["expect"]


def test_conformance_command_passes_every_case():
    out = io.StringIO()
    assert run_conformance(FILES, out) == 0
    assert out.getvalue().splitlines()[-1] == f"{len(CASES)} passed, 0 failed"


def test_a_wrong_expectation_fails(tmp_path):
    case = dict(CASES[0], expect=dict(CASES[0]["expect"], score=99))
    f = tmp_path / "bad.json"
    f.write_text(json.dumps([case]))
    out = io.StringIO()
    assert run_conformance([f], out) == 1
    assert out.getvalue().startswith(f"FAIL {case['id']}")
