"""Run rule cases (shared/conformance/README.md) and the "top" search over case files.

Pure glue between case files, the game registry and the lexicon: no rules here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, TextIO

from bot.games import get_game
from bot.games.base import GameRules
from bot.lexicon import Lexicon, load


def case_lexicon(case: dict[str, Any], game: GameRules) -> Any:
    """The case's own word list (in ``game``'s alphabet), or the bot's full lexicon of
    ``game`` (its alphabet and word rules) for ``"lexicon": "default"``."""
    if case.get("lexicon") == "default" or "words" not in case:
        return load(game.alphabet, rules=game.word_rules)
    return Lexicon.from_words(case["words"], game.alphabet)


class CaseError(ValueError):
    """A conformance case the bot cannot run as written (no ``game``)."""


def case_game(case: dict[str, Any]) -> GameRules:
    """The rules of the case's ``game``; raises :class:`CaseError` when the case names
    none (there is no default game) and :class:`~bot.games.registry.UnknownGame` for an
    unknown one."""
    name = case.get("game")
    if not name:
        raise CaseError(f"Fall {case.get('id', '?')!r} nennt kein Spiel (\"game\" fehlt)")
    return get_game(name)


def read_cases(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """All cases of the given JSON files (each a list of cases), in file order."""
    cases: list[dict[str, Any]] = []
    for p in paths:
        data = json.loads(Path(p).read_text(encoding="utf-8"))
        cases.extend(data if isinstance(data, list) else data.get("cases", []))
    return cases


def _matches(expect: dict[str, Any], got: dict[str, Any]) -> bool:
    for key, want in expect.items():
        have = got.get(key)
        if key == "words" and isinstance(want, list) and isinstance(have, list) and want and have:
            # main word first, cross words in any order (conformance README, Monoscrabble)
            if want[0] != have[0] or sorted(want[1:]) != sorted(have[1:]):
                return False
        elif have != want:
            return False
    return True


def run_conformance(paths: Iterable[str | Path], out: TextIO) -> int:
    """Print ``PASS id`` / ``FAIL id: expected ..., got ...`` per case and a last line
    ``N passed, M failed``; return the exit status (1 when any case failed)."""
    passed = failed = 0
    for case in read_cases(paths):
        cid = case.get("id", "?")
        try:
            game = case_game(case)
            got = game.run_case(case, case_lexicon(case, game))
        except Exception as exc:  # a case the bot cannot run at all is a failure, not a crash
            got = {"error": f"{type(exc).__name__}: {exc}"}
        expect = case.get("expect", {})
        if _matches(expect, got):
            passed += 1
            print(f"PASS {cid}", file=out)
        else:
            failed += 1
            shown = {k: got.get(k) for k in expect} if "error" not in got else got
            print(f"FAIL {cid}: expected {json.dumps(expect, ensure_ascii=False)}, "
                  f"got {json.dumps(shown, ensure_ascii=False)}", file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return 1 if failed else 0


def run_top(paths: Iterable[str | Path], out: TextIO) -> int:
    """Print one JSON line per case: ``{"id", "move", "score"}`` (the best move)."""
    status = 0
    for case in read_cases(paths):
        try:
            game = case_game(case)
            res = game.top_case(case, case_lexicon(case, game))
            line = {"id": case.get("id"), "move": res.get("move"), "score": res.get("score")}
        except Exception as exc:
            status = 1
            line = {"id": case.get("id"), "move": None, "score": None, "error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(line, ensure_ascii=False), file=out)
    return status
