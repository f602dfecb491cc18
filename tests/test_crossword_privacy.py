"""Crossword's verdicts stay the mover's until the end (issue 31), through the service
(embedded SQLite + Maildir): a placement names fields and letters of a private grid, so
the text of a move and every verdict on it reach only the mover and the game master
before the Partie is over. Anna sends a placement on a field already filled in her grid,
then one with a letter not in the round, then a valid one; Bernd's last placement is
invalid at the ZAT. Nobody else (their Auswertungen, their ``AUSWERTUNG n ALLE``, the
archive) learns a field or letter of her grid or lines, nor why Bernd's move failed, only
that it did; the movers get the precise reason. After the end every grid and word list is
public (seed 003; RULES.md "Crossword")."""

from __future__ import annotations

import html as htmlmod
import re
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league
from bot.service.operations.runner import poll_once
from bot.service.presentation.archive import build_archive
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.storage.db import Database
from bot.storage.models import League
from tests.helpers import player_mail
from tests.privacy import mail_texts

NAMES = ["Anna Albers", "Bernd Becker", "Clara Conrad", "Dieter Dahl", "Edith Ernst", "Fritz Fuchs"]
EMAILS = [f"{n.split()[0].lower()}@kreuz.invalid" for n in NAMES]
ANNA, BERND = EMAILS[0], EMAILS[1]
GM = "gm@kreuz.invalid"
LIGA = "Geheim-Kreuz"

#: Anna's grid (row C) and every field/letter pair she ever wrote before the last round.
ANNA_PAIRS = ["C1 H", "C2 O", "C3 S", "C4 E", "C1 E", "C5 N", "C5 Q"]
#: What the verdicts on her lines and Bernd's say (the mover's alone before the end).
ANNA_REASONS = ["Auf C1 steht schon H.", "Q ist nicht unter den Buchstaben dieser Runde"]
BERND_REASON = "Auf F1 steht schon H."


def _leaks(text: str, to: str | None = None) -> list[str]:
    """Anything of Anna's grid or lines, or of the verdicts on hers and Bernd's (but
    Bernd's own, when ``to`` is Bernd), in ``text``."""
    flat = " ".join(text.split())
    out = [p for p in ANNA_PAIRS if re.search(rf"(?<![A-Za-z0-9]){p}(?![A-Za-z0-9])", text)]
    out += [w for w in ("HOSE", "H O S E") if w in text]
    out += [r for r in ANNA_REASONS + ([] if to == BERND else [BERND_REASON]) if r in flat]
    return out


@pytest.fixture
def service(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = "Spielleiter <spielleiter@kreuz.invalid>"
    cfg.rate_limit_per_hour = 0
    db = Database(cfg.database_url)
    db.migrate()
    yield db, cfg, MaildirTransport(cfg.maildir)
    db.dispose()


def test_a_crossword_move_and_its_verdicts_are_the_movers_until_the_end(service, tmp_path):
    db, cfg, md = service
    assert cfg.database_url.startswith("sqlite")
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0).isoformat()
    spec = {"name": LIGA, "game": "crossword", "partien": ["P1"], "seed": "31", "first_zat": first,
            "zat_interval_days": 7, "gm_email": GM, "review": False, "require_code": False,
            "players": [{"name": n, "email": e} for n, e in zip(NAMES, EMAILS)]}
    with db.session() as s:
        create_league(s, spec, cfg)
    archive = tmp_path / "archiv"
    seen = 0

    def send(email: str, body: str) -> dict[str, str]:
        """One mail from ``email``; the answers it got, by recipient."""
        md.deliver_to_inbox(player_mail(email, f"Partie P1:\n{body}\n", subject=f"{LIGA} Züge"))
        poll_once(db, cfg)
        return new_mails()

    def new_mails() -> dict[str, str]:
        nonlocal seen
        deliver(db, md, cfg)
        sent = md.sent()
        out: dict[str, str] = {}
        for raw in sent[seen:]:
            to, text = mail_texts(raw)
            out[to] = out.get(to, "") + "\n" + text
        seen = len(sent)
        return out

    def zat() -> dict[str, str]:
        adjudicate_league(db, cfg, LIGA, force=True)
        return new_mails()

    def archive_text() -> str:
        build_archive(db, archive)
        return "\n".join(htmlmod.unescape(re.sub(r"<[^>]+>", " ", p.read_text(encoding="utf-8")))
                         for p in sorted(archive.rglob("*.html")))

    others_got: list[tuple[str, str]] = []   # (recipient, text) of every mail to a player other than Anna

    def keep(mails: dict[str, str]) -> dict[str, str]:
        others_got.extend((to, t) for to, t in mails.items() if to not in (ANNA, GM))
        return mails

    keep(new_mails())
    # round 1: the wishes make round 2's letters A E H O S U
    for email, letter in zip(EMAILS, "HAUSEO"):
        keep(send(email, f"Wunsch: {letter}"))
    keep(zat())

    # round 2: Anna lays HOSE in row C, the others lay two letters in row F
    acks = keep(send(ANNA, "C1 H, C2 O, C3 S, C4 E\nWunsch: N"))
    assert "gültig: 4 Buchstaben gelegt. Ungenutzt: A U. Wunsch: N." in " ".join(acks[ANNA].split())
    for email in EMAILS[1:]:
        keep(send(email, "F1 H, F2 A\nWunsch: E"))
    keep(zat())

    # round 3 (letters E E E E E N): a filled field, a letter not in the round, then valid
    acks = keep(send(ANNA, "C1 E, C5 N\nWunsch: T"))
    flat = " ".join(acks[ANNA].split())
    assert "ungültig: Auf C1 steht schon H." in flat and "Dein Spielfeld bleibt so:" in flat
    assert "Bleibt es dabei, zählt nur dein Wunsch T." in flat
    acks = keep(send(ANNA, "C5 Q\nWunsch: T"))
    assert "ungültig: Q ist nicht unter den Buchstaben dieser Runde (E E E E E N)." in " ".join(acks[ANNA].split())
    acks = keep(send(ANNA, "C5 N\nWunsch: T"))
    assert "gültig: 1 Buchstabe gelegt. Ungenutzt: E E E E E. Wunsch: T." in " ".join(acks[ANNA].split())
    assert "C  H O S E N ·" in acks[ANNA]
    acks = keep(send(BERND, "F1 E\nWunsch: E"))     # F1 holds his H: invalid, and stays so at the ZAT
    assert f"ungültig: {BERND_REASON}" in " ".join(acks[BERND].split())
    for email in EMAILS[2:]:
        keep(send(email, "E1 E\nWunsch: E"))
    reports = keep(zat())
    clara = " ".join(reports[EMAILS[2]].split())
    assert re.search(r"Bernd Becker +ungültig, nichts gelegt", reports[EMAILS[2]])
    assert "Anna Albers gelegt" in clara
    assert BERND_REASON in " ".join(reports[GM].split())          # the game master sees why
    assert "C  H O S E N ·" in reports[ANNA] and "C  H O S E N ·" not in reports[EMAILS[2]]

    # everybody asks for the whole Auswertung of round 3 (ALLE): others' lines as "ungültig"
    for email in EMAILS:
        md.deliver_to_inbox(player_mail(email, "", subject="AUSWERTUNG 3 ALLE"))
    poll_once(db, cfg)
    alle = keep(new_mails())
    assert set(alle) >= set(EMAILS)
    dieter = " ".join(alle[EMAILS[3]].split())
    assert "ungültig" in dieter and "(verdeckt bis zum Ende der Partie)" in dieter
    assert "C5 N Wunsch: T -> gültig: 1 Buchstabe gelegt. Ungenutzt: E E E E E. Wunsch: T." in " ".join(
        alle[ANNA].split())                                          # her own line and verdict, whole

    pages = archive_text()
    assert pages.strip() and not _leaks(pages), _leaks(pages)

    # rounds 4-6: nobody moves (NMR, the wishes drawn); round 7: Anna lists her words
    for _ in range(4, 7):
        keep(zat())
        assert not _leaks(archive_text())
    acks = keep(send(ANNA, "Wörter:\nHOSEN C1-C5\nHOSE C1-C4\nXYZ D1-D3"))
    flat = " ".join(acks[ANNA].split())
    assert "Hinweis: HOSE C1-C4: HOSE teilt C1, C2, C3, C4 mit einem schon gewerteten Wort der Zeile C" in flat
    assert "Hinweis: XYZ D1-D3: Auf D1-D3 steht ··· (ein leeres Feld), nicht XYZ." in flat

    # nothing of Anna's grid or lines, nor of Anna's or Bernd's verdicts, reached anybody else
    assert others_got
    for to, text in others_got:
        assert not _leaks(text, to), f"an {to}: {_leaks(text, to)}"

    # the end: every grid and word list is public, in the mails and in the archive
    final = zat()
    with db.session() as s:
        assert s.scalars(select(League)).one().status == "finished"
    clara = final[EMAILS[2]]
    assert "HOSEN." in clara.replace("·", ".") or "HOSEN" in clara
    flat = " ".join(clara.split())
    assert "HOSEN C1-C5 7 Punkte" in flat
    assert "HOSE teilt C1, C2, C3, C4 mit einem schon gewerteten Wort der Zeile C" in flat
    assert "XYZ D1-D3 ungültig, steht so nicht da Auf D1-D3 steht ··· (ein leeres Feld), nicht XYZ." in flat
    pages = " ".join(archive_text().split())
    assert "H O S E N" in pages                                     # her grid, one field a cell
    assert "HOSE teilt C1, C2, C3, C4 mit einem schon gewerteten Wort der Zeile C" in pages


def test_a_dutch_crossword_league_reads_its_verdicts_in_dutch(service):
    """The same verdicts rendered from the Dutch catalog (league ``language = "nl"``): the
    mover's precise reason and the others' Auswertung, in Dutch, with nothing German."""
    db, cfg, md = service
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0).isoformat()
    spec = {"name": LIGA, "game": "crossword", "partien": ["P1"], "seed": "31", "first_zat": first,
            "zat_interval_days": 7, "gm_email": GM, "review": False, "require_code": False, "language": "nl",
            "players": [{"name": n, "email": e} for n, e in zip(NAMES, EMAILS)]}
    with db.session() as s:
        create_league(s, spec, cfg)
    outbox = _Outbox(db, cfg, md)
    start = dict(map(mail_texts, outbox.new()))
    assert "Zo stuur je je zetten (Crossword)" in start[ANNA] and "So schickst du" not in start[ANNA]
    for email, letter in zip(EMAILS, "HAUSEO"):
        md.deliver_to_inbox(player_mail(email, f"Partie P1:\nWunsch: {letter}\n", subject=f"{LIGA} Züge"))
    poll_once(db, cfg)
    adjudicate_league(db, cfg, LIGA, force=True)
    outbox.new()
    md.deliver_to_inbox(player_mail(ANNA, "Partie P1:\nC1 H, C2 Q\nWunsch: N\n", subject=f"{LIGA} Züge"))
    poll_once(db, cfg)
    ack = " ".join(dict(map(mail_texts, outbox.new()))[ANNA].split())
    assert "ongeldig: Q zit niet bij de letters van deze ronde (A E H O S U)." in ack
    assert "Je speelveld blijft zo:" in ack and "nicht unter den Buchstaben" not in ack
    adjudicate_league(db, cfg, LIGA, force=True)
    reports = dict(map(mail_texts, outbox.new()))
    bernd = reports[BERND]
    assert re.search(r"Anna Albers +ongeldig, niets gelegd", bernd) and re.search(r"Bernd Becker +geen zet\b", bernd)
    assert "Letters voor ronde 3:" in bernd and "C2 Q" not in bernd and "zit niet bij" not in bernd
    for german in ("Buchstaben", "gültig", "Runde", "Spielfeld"):
        assert german not in bernd, german


class _Outbox:
    """The mails the service sent since the last look."""

    def __init__(self, db, cfg, md) -> None:
        self.db, self.cfg, self.md, self.seen = db, cfg, md, 0

    def new(self) -> list[bytes]:
        deliver(self.db, self.md, self.cfg)
        sent = self.md.sent()
        out, self.seen = sent[self.seen:], len(sent)
        return out
