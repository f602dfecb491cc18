"""The examples in the package's docstrings run as written (doctest over every module of
``bot``; a module without examples attempts nothing)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bot

MODULES = sorted(m.name for m in pkgutil.walk_packages(bot.__path__, "bot.") if not m.name.endswith("__main__"))


def test_some_module_has_examples() -> None:
    attempted = [name for name in MODULES if doctest.testmod(importlib.import_module(name), report=False).attempted]
    assert "bot.games.verdict" in attempted


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), report=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples fail"
