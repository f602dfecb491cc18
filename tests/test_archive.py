"""The static league archive (``spielleiter archive``) and the standings chart in the
Auswertungen: pages and their content from the stored rounds, nothing private in any file,
re-runs that rewrite only what changed, pages of a round taken back removed, ``--league``,
``[archive] path`` refreshed after an adjudication, A4 PDFs, the text part within 72
characters a line. The leagues come from ``tests/leagues.py`` (played once per session)."""

from __future__ import annotations

import email
import email.policy
import re
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from jinja2 import ChoiceLoader, FileSystemLoader
from sqlalchemy import select

from bot.cli import main
from bot.config import embedded, load_config
from bot.games.registry import GAMES, register
from bot.mail.maildir import MaildirTransport
from bot.render import environment
from bot.service.conversations import gm
from bot.service.presentation.archive import build_archive, player_page, refresh_archive, slug
from bot.service.presentation.chart import History, Series, layout, points_history
from bot.service.operations.league import create_league
from bot.service.presentation.report import TEXT_WIDTH, fold_text, is_picture
from bot.service.stages.rounds import adjudicate_league
from bot.service.presentation.standings import standings
from bot.storage.db import Database
from bot.storage.models import Adjudication, League, OutboxMail, Partie, Player, PlayerAddress
from tests.helpers import player_mail
from tests.leagues import PLAYERS


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in root.rglob("*.html")}


def _mtimes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def site(played, tmp_path_factory):
    out = tmp_path_factory.mktemp("archiv")
    build_archive(played.db, out)
    return out


def test_index_league_round_and_player_pages(played, site):
    files = _files(site)
    index = files["index.html"]
    for name, game in played.leagues.items():
        assert f'href="{slug(name)}/index.html">{name}</a>' in index
    cells = re.sub(r"<td[^>]*>", "<td>", index)
    assert re.search(r"Demo-Rondo</a></td><td>Rondo</td><td>beendet</td><td>4 Runden gespielt</td><td>–</td>", cells)
    assert re.search(r"Lauf-rondo</a></td><td>Rondo</td><td>läuft</td><td>Runde 3 von \d+</td>"
                     r"<td>\w+, \d\d\.\d\d\.\d{4}, \d\d:\d\d Uhr \(UTC[+-]\d\d:\d\d\)</td>", cells)
    assert {f"demo-rondo/runde-0{n}.html" for n in range(1, 5)} <= set(files)
    assert "demo-rondo/runde-05.html" not in files
    with played.db.session() as s:
        for league in s.scalars(select(League)):
            d = slug(league.name)
            page = files[f"{d}/index.html"]
            for p in league.players:
                assert f'href="{player_page(p.id, p.name)}">{p.name}</a>' in page
                assert f"{d}/{player_page(p.id, p.name)}" in files
            drawn = any(v for x in points_history(s, league).series for v in x.values)
            assert page.count('class="linie"') == (sum(p.active for p in league.players) if drawn else 0)


def test_round_page_shows_every_partie_and_every_move(played, site):
    page = _files(site)["demo-rondo/runde-02.html"]
    with played.db.session() as s:
        league = s.scalar(select(League).where(League.name == "Demo-Rondo"))
        reports = s.execute(select(Partie.name, Adjudication.report).join(Adjudication)
                            .where(Partie.league_id == league.id, Adjudication.round_number == 2)).all()
    assert len(reports) == 2
    for name, rep in reports:
        assert f"Partie {name}" in page
        if rep["board_move"]:
            assert f"<strong>{rep['board_move']['word']}</strong>" in page
        if rep["top"]:
            assert rep["top"]["notation"] in page
        for pl in rep["players"]:
            for m in pl["moves"]:  # every move line of every player, with its verdict
                assert f"<code>{m['text']}</code>" in page
    assert 'href="runde-01.html" rel="prev"' in page and 'href="runde-03.html" rel="next"' in page
    assert "Gesamtwertung nach Runde 2" in page


def test_player_page_adds_up_to_the_standings(played, site):
    files = _files(site)
    with played.db.session() as s:
        for name in ("Demo-Rondo", "Demo-Mono"):
            league = s.scalar(select(League).where(League.name == name))
            for row in standings(s, league):
                page = files[f"{slug(name)}/{player_page(row['player_id'], row['name'])}"]
                totals = re.findall(r'<td class="zahl" rowspan="\d+">(-?\d+)</td>', page)
                assert int(totals[-1]) == row["points"], (name, row["name"])
                title = "Besser-Wertung" if name == "Demo-Mono" else "Punkte"
                assert f"Platz {row['rank']}, {title}: {row['points']}</p>" in page
    # Monoscrabble: move points and Besser-Wertung differ, so both columns are shown
    anna = {d: next(v for k, v in files.items() if re.fullmatch(rf"{d}/spieler-anna-albers-\d+\.html", k))
            for d in ("demo-mono", "demo-rondo")}
    assert ">Besser-Wertung</th>" in anna["demo-mono"]
    assert ">Besser-Wertung</th>" not in anna["demo-rondo"]


def test_nothing_private_in_any_file(played, site):
    with played.db.session() as s:
        addresses = set(s.scalars(select(PlayerAddress.email))) | set(
            x for x in s.scalars(select(League.gm_email)) if x)
    assert addresses
    for rel, text in _files(site).items():
        low = text.lower()
        for addr in addresses:
            assert addr not in low, (rel, addr)
        assert not re.search(r"[\w.+-]+@[\w-]+\.\w", text), rel
        assert "code:" not in low, rel
        assert "nur für" not in low and "nur fuer" not in low, rel


def test_private_parts_never_appear(tmp_path):
    """A game with private hands (the toy game of tests/toygame.py): the GM's Auswertung
    shows every hand, the archive none, while the public table and the moves are there."""
    from tests.toygame import ToyRules
    env = environment()
    old = env.loader
    env.loader = ChoiceLoader([FileSystemLoader(str(Path(__file__).parent / "templates")), old])
    env.cache.clear()
    register(ToyRules())
    try:
        cfg = embedded(tmp_path / "var")
        db = Database(cfg.database_url)
        db.migrate()
        md = MaildirTransport(cfg.maildir)
        zat = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0)
        players = [{"name": n, "email": e} for n, e in PLAYERS[:3]]
        with db.session() as s:
            create_league(s, {"name": "Zahlen", "game": "toy", "first_zat": zat.isoformat(), "seed": 3,
                              "gm_email": "gm@liga.invalid", "players": players}, cfg)
        with db.session() as s:
            state = s.scalar(select(Partie)).state
        first = state["seats"][0]
        md.deliver_to_inbox(player_mail(PLAYERS[0][1], state["hands"][first][0]))
        from bot.service.operations.runner import poll_once
        poll_once(db, cfg)  # the mover's valid move ends the round at once
        with db.session() as s:
            gm_copy = s.scalar(select(OutboxMail).where(OutboxMail.to_addr == "gm@liga.invalid",
                                                        OutboxMail.kind == "auswertung"))
            assert gm_copy is not None and b"Hand von" in gm_copy.raw
        out = tmp_path / "site"
        build_archive(db, out)
        files = _files(out)
        page = files["zahlen/runde-01.html"]
        assert f"Tisch {state['hands'][first][0]}" in page  # the public part
        assert f"{PLAYERS[0][0]}: {state['hands'][first][0]}" in page  # the move, public after the round
        for rel, text in files.items():
            assert "Hand von" not in text, rel
        db.dispose()
    finally:
        env.loader = old
        env.cache.clear()
        GAMES.pop("toy", None)


def _small_league(tmp_path, name="Klein", rounds=4, extra=None):
    cfg = embedded(tmp_path / "var")
    db = Database(cfg.database_url)
    db.migrate()
    zat = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0)
    spec = {"name": name, "game": "rondo", "partien": ["R1"], "rounds": rounds, "first_zat": zat.isoformat(),
            "seed": 5, "players": [{"name": n, "email": e} for n, e in PLAYERS[:2]], **(extra or {})}
    with db.session() as s:
        create_league(s, spec, cfg)
    return db, cfg


def test_rerun_rewrites_only_what_changed_and_removes_a_round_taken_back(tmp_path):
    db, cfg = _small_league(tmp_path)
    for _ in range(3):
        adjudicate_league(db, cfg, "Klein", force=True)
    out = tmp_path / "site"
    first = build_archive(db, out)
    assert "klein/runde-03.html" in first.written and first.unchanged == 0
    before = _mtimes(out)
    again = build_archive(db, out)
    assert again.written == [] and again.removed == []
    assert _mtimes(out) == before
    # the GM takes round 3 back: its page goes, round 1 stays untouched, round 2 loses its link
    with db.session() as s:
        gm.rollback(s, cfg, "Klein")
    res = build_archive(db, out)
    assert res.removed == ["klein/runde-03.html"]
    assert not (out / "klein/runde-03.html").exists()
    assert "klein/runde-02.html" in res.written and "klein/runde-01.html" not in res.written
    assert (out / "klein/runde-01.html").stat().st_mtime_ns == before["klein/runde-01.html"]
    assert "index.html" in res.written  # status and round changed
    assert "angehalten seit" in (out / "index.html").read_text(encoding="utf-8")
    # adjudicated again: the page is back, and a file of the GM's own is never touched
    (out / "klein" / "notiz.txt").write_text("meins", encoding="utf-8")
    adjudicate_league(db, cfg, "Klein", force=True)
    res = build_archive(db, out)
    assert "klein/runde-03.html" in res.written
    assert (out / "klein" / "notiz.txt").read_text(encoding="utf-8") == "meins"
    db.dispose()


def test_league_option_builds_one_league(tmp_path):
    db, cfg = _small_league(tmp_path, name="Erste")
    with db.session() as s:
        create_league(s, {"name": "Zweite Liga", "game": "rondo", "partien": ["R1"], "rounds": 3, "seed": 2,
                          "first_zat": (datetime.now(timezone.utc) + timedelta(days=7)).isoformat(),
                          "players": [{"name": "Ötzi", "email": "oetzi@liga.invalid"}]}, cfg)
    adjudicate_league(db, cfg, "Erste", force=True)
    adjudicate_league(db, cfg, "Zweite Liga", force=True)
    out = tmp_path / "site"
    res = build_archive(db, out, "Zweite Liga")
    with db.session() as s:
        oetzi = s.scalar(select(Player).where(Player.name == "Ötzi")).id
    assert sorted(res.written) == ["index.html", "zweite-liga/index.html", "zweite-liga/runde-01.html",
                                   f"zweite-liga/spieler-oetzi-{oetzi}.html"]
    assert "Erste" in (out / "index.html").read_text(encoding="utf-8")  # the index lists every league
    res = build_archive(db, out)  # the whole archive: the other league's files are unchanged
    assert all(not w.startswith("zweite-liga/") for w in res.written)
    assert "erste/runde-01.html" in res.written
    db.dispose()


def test_cli_config_and_refresh_after_adjudication(tmp_path, capsys):
    db, cfg = _small_league(tmp_path, rounds=3)
    conf = tmp_path / "spielleiter.toml"
    conf.write_text(f'[database]\nurl = "{cfg.database_url}"\n[maildir]\npath = "var/mail"\n'
                    '[archive]\npath = "liga-web"\n', encoding="utf-8")
    loaded = load_config(conf)
    assert loaded.archive_path == tmp_path / "liga-web" and loaded.archive_pdf is False
    assert main(["adjudicate", "Klein", "--now", "--config", str(conf)]) == 0
    site = tmp_path / "liga-web"
    assert (site / "klein/runde-01.html").is_file()  # refreshed after the adjudication
    assert refresh_archive(db, loaded) is None  # nothing changed since: nothing to do
    adjudicate_league(db, cfg, "Klein", force=True)
    res = refresh_archive(db, loaded)
    assert res is not None and "klein/runde-02.html" in res.written
    capsys.readouterr()
    assert main(["archive", "--config", str(conf), "--league", "Klein"]) == 0
    assert "0 Dateien geschrieben" in capsys.readouterr().out
    assert main(["archive", "--config", str(conf), "--league", "Gibtsnicht"]) == 2
    assert "unbekannt" in capsys.readouterr().err
    db.dispose()


def test_service_pass_refreshes_the_archive(tmp_path):
    """``run``: after each pass (poll or ZAT) the archive follows the league data."""
    from bot.service.operations.runner import Service
    db, cfg = _small_league(tmp_path, rounds=3)
    cfg.archive_path = tmp_path / "web"
    svc = Service(db, cfg)
    adjudicate_league(db, cfg, "Klein", force=True)
    svc.schedule_zats()
    assert (tmp_path / "web/klein/runde-01.html").is_file()
    db.dispose()


def test_pdf_pages_are_a4_and_not_rebuilt_when_unchanged(tmp_path):
    pytest.importorskip("weasyprint")
    db, cfg = _small_league(tmp_path, rounds=3)
    adjudicate_league(db, cfg, "Klein", force=True)
    out = tmp_path / "site"
    res = build_archive(db, out, pdf=True)
    assert {"klein/runde-01.pdf", "klein/tabelle.pdf"} <= set(res.written)
    pdf = (out / "klein/runde-01.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    objects = [pdf] + [zlib.decompress(m.group(1)) for m in re.finditer(rb"FlateDecode[^>]*>>\s*stream\r?\n(.*?)endstream",
                                                                         pdf, re.S)]
    box = next(m for o in objects if (m := re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", o)))
    assert box and abs(float(box.group(1)) - 595.28) < 1 and abs(float(box.group(2)) - 841.89) < 1  # A4
    before = _mtimes(out)
    assert build_archive(db, out, pdf=True).written == []
    assert _mtimes(out) == before
    assert "klein/runde-01.pdf" in build_archive(db, out).removed  # without --pdf: no stale PDFs
    db.dispose()


# -- the chart and the text part of the Auswertungen ---------------------------------

def _parts(raw: bytes) -> tuple[str, str]:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    return msg.get_body(("plain",)).get_content(), msg.get_body(("html",)).get_content()


def test_every_html_auswertung_has_the_chart_below_the_table(played):
    with played.db.session() as s:
        for league in s.scalars(select(League)):
            rows = s.scalars(select(OutboxMail).where(OutboxMail.league_id == league.id,
                                                      OutboxMail.kind == "auswertung")).all()
            assert rows
            last = max(r.round_number for r in rows)
            for r in rows:
                text, html = _parts(r.raw)
                assert "<svg" not in text
                if not any(v for x in points_history(s, league, upto=r.round_number).series for v in x.values):
                    assert "<svg" not in html  # nobody has points yet: no chart of flat lines
                    continue
                assert html.count('<svg xmlns="http://www.w3.org/2000/svg"') == 1
                active = {p.id for p in league.players if p.active and p.joined_round <= r.round_number}
                if r.round_number == last:
                    assert html.count('class="linie"') == len(active), league.name
                # below the standings table, nothing private in it
                assert html.index("<figure") > html.rindex("</table>", 0, html.index("<figure"))
                assert not re.search(r"\w@\w", html[html.index("<figure"):html.index("</figure>")])


def test_text_part_within_72_characters_except_board_pictures(played):
    with played.db.session() as s:
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung")).all()
    long_lines = []
    for r in rows:
        text, _ = _parts(r.raw)
        long_lines += [ln for ln in text.splitlines() if len(ln) > TEXT_WIDTH and not is_picture(ln)]
    assert long_lines == []


def test_fold_text_wraps_prose_and_keeps_pictures():
    prose = "    Hinweis: " + "Wort " * 30
    picture = "   " + " ".join("·" for _ in range(25))
    out = fold_text(prose.rstrip() + "\n" + picture)
    lines = out.splitlines()
    assert all(len(ln) <= 72 for ln in lines[:-1]) and lines[-1] == picture
    assert lines[1].startswith("      Wort")  # continued under the indentation
    assert " ".join(out.split()) == " ".join((prose + picture).split())


def test_chart_layout_from_the_data():
    h = History([1, 2, 3], [Series("Anna", [0, 0, -1]), Series("Bärbel", [-2, -3, -7])])
    data = layout(h, "Besser-Wertung")
    assert [ln["name"] for ln in data["lines"]] == ["Anna", "Bärbel"]
    assert data["lines"][0]["colour"] != data["lines"][1]["colour"]
    pts = [tuple(map(float, p.split(","))) for p in data["lines"][1]["points"].split()]
    assert len(pts) == 4 and pts[0][1] == data["zero"]  # round 0 at zero, then one point a round
    ys = [y for _, y in pts]
    assert ys == sorted(ys)  # falling values go down the page (SVG y grows downwards)
    assert data["y0"] <= min(ys) and max(ys) <= data["y1"]
    assert "Bärbel: −7" not in data["desc"] and "Bärbel: -7" in data["desc"]
    assert layout(History([], []), "Punkte") is None
    assert layout(History([1, 2], [Series("Anna", [0, 0]), Series("Bärbel", [0, 0])]), "Punkte") is None


def test_points_history_matches_the_standings(played):
    with played.db.session() as s:
        for name in played.leagues:
            league = s.scalar(select(League).where(League.name == name))
            h = points_history(s, league)
            table = {r["name"]: r["points"] for r in standings(s, league)}
            assert {x.name: x.values[-1] for x in h.series} == table
            assert [x.name for x in h.series] == [r["name"] for r in standings(s, league)]


def test_no_script_and_no_external_resource(played, site):
    """Mail HTML and archive pages load nothing from anywhere (privacy, offline, file://):
    no script, no stylesheet link, no remote image or font; mail HTML styles are inline."""
    with played.db.session() as s:
        mails = [_parts(r.raw)[1] for r in s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung"))]
    pages = list(_files(site).values())
    for html in mails + pages:
        assert "<script" not in html and "<link" not in html and "url(" not in html
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    for html in mails:
        assert "<style" not in html  # mail clients drop <style>: every style is inline
