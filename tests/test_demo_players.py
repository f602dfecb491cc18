"""Every registered game plays in the demo through its own demo player
(:meth:`bot.games.base.GameRules.demo_player`, issue 34 item 3): it overrides the hook,
the demo has a league of it, and on a new Partie a strong player mails move lines the
game reads as a valid move, from what that player sees alone."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

import bot
from bot import lexicon as lexmod
from bot.demo import demo_leagues
from bot.games import get_game
from bot.games.base import GameRules
from bot.games.demoplay import DemoMail
from bot.games.registry import GAME_CLASSES

KEYS = ["1", "2", "3", "4", "5", "6"]


def _options(game: str) -> dict:
    return dict(next(e.get("options") or {} for e in demo_leagues() if e["game"] == game))


@pytest.mark.parametrize("name", sorted(GAME_CLASSES))
def test_every_game_has_a_demo_player_and_a_demo_league(name):
    rules = get_game(name)
    assert type(rules).demo_player is not GameRules.demo_player, f"{name}: no demo_player"
    assert rules.demo_leagues and all(e["game"] == name for e in demo_leagues() if e["name"] in
                                             {x["name"] for x in rules.demo_leagues}), f"{name}: no demo league"


@pytest.mark.parametrize("name", sorted(GAME_CLASSES))
def test_a_strong_demo_player_mails_a_valid_move_from_its_view(name):
    rules = get_game(name)
    options = _options(name)
    n = next(k for k in (4, 3, 2, 5, 6) if rules.check_players(KEYS[:k], options) is None)
    state = rules.new_partie(seed="demo-test", partie="A", options=options, players=KEYS[:n])
    lexicon = lexmod.union(*(lexmod.load(a) for a in rules.lexicon_alphabets(options)))
    movers = rules.movers(state) or KEYS[:n]
    key = movers[0]
    view = dict(rules.public_view(state), name="A", names={k: k for k in KEYS[:n]}, example=None,
                mine=rules.player_view(state, key), player=key)
    mails = rules.demo_player(view, random.Random(1), lexicon=lexicon, style="stark")
    assert mails and all(isinstance(m, DemoMail) and m.lines for m in mails), mails
    lines = list(mails[-1].lines)
    text = "\n".join(lines) if rules.multiline else lines[0]
    report = rules.check_line(state, text, lexicon, 0, player=key)
    assert report.valid, (name, text, report.message)


def test_the_demo_imports_no_game_module():
    """bot/demo.py reaches the games through the registry and the hook alone."""
    tree = ast.parse((Path(bot.__file__).parent / "demo.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in imported if m and m.startswith("bot.games.")} - {"bot.games.registry"}
