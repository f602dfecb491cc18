"""No engine writes a sentence for a player (issue 31, item 1): every player-facing German
sentence in ``bot/games`` is a gettext msgid (``N_()``, ``gettext``, ``ngettext``, ``_()``,
the msgid and plural of a :func:`~bot.games.verdict.verdict`), so it is rendered per
recipient from the catalogs, never written into a mail as it is.

The check reads every module of ``bot/games`` with :mod:`ast`: a string literal (an
f-string's literal parts too) that reads as prose (two or more words with lower-case
letters) must be a docstring, a msgid, a developer's error (``RuntimeError``, ``ValueError``,
``AssertionError``, ``TypeError``, ``KeyError``, :class:`~bot.games.base.PrivacyError`),
or a log line."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import bot

GAMES = Path(bot.__file__).resolve().parent / "games"
MSGID_CALLS = {"N_", "_", "gettext", "ngettext", "verdict", "Verdict", "t", "tr"}
DEV_ERRORS = {"RuntimeError", "AssertionError", "TypeError", "KeyError", "ValueError", "PrivacyError", "NotImplementedError",
              "MovegenUnavailable"}
PROSE = re.compile(r"[a-zäöüß]{2,}[,.:;!?()']*\s+[(']*[A-Za-zÄÖÜäöüß]*[a-zäöüß]{2,}")


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _allowed(tree: ast.AST) -> set[int]:
    """ids of the string nodes that may be prose: docstrings, msgids, developer errors, logs."""
    ok: set[int] = set()

    def mark(node: ast.AST) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                ok.add(id(sub))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ok.add(id(body[0].value))
        elif isinstance(node, ast.Call):
            fn = _name(node.func)
            if fn in MSGID_CALLS:
                args = list(node.args[:2]) + [k.value for k in node.keywords if k.arg in ("msgid", "plural")]
                if fn == "verdict" or fn == "Verdict":
                    args = list(node.args[1:2]) + [k.value for k in node.keywords if k.arg in ("msgid", "plural")]
                for a in args:
                    mark(a)
            elif fn in DEV_ERRORS or (isinstance(node.func, ast.Attribute) and _name(node.func.value) in ("log", "logger", "logging")):
                mark(node)
        elif isinstance(node, ast.Raise) and node.exc is not None and _name(getattr(node.exc, "func", node.exc)) in DEV_ERRORS:
            mark(node.exc)
        elif isinstance(node, ast.Assert):
            mark(node)
    return ok


def sentences() -> list[str]:
    """Every prose literal in ``bot/games`` that is not a msgid: ``path:line: text``."""
    out = []
    for path in sorted(GAMES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        ok = _allowed(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in ok:
                if PROSE.search(node.value):
                    out.append(f"{path.relative_to(GAMES.parent.parent)}:{node.lineno}: {node.value[:80]!r}")
    return out


def test_no_player_facing_sentence_outside_the_catalogs():
    found = sentences()
    assert not found, f"{len(found)} sentences in bot/games are not gettext msgids:\n" + "\n".join(found[:60])


def test_the_check_finds_a_sentence(tmp_path, monkeypatch):
    """The check itself: a module that writes a sentence is found."""
    pkg = tmp_path / "games"
    pkg.mkdir()
    (pkg / "x.py").write_text('"""Doc."""\nfrom bot.i18n import N_\nA = N_("Das ist gut.")\n'
                              'def f(rack):\n    return f"Nicht auf deiner Bank: {rack}."\n', encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["GAMES"]), "GAMES", pkg)
    found = sentences()
    assert len(found) == 1 and "Nicht auf deiner Bank" in found[0]
