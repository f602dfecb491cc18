"""Issue 31, attack 1, through the service (embedded SQLite + Maildir): in a RONDO league
a turn whose lines need cards the mover does not hold (a word with such a card, a
``TAUSCH``/``RUIL`` of such cards) is judged against the mover's private hand. The mover
gets the precise reason in their language (the hand and the missing cards); no text
another player or the archive gets names the hand or the cards of the unplayed lines:
not another player's Auswertung, not ``AUSWERTUNG n ALLE``, not the archive's round page
or the mover's own archive page. Both languages of RONDO (``de`` and ``nl``)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from bot.games.rondo.cards import Row
from bot.games.rondonl.cards import pretty_hand
from bot.games.rondonl.engine import best_word
from bot.lexicon import load
from bot.service.operations.league import create_league, read_league_file
from bot.service.operations.runner import poll_once
from bot.service.presentation.archive import build_archive
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.storage.models import Partie
from tests.helpers import header, player_mail, text_of

PLAYERS = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
           ("Clara Conrad", "clara@example.org")]

#: Per language: the league's word list, the exchange keyword, the mover's precise
#: reasons (the word, the exchange), the subject words of a round's Auswertung and of
#: ``AUSWERTUNG n ALLE``.
LANG = {
    "de": {"alphabet": "rondo", "options": ('dictionary = "de"',), "exchange": "TAUSCH",
           "word_reason": "Diese Karten hast du nicht auf der Hand ({hand}): {missing}.",
           "exchange_reason": "Nicht auf der Hand: {cards} (Hand {hand}).", "all": "AUSWERTUNG {n} ALLE"},
    "nl": {"alphabet": "nl", "options": (), "exchange": "RUIL",
           "word_reason": "Deze kaarten heb je niet in je hand: {missing} (hand {hand}).",
           "exchange_reason": "Niet in je hand: {cards} (hand {hand}).", "all": "UITSLAG {n} ALLES"},
}


def _state(db) -> dict:
    with db.session() as s:
        return dict(s.scalar(select(Partie)).state)


def _flat(text: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", text).split())


def _run(db, cfg, md) -> list:
    n = len(md.sent())
    poll_once(db, cfg)
    deliver(db, md, cfg)
    return md.sent()[n:]


@pytest.mark.parametrize("language", ["de", "nl"])
def test_cards_not_held_stay_with_the_mover(tmp_path, env, language):
    db, cfg, md = env
    lang = LANG[language]
    name = f"Geheim-{language}"
    zat = (datetime.now(timezone.utc) + timedelta(days=2)).replace(microsecond=0)
    lines = [f'name = "{name}"', 'game = "rondonl"', f'first_zat = "{zat.isoformat()}"', f'language = "{language}"',
             'gm_email = "gm@example.org"', "seed = 4", "turn_hours = 24", "", "[options]", "full_rounds = 2",
             *lang["options"], ""]
    for n, e in PLAYERS:
        lines += ["[[players]]", f'name = "{n}"', f'email = "{e}"', ""]
    (tmp_path / "l.toml").write_text("\n".join(lines), encoding="utf-8")
    with db.session() as s:
        create_league(s, read_league_file(tmp_path / "l.toml"), cfg)
    deliver(db, md, cfg)
    st = _state(db)
    email_of = dict(zip(st["players"], [e for _, e in PLAYERS]))
    lex = load(lang["alphabet"])
    for key, hand in st["hands"].items():  # the opening: every player's best three-letter word
        best = best_word(Row.empty(), hand.replace("/", ""), lex)
        md.deliver_to_inbox(player_mail(email_of[key], best["notation"] if best else "XYZ"))
    _run(db, cfg, md)
    if _state(db)["phase"] == "opening":
        adjudicate_league(db, cfg, name, force=True)
        deliver(db, md, cfg)
    st = _state(db)
    assert st["phase"] == "play" and st["row"] == "." * 9
    mover = st["order"][0]
    hand = st["hands"][mover]
    # the opener's first word, of three cards the mover does not hold
    absent = sorted([c for c in "QXYJZVWCFP" if c not in hand][:3])
    assert len(absent) == 3
    cards = "".join(absent)
    word_line = cards
    exchange_line = f"{lang['exchange']} {cards}"
    since = len(md.sent())
    md.deliver_to_inbox(player_mail(email_of[mover], f"{exchange_line}\n{word_line}"))
    sent = _run(db, cfg, md)
    (ack,) = [m for m in sent if header(m, "To") == email_of[mover]]
    ack_text = _flat(text_of(ack))
    missing = " ".join(absent)
    # the mover gets the precise reasons, in their language
    assert lang["word_reason"].format(hand=hand, missing=missing) in ack_text, ack_text
    assert lang["exchange_reason"].format(cards=cards, hand=hand) in ack_text, ack_text
    assert _state(db)["turn"] == 0  # an invalid turn waits for its ZAT
    n = len(md.sent())
    adjudicate_league(db, cfg, name, force=True)
    deliver(db, md, cfg)
    reports = {header(m, "To"): text_of(m) for m in md.sent()[n:]}
    rnd = _state(db)["round"] - 1

    def leaks(text: str) -> list[str]:
        flat = _flat(text)
        found = [w for w in (hand, pretty_hand(hand), word_line, word_line.upper(), exchange_line, cards, missing,
                             "Hand (", "(Hand", "(hand", "in je hand", "auf der Hand") if w in flat]
        return found

    # the mover's own Auswertung says why; the others' and the GM's copies are read below
    mine = _flat(reports[email_of[mover]])
    assert lang["word_reason"].format(hand=hand, missing=missing) in mine, mine
    gm = _flat(reports["gm@example.org"])
    assert hand in gm or pretty_hand(hand) in gm
    others = [e for k, e in email_of.items() if k != mover]
    for e in others:
        assert not leaks(reports[e]), (e, leaks(reports[e]))
    # another player asks for every line of the turn, by its number in the subjects (issue 32)
    ask = lang["all"].format(n=rnd - 1)
    md.deliver_to_inbox(player_mail(others[0], "", subject=ask))
    (alle,) = [m for m in _run(db, cfg, md) if header(m, "To") == others[0] and header(m, "Subject") == f"Re: {ask}"]
    alle_text = _flat(text_of(alle))
    assert ("ungültig" if language == "de" else "ongeldig") in alle_text, alle_text
    assert not leaks(text_of(alle)), (leaks(text_of(alle)), alle_text)
    # the archive: the round page and every player's page (the mover's too) are public
    out = tmp_path / "archiv"
    build_archive(db, out)
    pages = list(out.rglob("*.html"))
    assert any(p.name == f"runde-{rnd:02d}.html" for p in pages), [p.name for p in pages]
    assert any(p.name.startswith("spieler-") for p in pages)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not leaks(text), (page.name, leaks(text))
    # every mail to another player since the turn (the reminders too): no hand, no card
    for m in md.sent()[since:]:
        if header(m, "To") in others:
            assert not leaks(text_of(m)), (header(m, "Subject"), leaks(text_of(m)))
