"""The wheel works on its own (issue 7): built from this tree, installed into a new, empty
venv, and run outside the source tree with a minimal environment (no ``spielleiter`` on
PATH): ``init``, ``league create``, ``poll``, ``adjudicate`` and ``demo``; templates,
grammars and migrations come from the installed package."""

from __future__ import annotations

import mailbox
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import league_toml, player_mail

pytestmark = pytest.mark.wheel
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel_file(tmp_path_factory):
    """The wheel of this tree, built by ``pip wheel --no-deps`` as CI does."""
    base = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(base / "dist"), str(REPO)],
                   check=True, capture_output=True, text=True, timeout=600)
    wheels = list((base / "dist").glob("spielleiter-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


def test_wheel_is_a_platform_wheel_with_the_compiled_search_core(wheel_file):
    """Issue 25: the move generators' search core is compiled into the wheel (no .pyx or
    generated .c shipped), so the wheel is tagged for this platform, not ``none-any``."""
    import zipfile

    names = zipfile.ZipFile(wheel_file).namelist()
    assert [n for n in names if n.startswith("bot/games/_gridcore.") and n.endswith(".so")]
    assert not [n for n in names if n.endswith((".pyx", ".pxi", "_gridcore.c"))]
    assert not wheel_file.name.endswith("-none-any.whl")


@pytest.fixture(scope="module")
def wheel_venv(wheel_file, tmp_path_factory):
    """A new venv with only the wheel of this tree (and its dependencies) installed."""
    base = wheel_file.parent.parent
    wheels = [wheel_file]
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheels[0])],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return venv


def _env(home: Path) -> dict:
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", str(home)), "LANG": "C.UTF-8"}
    for key in ("XDG_CACHE_HOME", "SPIELLEITER_LEXICON_DIR"):  # the built word lists, as the user has them
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def test_wheel_in_an_empty_venv_plays_a_round(wheel_venv, tmp_path):
    exe = wheel_venv / "bin" / "spielleiter"
    run_dir = tmp_path / "run"
    run_dir.mkdir()

    def run(*args):
        proc = subprocess.run([str(exe), *args], cwd=run_dir, env=_env(tmp_path), capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, f"{args}: {proc.stdout}\n{proc.stderr}"
        return proc.stdout

    where = subprocess.run([str(wheel_venv / "bin" / "python"), "-c",
                            "import bot; print(bot.TEMPLATE_DIR); print(bot.GRAMMAR_DIR); print(bot.MIGRATIONS_DIR)"],
                           cwd=run_dir, env=_env(tmp_path), capture_output=True, text=True, check=True).stdout
    assert all(str(wheel_venv) in line and "site-packages/bot/" in line for line in where.splitlines())
    # the Dutch catalog is compiled into the wheel (setup.py's build step) and used from there
    dutch = subprocess.run([str(wheel_venv / "bin" / "python"), "-c",
                            "from bot.i18n import locale_dir, tr; print(tr('nl', 'partie_over')); "
                            "print((locale_dir() / 'nl' / 'LC_MESSAGES' / 'messages.mo').is_file())"],
                           cwd=run_dir, env=_env(tmp_path), capture_output=True, text=True, check=True).stdout
    assert dutch.splitlines() == ["deze partij is afgelopen.", "True"]
    core = subprocess.run([str(wheel_venv / "bin" / "python"), "-c",
                           "from bot.games import gridgen; print(gridgen._gridcore.__file__)"],
                          cwd=run_dir, env=_env(tmp_path), capture_output=True, text=True, check=True).stdout.strip()
    assert str(wheel_venv) in core and core.endswith(".so")

    conf = run_dir / "spielleiter.toml"
    conf.write_text('[database]\nurl = "sqlite:///liga.sqlite"\n\n[maildir]\npath = "mail"\n', encoding="utf-8")
    assert "Datenbank bereit" in run("init", "--config", str(conf))
    assert (run_dir / "liga.sqlite").exists()
    liga = league_toml(run_dir / "liga.toml", name="Rad-Liga", partien=("R1",))
    assert "Liga Rad-Liga angelegt" in run("league", "create", str(liga), "--config", str(conf))
    outbox = mailbox.Maildir(run_dir / "mail" / "outbox", create=False)
    assert len(outbox) == 3
    mailbox.Maildir(run_dir / "mail" / "inbox", create=False).add(player_mail("anna@example.org", "Partie R1:\nXYZ"))
    assert "1 neue Mail(s) gespeichert." in run("poll", "--config", str(conf))
    assert len(outbox) == 4                               # the acknowledgement
    assert "Rad-Liga, Runde 1 ausgewertet" in run("adjudicate", "Rad-Liga", "--now", "--config", str(conf))
    assert len(outbox) == 7                               # three Auswertungen
    out = run("demo", "--rounds", "2", "--out", str(run_dir / "demo"))
    assert "Endstand" in out and len(list((run_dir / "demo").glob("rondo-*.eml"))) > 0
    index = run_dir / "demo" / "archiv" / "index.html"   # the archive of the leagues played, to open
    assert str(index.resolve()) in out
    html = index.read_text(encoding="utf-8")
    for league in ("Demo-Rondo", "Demo-Mono", "Demo-Kreuz", "Demo-Presto", "Demo-WBR", "Demo-RONDO"):
        assert f">{league}</a>" in html
