"""A player's moves read from a mail: the checks of the open round (late, out of turn,
a Partie closed or waiting), the submission stored (a correction supersedes the earlier
one; lines quoted from our own mails left out) and the acknowledgement queued, with how
each line was read and judged for the mover (:func:`read_moves`). Called by
:mod:`bot.service.conversations.intake` for a mail of a registered player."""


from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

from sqlalchemy import bindparam, event, func, insert, select, update
from sqlalchemy.orm import Session

from bot.games import get_game
from bot.games.base import Audience
from bot.games.verdict import render_text
from bot.i18n import league_language, tr
from bot.render import format_zat, nobreak, render
from bot.service.domain.league import league_lexicon, playing
from bot.service.stages.rounds import closed_note
from bot.service.stages.outbox import queue_mail
from bot.service.conversations.mailctx import DEFER, Incoming, batch_of, written_for
from bot.storage.models import (League, Partie, Player, Round, Submission, SubmissionMove)
from bot.service.conversations.ackmoves import checked, mover_move, move_block, state_key_of
from bot.service.conversations.quoting import drop_quoted, quotable_for
from bot.submission import read_submission

log = logging.getLogger(__name__)


def _not_now(s: Session, game, league: League, partie: Partie, active: set[int], player: Player,
             lang: str = "de", zat: str = "") -> str | None:
    """Why ``player`` cannot send moves for ``partie`` now (German), or None: the Partie
    is over, waits for the one before it (league option ``sequential``), or it is another
    player's turn (:meth:`GameRules.movers`; the answer names whose turn it is and that
    turn's ``zat``)."""
    if partie.finished:
        return tr(lang, "partie_over")
    if partie.id not in active:
        return tr(lang, "partie_waits")
    movers = game.movers(partie.state)
    if movers is not None and str(player.id) not in movers:
        out = game.out_note(partie.state, str(player.id))
        if out is not None:  # out of the Partie: say so, not "not your turn" (issue 32)
            return render_text(out, lang, Audience(viewer=str(player.id)), str(player.id))
        names = [p.name for p in league.players if str(p.id) in movers]
        who = tr(lang, "who_moves", names=", ".join(names), zat=zat) if names else ""
        return tr(lang, "not_your_turn", who=who)
    return None


# The statements of every submission, built once (building a statement and its cache key
# costs more than running it on SQLite) and run on the session's connection (plain rows;
# nothing of the session needs flushing for them).
_PARTIEN = (select(Partie.id, Partie.name, Partie.finished, Partie.state)
            .where(Partie.league_id == bindparam("league")).order_by(Partie.id))
_OPEN_ROUND = (select(Round.number, Round.zat).where(Round.league_id == bindparam("league"), Round.status == "open")
               .order_by(Round.number).limit(1))  # as bot.service.domain.league.open_round, without the ORM
#: :data:`_OPEN_ROUND` and :data:`_PARTIEN` for a batch's shared lookups (moves.``_league_rows``)
_OPEN_ROUND_HELD = _OPEN_ROUND.with_for_update(read=True)
_PARTIEN_HELD = _PARTIEN.with_for_update(read=True)
_PREVIOUS_ROUND = select(Round.zat, Round.adjudicated_at).where(Round.league_id == bindparam("league"),
                                                               Round.number == bindparam("number"))


#: The key in ``Session.info`` of the acknowledgements queued in it, ``(outbox row, plain
#: text)`` each: :func:`bot.service.conversations.intake.process_mail` hands their text to
#: :func:`bot.service.conversations.quoted.remember` once they are committed.
PLAIN = "spielleiter.plain"


def _league_rows(conn, batch: dict | None, league_id: int):
    """``(open round, previous round, Partien)`` of league ``league_id``: the open round's
    ``(number, zat)`` row (:data:`_OPEN_ROUND`, None when there is none), the round
    before it (:data:`_PREVIOUS_ROUND`, None for the first), and every Partie's row
    (:data:`_PARTIEN`). Read once a batch (``batch``, the shared lookups of
    :class:`~bot.storage.db.OneTransaction`: reading moves changes none
    of them, a command empties it); without a batch, queried each time. The rows are
    shared by the batch's mails and never changed. Kept for a batch, the open round's
    row and the Partien's are read ``FOR SHARE`` (PostgreSQL; SQLite's batch holds the
    write lock anyway): an adjudication in another process, which changes them, waits
    for the batch's commit, so no mail of the batch is read against a round that has
    been adjudicated meanwhile."""
    key = ("league", league_id)
    got = batch.get(key) if batch is not None else None
    if got is None:
        held = batch is not None  # kept for the batch: held against a concurrent change (below)
        rnd = conn.execute(_OPEN_ROUND_HELD if held else _OPEN_ROUND, {"league": league_id}).first()
        prev = None if rnd is None or rnd.number <= 1 else \
            conn.execute(_PREVIOUS_ROUND, {"league": league_id, "number": rnd.number - 1}).first()
        partien = conn.execute(_PARTIEN_HELD if held else _PARTIEN, {"league": league_id}).all() \
            if rnd is not None else []
        got = (rnd, prev, partien)
        if batch is not None:
            batch[key] = got
    return got


def _delayed_zat(row, number: int, arrived: datetime) -> datetime | None:
    """The ZAT of round ``number - 1`` (its row of :data:`_PREVIOUS_ROUND`, None when there
    is none) when a mail that ``arrived`` after it was read only after that round's
    (delayed) adjudication; else None."""
    if number <= 1:
        return None
    if row is None or row.adjudicated_at is None:
        return None
    zat, done = (t if t.tzinfo else t.replace(tzinfo=timezone.utc) for t in (row.zat, row.adjudicated_at))
    return zat if zat < arrived <= done else None


_SUBMISSIONS = Submission.__table__
_NEW_SUBMISSION = insert(_SUBMISSIONS).returning(_SUBMISSIONS.c.id, _SUBMISSIONS.c.partie_id)
_NEW_MOVES = insert(SubmissionMove.__table__)
_NEWER = _SUBMISSIONS.alias("newer")
_MOVES = SubmissionMove.__table__
#: the move lines of the player's standing (not superseded) submissions of the round for
#: these Partien, in order: what a later mail is merged with
_STANDING = (select(_SUBMISSIONS.c.partie_id, _MOVES.c.text)
             .join(_MOVES, _MOVES.c.submission_id == _SUBMISSIONS.c.id)
             .where(_SUBMISSIONS.c.partie_id.in_(bindparam("partien", expanding=True)),
                    _SUBMISSIONS.c.round_number == bindparam("round"),
                    _SUBMISSIONS.c.player_id == bindparam("player"), _SUBMISSIONS.c.superseded_by.is_(None))
             .order_by(_SUBMISSIONS.c.id, _MOVES.c.position))
#: the player's earlier submissions of the round for these Partien superseded by the new
#: one of the same Partie (the last, should a Partie come twice), in one statement that
#: names the Partien it superseded in
_SUPERSEDE = (update(_SUBMISSIONS)
              .where(_SUBMISSIONS.c.partie_id.in_(bindparam("partien", expanding=True)),
                     _SUBMISSIONS.c.round_number == bindparam("round"),
                     _SUBMISSIONS.c.player_id == bindparam("player"), _SUBMISSIONS.c.superseded_by.is_(None),
                     _SUBMISSIONS.c.id.not_in(bindparam("new", expanding=True)))
              .values(superseded_by=select(func.max(_NEWER.c.id))
                      .where(_NEWER.c.partie_id == _SUBMISSIONS.c.partie_id,
                             _NEWER.c.id.in_(bindparam("newer", expanding=True))).scalar_subquery())
              .returning(_SUBMISSIONS.c.partie_id))


#: the submission rows of a batch in one INSERT (ids returned in the order of the rows),
#: by :func:`write_submissions`
_NEW_SUBMISSIONS = insert(_SUBMISSIONS).returning(_SUBMISSIONS.c.id, sort_by_parameter_order=True)
#: one new submission supersedes the player's standing ones of its Partie and round
#: written before it (a lower id: the batch's rows are written in the order of its mails)
_SUPERSEDE_ONE = (update(_SUBMISSIONS)
                  .where(_SUBMISSIONS.c.partie_id == bindparam("s_partie"),
                         _SUBMISSIONS.c.round_number == bindparam("s_round"),
                         _SUBMISSIONS.c.player_id == bindparam("s_player"), _SUBMISSIONS.c.superseded_by.is_(None),
                         _SUBMISSIONS.c.id < bindparam("s_new"))
                  .values(superseded_by=bindparam("s_new")))
#: the (player, Partie) pairs with a standing (not superseded) submission in a round:
#: what a batch remembers (:func:`_standing`) to tell a mail it replaced an earlier one
_STANDING_PAIRS = (select(_SUBMISSIONS.c.player_id, _SUBMISSIONS.c.partie_id).distinct()
                   .where(_SUBMISSIONS.c.partie_id.in_(bindparam("partien", expanding=True)),
                          _SUBMISSIONS.c.round_number == bindparam("round"),
                          _SUBMISSIONS.c.superseded_by.is_(None)))

#: The key in ``Session.info`` of the submissions a batch read without savepoints holds
#: unwritten (``(submission row, move lines)`` each, in the order of its mails): written
#: together by :func:`write_submissions` at the session's next flush (the end of the
#: batch; a query that reads the batch's answers; a command) and before anything reads
#: submissions (a merging game's standing moves, a closed round's note).
HELD = "spielleiter.submissions"


def write_submissions(s: Session) -> None:
    """Write the submissions the batch holds (:data:`HELD`): one INSERT of the rows (ids
    in their order), one executemany of their move lines, one executemany superseding,
    for each in turn, the player's standing submissions of its Partie and round written
    before it. A no-op when none are held."""
    held = s.info.pop(HELD, None)
    if not held:
        return
    conn = s.connection()
    ids = conn.execute(_NEW_SUBMISSIONS, [row for row, _ in held]).scalars().all()
    lines = [{"submission_id": sid, "position": i, "text": t}
             for sid, (_, moves) in zip(ids, held) for i, t in enumerate(moves)]
    if lines:
        conn.execute(_NEW_MOVES, lines)
    conn.execute(_SUPERSEDE_ONE, [{"s_partie": row["partie_id"], "s_round": row["round_number"],
                                   "s_player": row["player_id"], "s_new": sid} for sid, (row, _) in zip(ids, held)])


def _write_held(session: Session, _ctx, _instances) -> None:
    """The batch's session, before each flush: the submissions it holds are written before
    its other changes (a flush is what a query that needs the batch's writes asks for;
    while submissions are held, the mail that took them is unwritten too, so the flush is
    never empty)."""
    if session.info.get(HELD):
        write_submissions(session)


def _hold(s: Session) -> list:
    """The list of submissions ``s`` holds (:data:`HELD`), made on the first; the session
    then writes them at its next flush (:func:`_write_held`, listening on this session
    only, not on every session of the process)."""
    held = s.info.get(HELD)
    if held is None:
        held = s.info[HELD] = []
        if not event.contains(s, "before_flush", _write_held):
            event.listen(s, "before_flush", _write_held)
    return held


def _standing(conn, batch: dict, league_id: int, number: int, partien) -> set[tuple[int, int]]:
    """The batch's memory of the (player id, Partie id) pairs with a standing submission
    in round ``number`` of league ``league_id`` (:data:`_STANDING_PAIRS`, read once a
    batch; each held submission added as it is taken). A command empties it with the
    batch's other lookups (after the flush that writes what is held)."""
    key = ("standing", league_id, number)
    got = batch.get(key)
    if got is None:
        got = batch[key] = {(a, b) for a, b in conn.execute(_STANDING_PAIRS, {"partien": [p.id for p in partien],
                                                                             "round": number})}
    return got


#: Rendered situations of a Partie (``<game>/situation.txt.j2``) by game, language, state
#: and the player's private view: the same for every mail of a round in most games.
_SITUATIONS: dict[tuple[str, str, str, str], str] = {}


def _situation(game, lang: str, state: dict, mine: dict) -> str:
    """The Partie's situation as the acknowledgement shows it (the game's public view and
    the player's own, rendered), remembered for the next mail of the same state."""
    try:
        key = (game.name, lang, json.dumps(state, sort_keys=True), json.dumps(mine, sort_keys=True))
    except (TypeError, ValueError):  # not JSON after all: rendered every time
        key = None
    text = _SITUATIONS.get(key) if key else None
    if text is None:
        text = render(f"{game.name}/situation.txt.j2", lang, mine=mine, **game.public_view(state)).strip()
        if key:
            if len(_SITUATIONS) >= 512:
                _SITUATIONS.clear()
            _SITUATIONS[key] = text
    return text


def _write_now(conn, rows: list[dict], accepted: list, number: int, player_id: int) -> set[int]:
    """Write one mail's submissions ``rows`` (the move lines of ``accepted``) now and
    supersede the player's earlier ones of these Partien; returns the Partien whose
    earlier submission was replaced. In bulk, with plain statements (no unit of work):
    one INSERT (SQLite returns the ids of a multi-row INSERT in no guaranteed order, so
    each with its Partie: one submission per Partie), the move lines (one executemany),
    one UPDATE naming the Partien it hit."""
    if len({r["partie_id"] for r in rows}) == len(rows):
        new_ids = {pid: sid for sid, pid in conn.execute(_NEW_SUBMISSION, rows)} if rows else {}
        all_new = list(new_ids.values())
    else:  # a Partie named twice: the later section's row takes the move lines, as before
        all_new = [conn.execute(_NEW_SUBMISSION, r).scalar_one() for r in rows]
        new_ids = {r["partie_id"]: sid for r, sid in zip(rows, all_new)}
    lines = [{"submission_id": new_ids[part.id], "position": i, "text": t}
             for part, moves, _ in accepted for i, t in enumerate(moves)]
    if lines:
        conn.execute(_NEW_MOVES, lines)
    earlier: set[int] = set()  # the Partien whose earlier submission was replaced
    if all_new:
        earlier = set(conn.execute(_SUPERSEDE, {"partien": list(new_ids), "round": number, "player": player_id,
                                                "new": all_new, "newer": all_new}).scalars())
    return earlier


def take_moves(ctx: Incoming, text: str) -> None:
    """Read the moves of a player's mail, record them (replacing the player's earlier
    submission for each Partie) and queue the acknowledgement. Its queries never need the
    session's pending changes (the mail's own columns), so nothing is flushed before
    them: the mail is written once, at the commit."""
    with ctx.s.no_autoflush:
        _read_moves(ctx, text)


def _read_moves(ctx: Incoming, text: str) -> None:
    s, cfg, mail, rm, now = ctx.s, ctx.cfg, ctx.mail, ctx.rm, ctx.now
    player, league = ctx.player, ctx.league
    game = get_game(league.game)
    lang = league_language(league.options)
    conn = s.connection()
    # (number, zat) of the open round, the round before, the Partien (id, name, finished, state)
    rnd, previous, all_partien = _league_rows(conn, batch_of(s), league.id)
    if rnd is None:
        ctx.record("ignored", "ignored", reason="league finished")
        return ctx.reply(tr(lang, "league_over", league=league.name))
    if player.joined_round > rnd.number:  # joined in a later round, which a rollback (ZURUECK) took back
        ctx.record("ignored", "submission", reason="joined later", round=rnd.number, joined=player.joined_round)
        return ctx.reply(tr(lang, "joined_later", league=league.name, round=rnd.number, joined=player.joined_round))
    if mail.received_at > rnd.zat:
        ctx.record("late", "submission", reason="after ZAT", zat=rnd.zat.isoformat())
        zat = nobreak(format_zat(rnd.zat, league.timezone, lang))  # the notice's wrap keeps the ZAT on one line
        if not game.turn_rounds:
            return ctx.reply(tr(lang, "late", round=rnd.number, zat=zat))
        turn = game.shown_number(rnd.number)  # a game of turns names the turn (issue 32)
        return ctx.reply(tr(lang, "late_turn", turn=turn, zat=zat) if turn else tr(lang, "late_opening", zat=zat))
    if game.notes_closed_round:  # closed_note reads the round's submissions: the batch's held ones first
        write_submissions(s)
    closed = closed_note(s, cfg, league, rnd)  # e.g. a Presto race two valid crosswords decided
    if closed:
        ctx.record("late", "submission", reason="round decided", round=rnd.number)
        return ctx.reply(render_text(closed, lang, Audience(viewer=str(player.id)), str(player.id)))
    delayed = _delayed_zat(previous, rnd.number, mail.received_at)
    partien = {p.name: p for p in all_partien}
    active = {p.id for p in playing(league, all_partien)}
    read = read_submission(text, game, list(partien), subject=rm.subject, player_names=[player.name],
                           options=league.options)
    mails = quotable_for(s, conn, league.id, rm.from_addr, player.id, rm.in_reply_to)  # the batch's memory
    if mails is None:  # asked of the database: the batch's answers to this player written first
        written_for(s, player.id, rm.from_addr)
    quoted = drop_quoted(conn, read, text, league.id, rm.from_addr, player.id, rm.in_reply_to, mails,
                          # a pasted block: the player's moves are compared, the batch's held ones written first
                          before_moves=None if mails is None else lambda: written_for(s, player.id, rm.from_addr))
    lexicon = league_lexicon(league, cfg)
    key = str(player.id)
    errors: list[str] = []
    # Partien the player is out of or not on turn in: the note says that nothing was stored
    # (and, out of turn, whose turn it is until which ZAT), so an answer of nothing else
    # says only that, each once (issue 32)
    outs = 0
    if delayed is not None:  # came after the last ZAT, read only after its delayed adjudication
        zat = format_zat(delayed, league.timezone, lang)
        if not game.turn_rounds:
            errors.append(tr(lang, "after_delayed_zat", round=rnd.number - 1, next=rnd.number, zat=zat))
        else:  # a game of turns names the turns, the opening by its name (issue 32)
            turn, nxt = game.shown_number(rnd.number - 1), game.shown_number(rnd.number)
            errors.append(tr(lang, "after_delayed_zat_turn", turn=turn, next=nxt, zat=zat) if turn
                          else tr(lang, "after_delayed_zat_opening", next=nxt, zat=zat))
    zat_text = format_zat(rnd.zat, league.timezone, lang)  # the open round's ZAT as every notice shows it
    accepted: list[tuple[Partie, list[str], list]] = []
    readings: dict[int, list[tuple[str, str]]] = {}
    open_names = [p.name for p in all_partien if p.id in active]
    for sec in read.sections:
        if sec.partie is None and len(open_names) == 1:
            sec.partie = open_names[0]  # NOTATION.md: "or by the player having only one open Partie"
        part = partien.get(sec.partie) if sec.partie else None
        if part is None:
            if sec.partie is None:
                errors.append(tr(lang, "no_partie", first=next(iter(partien)), moves=", ".join(sec.moves)))
            else:
                errors.append(tr(lang, "unknown_partie", partie=sec.partie, league=league.name,
                                 names=", ".join(partien)))
            continue
        if not sec.moves:
            errors.append(tr(lang, "partie_note", name=part.name, why=tr(lang, "no_move_found")))
            continue
        why = _not_now(s, game, league, part, active, player, lang, zat_text)
        if why:
            errors.append(tr(lang, "partie_note", name=part.name, why=why))
            movers = None if part.finished or part.id not in active else game.movers(part.state)
            if movers is not None and key not in movers:
                outs += 1  # out of this Partie (GameRules.out_note) or not on turn
            continue
        moves = ["\n".join(sec.moves)] if game.multiline else list(sec.moves)
        readings.setdefault(part.id, []).extend(sec.readings)  # ("ÖLE", "OELE"): shown in the ack
        accepted.append((part, moves, [None] if game.multiline else list(sec.parsed)))
    # a move with parts: the later mail replaces only the parts it contains (GameRules.merge_move)
    merged: list[str] = []
    parts = game.merges_moves  # False: a later mail replaces the whole move
    if accepted and parts:  # the default replaces: no query
        write_submissions(s)  # the batch's held submissions first: a later mail is merged with them
        standing: dict[int, list[str]] = {}
        for pid, mtext in conn.execute(_STANDING, {"partien": [p.id for p, _, _ in accepted], "round": rnd.number,
                                                   "player": player.id}):
            standing.setdefault(pid, []).append(mtext)
        for k, (part, moves, parsed) in enumerate(accepted):
            if part.id in standing:
                now_moves = game.merge_move(standing[part.id], moves)
                if now_moves != moves:
                    accepted[k] = (part, now_moves, [None] * len(now_moves))
                    merged.append(part.name)
    # the new submissions, their move lines, the player's earlier ones of these Partien
    # superseded: held for the batch's one write (write_submissions) when read in a batch
    # without savepoints, else written now (_write_now)
    rows = [{"mail_id": mail.id, "partie_id": part.id, "round_number": rnd.number, "player_id": player.id,
             "created_at": now} for part, _, _ in accepted]
    batch = batch_of(s)
    held = batch is not None and s.info.get(DEFER) and len({r["partie_id"] for r in rows}) == len(rows)
    if held:  # the standing ones from the batch's memory, this mail's added to it
        standing = _standing(conn, batch, league.id, rnd.number, all_partien)
        earlier = {part.id for part, _, _ in accepted if (player.id, part.id) in standing}
        standing.update((player.id, part.id) for part, _, _ in accepted)
        if rows:
            _hold(s).extend((r, moves) for r, (_, moves, _) in zip(rows, accepted))
    else:
        write_submissions(s)  # those the batch holds come first
        if batch is not None:  # the batch's memory of standing submissions read again when asked
            batch.pop(("standing", league.id, rnd.number), None)
        earlier = _write_now(conn, rows, accepted, rnd.number, player.id)
    sections, replaced, report_keys = [], [], []
    for part, moves, parsed in accepted:
        if part.id in earlier and part.name not in merged:
            replaced.append(part.name)
        # the verdicts rendered for the mover, remembered by the report (ackmoves: not the mover's key)
        skey = state_key_of(game, part.state)  # the checks remembered where the game allows it
        done = [checked(game, part.state, skey, t, m, lexicon, i, key) for i, (t, m) in enumerate(zip(moves, parsed))]
        rkeys = [k for _, k in done]
        reports = [mover_move(r, lang, key, k) for r, k in done]
        situation = _situation(game, lang, part.state, game.player_view(part.state, key))
        sections.append({"partie": part.name, "situation": situation, "moves": reports, "error": None,
                         "readings": readings.get(part.id, [])})
        report_keys.append(rkeys)
    ctx.record("processed", "submission",
               sections=[{"partie": x["partie"], "moves": [m["text"] for m in x["moves"]]} for x in sections],
               errors=errors, ignored=read.ignored, quoted=quoted)
    refused = not sections and bool(errors)  # nothing stored: every Partie section was refused
    if not sections and not errors:
        errors.append(tr(lang, "unread_lines", lines=" | ".join(read.ignored[:8]) or tr(lang, "none")))
    for k, sec in enumerate(sections):  # each move rendered on its own (remembered: ackmoves.move_block)
        last = len(sec["moves"]) - 1 if k == len(sections) - 1 else -1
        sec["blocks"] = [move_block(lang, game.multiline, m, i == last, rk)
                         for i, (m, rk) in enumerate(zip(sec["moves"], report_keys[k]))]
    text = render("ack.txt.j2", lang, player=player, league=league, round=rnd.number, sections=sections,
                  multiline=game.multiline, turns=game.turn_rounds, refused=refused, quoted=quoted,
                  merged=merged, parts=parts, points_rule=game.points_rule, replace_rule=game.replace_rule,
                  move_key=game.move_key, out=bool(outs) and not sections and outs == len(errors),
                  errors=errors, replaced=replaced, zat=zat_text)
    row = queue_mail(s, cfg, key=f"ack:{mail.id}", kind="ack", to=rm.from_addr, subject=ctx.reply_subject,
                     text=text, league_id=league.id, round_number=rnd.number, in_reply_to=rm.message_id)
    if row in s.new:  # queued now: its lines are taken from the text once committed (quoted.remember)
        s.info.setdefault(PLAIN, []).append((row, text))
