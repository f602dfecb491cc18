"""The fuzzing bench (``bench/fuzz_intake.py``) with N = 2000 mutated mails: not one
exception may escape the intake, no mail may end in ``error``, no answer may go to our
own address or to a mailer daemon. (The bench's figures for N = 100,000 are in docs/development/tests.md.)"""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "fuzz_intake.py"


def test_fuzz_intake_2000_mails():
    spec = importlib.util.spec_from_file_location("fuzz_intake", BENCH)
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    res = fuzz.run(2000, seed=2026, out=None)
    assert res["mails"] == 2000 and res["stored"] > 1500
    assert res["uncaught"] == 0, res["uncaught_samples"]
    assert res["errors"] == 0, res["error_samples"]
    assert res["bad_answers"] == 0
