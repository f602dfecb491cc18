"""Issue 23, defect 1, end to end through a real Dovecot and a real aiosmtpd: Kasimir's
Ersatzzug ``P9s QOLLeN`` uses a Q he does not have. His own Auswertung and the game
master's copy may name his rack; Hedwig's answer to ``AUSWERTUNG 2 ALLE`` and the archive
(``spielleiter archive``) must not, in any order of its letters."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bot.cli import main
from bot.config import load_config
from bot.storage.db import Database
from bot.storage.models import Partie, Player
from tests.helpers import header, league_toml, player_mail, text_of
from tests.test_e2e import _config
from tests.test_e2e_typdom import _board

pytestmark = pytest.mark.e2e

PLAYERS = [("Kasimir Knopf", "kasimir@example.org"), ("Hedwig Hase", "hedwig@example.org"),
           ("Anna Albers", "anna@example.org")]
RACK = "JLLNNOUUU"


def _flat(raw: bytes) -> str:
    return " ".join(text_of(raw).split())


def _has_rack(text: str) -> bool:
    """The rack as written (code or tiles) or as a run of its letters in any order."""
    if RACK in text or "J L L N N" in text or "L L N N" in text:
        return True
    want = Counter(RACK)
    return any(Counter(w) == want for w in re.findall(r"[A-Z]{9}", text))


def _set_state(conf, **change):
    db = Database(load_config(conf).database_url)
    with db.session() as s:
        keys = {p.email: str(p.id) for p in s.query(Player).all()}
        partie = s.query(Partie).one()
        st = dict(partie.state)
        for k, v in change.items():
            st[k] = v(keys) if callable(v) else v
        partie.state = st
    db.dispose()
    return keys


def test_rack_of_an_ersatzzug_stays_private(tmp_path, dovecot, smtpd, capsys):
    user = dovecot.fresh_user()
    conf = _config(tmp_path, dovecot, smtpd, user)
    liga = league_toml(tmp_path / "typdom.toml", name="Privat-Typ-Dom", partien=("K1",), rounds=10, players=PLAYERS,
                       extra='gm_email = "gm@example.org"\noptions = { variant = "kreuzwort" }')
    liga.write_text(liga.read_text().replace('game = "rondo"', 'game = "typdom"'))
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    k, h, a = (e for _, e in PLAYERS)
    _set_state(conf, board=_board(("L13", "w", "RENTE")), seat_order=lambda keys: [keys[e] for e in (k, h, a)],
               racks=lambda keys: {keys[k]: "BDEGRST", keys[h]: "AEHMNRS", keys[a]: "CFIKLPW"})

    # round 1: everybody buys
    for e in (k, h, a):
        dovecot.append(player_mail(e, "KAUFEN\n"), user=user)
    assert main(["poll", "--config", str(conf)]) == 0
    assert main(["adjudicate", "Privat-Typ-Dom", "--now", "--config", str(conf)]) == 0

    # round 2: Kasimir holds JLLNNOUUU; his main move does not touch the table, his
    # Ersatzzug needs a Q
    _set_state(conf, racks=lambda keys: {keys[k]: RACK, keys[h]: "AEHMNRSU", keys[a]: "CFIKLPWE"})
    dovecot.append(player_mail(k, "A1w JUNO\nErsatz: P9s QOLLeN\n"), user=user)
    dovecot.append(player_mail(h, "KAUFEN\n"), user=user)
    assert main(["poll", "--config", str(conf)]) == 0
    before = len(smtpd.messages)
    assert main(["adjudicate", "Privat-Typ-Dom", "--now", "--config", str(conf)]) == 0
    reports = {m.rcpt_tos[0]: m.raw for m in smtpd.messages[before:] if "Runde 2" in header(m.raw, "Subject")}
    assert set(reports) == {k, h, a, "gm@example.org"}
    own = _flat(reports[k])
    assert "Nicht auf deiner Bank (JLLNNOUUU): Q." in own
    gm = _flat(reports["gm@example.org"])
    # the game master reads it about Kasimir, not in Kasimir's words
    assert "Nicht auf der Bank (JLLNNOUUU): Q." in gm and "deiner Bank" not in gm, gm
    for e in (h, a):
        assert not _has_rack(_flat(reports[e])), _flat(reports[e])

    # Hedwig asks for every move of round 2
    before = len(smtpd.messages)
    dovecot.append(player_mail(h, "", subject="AUSWERTUNG 2 ALLE"), user=user)
    assert main(["poll", "--config", str(conf)]) == 0
    answers = [m for m in smtpd.messages[before:] if m.rcpt_tos == [h]]
    assert answers
    txt = _flat(answers[-1].raw)
    # issue 31: a line that was not played names nothing, not even the letters it lacked
    assert "P9s QOLLeN" not in txt and "nicht auf der Bank" not in txt and "ungültig" in txt
    assert not _has_rack(txt), txt

    # the archive: no page names the rack
    out = tmp_path / "archiv"
    assert main(["archive", "--out", str(out), "--config", str(conf)]) == 0
    pages = list(out.rglob("*.html"))
    assert any(p.name == "runde-02.html" for p in pages) and any(p.name.startswith("spieler-kasimir") for p in pages)
    for page in pages:
        text = re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))
        assert not _has_rack(" ".join(text.split())), page
    round2 = re.sub(r"<[^>]+>", " ", (next(p for p in pages if p.name == "runde-02.html")).read_text(encoding="utf-8"))
    assert "QOLL" not in round2 and "nicht auf der Bank" not in " ".join(round2.split())

    # the game master sees it all in ``show``: the table, the seat order, every rack
    capsys.readouterr()
    assert main(["show", "Privat-Typ-Dom", "--config", str(conf)]) == 0
    out = capsys.readouterr().out
    assert "Privat-Typ-Dom (typdom), Runde 3," in out and " von 10" not in out
    assert "Sitzreihenfolge: 1. Kasimir Knopf, 2. Hedwig Hase, 3. Anna Albers" in out
    assert "Bank Kasimir Knopf: rot: O U U U; schwarz: J L L N N" in out and "Rack None" not in out
