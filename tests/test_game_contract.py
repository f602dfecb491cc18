"""The contract of a game (issue 34, item 3: a game is one unit behind a typed interface),
checked for every game in the registry: it declares every capability flag the service
reads (:data:`bot.games.base.CAPABILITIES`), and the flags agree with what the game does;
its alphabet resolves and its word list loads (with its word rules); its grammar file is
in ``grammar/``; ``templates/<game>/`` has every template the frame renders; its docs
pages exist and are in the site's nav; its example move is valid notation; it has
conformance cases. docs/development/adding-a-game.md lists exactly these files.

:func:`problems` is the check; a fake game missing a piece shows it can fail. The check
may inspect a game's code (which methods it overrides, whether ``check_line`` takes the
read move): the service never does, it reads the flags."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from lark import Lark

from bot import data_dir
from bot.games.base import CAPABILITIES, GameRules, NotationError, PublicView
from bot.games.registry import GAME_CLASSES, get_game
from bot.games.rondo.game import RondoRules
from bot.lexicon import get_alphabet, get_source, load
from bot.lexicon.errors import LexiconError
from bot.render import environment
from tests.helpers import CASES_DIR

ROOT = Path(__file__).resolve().parent.parent
#: Every template the frame renders for a game (bot/service: start mail, acknowledgement's
#: situation, HILFE, the parts of the Auswertung); ``private`` only with player views.
TEMPLATES = ["start.txt.j2", "situation.txt.j2", "hilfe.txt"] + [
    f"auswertung/{part}.{fmt}.j2" for part in ("partie", "table", "footer", "moves") for fmt in ("txt", "html")]
PRIVATE_TEMPLATES = [f"auswertung/private.{fmt}.j2" for fmt in ("txt", "html")]
#: The flag -> the method whose override it announces (None: no method of its own).
FLAG_METHOD = {"merges_moves": "merge_move", "player_views": "player_view", "closes_early": "round_complete",
               "notes_closed_round": "closed_note"}


def _overrides(game: GameRules, method: str) -> bool:
    return getattr(type(game), method) is not getattr(GameRules, method)


def _players(game: GameRules) -> list[str]:
    n = max(game.min_players, 3)
    if game.max_players is not None:
        n = min(n, game.max_players)
    return [str(i) for i in range(1, n + 1)]


def _declares(game: GameRules, flag: str) -> bool:
    """Whether the game's own classes (not :class:`GameRules`) set ``flag``."""
    return any(flag in k.__dict__ for k in type(game).__mro__ if k is not GameRules and issubclass(k, GameRules))


def _nav() -> str:
    return (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def _case_games() -> set[str]:
    games = set()
    for f in CASES_DIR.glob("*.json"):
        data = json.loads(f.read_text(encoding="utf-8"))
        games |= {c.get("game") for c in (data if isinstance(data, list) else data.get("cases", []))}
    return games


def _example_problems(game: GameRules, state: dict[str, Any]) -> list[str]:
    ex = game.example_move(state)
    if ex is None:  # e.g. Crossword's wish round: the next round's
        try:
            ex = game.example_move(game.adjudicate(state, {k: None for k in _players(game)}, set(),
                                                   seed="contract", partie="P1").state_after)
        except Exception:  # noqa: BLE001 - a game that cannot adjudicate an empty round gives no example
            return []
    if ex is None:
        return []
    if isinstance(ex, dict):  # notation data its templates print (Typ-Dom)
        return [] if isinstance(ex.get("coord"), str) and isinstance(ex.get("word"), str) else \
            [f"example_move gibt Daten ohne coord/word: {ex!r}"]
    if not (isinstance(ex, list) and ex and all(isinstance(x, str) for x in ex)):
        return [f"example_move ist weder None noch Zeilen: {ex!r}"]
    try:
        for text in (["\n".join(ex)] if game.multiline else ex):
            game.read_move(text)
    except NotationError as exc:
        return [f"example_move {ex!r} ist keine gültige Schreibweise: {exc.message}"]
    return []


def problems(game: GameRules) -> list[str]:
    """What ``game`` lacks of the contract, one German line each (empty: nothing)."""
    out: list[str] = []
    # capability flags: declared by the game, booleans, and true to what it does
    for flag in CAPABILITIES:
        if not _declares(game, flag):
            out.append(f"Fähigkeit {flag} nicht erklärt")
        elif not isinstance(getattr(game, flag), bool):
            out.append(f"Fähigkeit {flag} ist kein bool")
    for flag, method in FLAG_METHOD.items():
        if getattr(game, flag) != _overrides(game, method):
            out.append(f"{flag} = {getattr(game, flag)}, aber {method} ist "
                       f"{'' if _overrides(game, method) else 'nicht '}überschrieben")
    takes = "move" in inspect.signature(type(game).check_line).parameters
    if game.reads_parsed_move != takes:
        out.append(f"reads_parsed_move = {game.reads_parsed_move}, aber check_line nimmt "
                   f"{'' if takes else 'kein '}move")
    players = _players(game)
    state = game.new_partie(seed="contract", partie="P1", players=players)
    mine = game.player_view(state, players[0])
    if not isinstance(mine, dict):
        out.append("player_view gibt kein dict")
    elif not game.private_state and mine:
        out.append(f"ohne private_state zeigt player_view etwas: {sorted(mine)}")
    elif game.player_views and not mine:
        out.append("player_views, aber player_view ist leer")
    view = game.public_view(state)
    hints = PublicView.__annotations__
    for key in set(hints) & set(view):
        want = {"turn": int, "phase": str, "grid_text": str, "finished": bool, "mover": (str, type(None))}[key]
        if not isinstance(view[key], want):
            out.append(f"public_view[{key!r}] ist {type(view[key]).__name__}")
    if game.turn_rounds and "turn" not in view:
        out.append("turn_rounds, aber public_view hat kein turn")
    # words: the alphabet resolves, the word list loads (when its dictionary is installed)
    try:
        alphas = [get_alphabet(a) for a in dict.fromkeys([game.alphabet, *game.lexicon_alphabets({})])]
    except LexiconError as exc:
        out.append(f"Alphabet: {exc}")
        alphas = []
    for alpha in alphas:
        if get_source(alpha.source).dic.is_file():
            lex = load(alpha.name, rules=game.word_rules)
            if len(lex) < 1000:
                out.append(f"Wortliste {alpha.name}: nur {len(lex)} Wörter")
    if game.word_rules is not None and alphas:
        if any(w in load(alphas[0].name, rules=game.word_rules) for w in game.word_rules.exclude):
            out.append("ein Wort der word_rules steht in der Wortliste")
    # grammar, templates, docs, conformance
    grammar = data_dir("grammar") / str(getattr(game, "grammar", ""))
    if not getattr(game, "grammar", "") or not grammar.is_file():
        out.append(f"Grammatik grammar/{getattr(game, 'grammar', '?')} fehlt")
    else:
        Lark(grammar.read_text(encoding="utf-8"), import_paths=[grammar.parent])  # raises when broken
    env = environment("de")
    for name in TEMPLATES + (PRIVATE_TEMPLATES if game.player_views else []):
        try:
            env.get_template(f"{game.name}/{name}")
        except Exception as exc:  # noqa: BLE001 - missing or broken: both a problem
            out.append(f"templates/{game.name}/{name}: {type(exc).__name__}")
    for page in (f"rules/{game.name}.md", f"player-help/{game.name}.md"):
        if not (ROOT / "docs" / page).is_file():
            out.append(f"docs/{page} fehlt")
        elif f" {page}" not in _nav():
            out.append(f"docs/{page} steht nicht in der nav von mkdocs.yml")
        elif f"({game.name}.md)" not in (ROOT / "docs" / page).with_name("index.md").read_text(encoding="utf-8"):
            out.append(f"docs/{page} fehlt in docs/{page.split('/')[0]}/index.md")
    package = ".".join(type(game).__module__.split(".")[:3])  # bot.games.<package>
    if f'"{package}"' not in (ROOT / "pyproject.toml").read_text(encoding="utf-8").split('id = "games-independent"')[1] \
            .split("[[tool.importlinter.contracts]]")[0]:
        out.append(f"{package} fehlt im Vertrag games-independent (pyproject.toml)")
    if game.name not in _case_games():
        out.append(f"kein Konformitätsfall mit \"game\": \"{game.name}\" in tests/cases/")
    elif not _overrides(game, "run_case"):
        out.append("run_case fehlt (spielleiter conformance)")
    return out + _example_problems(game, state)


@pytest.mark.parametrize("name", sorted(GAME_CLASSES))
def test_every_registered_game_keeps_the_contract(name):
    assert problems(get_game(name)) == []


class _Fake(RondoRules):
    """A game that is RONDO's rules under a new name, with nothing else of its own."""

    name = "fakegame"


class _Liar(RondoRules):
    """RONDO claiming capabilities it does not have."""

    merges_moves = True  # but no merge_move
    reads_parsed_move = False  # but check_line takes move

    def player_view(self, state, player):  # no private state, yet a private view
        return {"hand": "ABC"}


def test_a_game_missing_its_files_fails_the_contract():
    found = problems(_Fake())
    assert "templates/fakegame/start.txt.j2: TemplateNotFound" in found
    assert "templates/fakegame/auswertung/moves.html.j2: TemplateNotFound" in found
    assert "docs/rules/fakegame.md fehlt" in found and "docs/player-help/fakegame.md fehlt" in found
    assert any("kein Konformitätsfall" in p for p in found)
    assert "tests.test_game_contract fehlt im Vertrag games-independent (pyproject.toml)" in found  # no game package
    assert not any("Fähigkeit" in p for p in found)  # the flags it inherits from RONDO are declared


def test_flags_that_do_not_match_the_game_fail_the_contract():
    found = problems(_Liar())
    assert "merges_moves = True, aber merge_move ist nicht überschrieben" in found
    assert "player_views = False, aber player_view ist überschrieben" in found
    assert "reads_parsed_move = False, aber check_line nimmt move" in found
    assert "ohne private_state zeigt player_view etwas: ['hand']" in found


def test_a_game_without_its_flags_fails_the_contract():
    class Bare(GameRules):
        name, alphabet, title = "bare", "rondo", "Bare"
        new_partie = RondoRules.new_partie
        read_move = RondoRules.read_move
        check_line = RondoRules.check_line
        adjudicate = RondoRules.adjudicate
        public_view = RondoRules.public_view

    found = problems(Bare())
    assert {f"Fähigkeit {f} nicht erklärt" for f in CAPABILITIES} <= set(found)
    assert "Grammatik grammar/? fehlt" in found
