"""RONDO (seed 004) end to end through a real Dovecot IMAP server and a real aiosmtpd
SMTP server, on the Dutch word list (OpenTaal), with the league in Dutch: three players,
the opening and six turns with an exchange, a pass, an NMR turn, turns ended early by
the mover's valid move, a "not your turn" answer, private hands in private mails only,
marks and points in the standings."""

from __future__ import annotations

import email
import email.policy
import json
import re
from datetime import datetime, timedelta, timezone

import pytest

from bot.cli import main
from bot.games.rondo.cards import Row
from bot.games.rondonl.cards import take
from bot.games.rondonl.engine import best_word
from bot.lexicon import load
from tests.helpers import header, player_mail, server_config, text_of

pytestmark = pytest.mark.e2e

PLAYERS = [("Anna de Vries", "anna@example.org"), ("Bram Jansen", "bram@example.org"),
           ("Carla Peeters", "carla@example.org")]


def _league(path, first_zat):
    lines = ['name = "RONDO-E2E"', 'game = "rondonl"', 'partien = ["T1"]', f'first_zat = "{first_zat.isoformat()}"',
             "turn_hours = 48", 'language = "nl"', "seed = 3", 'gm_email = "gm@example.org"', "",
             "[options]", "full_rounds = 2", ""]
    for n, e in PLAYERS:
        lines += ["[[players]]", f'name = "{n}"', f'email = "{e}"', ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _show(conf, capsys):
    capsys.readouterr()
    assert main(["show", "RONDO-E2E", "--json", "--config", str(conf)]) == 0
    return json.loads(capsys.readouterr().out)


def test_rondo_original_through_imap_and_smtp(tmp_path, dovecot, smtpd, capsys):
    user = dovecot.fresh_user()
    conf = server_config(tmp_path / "spielleiter.toml", dovecot, smtpd, user)
    first_zat = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    assert main(["league", "create", str(_league(tmp_path / "liga.toml", first_zat)), "--config", str(conf)]) == 0
    # the players' start mails in Dutch; the game master's mail about the new league in German
    gm = [m for m in smtpd.messages if m.rcpt_tos == ["gm@example.org"]]
    assert [header(m.raw, "Subject") for m in gm] == ["RONDO-E2E: Liga angelegt"]
    assert "Sprache der Spieler: Niederländisch" in text_of(gm[0].raw)
    players = [m for m in smtpd.messages if m not in gm]
    starts = {m.rcpt_tos[0]: text_of(m.raw) for m in players}
    assert all(header(m.raw, "Subject") == "RONDO-E2E: start van het spel" for m in players)
    lex = load("nl")
    name_of = {e: n for n, e in PLAYERS}

    def state():
        view = _show(conf, capsys)
        part = view["partien"][0]
        hands = {p["player"]: p["hand"] for p in part["players"]}
        # seat order is the league file's order: seat key -> address
        part["k2e"] = {e: e for e in part["seats"]}  # show --json names players by address
        return view, part, hands

    view, part, hands = state()
    # each start mail shows the player's own hand, and no one else's
    for e, text in starts.items():
        assert "Je kaarten: " + " ".join(f"{c}{_val(c)}" for c in hands[e]) in text
        for o, h in hands.items():
            if o != e and h != hands[e]:
                assert " ".join(f"{c}{_val(c)}" for c in h) not in text

    def send(e, body, subject="Re: RONDO-E2E"):
        dovecot.append(player_mail(f"{name_of[e]} <{e}>", body, subject=subject), user=user)

    def poll():
        before = len(smtpd.messages)
        assert main(["poll", "--config", str(conf)]) == 0
        return smtpd.messages[before:]

    # -- the opening: everyone mails a three-letter word from their hand (on the Dutch list)
    opening = {}
    for e, hand in hands.items():
        best = best_word(Row.empty(), hand.replace("/", ""), lex)
        assert best is not None, hand
        opening[e] = best
        send(e, f"Partij T1:\n{best['notation']}")
    out = poll()
    acks = {m.rcpt_tos[0]: text_of(m.raw) for m in out if header(m.raw, "Subject").startswith("Re:")}
    assert set(acks) == set(hands)
    assert all("openingswoord" in a for a in acks.values())
    reports = [m for m in out if _is_report(m, 1)]
    assert sorted(m.rcpt_tos[0] for m in reports) == sorted(list(hands) + ["gm@example.org"])  # ended early
    view, part, hands = state()
    assert part["phase"] == "play" and view["round"] == 2
    order = [part["k2e"][k] for k in part["order"]]
    values = {e: sum(_val(c) for c in opening[e]["word"]) for e in hands}  # no Joker among them here
    assert values[order[0]] == max(values.values())

    marks = {e: 0 for e in hands}
    seen_nmr = seen_pass = seen_exchange = early = 0

    for turn in range(6):
        view, part, hands = state()
        mover = order[turn % 3]
        assert part["k2e"][part["mover"]] == mover
        row = Row.from_code(part["row"])
        hand = hands[mover]
        zat_before = datetime.fromisoformat(view["next_zat"])
        if turn == 1:
            # a mail from a player whose turn it is not: answered, nothing stored
            other = order[(turn + 1) % 3]
            send(other, "PAS")
            (ans,) = poll()
            assert "niet aan de beurt" in text_of(ans.raw) and ans.rcpt_tos == [other]
        if turn == 3:
            # NMR: nobody sends; the turn's ZAT passes
            assert main(["adjudicate", "RONDO-E2E", "--now", "--config", str(conf)]) == 0
            marks[mover] += 1
            seen_nmr += 1
            expect_word = None
        elif turn == 2:
            send(mover, "PAS")
            assert poll()
            marks[mover] += 1
            seen_pass += 1
            expect_word = None
        else:
            body, expect_word, penalty = _move(row, hand, lex, exchange=(turn == 4))
            send(mover, body)
            out = poll()
            ack = next(text_of(m.raw) for m in out if m.rcpt_tos == [mover] and "Re:" in header(m.raw, "Subject"))
            if expect_word is None:
                marks[mover] += 1
            else:
                assert "Je beurt is daarmee voorbij" in ack
            if penalty:
                seen_exchange += 1
                assert "Ruil" in ack and "-2 punten" in ack
                assert "Voor het ruilen gepakt" not in ack  # the drawn card stays secret until the Auswertung
            early += 1
        rnd_after = view["round"] + 1
        reports = [m for m in smtpd.messages if _is_report(m, view["round"])]
        assert sorted(m.rcpt_tos[0] for m in reports) == sorted(list(hands) + ["gm@example.org"])
        by_to = {m.rcpt_tos[0]: text_of(m.raw) for m in reports}
        new_view, new_part, new_hands = state()
        # the mover's Auswertung names their best word; nobody sees another player's hand
        for e, text in by_to.items():
            if e == "gm@example.org":  # the GM's copy (in German) has every player's hand
                assert text.count("(nur für ") == 3
                continue
            assert text.count("Alleen voor jou:") == 1
            mine = " ".join(f"{c}{_val(c)}" for c in new_hands[e])
            assert mine in text
            for o, h in new_hands.items():
                if o != e and h != new_hands[e]:
                    assert " ".join(f"{c}{_val(c)}" for c in h) not in text
        if expect_word:
            assert f"{name_of[mover]} legt {expect_word}" in by_to[mover]
            assert "Beste woord met je kaarten in deze beurt" in by_to[mover]
            assert len(new_hands[mover]) >= 7 or new_part["deck"] == 0
        elif turn == 2:
            assert f"{name_of[mover]} past" in by_to[mover]
        elif turn == 3:
            assert "geen zet ontvangen" in by_to[mover] and "NMR" not in by_to[mover]
            assert len(new_hands[mover]) == len(hand) + 1
        if turn < 5:
            assert new_view["round"] == rnd_after
            zat = datetime.fromisoformat(new_view["next_zat"])
            if turn != 3:  # ended early: adjudicated before its ZAT; the next turn's ZAT counts from now
                assert datetime.now(timezone.utc) < zat_before
            assert timedelta(hours=47) < zat - datetime.now(timezone.utc) <= timedelta(hours=48, minutes=1)

    assert (seen_nmr, seen_pass, seen_exchange) == (1, 1, 1) and early >= 4
    view, part, hands = state()
    assert view["status"] == "finished" and part["finished"]
    assert {part["k2e"][k]: n for k, n in part["marks"].items()} == marks
    table = {r["player"]: r["points"] for r in view["standings"]}
    assert table == {part["k2e"][k]: n for k, n in part["scores"].items()}
    final = [m for m in smtpd.messages if "einduitslag" in header(m.raw, "Subject")]
    assert len(final) == 3  # the players' copies in Dutch; the GM's in German:
    assert [m.rcpt_tos for m in smtpd.messages if "Schlussauswertung" in header(m.raw, "Subject")] == [["gm@example.org"]]
    text = text_of(final[0].raw)
    assert "Eindstand" in text and re.search(r"\b(\d+ strepen|1 streep)\b", text) and "streep/strepen" not in text
    msg = email.message_from_bytes(final[0].raw, policy=email.policy.default)
    html = msg.get_body(("html",)).get_content()
    assert "<th" in html and "Strepen" in html and 'lang="nl"' in html


def _is_report(msg, n):
    """An Auswertung of round n: Dutch for the players, German for the GM (gm_language)."""
    # RONDO's rounds are turns: round 1 is the opening, round n turn n - 1 (issue 24)
    want = r"(uitslag van de opening|auswertung der eröffnung)$" if n == 1 else rf"(uitslag|auswertung|na|nach) (beurt|zug) {n - 1}$"
    return re.search(rf"(?i){want}", header(msg.raw, "Subject")) is not None


def _val(c):
    from bot.games.rondonl.cards import card_value
    return card_value(c)


def _move(row, hand, lex, *, exchange):
    """A turn for ``hand``: its best word; with ``exchange`` first a card exchanged that
    the word does not need (so the word stays valid whatever is drawn)."""
    if exchange:
        for card in sorted(set(hand), key=lambda c: -_val(c) if c not in "/?" else 0):
            rest = take(hand, card)
            best = best_word(row, rest, lex)
            if best:
                return f"RUIL {card}\n{best['notation']}", best["word"], 2
        return f"RUIL {hand[0]}\nPAS", None, 2
    best = best_word(row, hand, lex)
    if best is None:
        return "PAS", None, 0
    return f"{best['notation']} {best['score']} punten", best["word"], 0
