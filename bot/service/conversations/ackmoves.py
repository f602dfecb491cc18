"""The moves of an acknowledgement, rendered for their mover and remembered (issue 35).

A move report (:meth:`bot.games.reports.MoveReport.to_json`) rendered for the player who
made it (:func:`bot.games.base.render_move` with ``Audience(viewer=key)`` and owner
``key``) does not depend on which player that is: :meth:`Audience.sees` lets a viewer
who owns the report see ``PUBLIC`` and ``MOVER`` parts and never ``GM`` parts, whatever
the key, and the game master's wording (:attr:`Verdict.about`) is only taken for a
game master's audience. So the rendering is a function of the report and the language
alone, and the good moves of a round, which many players send (the bench's 6,000 move
lines of 1,000 mails are about 300 different reports), are rendered once:

- :func:`mover_move` keeps the rendered move by ``(language, the report as JSON)``;
- :func:`move_block` keeps its block of the acknowledgement (``ack_move.txt.j2``) by
  ``(language, the game's multiline, last move of the mail, the report as JSON)``.

Both memories hold at most :data:`KEPT` entries (then forgotten all at once). A report
that is not JSON (a value :func:`json.dumps` refuses) is rendered every time.
"""

from __future__ import annotations

import json
from typing import Any

from bot.games.base import Audience, render_move
from bot.lexicon.memo import memo_of
from bot.render import render

#: Entries each memory holds before it is emptied; lexicons :func:`checked` keeps.
KEPT, LEXICONS_KEPT = 4096, 8

#: Checked moves by lexicon: ``id(lexicon) -> (lexicon, {(game, judging key, text, move,
#: index): (report JSON, report key)})`` (the lexicon kept, so its id is not reused).
_CHECKED: dict[int, tuple[Any, dict[tuple, tuple[dict[str, Any], str | None]]]] = {}

#: Moves rendered for their mover: ``(language, report JSON) -> rendered move``.
_RENDERED: dict[tuple[str, str], dict[str, Any]] = {}
#: Blocks of ``ack_move.txt.j2``: ``(language, multiline, last, report JSON) -> text``.
_BLOCKS: dict[tuple[str, bool, bool, str], str] = {}


def checked(game: Any, state: Any, state_key: Any, text: str, move: Any, lexicon: Any, index: int,
            player: str) -> tuple[dict[str, Any], str | None]:
    """``game.check_read(state, text, move, lexicon, index, player=player).to_json()`` and
    its :func:`report_key`. Remembered for a game whose ``judging_key(state)`` is not None (all
    of the state its check depends on; the check then depends on neither the player nor
    anything else of the state): ``state_key`` is that key for ``state`` (None: not
    remembered), and ``move`` (what ``read_move`` made of the line) must be a hashable
    value (not None, not the NotationError). The report is only read afterwards (its
    rendering copies it)."""
    key = memo = None
    if state_key is not None and move is not None and not isinstance(move, BaseException):
        key = (game.name, state_key, text, move, index)
        memo = memo_of(_CHECKED, lexicon, LEXICONS_KEPT)
        try:
            hit = memo.get(key)
        except TypeError:  # a move that is not hashable: not remembered
            key = memo = hit = None
        if hit is not None:
            return hit
    report = game.check_read(state, text, move, lexicon, index, player=player).to_json()
    out = (report, report_key(report))
    if memo is not None:
        if len(memo) >= KEPT:
            memo.clear()
        memo[key] = out
    return out


def state_key_of(game: Any, state: Any) -> Any:
    """``game.judging_key(state)`` (:meth:`bot.games.base.GameRules.judging_key`): None
    for a game whose checks are not remembered."""
    return game.judging_key(state)


def report_key(report: dict[str, Any]) -> str | None:
    """The memory key of a move report: its JSON with sorted keys, None when it is not
    JSON."""
    try:
        return json.dumps(report, sort_keys=True)
    except (TypeError, ValueError):
        return None


def mover_move(report: dict[str, Any], lang: str, key: str, rkey: str | None) -> dict[str, Any]:
    """``render_move(report, lang, Audience(viewer=key), key)``: the move report of the
    player ``key`` (a player key, not None) rendered for that player in ``lang``;
    remembered by ``(lang, rkey)`` (``rkey``: :func:`report_key` of ``report``; None: not
    remembered). Returns a fresh dict each call (the remembered one is not handed out)."""
    mkey = (lang, rkey) if rkey is not None and key is not None else None
    out = _RENDERED.get(mkey) if mkey is not None else None
    if out is None:
        out = render_move(report, lang, Audience(viewer=key), key)
        if mkey is not None:
            if len(_RENDERED) >= KEPT:
                _RENDERED.clear()
            _RENDERED[mkey] = out
    return dict(out)


def move_block(lang: str, multiline: bool, move: dict[str, Any], last: bool, rkey: str | None) -> str:
    """One move of the acknowledgement (``ack_move.txt.j2``: the move as read, its verdict,
    the notes, a picture) for the rendered ``move`` of the report whose
    :func:`report_key` is ``rkey`` (None: rendered, not remembered); ``last``: the mail's
    last move. The rendered move is a function of the report and ``lang``
    (:func:`mover_move`), so the key holds all the block depends on."""
    bkey = (lang, multiline, last, rkey) if rkey is not None else None
    text = _BLOCKS.get(bkey) if bkey is not None else None
    if text is None:
        text = render("ack_move.txt.j2", lang, m=move, multiline=multiline, last=last)
        if bkey is not None:
            if len(_BLOCKS) >= KEPT:
                _BLOCKS.clear()
            _BLOCKS[bkey] = text
    return text
