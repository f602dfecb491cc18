"""Shared helpers for the service, CLI and end-to-end tests (no fixtures here)."""

from __future__ import annotations

import email
import email.policy
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bot.mail.compose import compose

PLAYERS = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
           ("Clara Conrad", "clara@example.org")]


def league_toml(path: Path, *, name: str = "Test-Rondo", partien=("R1", "R2"), rounds: int = 3,
                first_zat: datetime | None = None, players=PLAYERS, extra: str = "") -> Path:
    first_zat = first_zat or (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0)
    lines = [f'name = "{name}"', 'game = "rondo"', "partien = [" + ", ".join(f'"{p}"' for p in partien) + "]",
             f"rounds = {rounds}", f'first_zat = "{first_zat.isoformat()}"', "zat_interval_days = 7", "seed = 1",
             extra, ""]
    for n, e in players:
        lines += ["[[players]]", f'name = "{n}"', f'email = "{e}"', ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def player_mail(sender: str, body: str, subject: str = "Züge", to: str = "spielleiter@example.org",
                headers: dict | None = None) -> bytes:
    return compose(sender=sender, to=to, subject=subject, text=body, headers={"Auto-Submitted": "no", **(headers or {})})


def text_of(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    return msg.get_body(("plain",)).get_content()


def header(raw: bytes, name: str) -> str:
    return str(email.message_from_bytes(raw, policy=email.policy.default)[name] or "")


def server_config(path: Path, dovecot, smtp, user: str, *, db_url: str = "sqlite:///bot.sqlite",
                  sender: str = "Spielleiter <spielleiter@example.org>", imap_password: str | None = None,
                  smtp_login: str = "", bot: str = "",
                  smtp_limits: str = "max_per_minute = 0\nmax_per_hour = 0\nmax_per_day = 0") -> Path:
    """Write a bot config for the test Dovecot (as ``user``) and the test SMTP server.
    ``smtp_login``: extra ``[smtp]`` lines (``user = ...``); ``bot``: extra ``[bot]`` lines;
    ``smtp_limits``: the send limits (default: none, the test relay is no provider)."""
    path.write_text(f"""
[database]
url = "{db_url}"

[imap]
host = "{dovecot.host}"
port = {dovecot.port}
user = "{user}"
password = "{dovecot.password if imap_password is None else imap_password}"
tls = false
folder = "INBOX"

[smtp]
host = "{smtp.host}"
port = {smtp.port}
tls = false
sender = "{sender}"
{smtp_login}
{smtp_limits}

[bot]
timezone = "Europe/Berlin"
{bot}
""", encoding="utf-8")
    return path


#: The rule cases shipped with the project (copies of the shared cases of the games built);
#: every test that needs a case reads them from here, so a clone passes on its own.
CASES_DIR = Path(__file__).resolve().parent / "cases"
#: The shared rule cases beside the project, when the clone has them (``../shared``).
SHARED_CONFORMANCE = Path(__file__).resolve().parents[2] / "shared" / "conformance"


def case_files() -> list[Path]:
    """Every ``tests/cases/*.json``, then every ``../shared/conformance/*.json`` if that
    folder exists (new cases arrive there)."""
    files = sorted(CASES_DIR.glob("*.json"))
    if SHARED_CONFORMANCE.is_dir():
        files += sorted(SHARED_CONFORMANCE.glob("*.json"))
    return files


def spielleiter_exe() -> str:
    """The ``spielleiter`` command installed in the test's own environment (next to
    ``sys.executable``), never one found on PATH."""
    import sys
    exe = Path(sys.executable).parent / "spielleiter"
    assert exe.exists(), f"{exe} fehlt: erst `pip install -e .[test]` (scripts/setup --test)"
    return str(exe)
