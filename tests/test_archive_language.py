"""The league archive speaks each league's language and names its periods as the game's
mails do: a Dutch RONDO league's pages are Dutch ("Beurt 1", "Opening", "gepauzeerd
sinds ..."), a German game of turns says "Zug 1" and "Eröffnung", never "Runde n"; the
index of every league stays German (the site's front page). Through the real service:
leagues from league data, rounds adjudicated, ``build_archive`` into a folder."""

from __future__ import annotations

import html as htmllib
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bot.service.conversations.gm import run_cli
from bot.service.operations.league import create_league
from bot.service.presentation.archive import build_archive
from bot.service.stages.rounds import adjudicate_league
from tests.wording_terms import GERMAN


def _league(db, cfg, name: str, language: str) -> None:
    zat = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    spec = {"name": name, "game": "rondonl", "partien": ["R1"], "first_zat": zat.isoformat(),
            "zat_interval_days": 7, "seed": "archief", "language": language, "turn_hours": 48,
            "players": [{"name": n, "email": f"{n.split()[0].lower()}@{name.lower()}.example"}
                        for n in ("Anna Albers", "Bernd Becker", "Clara Conrad")]}
    with db.session() as s:
        create_league(s, spec, cfg)
    for _ in range(2):  # the opening and turn 1, with no move (NMR)
        adjudicate_league(db, cfg, name, force=True)


def _visible(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"<(style|head)\b.*?</\1>", " ", text, flags=re.S | re.I)
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def test_a_dutch_league_s_archive_is_dutch_and_counts_turns(env, tmp_path):
    db, cfg, md = env
    _league(db, cfg, "Archief-Comp", "nl")
    _league(db, cfg, "Archiv-Liga", "de")
    with db.session() as s:
        run_cli(s, cfg, "pause", "Archief-Comp", still=True)
    out = tmp_path / "archiv"
    build_archive(db, out)
    pages = sorted((out / "archief-comp").glob("*.html"))
    assert len(pages) >= 5  # the league, two rounds, three players
    for page in pages:
        text = _visible(page)
        assert '<html lang="nl">' in page.read_text(encoding="utf-8")
        assert not GERMAN.search(text), (page.name, sorted(set(GERMAN.findall(text))))
        assert not re.search(r"\b(?:Runde|ronde|Ronde)\b", text), page.name
    league = _visible(out / "archief-comp" / "index.html")
    assert "Archief-Comp RONDO · gepauzeerd sinds " in league and "Beurt 2" in league
    assert "Laatste: Beurt 1" in league and "Beurten Opening Beurt 1" in league and "3 spelers" in league
    assert "Archief-Comp – Beurt 1" in _visible(out / "archief-comp" / "runde-02.html")
    german = [_visible(p) for p in sorted((out / "archiv-liga").glob("*.html"))]
    assert any("Züge Eröffnung Zug 1" in t for t in german)  # the league page's list
    assert not any(re.search(r"\bRunden?\s+\d", t) for t in german)
    assert any("Archiv-Liga – Zug 1" in t for t in german)
    index = _visible(out / "index.html")  # the front page: German, each league's row too
    assert "Ligen Liga Spiel Stand Runde Nächster ZAT" in index
    assert "Archief-Comp RONDO angehalten seit " in index and "Archiv-Liga RONDO läuft Zug 2" in index


def test_show_names_the_turn_of_a_game_of_turns(env):
    """``spielleiter show`` (the operator's tool, German) names the open period as the
    game does: "Zug 2" in RONDO, not "Runde 3"."""
    from bot.service.presentation.view import league_view
    db, cfg, md = env
    _league(db, cfg, "Zeig-Liga", "nl")
    view = league_view(db, "Zeig-Liga")
    assert view["round"] == 3 and view["period"] == "Zug 2"


def test_the_cli_names_the_turns_of_a_game_of_turns(tmp_path, capsys):
    """``spielleiter adjudicate`` and ``show`` (German, the operator's tools) say "Eröffnung"
    and "Zug 1" for RONDO, as its mails do, not "Runde 1" and "Runde 2"."""
    from bot.cli import main
    conf = tmp_path / "bot.toml"
    conf.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "db.sqlite"}"\n[maildir]\npath = "{tmp_path / "mail"}"\n'
                    '[bot]\nsender = "spielleiter@example.org"\n', encoding="utf-8")
    zat = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    liga = tmp_path / "liga.toml"
    liga.write_text(f'name = "Zug-Cli"\ngame = "rondonl"\npartien = ["R1"]\nfirst_zat = "{zat.isoformat()}"\n'
                    'zat_interval_days = 7\nseed = 1\nturn_hours = 48\n\n'
                    + "".join(f'[[players]]\nname = "{n}"\nemail = "{n.lower()}@cli.example"\n\n'
                              for n in ("Anna", "Bernd", "Clara")), encoding="utf-8")
    assert main(["init", "--config", str(conf)]) == 0
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    capsys.readouterr()
    assert main(["adjudicate", "Zug-Cli", "--now", "--config", str(conf)]) == 0
    assert "Zug-Cli, Eröffnung ausgewertet" in capsys.readouterr().out
    assert main(["adjudicate", "Zug-Cli", "--now", "--config", str(conf)]) == 0
    assert "Zug-Cli, Zug 1 ausgewertet" in capsys.readouterr().out
    assert main(["show", "Zug-Cli", "--config", str(conf)]) == 0
    out = capsys.readouterr().out.splitlines()[0]
    assert out.startswith("Zug-Cli (rondonl), Zug 2, Status läuft") and "Runde" not in out


def _headings(page: Path) -> list[str]:
    """The column headings of a player page's table (Runde für Runde / Zug für Zug)."""
    return [htmllib.unescape(h) for h in re.findall(r'<th scope="col"[^>]*>([^<]*)</th>',
                                                    page.read_text(encoding="utf-8"))]


def test_a_rondo_player_page_heads_the_words_value_and_the_points_apart(env, tmp_path):
    """A RONDO player's page shows the value of the word laid (the opening's decides who
    opens and counts nothing) and the points that count in two columns that read apart:
    "Waarde" and "Punten" in a Dutch league, "Wert" and "Punkte" in a German one (not
    "Punkte" twice); Monoscrabble's "Punkte" and "Besser-Wertung": tests/test_archive.py."""
    import random

    from bot.demo import Demo, play_league

    db, cfg, md = env
    demo = Demo(db, cfg, md, tmp_path / "eml", random.Random("waarde"), lambda *a: None)
    (tmp_path / "eml").mkdir()
    base = {"first_zat": (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0).isoformat(),
            "zat_interval_days": 7, "seed": "waarde", "turn_hours": 48}
    players = [("Anna Albers", "anna@waarde.example", "sterk"), ("Bernd Becker", "bernd@waarde.example", "sterk"),
               ("Clara Conrad", "clara@waarde.example", "sterk")]
    for name, lang in (("Waarde-Comp", "nl"), ("Wert-Liga", "de")):
        play_league(demo, {"name": name, "game": "rondonl", "partien": ["T1"], "language": lang,
                           "players": [(n, e.replace("waarde", name.lower()), st) for n, e, st in players],
                           "options": {"full_rounds": 1}, "max_rounds": 2, "eml": name.lower()}, base)
    out = tmp_path / "archiv"
    build_archive(db, out)
    for folder, want, standing in (("waarde-comp", ["Beurt", "Zet", "Waarde", "Punten", "Stand"], "plaats {}, Punten: "),
                                   ("wert-liga", ["Zug Nr.", "Zug", "Wert", "Punkte", "Stand"], "Platz {}, Punkte: ")):
        pages = sorted((out / folder).glob("spieler-*.html"))
        assert len(pages) == 3
        # the player's place and points under the name: "Platz 2, Punkte: 0" (not "mit 0 (Punkte)")
        texts = [p.read_text(encoding="utf-8") for p in pages]
        assert sorted(any(standing.format(n) in t for t in texts) for n in (1, 2, 3)).count(True) >= 2, folder
        heads = [_headings(p) for p in pages]
        assert want in heads, (folder, heads)  # a player with an opening word: its value, then the points
        for h in heads:
            assert len(set(h)) == len(h), (folder, h)  # no two columns alike
