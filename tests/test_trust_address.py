"""Issue 31 (trust), addresses: every mail is addressed to a person in a role, never looked
up by address, and an address change must be proven. Through the embedded service
(SQLite + Maildir: mails fed into the inbox, ``poll``, the ZAT, the CLI), reading what
each address received.

Attack 3: ``ADRESSE gm@...`` made a player's rendered Auswertung the GM copy (the rendered
mails were kept by address), so ``AUSWERTUNG 1`` answered with every player's rack; a GM
who plays in their own league with one address got the GM copy twice.
Attack 4: one forged ``From: anna@...`` with ``ADRESSE mallory@evil.example`` redirected
Anna's mail to the forger (confirmation listing her addresses, then her Auswertung)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.cli import main
from bot.config import load_config
from bot.mail.maildir import MaildirTransport
from bot.service.conversations.identity import hash_code
from bot.service.operations.runner import poll_once
from bot.service.stages.rounds import adjudicate_league
from bot.storage.db import Database
from bot.storage.models import AddressChange, Partie, Player
from tests.helpers import header, league_toml, player_mail, text_of

GM = "gm@example.org"
GM_CODE = "Leiter-0815"
ANNA, BERND, CLARA = "anna@example.org", "bernd@example.org", "clara@example.org"
MALLORY = "mallory@evil.example"
PLAYERS = [("Anna Albers", ANNA), ("Bernd Becker", BERND), ("Clara Conrad", CLARA)]
LIGA = "Vertrauen"


class Service:
    """An embedded service set up through the CLI: config file, leagues, the Maildir."""

    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        self.conf = tmp_path / "bot.toml"
        self.conf.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "db.sqlite"}"\n'
                             f'[maildir]\npath = "{tmp_path / "mail"}"\n'
                             '[bot]\nsender = "Spielleiter <spielleiter@example.org>"\n', encoding="utf-8")
        assert main(["init", "--config", str(self.conf)]) == 0
        self.cfg = load_config(self.conf)
        self.db = Database(self.cfg.database_url)
        self.md = MaildirTransport(self.cfg.maildir)
        self.seen: set[str] = set()

    def league(self, name: str = LIGA, *, game: str = "typdom", players=PLAYERS, gm: str | None = GM,
               extra: str = "") -> None:
        keys = f'gm_email = "{gm}"\ngm_code = "{GM_CODE}"\n' if gm else ""
        path = league_toml(self.tmp / f"{name}.toml", name=name, partien=("K1",), rounds=10, players=players,
                           extra=keys + extra)
        path.write_text(path.read_text().replace('game = "rondo"', f'game = "{game}"'))
        assert main(["league", "create", str(path), "--config", str(self.conf)]) == 0

    def mail(self, sender: str, subject: str, body: str = "", headers: dict | None = None) -> None:
        self.md.deliver_to_inbox(player_mail(sender, body, subject=subject, headers=headers))

    def poll(self) -> list[bytes]:
        poll_once(self.db, self.cfg)
        return self.new()

    def zat(self, name: str = LIGA) -> list[bytes]:
        assert adjudicate_league(self.db, self.cfg, name, force=True)
        return self.poll()

    def new(self) -> list[bytes]:
        """The mails sent since the last look."""
        keys = set(self.md.outbox.keys()) - self.seen
        self.seen |= keys
        return [self.md.outbox.get_bytes(k) for k in sorted(keys)]

    def cli(self, capsys, *args: str) -> str:
        capsys.readouterr()
        assert main([*args, "--config", str(self.conf)]) == 0
        return capsys.readouterr().out

    def addresses(self, name: str = "Anna Albers") -> list[str]:
        with self.db.session() as s:
            return [a.email for a in s.scalar(select(Player).where(Player.name == name).limit(1)).addresses]


@pytest.fixture
def svc(tmp_path):
    s = Service(tmp_path)
    yield s
    s.db.dispose()


def to(raws, addr: str) -> list[str]:
    return [text_of(r) for r in raws if header(r, "To") == addr]


def short_lines(raws) -> None:
    """Every mail has one To and no Cc, and every line of its text part is at most 72
    characters long."""
    for raw in raws:
        assert "," not in header(raw, "To") and "@" in header(raw, "To") and not header(raw, "Cc")
        long = [ln for ln in text_of(raw).splitlines() if len(ln) > 72]
        assert not long, (header(raw, "To"), long)


def flat(text: str) -> str:
    return " ".join(text.split())


def banks(svc) -> dict[str, str]:
    """Every player's Typ-Dom bank (rack) now, as the mails write its black tiles."""
    from bot.games.typdom.tiles import colour
    with svc.db.session() as s:
        addr = {str(p.id): p.email for p in s.scalars(select(Player))}
        racks = s.scalar(select(Partie).where(Partie.name == "K1").order_by(Partie.id)).state["racks"]
    return {addr[k]: "schwarz: " + " ".join(sorted(t for t in r if colour(t) == "schwarz")) for k, r in racks.items()}


def rack_shown(text: str, bank: str) -> bool:
    return bank in flat(text)


# -- attack 3: mails by role ---------------------------------------------------------------

def test_attack3_adresse_with_the_gms_address_is_refused(svc):
    svc.league()
    svc.new()
    # the GM's address can never become a player's
    svc.mail(ANNA, f"ADRESSE {GM}")
    answer = to(svc.poll(), ANNA)
    assert len(answer) == 1 and f"{GM} ist die Adresse eines Spielleiters" in flat(answer[0])
    assert "Nichts wurde verändert" in answer[0]
    assert svc.addresses() == [ANNA]

    reports = svc.zat()
    bank = banks(svc)
    assert len(to(reports, ANNA)) == 1 and len(to(reports, GM)) == 1
    svc.mail(ANNA, "AUSWERTUNG 1")
    copy = to(svc.poll(), ANNA)
    assert len(copy) == 1
    assert "Hallo Anna Albers," in copy[0] and "Hallo Spielleiter" not in copy[0]
    assert rack_shown(copy[0], bank[ANNA])
    assert not rack_shown(copy[0], bank[BERND]) and not rack_shown(copy[0], bank[CLARA])


def test_gm_who_plays_with_one_address_gets_both_copies(svc):
    svc.league(gm=ANNA)  # Anna leads the league and plays in it, from one address
    svc.new()
    reports = svc.zat()
    bank = banks(svc)
    short_lines(reports)
    got = to(reports, ANNA)
    assert len(got) == 2
    player = next(t for t in got if "Hallo Anna Albers," in t)
    gm = next(t for t in got if "Hallo Spielleiter," in t)
    assert rack_shown(player, bank[ANNA])
    assert not rack_shown(player, bank[BERND]) and not rack_shown(player, bank[CLARA])
    assert all(rack_shown(gm, r) for r in bank.values())
    # her player copy is what AUSWERTUNG 1 sends again, not the GM copy
    svc.mail(ANNA, "AUSWERTUNG 1")
    copy = to(svc.poll(), ANNA)
    assert len(copy) == 1 and "Hallo Anna Albers," in copy[0] and not rack_shown(copy[0], bank[BERND])


def test_adresse_refuses_the_bot_any_gm_and_any_other_player(svc):
    svc.league()
    svc.league("Andere-Liga", game="rondo", gm="leiterin@example.net",
               players=[("Dora Dietz", "dora@example.net"), ("Emil Ernst", "emil@example.net"),
                        ("Anna Albers", ANNA)])
    svc.new()
    cases = {"spielleiter@example.org": "ist die Adresse des Spielleiter-Bots selbst",
             GM: "ist die Adresse eines Spielleiters",
             "leiterin@example.net": "ist die Adresse eines Spielleiters",  # another league's GM
             BERND: "gehört schon einem anderen Spieler",  # same league
             "dora@example.net": "gehört schon einem anderen Spieler"}  # another league
    for addr, line in cases.items():
        svc.mail(BERND if addr != BERND else CLARA, f"ADRESSE {addr}")
        sent = svc.poll()
        sender = BERND if addr != BERND else CLARA
        answer = to(sent, sender)
        assert len(answer) == 1 and f"{addr} {line}" in flat(answer[0]), answer
        assert "Nichts wurde verändert" in answer[0]
        assert not to(sent, addr)
    assert svc.addresses("Bernd Becker") == [BERND] and svc.addresses("Clara Conrad") == [CLARA]
    with svc.db.session() as s:
        assert s.scalars(select(AddressChange)).all() == []
    # the same person in another league (one address shared) is not "another player"
    with svc.db.session() as s:
        for p in s.scalars(select(Player).where(Player.name == "Anna Albers")):
            p.code_hash = hash_code("Anna-123")
    svc.mail(ANNA, f"ADRESSE anna.neu@example.net {LIGA}", "Code: Anna-123\n")
    svc.poll()
    svc.mail(ANNA, "ADRESSE anna.neu@example.net Andere-Liga", "Code: Anna-123\n")
    answer = to(svc.poll(), ANNA)
    assert len(answer) == 1 and "anna.neu@example.net" in answer[0] and "Nichts wurde verändert" not in answer[0]
    with svc.db.session() as s:
        assert [[a.email for a in p.addresses] for p in s.scalars(
            select(Player).where(Player.name == "Anna Albers").order_by(Player.id))] == \
            [["anna.neu@example.net", ANNA]] * 2


# -- attack 4: an address change must be proven ------------------------------------------

def _forged_adresse(svc) -> list[bytes]:
    svc.mail(ANNA, f"ADRESSE {MALLORY}")  # forged From, no code, default settings
    return svc.poll()


def test_attack4_a_forged_adresse_waits_for_the_gm(svc, capsys):
    svc.league()
    svc.new()
    sent = _forged_adresse(svc)
    short_lines(sent)
    assert not to(sent, MALLORY)  # no confirmation, no list of Anna's addresses
    old = to(sent, ANNA)
    assert len(old) == 1
    notice = flat(old[0])
    assert f"von {ANNA} kam die Bitte, deine Mails aus {LIGA} ab jetzt an {MALLORY} zu schicken" in notice
    assert "erst, wenn der Spielleiter sie bestätigt" in notice and "ADRESSE NEIN" in notice
    gm = to(sent, GM)
    assert len(gm) == 1 and f"ADRESSE {LIGA} OK Anna Albers" in gm[0]
    assert f"spielleiter gm adresse {LIGA} ok 'Anna Albers'" in gm[0]
    assert svc.addresses() == [ANNA]
    # the GM sees what waits
    view = json.loads(svc.cli(capsys, "show", LIGA, "--json"))
    assert [(c["name"], c["new_address"], c["old_address"]) for c in view["address_changes"]] == \
        [("Anna Albers", MALLORY, ANNA)]
    assert f"Adressänderung wartet" in svc.cli(capsys, "show", LIGA) and MALLORY in svc.cli(capsys, "show", LIGA)
    # the ZAT: Anna's Auswertung goes to her old address, nothing to the forger
    reports = svc.zat()
    bank = banks(svc)
    assert not to(reports, MALLORY)
    mine = to(reports, ANNA)
    assert len(mine) == 1 and rack_shown(mine[0], bank[ANNA])
    # the forger's address does not count as Anna's
    svc.mail(MALLORY, "AUSWERTUNG 1")
    answer = to(svc.poll(), MALLORY)
    assert all(not rack_shown(t, bank[ANNA]) and "Hallo Anna" not in t for t in answer)


def test_pending_change_confirmed_by_gm_mail(svc):
    svc.league()
    svc.new()
    _forged_adresse(svc)
    # a player cannot decide it, nor the GM without the code
    svc.mail(ANNA, f"ADRESSE {LIGA} OK Anna Albers")
    svc.mail(GM, f"ADRESSE {LIGA} OK Anna Albers")
    svc.mail(GM, f"ADRESSE {LIGA} OK Anna Albers", "Code: falsch\n")
    sent = svc.poll()
    assert not to(sent, MALLORY) and svc.addresses() == [ANNA]
    with svc.db.session() as s:
        assert s.scalar(select(AddressChange)).status == "pending"
    # the GM with the code confirms it
    svc.mail(GM, f"ADRESSE {LIGA} OK Anna Albers", f"Code: {GM_CODE}\n")
    sent = svc.poll()
    short_lines(sent)
    answer = to(sent, GM)
    assert len(answer) == 1 and f"Anna Albers: Auswertungen gehen ab jetzt an {MALLORY}" in flat(answer[0])
    new, old = to(sent, MALLORY), to(sent, ANNA)
    assert len(new) == 1 and len(old) == 1
    assert "der Spielleiter hat deine neue Adresse bestätigt" in flat(new[0])
    assert f"Auswertungen gehen ab jetzt an {MALLORY}" in flat(old[0])
    assert svc.addresses() == [MALLORY, ANNA]
    with svc.db.session() as s:
        change = s.scalar(select(AddressChange))
        assert (change.status, change.decided_by) == ("confirmed", "gm")
    reports = svc.zat()
    bank = banks(svc)
    assert len(to(reports, MALLORY)) == 1 and not to(reports, ANNA)


def test_pending_change_confirmed_and_refused_by_cli(svc, capsys):
    svc.league()
    svc.new()
    _forged_adresse(svc)
    out = svc.cli(capsys, "gm", "adresse", LIGA, "nein", "Anna Albers")
    assert f"die Adressänderung an {MALLORY} ist abgelehnt" in out
    sent = svc.new()  # the CLI delivers before it exits
    assert not to(sent, MALLORY)
    told = to(sent, ANNA)
    assert len(told) == 1 and f"abgelehnt, deine Mails aus {LIGA} an {MALLORY} zu schicken" in flat(told[0])
    assert svc.addresses() == [ANNA]
    assert json.loads(svc.cli(capsys, "show", LIGA, "--json"))["address_changes"] == []
    # nothing waits any more
    assert main(["gm", "adresse", LIGA, "ok", "Anna Albers", "--config", str(svc.conf)]) != 0

    svc.mail(ANNA, "ADRESSE anna.neu@example.net")
    svc.poll()
    out = svc.cli(capsys, "gm", "adresse", LIGA, "ok", "Anna")
    assert "Auswertungen gehen ab jetzt an anna.neu@example.net" in out
    sent = svc.new()
    assert len(to(sent, "anna.neu@example.net")) == 1 and len(to(sent, ANNA)) == 1
    assert svc.addresses() == ["anna.neu@example.net", ANNA]
    with svc.db.session() as s:
        assert [(c.status, c.decided_by) for c in s.scalars(select(AddressChange).order_by(AddressChange.id))] == \
            [("refused", "cli"), ("confirmed", "cli")]


def test_old_address_refuses_with_adresse_nein(svc):
    svc.league()
    svc.new()
    _forged_adresse(svc)
    svc.mail(ANNA, "ADRESSE NEIN")
    sent = svc.poll()
    answer = to(sent, ANNA)
    assert len(answer) == 1 and f"die Bitte, deine Mails an {MALLORY} zu schicken, ist abgelehnt" in flat(answer[0])
    assert len(to(sent, GM)) == 1 and not to(sent, MALLORY)
    with svc.db.session() as s:
        assert s.scalar(select(AddressChange)).status == "refused"
    svc.mail(GM, f"ADRESSE {LIGA} OK Anna Albers", f"Code: {GM_CODE}\n")
    assert "wartet keine Adressänderung" in " ".join(to(svc.poll(), GM)[0].split())  # wrapped at 72
    assert svc.addresses() == [ANNA]


def test_adresse_with_the_personal_code_takes_effect_at_once(svc):
    svc.league()
    with svc.db.session() as s:
        s.scalar(select(Player).where(Player.name == "Anna Albers")).code_hash = hash_code("Anna-123")
    svc.new()
    svc.mail(ANNA, "ADRESSE anna.neu@example.net", "Code: Anna-123\n")
    sent = svc.poll()
    assert svc.addresses() == ["anna.neu@example.net", ANNA]
    assert len(to(sent, "anna.neu@example.net")) == 1 and len(to(sent, ANNA)) == 1
    assert not to(sent, GM)
    with svc.db.session() as s:
        assert s.scalars(select(AddressChange)).all() == []
    reports = svc.zat()
    bank = banks(svc)
    assert len(to(reports, "anna.neu@example.net")) == 1 and not to(reports, ANNA)


def test_adresse_from_an_authenticated_sender_takes_effect_at_once(svc):
    svc.conf.write_text(svc.conf.read_text() + 'authserv_id = "mx.example.org"\n', encoding="utf-8")
    svc.cfg = load_config(svc.conf)
    svc.league()
    svc.new()
    ok = {"Authentication-Results": "mx.example.org; dmarc=pass header.from=example.org"}
    svc.mail(ANNA, "ADRESSE anna.neu@example.net", headers=ok)
    sent = svc.poll()
    assert svc.addresses() == ["anna.neu@example.net", ANNA]
    assert len(to(sent, "anna.neu@example.net")) == 1
    # without the server's word it waits
    svc.mail(BERND, "ADRESSE bernd.neu@example.net")
    sent = svc.poll()
    assert svc.addresses("Bernd Becker") == [BERND] and not to(sent, "bernd.neu@example.net")
