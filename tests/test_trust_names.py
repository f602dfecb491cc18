"""Issue 31, trust: unknown senders and names as identities, through the embedded service
(SQLite or PostgreSQL, Maildir).

Attack 6: a stranger learned players' addresses. Someone joined an open league as
"Hallo"; a mail from an unknown address containing the word "Hallo" made the bot send
the new member "von der unbekannten Adresse frieda.privat@example.com kam eine Mail, die
dich nennt" (names matched as substrings, across all leagues). Now no mail to anyone but
the game master carries the unknown address, and names are matched as whole names in
the leagues the mail names.

Attack 7: a joiner named like a player took over that player's archive page (``ANMELDEN
Test-Mono Anna Albers``: both links led to the newcomer's page, the real player's moves
were on no page), and names with U+202E were stored and echoed. Now the archive keys
player pages by the player's id, ``ANMELDEN`` refuses a name the league has (NFC,
case-folded) with a suggestion, and control and format characters are refused in the
league file and in ``ANMELDEN``.
"""

from __future__ import annotations

import email
import email.policy
import re
import unicodedata

import pytest
from sqlalchemy import select

from bot.games import get_game
from bot.lexicon import load
from bot.service.domain.league import LeagueError
from bot.service.operations.league import create_league, read_league_file
from bot.service.operations.runner import poll_once
from bot.service.presentation.archive import build_archive
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.storage.models import InboundMail, OutboxMail, Partie, Player
from tests.helpers import PLAYERS, header, league_toml, player_mail, text_of

GM = "gm@example.org"
FRIEDA = "frieda.privat@example.com"


def _texts(raw: bytes) -> str:
    """Every text part (plain and HTML) of a mail, decoded, and its subject."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    parts = [p.get_content() for p in msg.walk() if p.get_content_maintype() == "text"]
    return str(msg["Subject"] or "") + "\n" + "\n".join(parts)


def _mono(tmp_path, env, name="Test-Mono", players=PLAYERS, extra=f'gm_email = "{GM}"'):
    db, cfg, md = env
    path = league_toml(tmp_path / f"league-{len(list(tmp_path.glob('*.toml')))}.toml", name=name, partien=("M1",), rounds=5, players=players,
                       extra=extra)
    path.write_text(path.read_text(encoding="utf-8").replace('game = "rondo"', 'game = "monoscrabble"'),
                    encoding="utf-8")
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    deliver(db, md, cfg)
    return path


def _feed(env, *mails: bytes) -> list[bytes]:
    """Deliver ``mails`` to the inbox, poll, send; the mails the bot sent for them."""
    db, cfg, md = env
    n = len(md.sent())
    for m in mails:
        md.deliver_to_inbox(m)
    poll_once(db, cfg)
    deliver(db, md, cfg)
    return md.sent()[n:]


def _to(mails: list[bytes], addr: str) -> list[str]:
    return [_texts(m) for m in mails if header(m, "To") == addr]


# -- attack 6 ---------------------------------------------------------------------------

def test_attack_6_a_stranger_never_learns_an_address_and_nobody_but_the_gm_gets_one(tmp_path, env):
    db, cfg, md = env
    _mono(tmp_path, env)
    other = tmp_path / "other"
    other.mkdir()
    _mono(other, env, name="Zweite-Liga", players=[("Hal Hansen", "hal@example.org"), ("Anna Albers", "a2@example.org")],
          extra='gm_email = "gm2@example.org"')
    joined = _feed(env, player_mail("Hallo <hallo@example.net>", "", subject="ANMELDEN Test-Mono Hallo"))
    assert [header(m, "To") for m in joined] == ["hallo@example.net"]
    with db.session() as s:
        assert s.scalar(select(Player).where(Player.name == "Hallo")) is not None
    start = len(md.sent())

    # the attack as it was: a mail from an unknown address with the word "Hallo" in it
    sent = _feed(env, player_mail(f"Frieda <{FRIEDA}>", "Hallo, wer spielt hier eigentlich mit?", subject="Frage"))
    # only the sender is answered, without any name or address; the league was not named
    assert [header(m, "To") for m in sent] == [FRIEDA]
    answer = " ".join(_texts(sent[0]).split())
    assert "keiner laufenden Liga angemeldet" in answer and "angemeldeten Adresse" in answer
    assert "@" not in text_of(sent[0]).split("--")[0] and "Hallo," in answer  # the greeting, no name
    for name, _ in PLAYERS:
        assert name not in answer

    # naming the league and players: whole names only, only in the league named
    sent = _feed(env, player_mail(FRIEDA, "Für Test-Mono: Anna Albers und Bernd Beckermann und Hal Hansen\n"
                                          "Hallo!", subject="Hallo Test-Mono"))
    by = {header(m, "To"): _texts(m) for m in sent}
    # Anna of Test-Mono is named (whole name); "Bernd Beckermann" is not Bernd Becker; Hal
    # Hansen plays in Zweite-Liga, which the mail does not name; "Hallo!" names the player
    # Hallo as a whole word: told, like Anna, without the address
    assert set(by) == {FRIEDA, GM, "anna@example.org", "hallo@example.net"}
    assert "bernd@example.org" not in by and "hal@example.org" not in by and "a2@example.org" not in by
    anna = by["anna@example.org"]
    assert "eine Mail von einer Adresse, die in Test-Mono nicht angemeldet ist, nennt dich" in " ".join(anna.split())
    gm = " ".join(by[GM].split())
    assert FRIEDA in gm and "Anna Albers" in gm and "Hallo" in gm and "Bernd Becker" not in gm
    assert "gm2@example.org" not in by  # the other league's GM hears nothing of it

    # the invariant of the attack: every mail since the stranger wrote, and in fact every
    # mail the bot ever sent, names the unknown address only to the game master
    for m in md.sent():
        if FRIEDA in _texts(m) or "frieda.privat" in _texts(m):
            assert header(m, "To") == GM, _texts(m)
    assert len(md.sent()) > start
    with db.session() as s:
        flags = [m.flagged for m in s.scalars(select(InboundMail).where(InboundMail.from_addr == FRIEDA))]
    assert all(f and f.startswith(f"unknown sender {FRIEDA}") for f in flags)
    assert "Test-Mono, Anna Albers, Hallo" in flags[-1]


def test_a_named_player_hears_at_most_once_a_day(tmp_path, env):
    db, cfg, md = env
    _mono(tmp_path, env)
    mails = [player_mail(f"fremd{i}@example.net", f"Test-Mono\nANNA ALBERS, Zug {i}") for i in range(4)]
    sent = _feed(env, *mails)
    assert len(_to(sent, "anna@example.org")) == 1  # the first at once; the rest wait for the daily summary
    assert len(_to(sent, GM)) == 1
    assert all(len(_to(sent, f"fremd{i}@example.net")) == 1 for i in range(4))
    # the rest wait in one summary each, due a day after the first notice
    with db.session() as s:
        pending = {o.to_addr: " ".join(_texts(o.raw).split()) for o in s.scalars(
            select(OutboxMail).where(OutboxMail.status == "pending", OutboxMail.key.like("%:sammel")))}
    assert set(pending) == {"anna@example.org", GM}
    assert "seit dem letzten Hinweis kamen 3 weitere Mails" in pending["anna@example.org"]
    assert "fremd" not in pending["anna@example.org"]
    assert "3 Mails nennen Test-Mono" in pending[GM] and all(f"fremd{i}@example.net" in pending[GM] for i in (1, 2, 3))
    for m in md.sent():
        t = _texts(m)
        assert not re.search(r"fremd\d@example\.net", t) or header(m, "To") == GM


# -- attack 7 ---------------------------------------------------------------------------

def _play_round(env, league: str, moves: dict[str, str]) -> None:
    db, cfg, md = env
    _feed(env, *(player_mail(addr, move, subject=league) for addr, move in moves.items()))
    adjudicate_league(db, cfg, league, force=True)
    deliver(db, md, cfg)


def _two_moves(db) -> list[str]:
    from bot.games.monoscrabble.movegen import generate
    with db.session() as s:
        state = s.scalar(select(Partie)).state
    game = get_game("monoscrabble")
    ranked = sorted(generate(state["board"], state["rack"], load("monoscrabble")), key=lambda m: -m.score)
    lines = list(dict.fromkeys(game.gen_notation(m, state["board"]) for m in ranked))
    return lines[:2]


def test_attack_7_a_namesake_is_refused_and_every_player_keeps_their_page(tmp_path, env):
    db, cfg, md = env
    _mono(tmp_path, env)
    _play_round(env, "Test-Mono", {"anna@example.org": _two_moves(db)[0]})
    sent = _feed(env, player_mail("Anna Zwo <anna2@example.net>", "", subject="ANMELDEN Test-Mono Anna Albers"))
    (answer,) = _to(sent, "anna2@example.net")
    flat = " ".join(answer.split())
    assert "in Test-Mono spielt schon jemand mit dem Namen Anna Albers" in flat
    assert "ANMELDEN Test-Mono Anna Albers 2" in flat
    # case and white space do not make another name
    sent = _feed(env, player_mail("anna2@example.net", "", subject="ANMELDEN Test-Mono  anna   ALBERS "))
    assert "spielt schon jemand" in " ".join(_to(sent, "anna2@example.net")[0].split())
    with db.session() as s:
        assert [p.name for p in s.scalars(select(Player).order_by(Player.id))] == [n for n, _ in PLAYERS]
    # the suggestion works
    _feed(env, player_mail("anna2@example.net", "", subject="ANMELDEN Test-Mono Anna Albers 2"))
    first, second = _two_moves(db)
    _play_round(env, "Test-Mono", {"anna@example.org": first, "anna2@example.net": second})
    out = tmp_path / "site"
    build_archive(db, out)
    _assert_own_pages(db, out, first, second)


def test_the_archive_keys_players_by_id_even_for_namesakes_from_before(tmp_path, env):
    """Two players of one name (a league from before the rule): distinct pages, each with
    that player's moves; the league page links each to their own."""
    db, cfg, md = env
    _mono(tmp_path, env)
    _feed(env, player_mail("anna2@example.net", "", subject="ANMELDEN Test-Mono Anna Albers 2"))
    with db.session() as s:  # as main stored it before issue 31
        s.scalar(select(Player).where(Player.name == "Anna Albers 2")).name = "Anna Albers"
    first, second = _two_moves(db)
    _play_round(env, "Test-Mono", {"anna@example.org": first, "anna2@example.net": second})
    out = tmp_path / "site"
    build_archive(db, out)
    _assert_own_pages(db, out, first, second)


def _assert_own_pages(db, out, first: str, second: str) -> None:
    """Each Anna's link on the league page leads to a page of her own (named by her id),
    with her moves and not the other's."""
    with db.session() as s:
        ids = {a.email: p.id for p in s.scalars(select(Player)) for a in p.addresses}
    league = (out / "test-mono" / "index.html").read_text(encoding="utf-8")
    hrefs = re.findall(r'<a href="([^"]+)">Anna Albers(?: 2)?</a>', league)
    assert len(hrefs) == 2 and len(set(hrefs)) == 2, hrefs  # the attack: both links led to one page
    pages = {h: (out / "test-mono" / h).read_text(encoding="utf-8") for h in hrefs}
    code = "<code>{}</code>".format
    one = next(h for h in hrefs if code(first) in pages[h])
    two = next(h for h in hrefs if code(second) in pages[h])
    assert one != two and code(second) not in pages[one] and code(first) not in pages[two]
    assert one.endswith(f"-{ids['anna@example.org']}.html") and two.endswith(f"-{ids['anna2@example.net']}.html")
    # kept: no address anywhere in the archive, and every page stays inside it
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "@example" not in text, page
        assert page.resolve().is_relative_to(out.resolve())


def test_a_league_name_with_dots_and_slashes_stays_inside_the_archive(tmp_path, env):
    db, cfg, md = env
    _mono(tmp_path, env, name="../../evil")
    adjudicate_league(db, cfg, "../../evil", force=True)
    out = tmp_path / "site" / "archiv"
    build_archive(db, out)
    assert all(p.resolve().is_relative_to(out.resolve()) for p in (tmp_path / "site").rglob("*"))
    assert (out / "evil" / "index.html").is_file()


BIDI = ["Eve\u202eevE", "Eve\u2066Mallory", "Eve\u200fX", "Eve\u200bX", "Eve\x07X", "Eve\x1b[31mX"]


@pytest.mark.parametrize("name", BIDI)
def test_control_and_format_characters_are_refused_in_the_league_file(tmp_path, env, name):
    path = league_toml(tmp_path / "l.toml", name="Bidi", players=[*PLAYERS[:2], (name.replace("\x1b", "\\u001b")
                                                                                  .replace("\x07", "\\u0007"),
                                                                                  "eve@example.org")])
    with pytest.raises(LeagueError) as exc:
        read_league_file(path)
    code = f"U+{ord(next(c for c in name if unicodedata.category(c)[0] == 'C')):04X}"
    assert "Steuer- oder Formatzeichen" in str(exc.value) and code in str(exc.value)
    db, cfg, md = env
    with db.session() as s, pytest.raises(LeagueError):  # creating it directly is refused too
        create_league(s, {"name": "Bidi", "game": "rondo", "first_zat": "2030-01-01T20:00:00+00:00",
                          "players": [{"name": "Anna", "email": "a@example.org"}, {"name": name, "email": "e@x.org"}]},
                      cfg)


def test_duplicate_and_nfc_equivalent_names_are_refused_in_the_league_file(tmp_path):
    composed, decomposed = "Zo\u00eb Zander", "Zoe\u0308 Zander"
    assert composed != decomposed and unicodedata.normalize("NFC", decomposed) == composed
    for a, b in [("Anna Albers", "Anna Albers"), ("Anna Albers", "anna  ALBERS"), (composed, decomposed)]:
        path = league_toml(tmp_path / "l.toml", players=[(a, "a@example.org"), (b, "b@example.org")])
        with pytest.raises(LeagueError, match="doppelt"):
            read_league_file(path)


@pytest.mark.parametrize("name", ["Eve\u202eevE", "Eve\u2067X\u2069", "Eve\u200eX", "Eve\x07X"])
def test_control_and_format_characters_are_refused_in_anmelden(tmp_path, env, name):
    db, cfg, md = env
    _mono(tmp_path, env)
    sent = _feed(env, player_mail("eve@example.net", f"ANMELDEN Test-Mono {name}\n", subject="Anmeldung"))
    (answer,) = _to(sent, "eve@example.net")
    assert "Steuer- oder Formatzeichen" in answer
    assert not any(unicodedata.category(c)[0] == "C" and c not in "\r\n" for c in answer)  # never echoed
    assert "Eve" not in answer
    # nor through the display name
    sent = _feed(env, player_mail(f"{name} <eve2@example.net>", "", subject="ANMELDEN Test-Mono"))
    got = _to(sent, "eve2@example.net")[0]
    if unicodedata.category(name[3]) == "Cc":  # the From parse drops control characters of a display name
        assert not any(unicodedata.category(c) == "Cc" and c not in "\r\n" for c in got)
    else:
        assert "Steuer- oder Formatzeichen" in got
    with db.session() as s:
        joined = list(s.scalars(select(Player).where(Player.name.like("Eve%"))))
        assert all(not any(unicodedata.category(c)[0] == "C" for c in p.name) for p in joined)
        assert len(joined) == (1 if unicodedata.category(name[3]) == "Cc" else 0)


def test_an_nfc_equivalent_name_is_a_duplicate_in_anmelden(tmp_path, env):
    db, cfg, md = env
    _mono(tmp_path, env, players=[*PLAYERS, ("Zo\u00eb Zander", "zoe@example.org")])
    sent = _feed(env, player_mail("zoe2@example.net", "ANMELDEN Test-Mono ZOE\u0308 ZANDER\n", subject="Anmeldung"))
    assert "spielt schon jemand mit dem Namen" in " ".join(_to(sent, "zoe2@example.net")[0].split())
    # a decomposed new name is stored composed
    _feed(env, player_mail("zoe2@example.net", "ANMELDEN Test-Mono Zoe\u0308 Zimmer\n", subject="Anmeldung"))
    with db.session() as s:
        names = list(s.scalars(select(Player.name)))
    assert "Zo\u00eb Zimmer" in names and not any("\u0308" in n for n in names)


def test_anmelden_needs_a_name_and_never_takes_an_address(tmp_path, env):
    db, cfg, md = env
    _mono(tmp_path, env)
    sent = _feed(env, player_mail("frieda.privat@example.com", "", subject="ANMELDEN Test-Mono"))
    assert "bitte schreib deinen Namen dazu" in _to(sent, FRIEDA)[0]
    # a display name that is an address (or a name with one) is no name: names are public
    sent = _feed(env, player_mail(f'"{FRIEDA}" <{FRIEDA}>', "", subject="ANMELDEN Test-Mono"),
                 player_mail("eve@example.net", "", subject=f"ANMELDEN Test-Mono {FRIEDA}"))
    assert "sieht aus wie eine Mail-Adresse" in " ".join(_to(sent, FRIEDA)[0].split())
    assert "sieht aus wie eine Mail-Adresse" in " ".join(_to(sent, "eve@example.net")[0].split())
    with db.session() as s:
        assert s.scalar(select(Player).where(Player.name.like("%frieda%"))) is None
    path = league_toml(tmp_path / "l.toml", players=[*PLAYERS, (FRIEDA, "f@example.org")])
    with pytest.raises(LeagueError, match="Mail-Adresse"):
        read_league_file(path)


def test_the_refusal_is_dutch_in_a_dutch_league(tmp_path, env):
    db, cfg, md = env
    _mono(tmp_path, env, extra='language = "nl"')
    sent = _feed(env, player_mail("anna2@example.net", "", subject="ANMELDEN Test-Mono Anna Albers"))
    (answer,) = _to(sent, "anna2@example.net")
    flat = " ".join(answer.split())
    assert "in Test-Mono speelt al iemand met de naam Anna Albers" in flat
    assert "AANMELDEN Test-Mono Anna Albers 2" in flat and "spielt schon" not in flat


def test_the_game_masters_own_mail_warns_nobody(tmp_path, env):
    """The GM's address is no stranger's: a mail of the GM that is no GM command and names
    a player tells neither the player nor the GM about an unknown sender."""
    _mono(tmp_path, env)
    sent = _feed(env, player_mail(GM, "Test-Mono: Anna Albers zieht um, bitte beachten.", subject="Notiz"))
    assert [header(m, "To") for m in sent] == [GM]
    assert "Mail von unbekannter Adresse" not in _texts(sent[0])
