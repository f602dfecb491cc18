"""The combined standings of a league: the sum of every Partie's results per player
(seed 000 II.3 b: one Gesamtwertung over all Partien, no separate table per Partie)."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import case, func, literal, select
from sqlalchemy.orm import Session

from bot.storage.models import League, Partie, Result


def standings(session: Session, league: League, round_number: int | None = None, *,
              upto: int | None = None) -> list[dict]:
    """Rows ``{rank, player_id, name, email, points, per_partie, round_points, rounds_played,
    score}``, best first; equal points share a rank. ``round_points`` are the points of
    ``round_number``; ``rounds_played`` counts the (Partie, round) results with moves sent;
    ``score`` sums the raw move scores (equal to ``points`` in Rondo). ``upto``: count only
    the results of rounds 1..``upto`` (the standings as they were after that round)."""
    partien = {p.id: p.name for p in session.scalars(select(Partie).where(Partie.league_id == league.id))}
    total: dict[int, int] = defaultdict(int)
    per: dict[int, dict[str, int]] = defaultdict(lambda: {n: 0 for n in partien.values()})
    this_round: dict[int, int] = defaultdict(int)
    played: dict[int, int] = defaultdict(int)
    raw: dict[int, int] = defaultdict(int)
    if partien:  # summed in the database: one row per player and Partie, however many rounds
        this = case((Result.round_number == round_number, Result.points), else_=0) if round_number is not None \
            else literal(0)
        q = (select(Result.player_id, Result.partie_id, func.sum(Result.points), func.sum(Result.score),
                    func.sum(case((Result.submitted, 1), else_=0)), func.sum(this))
             .where(Result.partie_id.in_(list(partien))).group_by(Result.player_id, Result.partie_id))
        if upto is not None:
            q = q.where(Result.round_number <= upto)
        for player_id, partie_id, points, score, n_played, now in session.execute(q):
            total[player_id] += int(points or 0)
            raw[player_id] += int(score or 0)
            played[player_id] += int(n_played or 0)
            per[player_id][partien[partie_id]] += int(points or 0)
            this_round[player_id] += int(now or 0)
    rows = [{"player_id": p.id, "name": p.name, "email": p.email, "points": total[p.id],
             "per_partie": dict(per[p.id]), "round_points": this_round[p.id], "rounds_played": played[p.id],
             "score": raw[p.id]} for p in league.players if p.active]
    rows.sort(key=lambda r: (-r["points"], -r["score"], r["name"].lower()))
    rank = 0
    for i, r in enumerate(rows):
        if i == 0 or r["points"] != rows[i - 1]["points"]:
            rank = i + 1
        r["rank"] = rank
    return rows
