"""Values the mail intake writes fit on both backends (fixture ``db_url``): SQLite ignores
column lengths and integer widths, PostgreSQL does not. A value that does not fit made the
store callback fail, so the mail was never stored and the poll stopped at it every time."""

from __future__ import annotations

from sqlalchemy import select

from bot.config import Config
from bot.service.stages.store import store_raw
from bot.service.operations.league import create_league, read_league_file
from bot.service.operations.mailer import DbPollState
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import InboundMail, Submission
from tests.helpers import league_toml, player_mail


def test_long_source_and_unsigned_32_bit_uids(db_url):
    db = Database(db_url)
    db.migrate()
    try:
        big_validity, big_uid = 4_294_967_295, 3_000_000_001  # IMAP: unsigned 32-bit (RFC 3501)
        source = "imap:Spielleiter.Eingang.Rondo-Liga-2026"
        mail_id, new = store_raw(db, player_mail("anna@example.org", "TOR"), source=source,
                                 uidvalidity=big_validity, uid=big_uid)
        assert new
        with db.session() as s:
            m = s.get(InboundMail, mail_id)
            assert (m.source, m.uidvalidity, m.uid) == (source, big_validity, big_uid)
        state = DbPollState(db)
        state.set("Spielleiter.Eingang", big_validity, big_uid)
        state.set("Spielleiter.Eingang", big_validity, big_uid + 1)
        assert state.get("Spielleiter.Eingang") == (big_validity, big_uid + 1)
    finally:
        db.dispose()


def test_poll_from_a_folder_with_a_long_name(tmp_path, dovecot, smtpd, db_url):
    """``[imap] folder`` other than INBOX: the source ``imap:<folder>`` is stored as it is."""
    user = dovecot.fresh_user()
    folder = "Spielleiter.Eingang"
    cfg = Config(database_url=db_url, sender="Spielleiter <spielleiter@example.org>",
                 imap={"host": dovecot.host, "port": dovecot.port, "user": user, "password": dovecot.password,
                       "tls": False, "folder": folder},
                 smtp={"host": smtpd.host, "port": smtpd.port, "tls": False})
    db = Database(db_url)
    db.migrate()
    try:
        with db.session() as s:
            create_league(s, read_league_file(league_toml(tmp_path / "l.toml", partien=("R1",))), cfg)
        dovecot.append(player_mail("anna@example.org", "Partie R1:\nXYZ\n"), folder=folder, user=user)
        assert poll_once(db, cfg) == 1
        assert dovecot.fetch_all(folder, user=user) == []
        assert len(dovecot.fetch_all("Spielleiter.Verarbeitet", user=user)) == 1
        with db.session() as s:
            mail = s.scalar(select(InboundMail))
            assert mail.source == f"imap:{folder}" and mail.status == "processed"
            assert len(s.scalars(select(Submission)).all()) == 1
        assert any(m.rcpt_tos == ["anna@example.org"] for m in smtpd.messages)
    finally:
        db.dispose()
