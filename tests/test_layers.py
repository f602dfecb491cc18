"""The layers of the code (issue 34; docs/development/architecture.md): the import-linter
contracts of pyproject.toml ([tool.importlinter]) are kept, and no module of ``bot``
imports itself through others (no import circle, imports inside functions counted too)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of more than one
    module (Tarjan), each sorted; empty when the imports form no circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.find_modules_directly_imported_by(v)):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for module in sorted(graph.modules):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return found


def test_no_import_circle():
    graph = grimp.build_graph("bot", cache_dir=None)
    assert circles(graph) == []


def test_circles_finds_a_circle():
    """The check can fail: two modules that import each other are one circle."""
    graph = grimp.ImportGraph()
    for m in ("x", "x.a", "x.b", "x.c"):
        graph.add_module(m)
    graph.add_import(importer="x.a", imported="x.b")
    graph.add_import(importer="x.b", imported="x.a")
    graph.add_import(importer="x.c", imported="x.a")
    assert circles(graph) == [["x.a", "x.b"]]


def test_import_contracts_kept():
    """``lint-imports`` (as .ci/run runs it) keeps every contract."""
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout
