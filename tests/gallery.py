"""The gallery of every mail (issue 24): every kind of mail of every game in every language,
rendered from seeded leagues into a folder as text and HTML, checked in under
``tests/gallery/`` and compared by ``tests/test_gallery.py``, so every change of wording is
a reviewed diff.

    .venv/bin/python -m tests.gallery            # write the gallery into tests/gallery/
    .venv/bin/python -m tests.gallery /tmp/g     # ... or into another folder

The leagues are the demo's (bot.demo, seed ``gallery``: Rondo, Monoscrabble, Crossword,
Typ-Dom Point and Kreuzwort, Presto, "Wer behält recht?", Dutch RONDO), played in a few
rounds, plus a German and a Dutch league in which the game master uses every notice
(ZAT, PAUSE, WEITER, NACHRICHT) and a player asks HILFE, STAND and for all moves of a
round; then (:func:`_probe`) in every demo league, ended by then, a move after the end and
HILFE, STAND, AUSWERTUNG 1, and in a running league made from every demo league but
RONDO's ("Lauf-<demo league's name>"; RONDO's are the GM leagues) an invalid
move, a move out of turn (turn games) and the GM's notices - named ``*-probe-<what>``; the
German RONDO league plays on to its end (:func:`_play_to_end`), and a "Wer behält recht?"
league has a player drop out and mail again (:func:`_player_out`). RONDO's reminders (the
opening's and a turn's) are sent an hour before the ZAT. The service's own notices to the
game master, in German and in Dutch (a refused mail, Auswertungen slowed by the send
limits, the inbox alarm and its all-clear, the GM copy's outage remark), come from four
small leagues of their own (:func:`_ops`, :data:`OPS`). The leagues are played in
``tests/gallery_play.py`` and ``tests/gallery_ops.py``; this module writes the gallery.
:data:`KINDS` and :data:`SKIPPED` are the coverage matrix tests/test_gallery.py asserts.
Of every league and kind of mail the gallery keeps the first and the last round's
mail to one player, and the game master's copy; times of day are replaced by ``<ZAT>``
and ``<Zeit>`` (the demo plays from the current date). A resent Auswertung (AUSWERTUNG n)
whose HTML equals one kept already is kept as text only."""

from __future__ import annotations

import email
import email.policy
import re
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from tests.gallery_ops import DUTCH_GM, INBOX_GMS, OPS, _ops
from tests.gallery_play import _extras, _probe, _slug
from tests.wording_terms import TERMS  # the variants and languages of the gallery

# (the leagues' names importable from here as before: tests/test_wording.py reads DUTCH_GM)
__all__ = ["DUTCH_GM", "GALLERY", "INBOX_GMS", "KINDS", "OPS", "SKIPPED", "build", "normalize"]

GALLERY = Path(__file__).resolve().parent / "gallery"

_DAYS = ("Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag|"
         "maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag")
# (a wrapped line may break a ZAT anywhere: any white space between its parts)
_ZAT = re.compile(rf"(?:{_DAYS}),?\s+\d\d[.-]\d\d[.-]\d{{4}},\s+\d\d:\d\d\s+(?:Uhr|uur)\s+\(UTC[+-]\d\d:\d\d\)")
_TIME = re.compile(r"\d\d[.-]\d\d[.-]\d{4},\s+\d\d:\d\d(?::\d\d)?\s+(?:Uhr|uur)")
# a short time of day without the year, as the notices' lists give it ("27.11. 06:53 Uhr",
# Dutch "27-11 06:53")
_CLOCK = re.compile(r"\b\d\d(?:\.\d\d\.|-\d\d)\s\d\d:\d\d(?:\s+Uhr)?")


#: the kinds of mail kept per round (the first and the last); of the others one per subject
_BY_ROUND = ("ack", "auswertung", "start", "reminder", "welcome")


def normalize(text: str, html: bool = False) -> str:
    """``text`` with the ZATs and times replaced (they follow the date of the run); in
    HTML escaped, so the browser shows the placeholder."""
    lt, gt = ("&lt;", "&gt;") if html else ("<", ">")
    text = _ZAT.sub(f"{lt}ZAT{gt}", text)
    text = _TIME.sub(f"{lt}Zeit{gt}", text)
    text = _CLOCK.sub(f"{lt}Zeit{gt}", text)
    return text.replace("\r\n", "\n")


def _bodies(raw: bytes) -> tuple[str, str | None]:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    text = msg.get_body(("plain",)).get_content()
    html = msg.get_body(("html",))
    return text, html.get_content() if html is not None else None


#: the kinds of mail of issue 32's coverage matrix: kind -> patterns of gallery file names
#: (any one suffices); tests/test_gallery.py asserts each for every game variant and
#: language (tests.wording_terms.variant) unless :data:`SKIPPED` gives the reason
KINDS: dict[str, tuple[str, ...]] = {
    "start": ("/start-spieler-",),
    "ack valid": ("/ack-spieler-runde",),
    "ack invalid": ("/ack-spieler-probe-ungueltig",),
    "ack out of turn": ("/ack-spieler-probe-ungueltig-spieler",),
    "ack after the end": ("-probe-nach-dem-ende.",),
    "ack player out": ("-probe-ausgeschieden",),
    "ack late": ("-probe-spaet",),
    "auswertung text": ("/auswertung-spieler-runde",),
    "auswertung html": ("/auswertung-spieler-runde",),
    "final auswertung": ("/auswertung-spieler-runde",),
    "reminder": ("/reminder-spieler-",),
    "gm new zat": ("/gm-spieler-probe-gm-zat", "/gm-spieler-neuer-zat", "/gm-spieler-nieuwe-deadline"),
    "gm pause": ("/gm-spieler-probe-gm-pause", "/gm-spieler-angehalten", "/gm-spieler-stilgezet"),
    "gm resume": ("/gm-spieler-probe-gm-weiter", "/gm-spieler-es-geht-weiter", "/gm-spieler-het-gaat-verder"),
    "gm message": ("/gm-spieler-probe-gm-nachricht", "/gm-spieler-nachricht-des", "/gm-spieler-bericht-van"),
    "HILFE": ("-spieler-probe-hilfe", "-spieler-re-hilfe"),
    "STAND": ("-spieler-probe-stand", "-spieler-re-stand"),
    "AUSWERTUNG n": ("-spieler-probe-auswertung-n", "-spieler-probe-uitslag-n", "-spieler-re-auswertung-n",
                     "-spieler-re-uitslag-n"),
}

_NO_TURNS = "no turns: everyone moves in every Runde"
#: (variant, language) -> {kind: why the gallery has no such mail}
SKIPPED: dict[tuple[str, str], dict[str, str]] = {
    key: {"ack player out": "nobody drops out of this game",
          "reminder": "no reminder: the game has one ZAT a week for everyone",
          **({"ack out of turn": _NO_TURNS} if not TERMS[key].turns else {})}
    for key in TERMS}  # every variant and language of tests/wording_terms.py
for _key in (("typdom-wbr", "de"), ("rondonl", "de"), ("rondonl", "nl")):
    # games of turns remind the player on turn; a WbR player drops out (_player_out)
    SKIPPED[_key].pop("reminder")
SKIPPED[("typdom-wbr", "de")].pop("ack player out")


def build(out: Path, work: Path | None = None) -> list[Path]:
    """Play the leagues and write the gallery into ``out`` (emptied first); returns the
    files written."""
    from sqlalchemy import select

    from bot.config import embedded
    from bot.demo import run_demo
    from bot.storage.db import Database
    from bot.storage.models import League, OutboxMail

    own = work is None
    work = Path(work or tempfile.mkdtemp(prefix="spielleiter-galerie-"))
    try:
        run_demo(out=work / "eml", rounds={"Demo-Rondo": 2, "Demo-Mono": 2, "Demo-RONDO": 1}, seed="gallery", quiet=True,
                 work=work, gm_email="gm@demo.invalid")
        _extras(work)
        labels = _probe(work)
        labels.update(_ops(work))
        db = Database(embedded(work).database_url)
        with db.session() as s:
            leagues = {lg.id: lg for lg in s.scalars(select(League))}
            groups: dict[tuple, list[OutboxMail]] = defaultdict(list)
            for m in s.scalars(select(OutboxMail).order_by(OutboxMail.id)):
                lg = leagues.get(m.league_id)
                if lg is None:
                    continue
                lang = (lg.options or {}).get("language", "de")
                who = "gm" if m.to_addr.startswith("gm@") else "spieler"
                # notices and command answers: one of each subject (ZAT, PAUSE, HILFE, STAND, ...)
                what = "" if m.kind in _BY_ROUND else _slug(re.sub(r"\d+", "n", m.subject.replace(lg.name, "")))
                if labels.get(m.id) == "":  # a mail written before the test set the state
                    continue
                if m.id in labels:  # a probe's answer: named by what was asked (one of each)
                    what = f"probe-{labels[m.id]}"
                groups[(lg.game, lang, lg.name, m.kind, who, what)].append(m)
            if out.exists():
                shutil.rmtree(out)
            written = []
            htmls: dict[Path, set[str]] = defaultdict(set)  # folder -> the HTML parts written there
            for (game, lang, league, kind, who, what), mails in sorted(groups.items()):
                rounds = sorted({m.round_number or 0 for m in mails})
                keep = {rounds[0], rounds[-1]}
                chosen = {}
                for m in mails:  # the first mail of the first and the last round
                    r = m.round_number or 0
                    if r in keep and r not in chosen:
                        chosen[r] = m
                folder = out / f"{game}-{lang}" / _slug(league)
                folder.mkdir(parents=True, exist_ok=True)
                for r, m in sorted(chosen.items()):
                    text, html = _bodies(m.raw)
                    stem = f"{kind}-{who}-{what}" if what else f"{kind}-{who}-runde{r:02d}"
                    head = f"Betreff: {normalize(m.subject)}\n\n"
                    (folder / f"{stem}.txt").write_text(head + normalize(text), encoding="utf-8")
                    written.append(folder / f"{stem}.txt")
                    html = normalize(html, html=True) if html else None
                    # a resent Auswertung (AUSWERTUNG n) whose HTML equals one kept already is
                    # kept as text only (no byte-equal duplicate); one that differs is kept
                    if html and not (kind == "resend" and html in htmls[folder]):
                        (folder / f"{stem}.html").write_text(html, encoding="utf-8")
                        written.append(folder / f"{stem}.html")
                        htmls[folder].add(html)
        db.dispose()
        return written
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else GALLERY
    files = build(target)
    print(f"{len(files)} Dateien in {target}")
