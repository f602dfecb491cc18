"""The game master's operations on the play of a league: words allowed or refused
(:func:`allow_word`, :func:`deny_word`), a move set for a player (:func:`set_move`), a
player removed (:func:`remove_player`), the last round taken back (:func:`rollback`), a
message to all (:func:`message`), the review of Auswertungen (:func:`set_review`,
:func:`release`) and an address change decided (:func:`decide_address`). Each is announced
and returns the answer to the GM (a :class:`~bot.service.conversations.gmbase.Said`:
German, or in the GM's language by ``render``), naming the game's period (Runde, Zug, the
opening); a request that cannot be done raises GMError."""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.i18n import N_, Texts, league_language, texts
from bot.games import get_game
from bot.render import format_zat, render, wrap
from bot.service.conversations.commands import address_refusal, pending_change, set_address
from bot.service.domain.league import league_lexicon, open_round
from bot.service.stages.outbox import queue_mail
from bot.service.stages.rounds import adjudicate_league
from bot.storage.models import (Adjudication, League, OutboxMail, Partie, Result, Round, Submission,
                                SubmissionMove, Vorgabe)

log = logging.getLogger(__name__)

from bot.service.conversations.gmbase import (GMError, active_players, announce, cap, done, find_partie,
                                              find_player, get_league, open_round_of, paused_note, period, still,
                                              told, utcnow)

def _word(word: str) -> str:
    w = word.strip().upper()
    if not w or not re.fullmatch(r"[A-ZÄÖÜß]+", w):
        raise GMError(N_("'{word}' ist kein Wort (nur Buchstaben)."), word=word)
    return w


def allow_word(s: Session, cfg: Config, league: League | str, word: str, *, now: datetime | None = None) -> str:
    """Put ``word`` on the league's allow-list (and off its deny-list)."""
    return _list_word(s, cfg, get_league(s, league), _word(word), allow=True, now=utcnow(now))


def deny_word(s: Session, cfg: Config, league: League | str, word: str, *, now: datetime | None = None) -> str:
    """Put ``word`` on the league's deny-list (and off its allow-list)."""
    return _list_word(s, cfg, get_league(s, league), _word(word), allow=False, now=utcnow(now))


def _list_word(s: Session, cfg: Config, league: League, word: str, *, allow: bool, now: datetime) -> str:
    allow_l = [w for w in (league.allow_words or []) if w.upper() != word]
    deny_l = [w for w in (league.deny_words or []) if w.upper() != word]
    (allow_l if allow else deny_l).append(word)
    league.allow_words, league.deny_words = allow_l, deny_l  # new lists: the JSON change is seen
    s.flush()
    redone = _readjudicate_held(s, cfg, league, now)
    n = announce(s, cfg, league, lambda t: (
        t.gettext("der Spielleiter hat in {league} das Wort {word} erlaubt. Das gilt ab der nächsten Auswertung.",
                  league=league.name, word=word) if allow else
        t.gettext("der Spielleiter hat in {league} das Wort {word} gesperrt. Das gilt ab der nächsten Auswertung.",
                  league=league.name, word=word)), tag="erlaube" if allow else "verbiete",
        subject=lambda t: (t.gettext("{league}: Wort {word} erlaubt", league=league.name, word=word) if allow else
                           t.gettext("{league}: Wort {word} gesperrt", league=league.name, word=word)))

    def answer(t: Texts) -> str:
        out = [t.gettext("{word} ist in {league} erlaubt.", word=word, league=league.name) if allow else
               t.gettext("{word} ist in {league} gesperrt.", word=word, league=league.name)]
        if redone:
            out.append(t.gettext("{period} war ausgewertet, aber noch nicht freigegeben, und ist mit der neuen "
                                 "Liste neu ausgewertet (die neuen Auswertungen warten wieder auf FREIGEBEN).",
                                 period=cap(period(t, league, redone))))
        return " ".join(out + [told(t, s, n)])
    return done(league, "ERLAUBE" if allow else "VERBIETE", answer)


def _last_adjudicated(s: Session, league: League) -> Round | None:
    return s.scalar(select(Round).where(Round.league_id == league.id, Round.status == "adjudicated")
                    .order_by(Round.number.desc()))


def _auswertungen(s: Session, league: League, number: int) -> list[OutboxMail]:
    """The current (not withdrawn) Auswertung rows of round ``number``."""
    prefix = f"auswertung:{league.id}:{number}:"
    rows = s.scalars(select(OutboxMail).where(OutboxMail.league_id == league.id, OutboxMail.kind == "auswertung",
                                              OutboxMail.round_number == number)).all()
    return [r for r in rows if r.key.startswith(prefix) and ":" not in r.key[len(prefix):]]


def _readjudicate_held(s: Session, cfg: Config, league: League, now: datetime) -> int | None:
    """When the last adjudicated round's Auswertungen are all still held (review mode),
    roll it back and adjudicate it again (new lists); returns its number, else None."""
    last = _last_adjudicated(s, league)
    if last is None:
        return None
    players = [r for r in _auswertungen(s, league, last.number) if not r.key.endswith(":gm")]
    if not players or any(r.status != "held" for r in players):
        return None
    nxt = s.scalar(select(Round).where(Round.league_id == league.id, Round.number == last.number + 1))
    keep_zat = nxt.zat if nxt is not None else None
    _rollback_rows(s, league, last)
    adjudicate_league(None, cfg, league.name, now, force=True, session=s)
    if keep_zat is not None:
        new = open_round(s, league)
        if new is not None and new.number == last.number + 1:
            new.zat = keep_zat  # a ZAT the GM had already moved stays moved
    return last.number


def set_move(s: Session, cfg: Config, league: League | str, player: str, partie: str, lines: Sequence[str] | str,
             *, mail_id: int, now: datetime | None = None) -> str:
    """Record moves for ``player`` in ``partie`` of the open round, as if the player had
    sent them (``lines``: main move first, then Ersatzzüge); they replace the player's
    earlier moves for that Partie. ``mail_id``: the stored mail (or CLI record) behind it."""
    league, now = get_league(s, league), utcnow(now)
    rnd = open_round_of(s, league)
    pl = find_player(s, league, player)
    if not pl.active:
        raise GMError(N_("{name} spielt in {league} nicht mehr mit."), name=pl.name, league=league.name)
    if pl.joined_round > rnd.number:  # joined after the open round (it was rolled back): NMR there
        raise GMError(lambda t: t.gettext("{name} spielt erst ab {joined} mit; {period} zählt für {name} als NMR.",
                                          name=pl.name, joined=period(t, league, pl.joined_round),
                                          period=period(t, league, rnd.number)))
    pt = find_partie(s, league, partie)
    if isinstance(lines, str):
        lines = lines.splitlines()
    moves = []
    for ln in lines:
        ln = ln.strip()
        if not ln or re.match(rf"^partie\s+{re.escape(pt.name)}\s*:?\s*$", ln, re.I):
            continue
        ln = re.sub(r"^(?:ersatz(?:zug)?\s*\d*|hauptzug|zug)\s*:\s*", "", ln, flags=re.I).strip()
        if ln:
            moves.append(ln)
    if not moves:
        raise GMError(N_("kein Zug angegeben (die Zugzeilen gehören unter die Befehlszeile)."))
    game = get_game(league.game)
    moves = [game.spell(m, league.options).text for m in moves]  # ÖLE as OELE, as a player's mail
    if game.multiline:  # one move of several lines (Crossword, Presto)
        moves = ["\n".join(moves)]
    sub = Submission(mail_id=mail_id, partie_id=pt.id, round_number=rnd.number, player_id=pl.id, created_at=now)
    sub.moves = [SubmissionMove(position=i, text=t) for i, t in enumerate(moves)]
    s.add(sub)
    s.flush()
    for e in s.scalars(select(Submission).where(
            Submission.partie_id == pt.id, Submission.round_number == rnd.number, Submission.player_id == pl.id,
            Submission.superseded_by.is_(None), Submission.id != sub.id)):
        e.superseded_by = sub.id
    lexicon = league_lexicon(league, cfg)
    checked = [(i, line, game.check_line(pt.state, line, lexicon, i, player=str(pl.id))) for i, line in enumerate(moves)]

    def listing_of(t: Texts) -> str:
        out = []
        for i, line, r in checked:
            label = t.gettext("Zug") if game.multiline else (t.gettext("Hauptzug") if i == 0 else
                                                                 t.gettext("Ersatzzug {n}", n=i))
            verdict = (t.ngettext("gültig, {n} Punkt", "gültig, {n} Punkte", r.score or 0) if r.valid else
                       t.gettext("ungültig: {why}", why=r.verdict.render(t.lang) or r.reason))
            out.append(f"  {label}: {line} – {verdict}")
        return "\n".join(out)

    announce(s, cfg, league, lambda t: t.gettext(  # names the game's period: Runde 3, Zug 2, die Eröffnung
        "der Spielleiter hat für dich in {league}, Partie {partie}, diese Züge für {period} eingetragen; sie "
        "ersetzen, was du für diese Partie geschickt hattest:\n\n{listing}\n\nBis zum ZAT ({zat}) kannst du sie "
        "wie immer ändern.", league=league.name, partie=pt.name, period=period(t, league, rnd.number),
        listing=listing_of(t),
        zat=format_zat(rnd.zat, league.timezone, t.lang)) + ("\n\n" + paused_note(t, league) if league.paused else ""),
        tag="setze", players=[pl],
        subject=lambda t: t.gettext("{league}: Züge für Partie {partie} eingetragen", league=league.name,
                                    partie=pt.name))
    return done(league, "SETZE", lambda t: t.gettext(
        "Für {name} in Partie {partie}, {period} eingetragen:", name=pl.name, partie=pt.name,
        period=period(t, league, rnd.number)) + "\n" + listing_of(t) + "\n" + (
        t.gettext("{name} ist benachrichtigt.", name=pl.name) if not still(s) else
        t.gettext("Still: nicht benachrichtigt.")))


def remove_player(s: Session, cfg: Config, league: League | str, player: str, *, now: datetime | None = None) -> str:
    """Take ``player`` out of the league (``active = False``) from the open round on."""
    league = get_league(s, league)
    pl = find_player(s, league, player)
    if not pl.active:
        raise GMError(N_("{name} spielt in {league} schon nicht mehr mit."), name=pl.name, league=league.name)
    pl.active = False
    s.flush()
    n = announce(s, cfg, league, lambda t: t.gettext(
        "{name} spielt in {league} nicht mehr mit (vom Spielleiter ausgetragen). Die Wertung zeigt ab der nächsten "
        "Auswertung nur noch die übrigen Spieler.", name=pl.name, league=league.name),
        tag="entferne", players=[*active_players(league), pl],
        subject=lambda t: t.gettext("{league}: {name} ausgetragen", league=league.name, name=pl.name))
    return done(league, "ENTFERNE", lambda t: t.gettext("{name} ist aus {league} ausgetragen.", name=pl.name,
                                                        league=league.name) + " " + told(t, s, n))


def _rollback_rows(s: Session, league: League, rnd: Round) -> tuple[int, int]:
    """Undo the adjudication of ``rnd`` in the database; returns (Auswertungen already
    sent, Auswertungen withdrawn before sending)."""
    n = rnd.number
    partien = list(league.partien)
    ids = [p.id for p in partien]
    adjs = {a.partie_id: a for a in s.scalars(select(Adjudication).where(
        Adjudication.partie_id.in_(ids), Adjudication.round_number == n))}
    for p in partien:
        a = adjs.get(p.id)
        if a is None:
            continue
        before = dict(a.report["state_before"])
        p.state, p.finished = before, bool(before.get("finished"))
        s.delete(a)
    # the NMR rows of players who joined after round n are facts of their joining: they stay
    # (one per Partie) and are scored again when the round is (bot.service.stages.rounds.rescore_joiners)
    late = {p.id for p in league.players if p.joined_round > n}
    for r in s.scalars(select(Result).where(Result.partie_id.in_(ids), Result.round_number == n)):
        if r.player_id not in late:
            s.delete(r)
    for v in s.scalars(select(Vorgabe).where(Vorgabe.partie_id.in_(ids), Vorgabe.round_number == n + 1)):
        s.delete(v)
    nxt = s.scalar(select(Round).where(Round.league_id == league.id, Round.number == n + 1))
    if nxt is not None:
        s.delete(nxt)
    rnd.status, rnd.adjudicated_at = "open", None
    if league.status == "finished":
        league.status = "running"
    sent = withdrawn = 0
    for row in _auswertungen(s, league, n):
        if row.status == "sent":
            sent += 0 if row.key.endswith(":gm") else 1
        else:
            row.status, row.last_error = "failed", "zurückgenommen: vom Spielleiter zurückgesetzt (ZURUECK)"
            withdrawn += 1
        row.key = f"{row.key}:zurueck{row.id}"  # frees the key for the new Auswertung
    s.flush()
    return sent, withdrawn


def rollback(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Undo the last adjudicated round: its results and reports go, every Partie gets the
    state before it back, the next round and its Vorgabe go, the round is open again and
    the league is paused (so the old, passed ZAT does not fire at once). Auswertungen not
    yet sent are withdrawn (status failed); sent ones cannot be recalled. A player who
    joined (ANMELDEN) after the round keeps their NMR rows of it, scored again at the new
    adjudication, and is told that the round still counts as NMR for them."""
    league = get_league(s, league)
    last = _last_adjudicated(s, league)
    if last is None:
        raise GMError(N_("in {league} ist noch nichts ausgewertet."), league=league.name)
    later = s.scalar(select(Round).where(Round.league_id == league.id, Round.number > last.number + 1))
    if later is not None:  # pragma: no cover - rounds are only ever opened one after another
        raise GMError(lambda t: t.gettext("nach {period} gibt es schon {later}.", period=period(t, league, last.number),
                                          later=period(t, league, later.number)))
    n = last.number
    ahead = s.scalar(select(Submission.id).join(Partie, Partie.id == Submission.partie_id).where(
        Partie.league_id == league.id, Submission.round_number == n + 1).limit(1)) is not None
    sent, withdrawn = _rollback_rows(s, league, last)
    if not league.paused:
        league.paused, league.paused_at, league.paused_by = True, utcnow(now), "zurueck"
    # every sentence names the game's period (Runde 3, Zug 2, die Eröffnung; issue 32)
    def head(t: Texts) -> str:
        recall = (t.gettext("Die alte Auswertung war schon verschickt und lässt sich nicht zurückholen: bitte betrachte "
                            "sie als ungültig; die neue Auswertung ersetzt sie.") if sent else
                  t.gettext("Die alte Auswertung war noch nicht verschickt und ist zurückgezogen."))
        return t.gettext("der Spielleiter hat {period} von {league} zurückgesetzt: die Ergebnisse sind gelöscht, "
                         "die Partien stehen wieder wie davor, und {period} ist wieder offen.",
                         period=period(t, league, n), league=league.name) + " " + recall + "\n\n"

    def tail(t: Texts) -> str:
        return t.gettext("Die Liga ruht, bis der Spielleiter neu auswertet oder sie fortsetzt.")

    turn = get_game(league.game).turn_of(n)

    def subject(t: Texts) -> str:
        return (t.gettext("{league}: Runde {n} zurückgesetzt", league=league.name, n=n) if turn is None else
                t.gettext("{league}: Zug {turn} zurückgesetzt", league=league.name, turn=turn) if turn >= 1 else
                t.gettext("{league}: Eröffnung zurückgesetzt", league=league.name))

    playing = [p for p in active_players(league) if p.joined_round <= n]
    joiners = [p for p in active_players(league) if p.joined_round > n]  # joined by ANMELDEN after round n
    count = announce(s, cfg, league, lambda t: head(t) + t.gettext(
        "Was du für {period} geschickt hast, bleibt gespeichert und zählt bei der neuen Auswertung; bis dahin "
        "kannst du es noch ändern.", period=period(t, league, n)) + " " + (t.gettext(
            "Was schon für {next} kam, bleibt ebenfalls gespeichert; prüfe es nach der neuen Auswertung.",
            next=period(t, league, n + 1)) + " " if ahead else "") + tail(t), tag="zurueck", players=playing,
        subject=subject)
    for p in joiners:  # their NMR rows stay; their Besser-Wertung follows the new adjudication
        count += announce(s, cfg, league, lambda t, p=p: head(t) + t.gettext(
            "Du spielst erst ab Runde {joined} mit: Runde {n} zählt für dich weiter als NMR (wie bei deiner "
            "Anmeldung), mit der Besser-Wertung der neuen Auswertung. Züge, die du schon geschickt hast, bleiben "
            "gespeichert; prüfe sie nach der neuen Auswertung. Züge für Runde {joined} nimmt der Bot an, sobald "
            "die Runde offen ist.", joined=p.joined_round, n=n) + " " + tail(t), tag="zurueck", players=[p],
            subject=subject)
    def answer(t: Texts) -> str:
        out = [t.gettext("{period} von {league} ist zurückgesetzt und wieder offen; die Liga ist angehalten "
                         "(AUSWERTEN wertet neu aus, WEITER setzt fort). Auswertungen: {withdrawn} zurückgezogen, "
                         "{sent} schon verschickt (nicht zurückholbar).", period=cap(period(t, league, n)),
                         league=league.name, withdrawn=withdrawn, sent=sent), told(t, s, count)]
        if joiners:
            out.append(t.gettext("Nach {period} angemeldet: {names}; ihre NMR-Zeilen von {period} bleiben und "
                                 "werden bei der neuen Auswertung neu gewertet.", period=period(t, league, n),
                                 names=", ".join(p.name for p in joiners)))
        return " ".join(out)
    return done(league, "ZURUECK", answer)


def message(s: Session, cfg: Config, league: League | str, text: str, *, now: datetime | None = None) -> str:
    """Mail ``text`` to every active player."""
    league = get_league(s, league)
    text = text.strip()
    if not text:
        raise GMError(N_("die Nachricht ist leer."))
    if still(s):
        raise GMError(N_("eine Nachricht an alle lässt sich nicht still verschicken (STILL weglassen)."))
    n = announce(s, cfg, league, lambda t: t.gettext("eine Nachricht des Spielleiters an alle in {league}:",
                                                     league=league.name) + "\n\n" + text,
                 tag="nachricht", subject=lambda t: t.gettext("{league}: Nachricht des Spielleiters",
                                                              league=league.name))
    due = s.info.get("gm_notice_due")
    return done(league, "NACHRICHT", lambda t: t.ngettext(
        "Nachricht an {n} Spieler von {league} verschickt (geht um {time} Uhr hinaus, mit weiteren Mitteilungen "
        "bis dahin in einer Mail).", "Nachricht an {n} Spieler von {league} verschickt (geht um {time} Uhr hinaus, "
        "mit weiteren Mitteilungen bis dahin in einer Mail).", n, league=league.name, time=due) if due else
        t.ngettext("Nachricht an {n} Spieler von {league} verschickt.",
                   "Nachricht an {n} Spieler von {league} verschickt.", n, league=league.name))


def set_review(s: Session, cfg: Config, league: League | str, on: bool, *, now: datetime | None = None) -> str:
    """Review mode on (Auswertungen wait for :func:`release`) or off."""
    league = get_league(s, league)
    if bool(league.review) == bool(on):
        raise GMError(N_("die Prüfung der Auswertungen ist in {league} schon an.") if on else
                      N_("die Prüfung der Auswertungen ist in {league} schon aus."), league=league.name)
    league.review = bool(on)
    held = s.scalars(select(OutboxMail.id).where(OutboxMail.league_id == league.id,
                                                 OutboxMail.status == "held")).all()
    n = announce(s, cfg, league, lambda t: (
        t.gettext("der Spielleiter prüft ab jetzt jede Auswertung von {league}, bevor sie verschickt wird; sie kann "
                  "daher etwas später kommen.", league=league.name) if on else
        t.gettext("die Auswertungen von {league} gehen ab jetzt wieder gleich nach dem ZAT hinaus.",
                  league=league.name)), tag="review",
        subject=lambda t: (t.gettext("{league}: Auswertungen mit Prüfung", league=league.name) if on else
                           t.gettext("{league}: Auswertungen ohne Prüfung", league=league.name)))
    def answer(t: Texts) -> str:
        out = [t.gettext("Prüfung der Auswertungen in {league}: an.", league=league.name) if on else
               t.gettext("Prüfung der Auswertungen in {league}: aus.", league=league.name)]
        if held and not on:
            out.append(t.ngettext("{n} zurückgehaltene Mail wartet noch auf FREIGEBEN.",
                                  "{n} zurückgehaltene Mails warten noch auf FREIGEBEN.", len(held)))
        return " ".join(out + [told(t, s, n)])
    return done(league, "REVIEW", answer)


def release(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Send every held Auswertung of the league (status held -> pending)."""
    league = get_league(s, league)
    rows = s.scalars(select(OutboxMail).where(OutboxMail.league_id == league.id, OutboxMail.status == "held")).all()
    if not rows:
        raise GMError(N_("in {league} wartet keine Auswertung auf Freigabe."), league=league.name)
    for r in rows:
        r.status = "pending"
    rounds = sorted({r.round_number for r in rows if r.round_number is not None})
    return done(league, "FREIGEBEN", lambda t: t.ngettext(
        "{n} Auswertung von {league} ({periods}) freigegeben; sie geht jetzt hinaus.",
        "{n} Auswertungen von {league} ({periods}) freigegeben; sie gehen jetzt hinaus.", len(rows),
        league=league.name, periods=", ".join(period(t, league, r) for r in rounds)))


def decide_address(s: Session, cfg: Config, league: League | str, player: str, ok: bool, *, by: str = "gm",
                   now: datetime | None = None) -> str:
    """Confirm (``ok``) or refuse the address change of ``player`` (name, address or unique
    first name) that waits for the game master (an unproven ``ADRESSE``:
    :class:`~bot.storage.models.AddressChange`). Confirmed, the address is added and becomes
    the first, and both the new and the old address are told; refused, the old address is
    told and the new one gets nothing. ``by``: ``gm`` (mail) or ``cli``. Raises
    :class:`GMError` when nothing waits for the player, or when the address was taken
    meanwhile (:func:`~bot.service.conversations.commands.address_refusal`). Source: issue 31."""
    league, now = get_league(s, league), utcnow(now)
    p = find_player(s, league, player)
    change = pending_change(s, p)
    if change is None:
        raise GMError(N_("für {name} wartet keine Adressänderung."), name=p.name)
    lang = league_language(league.options)
    t = texts(lang)
    if ok:
        if address_refusal(s, cfg, p, change.email, "de"):
            raise GMError(lambda t: address_refusal(s, cfg, p, change.email, t.lang) or "")
        set_address(s, p, change.email)
        change.status = "confirmed"
        body = wrap(t.gettext("der Spielleiter hat deine neue Adresse bestätigt.") + " " + t.gettext(
            "Auswertungen gehen ab jetzt an {new}. Züge kannst du von allen deinen Adressen schicken ({all}).",
            new=change.email, all=", ".join(a.email for a in p.addresses)))
        targets = {"neu": change.email, "alt": change.old_email}
    else:
        change.status = "refused"
        body = wrap(t.gettext("der Spielleiter hat die Bitte abgelehnt, deine Mails aus {league} an {new} zu "
                              "schicken; alles geht weiter an {old}.", league=league.name, new=change.email,
                              old=p.email))
        targets = {"alt": change.old_email}
    change.decided_at, change.decided_by = now, by
    subject = t.gettext("{league}: deine Adresse", league=league.name)
    for role, to in targets.items():
        if role == "alt" and to == targets.get("neu"):
            continue
        queue_mail(s, cfg, key=f"adresse:{change.id}:{change.status}:{role}", kind="gm", to=to, subject=subject,
                   text=render("notice.txt.j2", lang, name=p.name, body=body, league=league.name), league_id=league.id)
    if ok:
        return done(league, "ADRESSE", lambda t: t.gettext(
            "{name}: Auswertungen gehen ab jetzt an {new} (bisher {old}); beide Adressen sind benachrichtigt.",
            name=p.name, new=change.email, old=change.old_email))
    return done(league, "ADRESSE", lambda t: t.gettext(
        "{name}: die Adressänderung an {new} ist abgelehnt; alles geht weiter an {old}, die Adresse ist "
        "benachrichtigt.", name=p.name, new=change.email, old=p.email))
