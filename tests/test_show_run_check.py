"""Issue 33, item 6 and 5: what the operator sees.

- ``show`` prints every time in the league's local time with its zone (the first line's
  ZAT was UTC ISO while the Partie lines were local); with ``sequential = true`` a Partie
  that has not started is shown as waiting, not as running "am Zug: alle" with racks.
- ``spielleiter run`` logs one line at start (no Alembic chatter) and one at a clean stop
  (SIGTERM), in German like the rest of the log and the commands.
- ``check`` says which word list it builds while it builds it (it was silent for 22 s).
- ``[maildir] sender`` is the From of outgoing mails in Maildir mode.
Real CLI, real service process, real Maildir.
"""

from __future__ import annotations

import email
import email.policy
import os
import shutil
import signal
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bot.cli import main
from bot.mail.maildir import MaildirTransport
from tests.helpers import league_toml, spielleiter_exe

ZAT = datetime(2030, 12, 6, 20, 0, tzinfo=timezone(timedelta(hours=1)))


def _conf(tmp_path: Path, extra: str = "") -> Path:
    conf = tmp_path / "bot.toml"
    conf.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "db.sqlite"}"\n[maildir]\npath = "{tmp_path / "mail"}"\n'
                    f'{extra}', encoding="utf-8")
    return conf


def test_show_speaks_local_time_and_shows_a_waiting_partie(tmp_path, capsys):
    conf = _conf(tmp_path)
    liga = league_toml(tmp_path / "liga.toml", name="Folge", first_zat=ZAT,
                       extra="\n[options]\nsequential = true\n")
    assert main(["init", "--config", str(conf)]) == 0
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    capsys.readouterr()
    assert main(["show", "Folge", "--config", str(conf)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("Folge (rondo), Runde 1 von 3, Status läuft, "
                      "nächster ZAT Freitag, 06.12.2030, 20:00 Uhr (UTC+01:00)"), out[0]
    r1 = [ln for ln in out if ln.startswith("  Partie R1:")]
    r2 = [ln for ln in out if ln.startswith("  Partie R2:")]
    assert r1 and "wartet" not in r1[0]
    assert r2 == ["  Partie R2: wartet (beginnt nach Partie R1)"], out
    assert not any("T19:00" in ln or "+00:00" in ln for ln in out)
    assert main(["show", "Folge", "--json", "--config", str(conf)]) == 0
    import json
    view = json.loads(capsys.readouterr().out)
    assert [p["waiting"] for p in view["partien"]] == [False, True]
    assert "players" not in view["partien"][1]  # no racks of a Partie not started


def test_run_logs_one_line_at_start_and_one_at_a_clean_stop(tmp_path):
    conf = _conf(tmp_path)
    assert subprocess.run([spielleiter_exe(), "init", "--config", str(conf)], capture_output=True).returncode == 0
    log = tmp_path / "run.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen([spielleiter_exe(), "run", "--config", str(conf)], stdout=fh, stderr=fh,
                                cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while "gestartet" not in log.read_text(encoding="utf-8") and time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text(encoding="utf-8")
            time.sleep(0.2)
        time.sleep(1)  # a first pass of the loops: nothing happened, nothing is logged
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2, lines
    assert "INFO" in lines[0] and f"gestartet (pid {proc.pid}): Maildir {tmp_path / 'mail'}" in lines[0], lines
    assert "alembic" not in "\n".join(lines).lower()
    assert lines[1].endswith(f"Spielleiter beendet (pid {proc.pid})"), lines


def test_check_shows_progress_while_it_builds_a_word_list(tmp_path):
    """The German word lists are copied from the built cache; the Dutch one is missing, so
    ``check`` builds it and says so on stderr before and after, then reports it OK."""
    from bot.lexicon.cache import default_cache_dir
    src = default_cache_dir()
    lex = tmp_path / "lexicon"
    lex.mkdir()
    for f in src.iterdir():
        if f.is_file():
            shutil.copy2(f, lex / f.name)
    conf = _conf(tmp_path, f'[lexicon]\npath = "{lex}"\n')
    res = subprocess.run([spielleiter_exe(), "check", "--config", str(conf)], capture_output=True, text=True,
                         timeout=300)
    err = res.stderr.splitlines()
    assert err[0] == "Lexikon nl: die Wortliste wird gebaut (einmalig, dauert einige Sekunden) ...", res.stderr
    assert err[1].startswith("Lexikon nl: gebaut in ") and err[1].endswith(" s"), res.stderr
    assert len(err) == 2  # the German lists were built: no line for them
    assert "OK      Lexikon nl: " in res.stdout and "OK      Lexikon rondo: " in res.stdout


def test_maildir_sender_is_the_from_of_outgoing_mails(tmp_path):
    conf = _conf(tmp_path, '[bot]\nsender = "nicht@example.org"\n')
    text = conf.read_text(encoding="utf-8").replace(
        '[bot]', 'sender = "Liga Nord <liga@example.org>"\n[bot]')  # into [maildir]
    conf.write_text(text, encoding="utf-8")
    liga = league_toml(tmp_path / "liga.toml", name="Nord", first_zat=ZAT)
    assert main(["init", "--config", str(conf)]) == 0
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    md = MaildirTransport(tmp_path / "mail")
    froms = {str(email.message_from_bytes(m.as_bytes(), policy=email.policy.default)["From"])
             for m in md.outbox}
    assert froms == {"Liga Nord <liga@example.org>"}
