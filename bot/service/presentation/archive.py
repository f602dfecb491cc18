"""The league archive: a static HTML site (``spielleiter archive --out DIR``) that works
from ``file://`` and from any web host, with no JavaScript and no external resource.

Layout of ``DIR``::

    index.html                      every league: game, status, round, next ZAT
    <liga>/index.html               standings, chart, rounds, players
    <liga>/runde-01.html ...        one page per adjudicated round (prints on A4)
    <liga>/spieler-<name>-<id>.html one page per player (keyed by the player's id, see
                                    :func:`player_page`): moves and scores round by round
    <liga>/runde-01.pdf ...         with ``--pdf`` (WeasyPrint), also <liga>/tabelle.pdf
    .spielleiter-archiv.json        what the archive wrote (to remove pages that are gone)

Built GENERICALLY from the parts of each game's Auswertung (``bot/service/presentation/report.py``):
a round page shows each Partie's public ``partie`` part (board or row, the move on the
table, the top, one line per player) and every player's ``moves`` part (public after the
round, as in ``AUSWERTUNG n ALLE``); the league page the game's ``table`` part and the
chart of :mod:`bot.service.presentation.chart`. A game's ``private`` part is never used: no racks,
hands, hidden grids; no addresses and no codes anywhere (the standings are passed without
``email``; each player's round data without ``private`` and without the acknowledgement's
``picture`` of a move). What a game's public view shows at the end is public.

A game may give an archive-specific bit as an optional template
``templates/<game>/archive/<part>.html.j2`` (``partie``, ``moves``, ``table``, ``lot``);
otherwise the Auswertung's part (``templates/<game>/auswertung/<part>.html.j2``) or, for
``lot``, the generic ``templates/archive/lot.html.j2`` is used.

Re-running writes only files whose content changed (others keep their mtime) and removes
pages the archive wrote before that no longer exist (a round taken back). With
``[archive] path`` in the config the service refreshes the archive after each
adjudication (:func:`refresh_archive`; a fingerprint of the league data skips the work
when nothing changed).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from markupsafe import Markup
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot import __version__
from bot.games import get_game
from bot.i18n import DEFAULT, league_language, texts
from bot.games.base import PUBLIC, GameRules
from bot.render import format_zat, has_template, render
from bot.service.presentation.chart import chart_title, league_chart
from bot.service.domain.league import find_league
from bot.service.presentation.archive_info import league_info, period_label
from bot.service.presentation.report import PartieRound, partie_round, round_rows
from bot.service.presentation.standings import standings
from bot.storage.models import Adjudication, League, Partie, Player, Result, Round

log = logging.getLogger(__name__)

MANIFEST = ".spielleiter-archiv.json"


class ArchiveError(RuntimeError):
    """The archive cannot be written (German message: the folder, or PDF support missing)."""


@dataclass
class ArchiveResult:
    """What a run did: ``written`` (paths relative to the archive folder, new or changed),
    ``unchanged`` (count of files left as they were), ``removed`` (pages that are gone)."""

    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)


# -- names ---------------------------------------------------------------------------

_TRANS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "ae", "Ö": "oe", "Ü": "ue"})


def slug(text: str) -> str:
    """A file name part for ``text``: German umlauts transcribed, lower case, ASCII letters
    and digits joined by ``-`` (``"Clara Conrad"`` -> ``"clara-conrad"``); may be empty."""
    t = text.translate(_TRANS).lower()
    t = re.sub(r"[^a-z0-9]+", "-", t.encode("ascii", "ignore").decode())
    return t.strip("-")


def _unique(names: Iterable[tuple[int, str]], prefix: str) -> dict[int, str]:
    """``{id: slug}`` unique within ``names`` (in id order; a clash gets ``-2``, ``-3``)."""
    out: dict[int, str] = {}
    used: set[str] = set()
    for key, name in sorted(names):
        base = slug(name) or f"{prefix}{key}"
        s, i = base, 2
        while s in used:
            s, i = f"{base}-{i}", i + 1
        used.add(s)
        out[key] = s
    return out


def player_page(player_id: int, name: str) -> str:
    """The file name of a player's page: ``spieler-<slug>-<id>.html`` (``"Anna Albers"``
    with id 7 -> ``spieler-anna-albers-7.html``; ``spieler-7.html`` when the name has no
    ASCII letter or digit). Keyed by the player's database id, which no other player of
    any league has, so two players of the same name (or of names with the same slug) never
    share a page (issue 31); the slug only makes the address readable."""
    base = slug(name)
    return f"spieler-{base}-{player_id}.html" if base else f"spieler-{player_id}.html"


# -- writing -------------------------------------------------------------------------

class _Writer:
    """Writes files below ``root`` only when their content differs (atomically)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.result = ArchiveResult()
        self.files: list[str] = []
        self.changed: set[str] = set()

    def write(self, rel: str, data: str | bytes) -> bool:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self.files.append(rel)
        path = self.root / rel
        try:
            if path.is_file() and path.read_bytes() == raw:
                self.result.unchanged += 1
                return False
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(raw)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except OSError as exc:
            raise ArchiveError(f"Archiv: {path} lässt sich nicht schreiben: {exc.strerror or exc}") from None
        self.result.written.append(rel)
        self.changed.add(rel)
        return True


# -- data ----------------------------------------------------------------------------

def part_template(game: str, part: str) -> str:
    """The template of an archive part: ``<game>/archive/<part>.html.j2`` if the game has
    one, else ``<game>/auswertung/<part>.html.j2``, else ``archive/<part>.html.j2``."""
    for name in (f"{game}/archive/{part}.html.j2", f"{game}/auswertung/{part}.html.j2"):
        if has_template(name):
            return name
    return f"archive/{part}.html.j2"


def public_player(pr: PartieRound, key: str, lang: str = DEFAULT) -> dict[str, Any]:
    """One player's round data as every player sees it (:meth:`PartieRound.seen` with
    :data:`~bot.games.base.PUBLIC`), its verdicts rendered in ``lang``: the public verdicts,
    no ``private`` part, no acknowledgement ``picture``, no move line the game keeps hidden
    (docs/development/privacy.md)."""
    return pr.seen(key, PUBLIC, lang)


def _public_standings(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "email"} for r in rows]


@dataclass
class _Round:
    number: int
    partien: list[PartieRound]
    adjudicated_at: Any = None


def _rounds(s: Session, league: League, game: GameRules) -> list[_Round]:
    """Every adjudicated round of ``league`` with its Partien's template data (public)."""
    names = {str(p.id): p.name for p in league.players}
    by_round: dict[int, _Round] = {}
    rows = s.execute(select(Partie.name, Adjudication.round_number, Adjudication.report)
                     .join(Adjudication, Adjudication.partie_id == Partie.id)
                     .where(Partie.league_id == league.id)
                     .order_by(Adjudication.round_number, Partie.id)).all()
    when = dict(s.execute(select(Round.number, Round.adjudicated_at).where(Round.league_id == league.id)).all())
    for pname, number, report in rows:
        pr = partie_round(game, pname, report, names, report["state_after"], players=[])
        by_round.setdefault(number, _Round(number, [], when.get(number))).partien.append(pr)
    return [by_round[n] for n in sorted(by_round)]


# -- rendering -----------------------------------------------------------------------

def _league_ctx(league: League, game: GameRules, finished: bool) -> dict[str, Any]:
    shown = league.rounds if (game.fixed_rounds or game.default_rounds) else None
    return {"name": league.name, "rounds": shown, "finished": finished, "title": game.title}


def _render_round(game: GameRules, league: League, r: _Round, final: bool, table: list[dict[str, Any]],
                  chart: str, lang: str) -> dict[str, Any]:
    """The HTML parts of one round page, in ``lang`` (the league's)."""
    lg = _league_ctx(league, game, final)
    common = dict(league=lg, round=r.number)
    # the game's key of its move lines (GameRules.move_key, "(*X = Blanko als X)") comes
    # once a page: in a Partie part that gives it, else once below all the moves
    key = texts(lang).gettext(game.move_key[1]) if game.move_key else None
    partien, given, starred = [], False, False
    for pr in r.partien:
        shared = render(part_template(game.name, "partie"), lang, p=pr.p, **common)
        given = given or (key is not None and key in shared)
        lot = render(part_template(game.name, "lot"), lang, p=pr.p, **common) if pr.p.get("lot") else ""
        players = [public_player(pr, k, lang) for k in pr.full]
        starred = starred or (key is not None and any(game.move_key[0] in str(m.get("text") or "")
                                                      for pl in players for m in pl.get("moves", [])))
        moves = [{"name": pl["name"], "html": Markup(render(part_template(game.name, "moves"), lang, p=pr.p, pl=pl,
                                                            keyed=key is not None, **common))}
                 for pl in players]
        partien.append({"name": pr.p["name"], "shared": Markup(shared), "lot": Markup(lot), "moves": moves})
    tbl = render(part_template(game.name, "table"), lang, standings=table, rows=round_rows(table, r.partien),
                 partien=[pr.p for pr in r.partien], **common)
    return {"partien": partien, "table": Markup(tbl), "chart": Markup(chart),
            "move_key": key if starred and not given else None}


def _player_rows(rounds: list[_Round], key: str, results: dict[tuple[int, str], Result],
                 lang: str = DEFAULT) -> list[dict[str, Any]]:
    """One player's rounds: per round the Partien they have a result in (counted move,
    score, points; a late joiner's rounds before joining count as NMR without a report)
    and the running total of points, from the ``results`` (round, Partie name)."""
    out, total = [], 0
    for r in rounds:
        items = []
        for pr in r.partien:
            res = results.get((r.number, pr.p["name"]))
            pl = public_player(pr, key, lang) if key in pr.full else None
            if res is None and pl is None:
                continue
            counted = pl["moves"][pl["counted"]] if pl and pl.get("counted") is not None else None
            row = next((x for x in pr.p["players"] if x["key"] == key), {})
            items.append({"partie": pr.p["name"], "submitted": res.submitted if res else pl["submitted"],
                          "counted": counted and counted["index"], "move": counted["text"] if counted else None,
                          "result": row.get("result"), "score": res.score if res else (pl.get("score") or 0),
                          "points": res.points if res else pl["points"], "pl": pl, "p": pr.p})
        if items:
            total += sum(i["points"] for i in items)
            out.append({"round": r.number, "items": items, "total": total})
    return out


def _score_columns(game: GameRules, rows: list[dict[str, Any]], lang: str) -> dict[str, Any]:
    """The score columns of a player's page (:func:`_player_rows`): always the points that
    count (headed by the game's chart title, "Punkte" or Monoscrabble's "Besser-Wertung"),
    and before them the counted move's own score (``differ``) where it is not what counts:
    Monoscrabble's word "Punkte" beside the Besser-Wertung; RONDO's "Wert" beside its
    "Punkte" (the opening word's value decides who opens, the opening counts 0: a decision
    of bot.games.rondonl), so the two columns never read alike. A game whose moves have no
    score of their own (0 throughout: "Wer behält recht?") shows the points alone."""
    t = texts(lang)
    items = [it for row in rows for it in row["items"]]
    title = chart_title(game.name, lang)
    return {"chart_title": title,
            "differ": any(it["points"] != it["score"] for it in items) and any(it["score"] for it in items),
            "score_title": t.gettext("Wert") if title == t.gettext("Punkte") else t.gettext("Punkte")}


def _page(template: str, lang: str = DEFAULT, **ctx: Any) -> str:
    return render(f"archive/{template}", lang, **ctx)


def _build_league(s: Session, w: _Writer, league: League, dirname: str, pdf: bool) -> dict[str, Any]:
    """Write one league's pages; returns its index row."""
    game = get_game(league.game)
    lang = league_language(league.options)  # a league's pages speak its players' language
    rounds = _rounds(s, league, game)
    info = league_info(s, league, game, [r.number for r in rounds], lang)
    finished = league.status == "finished"
    last = rounds[-1].number if rounds else 0
    players = [p for p in league.players]
    links = {p.id: player_page(p.id, p.name) for p in players}
    rounds_nav = [{"number": r.number, "href": f"runde-{r.number:02d}.html",
                   "label": period_label(game, r.number, lang)} for r in rounds]
    base = {"league": league.name, "game": game.title, "up": "../index.html", "version": __version__,
            "turns": game.turn_rounds}
    pdfs: list[tuple[str, str]] = []

    for i, r in enumerate(rounds):
        final = finished and r.number == last
        table = _public_standings(standings(s, league, r.number, upto=r.number))
        chart = league_chart(s, league, upto=r.number, lang=lang)
        parts = _render_round(game, league, r, final, table, chart, lang)
        html = _page("round.html.j2", lang, **base, number=r.number, label=rounds_nav[i]["label"], final=final,
                     info=info, **parts, prev=rounds_nav[i - 1] if i else None,
                     next=rounds_nav[i + 1] if i + 1 < len(rounds) else None,
                     when=format_zat(r.adjudicated_at, league.timezone, lang) if r.adjudicated_at else None)
        rel = f"{dirname}/runde-{r.number:02d}.html"
        w.write(rel, html)
        pdfs.append((rel, html))

    table = _public_standings(standings(s, league, last, upto=last)) if rounds else []
    tbl = ""
    if rounds:
        tbl = render(part_template(game.name, "table"), lang, league=_league_ctx(league, game, finished), round=last,
                     standings=table, rows=round_rows(table, rounds[-1].partien),
                     partien=[pr.p for pr in rounds[-1].partien])
    html = _page("league.html.j2", lang, **base, info=info, table=Markup(tbl),
                 chart=Markup(league_chart(s, league, lang=lang)),
                 rounds=rounds_nav, players=[{"name": p.name, "href": links[p.id], "active": p.active}
                                             for p in sorted(players, key=lambda p: p.name.lower())])
    w.write(f"{dirname}/index.html", html)
    pdfs.append((f"{dirname}/index.html", html))

    results: dict[int, dict[tuple[int, str], Result]] = {}
    for res, pname in s.execute(select(Result, Partie.name).join(Partie, Partie.id == Result.partie_id)
                                .where(Partie.league_id == league.id)):
        results.setdefault(res.player_id, {})[(res.round_number, pname)] = res
    for p in players:
        rows = _player_rows(rounds, str(p.id), results.get(p.id, {}), lang)
        for row in rows:
            row["label"] = period_label(game, row["round"], lang)
            for it in row["items"]:
                if it["pl"] is None:
                    it["moves_html"] = ""
                    continue
                lg = _league_ctx(league, game, finished and row["round"] == last)
                it["moves_html"] = Markup(render(part_template(game.name, "moves"), lang, league=lg, round=row["round"],
                                                 p=it["p"], pl=it["pl"]))
        standing = next((t for t in table if t["player_id"] == p.id), None)
        html = _page("player.html.j2", lang, **base, name=p.name, active=p.active, rows=rows, standing=standing,
                     **_score_columns(game, rows, lang), several=len(league.partien) > 1)
        w.write(f"{dirname}/{links[p.id]}", html)

    if pdf:
        for rel, html in pdfs:
            target = rel[:-len(".html")] + ".pdf" if not rel.endswith("index.html") else f"{dirname}/tabelle.pdf"
            if rel in w.changed or not (w.root / target).is_file():
                w.write(target, _pdf(html, (w.root / rel).parent))
            else:
                w.files.append(target)
                w.result.unchanged += 1
    # the index of every league is German (the site's front page)
    row = info if lang == DEFAULT else league_info(s, league, game, [r.number for r in rounds], DEFAULT)
    return dict(row, name=league.name, game=game.title, href=f"{dirname}/index.html",
                pdf=f"{dirname}/tabelle.pdf" if pdf else None)


def _pdf(html: str, base: Path) -> bytes:
    """The page as an A4 PDF (WeasyPrint, its print stylesheet); raises ArchiveError when
    WeasyPrint or its system libraries (pango) are missing."""
    try:
        # deferred on purpose: WeasyPrint (heavy) loads only when a PDF is written
        from weasyprint import HTML
    except (ImportError, OSError) as exc:
        raise ArchiveError("PDF: WeasyPrint oder die Pango-Bibliotheken fehlen (scripts/setup installiert sie): "
                           f"{exc}") from None
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    return HTML(string=html, base_url=str(base)).write_pdf() or b""


def build_archive(db, out: str | Path, league: str | None = None, *, pdf: bool = False) -> ArchiveResult:
    """Write the archive to ``out`` (created if missing): the index of every league and,
    for ``league`` (a league name) or every league, its pages. Only changed files are
    written; pages the archive wrote before that no longer exist are removed. Raises
    :class:`ArchiveError` (German message) when the folder cannot be written and
    :class:`~bot.service.domain.league.LeagueError` for an unknown league."""
    root = Path(out)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArchiveError(f"Archiv: Ordner {root} lässt sich nicht anlegen: {exc.strerror or exc}") from None
    w = _Writer(root)
    with db.session() as s:
        leagues = list(s.scalars(select(League).order_by(League.id)))
        dirs = _unique(((lg.id, lg.name) for lg in leagues), "liga-")
        only = find_league(s, league) if league else None
        rows = []
        for lg in leagues:
            if only is None or lg.id == only.id:
                rows.append(_build_league(s, w, lg, dirs[lg.id], pdf))
            else:
                game = get_game(lg.game)
                info = league_info(s, lg, game, _adjudicated(s, lg), DEFAULT)
                rows.append(dict(info, name=lg.name, game=game.title, href=f"{dirs[lg.id]}/index.html", pdf=None))
        w.write("index.html", _page("index.html.j2", leagues=rows, version=__version__))
        scope = (f"{dirs[only.id]}/",) if only else None
        _finish(w, scope, fingerprint(s) if only is None else None)
    return w.result


def _adjudicated(s: Session, league: League) -> list[int]:
    return list(s.scalars(select(Round.number).where(Round.league_id == league.id, Round.status == "adjudicated")
                          .order_by(Round.number)))


def _finish(w: _Writer, scope: tuple[str, ...] | None, fp: str | None) -> None:
    """Remove files of the previous run (within ``scope``: path prefixes, None = all)
    that this run did not write, and update the manifest."""
    path = w.root / MANIFEST
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = {}
    now = set(w.files)
    keep = []
    for rel in old.get("files", []):
        if rel in now:
            continue
        if scope is not None and not rel.startswith(scope):
            keep.append(rel)
            continue
        target = w.root / rel
        if target.is_file() and target.resolve().is_relative_to(w.root.resolve()):
            target.unlink()
            w.result.removed.append(rel)
            try:
                target.parent.rmdir()  # only when empty
            except OSError:
                pass
    manifest = {"files": sorted(now | set(keep)), "fingerprint": fp if fp is not None else old.get("fingerprint")}
    if scope is not None:
        manifest["fingerprint"] = None  # a partial run: the next refresh builds everything
    data = json.dumps(manifest, ensure_ascii=False, indent=1) + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8") != data:
        path.write_text(data, encoding="utf-8")


def fingerprint(s: Session) -> str:
    """A hash of everything the archive shows: per league its status, pause, rounds, open
    round and ZAT, the adjudications (count, last id), the players (name, active), and the
    bot version (templates). Equal fingerprints: the archive would not change."""
    parts: list[Any] = [__version__]
    for lg in s.scalars(select(League).order_by(League.id)):
        rnd = s.execute(select(Round.number, Round.zat).where(Round.league_id == lg.id, Round.status == "open")
                        .order_by(Round.number)).first()
        adj = s.execute(select(func.count(Adjudication.id), func.max(Adjudication.id))
                        .join(Partie, Partie.id == Adjudication.partie_id).where(Partie.league_id == lg.id)).one()
        players = s.execute(select(Player.name, Player.active).where(Player.league_id == lg.id)
                            .order_by(Player.id)).all()
        parts.append([lg.id, lg.name, lg.game, lg.status, lg.paused, lg.paused_at, lg.rounds, lg.timezone,
                      [rnd[0], rnd[1].isoformat()] if rnd else None, list(adj), [list(p) for p in players]])
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def refresh_archive(db, cfg) -> ArchiveResult | None:
    """Bring the archive at ``[archive] path`` up to date when the league data changed
    since the last build (:func:`fingerprint`); with ``[archive] pdf = true`` also the
    PDFs. Does nothing without ``[archive] path``; never raises (a failure is logged, the
    service goes on). Returns what was done, or None when nothing was to do."""
    path = getattr(cfg, "archive_path", None)
    if not path:
        return None
    try:
        try:
            old = json.loads((Path(path) / MANIFEST).read_text(encoding="utf-8")).get("fingerprint")
        except (OSError, ValueError):
            old = None
        with db.session() as s:
            if old and fingerprint(s) == old:
                return None
        res = build_archive(db, path, pdf=bool(getattr(cfg, "archive_pdf", False)))
        if res.written or res.removed:
            log.info("Archiv %s: %d Dateien geschrieben, %d entfernt", path, len(res.written), len(res.removed))
        return res
    except Exception:
        log.exception("Archiv erneuern gescheitert")
        return None
