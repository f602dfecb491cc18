"""Languages of the bot's mails (issues 11 and 24): every text to a player is in the
league's language, the game master's mails in the game master's. No game rules here.

One mechanism, the ecosystem's own: gettext catalogs kept with Babel. German is the
source language: every message is written in German in the code and the templates (the
msgid), and ``translations/<lang>/LC_MESSAGES/messages.po`` holds its translation. The catalogs
are compiled to ``.mo`` when the wheel is built (``setup.py``); in a checkout without
compiled catalogs the ``.po`` is compiled in memory at first use. Adding a language is a
new ``.po`` (docs/development/i18n.md).

A league's language is the league file's ``language`` (``"de"``, the default, or
``"nl"``); the game master's is ``gm_language`` (default ``"de"``). Templates use
jinja2's ``i18n`` extension (``_()``, ``ngettext()``; :func:`bot.render.render`); the
service's own sentences are :data:`TEXTS` through :func:`tr`, or :func:`texts` for a
``gettext``/``ngettext`` pair in one language.
"""

from __future__ import annotations

import gettext as _gettext
import io
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from bot import data_dir

#: The languages with a catalog, German (the source language) first.
LANGUAGES = ("de", "nl")
DEFAULT = "de"
DOMAIN = "messages"


def N_(msgid: str) -> str:
    """Marks ``msgid`` for extraction (``pybabel extract``) without translating it."""
    return msgid


def locale_dir() -> Path:
    """The folder of the catalogs (``translations/<lang>/LC_MESSAGES/messages.po`` and ``.mo``)."""
    return data_dir("translations")


@lru_cache(maxsize=None)
def translation(lang: str) -> _gettext.NullTranslations:
    """The gettext translations of ``lang``: the compiled ``.mo`` when it is there and not
    older than its ``.po``, else the ``.po`` compiled in memory with Babel; German (the
    source language) and unknown languages translate nothing."""
    if lang == DEFAULT or lang not in LANGUAGES:
        return _gettext.NullTranslations()
    folder = locale_dir() / lang / "LC_MESSAGES"
    po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    if mo.is_file() and (not po.is_file() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as fh:
            return _gettext.GNUTranslations(fh)
    if not po.is_file():
        raise FileNotFoundError(f"no catalog for language {lang!r} in {folder}")
    # deferred on purpose: babel compiles the catalogs only in a checkout
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    with po.open("rb") as fh:
        catalog = read_po(fh, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return _gettext.GNUTranslations(buf)


class Texts:
    """``gettext`` and ``ngettext`` of one language, with ``str.format`` fields:
    ``t = texts("nl"); t.gettext("Runde {n}", n=3)``, ``t.ngettext("{n} Stein", "{n} Steine", n)``
    (``n`` is passed to the format too). Babel extracts both calls (default keywords)."""

    def __init__(self, lang: str):
        self.lang = lang
        self._t = translation(lang)

    def gettext(self, msgid: str, /, **kw: Any) -> str:
        text = self._t.gettext(msgid)
        return text.format(**kw) if kw else text

    _ = gettext

    def ngettext(self, singular: str, plural: str, n: int, /, **kw: Any) -> str:
        return self._t.ngettext(singular, plural, n).format(n=n, **kw)


@lru_cache(maxsize=None)
def texts(lang: str) -> Texts:
    """The :class:`Texts` of ``lang``."""
    return Texts(lang)


#: Weekday names, Monday first.
WEEKDAYS_DE = [N_("Montag"), N_("Dienstag"), N_("Mittwoch"), N_("Donnerstag"), N_("Freitag"), N_("Samstag"),
               N_("Sonntag")]


def weekday(lang: str, index: int) -> str:
    """The name of weekday ``index`` (Monday 0) in ``lang``."""
    return texts(lang).gettext(WEEKDAYS_DE[index])


#: The service's own sentences by key: the German text is the msgid, the translations are in
#: the catalogs ``translations/<lang>/LC_MESSAGES/messages.po``.
TEXTS: dict[str, str] = {
    "not_your_turn": N_("du bist jetzt nicht am Zug; dein Zug wurde nicht gespeichert.{who}"),
    "who_moves": N_(" Am Zug: {names}, bis zum ZAT {zat}."),
    "partie_over": N_("diese Partie ist beendet."),
    "partie_waits": N_("diese Partie beginnt erst, wenn die Partie davor beendet ist."),
    "league_over": N_("die Liga {league} ist beendet."),
    "game_over": N_("die Partie ist beendet: die Liga {league} ist zu Ende, deine Mail wurde nicht als Zug "
                    "gewertet. Der Endstand:"),
    "late": N_("deine Mail kam nach dem ZAT der Runde {round} ({zat}) und wird nicht mehr gewertet. "
              "Sie bleibt für den Spielleiter gespeichert."),
    "late_turn": N_("deine Mail kam nach dem ZAT von Zug {turn} ({zat}) und wird nicht mehr gewertet. "
                   "Sie bleibt für den Spielleiter gespeichert."),
    "late_opening": N_("deine Mail kam nach dem ZAT der Eröffnung ({zat}) und wird nicht mehr gewertet. "
                      "Sie bleibt für den Spielleiter gespeichert."),
    "after_delayed_zat": N_("deine Mail kam nach dem ZAT der Runde {round} ({zat}) an, bevor der Bot diese Runde "
                            "auswerten konnte (er war gestört). Sie zählt deshalb, wie jede Mail nach dem ZAT, "
                            "für Runde {next}."),
    "after_delayed_zat_turn": N_("deine Mail kam nach dem ZAT von Zug {turn} ({zat}) an, bevor der Bot diesen Zug "
                                 "auswerten konnte (er war gestört). Sie zählt deshalb, wie jede Mail nach dem "
                                 "ZAT, für Zug {next}."),
    "after_delayed_zat_opening": N_("deine Mail kam nach dem ZAT der Eröffnung ({zat}) an, bevor der Bot die "
                                    "Eröffnung auswerten konnte (er war gestört). Sie zählt deshalb, wie jede "
                                    "Mail nach dem ZAT, für Zug {next}."),
    "joined_later": N_("du spielst in {league} erst ab Runde {joined} mit; der Spielleiter hat Runde {round} "
                      "zurückgesetzt, und sie zählt für dich weiter als NMR (wie bei deiner Anmeldung). "
                      "Deine Mail wird daher nicht gewertet; sie bleibt für den Spielleiter gespeichert. "
                      "Schick deine Züge für Runde {joined} bitte, wenn die Runde offen ist."),
    "no_partie": N_("Für diese Züge ist keine Partie angegeben: bitte 'Partie {first}:' o. ä. davor "
                   "schreiben ({moves})."),
    "unknown_partie": N_("Eine Partie {partie} gibt es in {league} nicht (Partien: {names})."),
    "partie_note": N_("Partie {name}: {why}"),
    "no_move_found": N_("kein Zug gefunden."),
    "unread_lines": N_("Zeilen, die ich nicht als Zug lesen konnte: {lines}. Hilfe zur Notation steht in der "
                      "Startmail (schick HILFE)."),
    "none": N_("keine"),
    "subject_start": N_("{league}: Spielbeginn"),
    "subject_welcome": N_("{league}: Willkommen"),
    "subject_auswertung": N_("{league}: Auswertung Runde {round}"),
    "subject_final": N_("{league}: Schlussauswertung Runde {round}"),
    "subject_reminder": N_("{league}: Erinnerung an den ZAT der Runde {round}"),
    "reminder": N_("für Runde {round} von {league} fehlen noch deine Züge ({partien}).\nZAT: {zat}\n\nOhne "
                  "Zug gibt es ein NMR. Wer nicht erinnert werden will: URLAUB von-bis."),
    "subject_reminder_turn": N_("{league}: Erinnerung an den ZAT von Zug {round}"),
    "reminder_turn": N_("für Zug {round} von {league} fehlt noch dein Zug ({partien}).\nZAT: {zat}\n\nOhne "
                        "Zug gibt es ein NMR. Wer nicht erinnert werden will: URLAUB von-bis."),
    "subject_reminder_opening": N_("{league}: Erinnerung an den ZAT der Eröffnung"),
    "reminder_opening": N_("für die Eröffnung von {league} fehlt noch dein Wort aus drei Karten deiner Hand "
                           "({partien}).\nZAT: {zat}\n\nWer das wertvollste Wort schickt, beginnt. Wer nicht "
                           "erinnert werden will: URLAUB von-bis."),
    "partie_one": N_("Partie {names}"),
    "partie_many": N_("Partien {names}"),
    "standings_title": N_("Wertung {league}:"),
    "next_zat": N_("Nächster ZAT: {zat}"),
    "gm_name": N_("Spielleiter"),
    "cmd_which_round": N_("Welche Runde? Bitte so: AUSWERTUNG 3"),
    "cmd_which_turn": N_("Welcher Zug? Bitte so: AUSWERTUNG 3"),
    "cmd_no_report": N_("Eine Auswertung der Runde {n} gibt es für dich nicht."),
    "cmd_not_adjudicated": N_("Die Runde {n} von {league} ist noch nicht ausgewertet."),
    "cmd_no_report_turn": N_("Eine Auswertung von Zug {n} gibt es für dich nicht."),
    "cmd_not_adjudicated_turn": N_("Zug {n} von {league} ist noch nicht ausgewertet."),
    "copy_subject": N_("Kopie: {subject}"),
    "cmd_no_leave": N_("In {league} kann man nicht per Mail austreten; bitte schreib dem Spielleiter."),
    "cmd_left": N_("du bist aus {league} abgemeldet. Schade! Mit ANMELDEN kannst du jederzeit wieder "
                  "einsteigen."),
    "cmd_away_end": N_("dein Urlaub ist beendet: du bekommst wieder Erinnerungen."),
    "cmd_away_how": N_("Bitte so: URLAUB 24.12.2026-06.01.2027 (oder URLAUB ENDE)."),
    "cmd_away_date": N_("Das Datum verstehe ich nicht. Bitte so: URLAUB 24.12.2026-06.01.2027"),
    "cmd_away_order": N_("Das Ende liegt vor dem Anfang."),
    "cmd_away_set": N_("Urlaub eingetragen: {start} bis {end}. In der Zeit schicke ich keine Erinnerungen; "
                      "Züge, die du vorher schickst, zählen wie immer. Ohne Zug gibt es ein NMR."),
    "cmd_address_how": N_("Bitte so: ADRESSE neu@example.org"),
    "cmd_address_taken": N_("{new} gehört in {league} schon jemand anderem."),
    "cmd_address_set": N_("Auswertungen gehen ab jetzt an {new}. Züge kannst du von allen deinen Adressen "
                         "schicken ({all})."),
    "cmd_already_joined": N_("du bist in {league} schon angemeldet."),
    "code_forged": N_("eine Mail mit deiner Adresse {addr} als Absender kam, aber der Mailserver bestätigt "
                     "diesen Absender nicht ({why}): sie ist wohl gefälscht und wurde nicht gewertet; "
                     "nichts wurde verändert. Warst du es doch, schreib deinen persönlichen Code in eine "
                     "eigene Zeile ('Code: ...') oder melde dich beim Spielleiter."),
    "from_ambiguous": N_("eine Mail gab deine Adresse {addr} als Absender an, nannte im Absenderfeld aber "
                        "auch {others}: wer sie schrieb, ist nicht eindeutig. Sie ist wohl gefälscht und "
                        "wurde nicht gewertet; nichts wurde verändert. Warst du es doch, schick sie noch einmal "
                        "mit deiner Adresse allein als Absender (ohne weitere Adresse im Namen) oder mit "
                        "deinem persönlichen Code in einer eigenen Zeile ('Code: ...'), oder melde dich "
                        "beim Spielleiter."),
    "code_missing": N_("eine Mail von {addr} kam ohne deinen persönlichen Code und wurde nicht gewertet; "
                      "nichts wurde verändert. Bitte schreib deinen Code in eine eigene Zeile: 'Code: ...'. "
                      "Warst du das nicht, melde dich beim Spielleiter."),
    "code_wrong": N_("eine Mail von {addr} kam mit einem falschen Code und wurde nicht gewertet; nichts "
                    "wurde verändert. Bitte schreib deinen Code in eine eigene Zeile: 'Code: ...'. Warst "
                    "du das nicht, melde dich beim Spielleiter."),
    "subject_not_counted": N_("{league}: Mail nicht gewertet"),
    "unknown_sender": N_("diese Adresse ist bei keiner laufenden Liga angemeldet; deine Mail wurde nicht als "
                        "Zug gewertet. Bitte schreib von deiner angemeldeten Adresse oder melde dich beim "
                        "Spielleiter."),
    "named_by_unknown": N_("eine Mail von einer Adresse, die in {league} nicht angemeldet ist, nennt dich. Sie "
                          "wurde nicht gewertet und hat nichts verändert."),
    "subject_notice": N_("{league}: Hinweis"),
    "mail_too_big": N_("deine Mail war zu groß ({size} MB, höchstens {limit} MB) und wurde nicht gelesen; "
                      "nichts wurde verändert. Bitte schick deine Züge als einfache Textmail ohne Anhänge."),
    "mail_unreadable": N_("deine Mail (Betreff: {subject}) konnte ich nicht lesen: {why}. Sie wurde nicht "
                         "gewertet und hat nichts verändert; sie bleibt für den Spielleiter gespeichert. Bitte "
                         "schick deine Züge noch einmal als einfache Textmail."),
    "empty_subject": N_("(leer)"),
    "what_player": N_("Züge oder Befehle für {league}"),
    "auth_summary": N_("zwischen {first} und {last} kamen {n} {mails} ({what}) ohne den richtigen Code oder "
                      "mit gefälschtem Absender, von: {senders}. Keine wurde ausgeführt oder gewertet; "
                      "nichts wurde verändert."),
    "mail_one": N_("Mail"),
    "mail_many": N_("Mails"),
    "auth_line": N_("  - {when}, von {sender}: {why}"),
    "auth_earlier": N_("  ... und {n} frühere"),
    "auth_guessing": N_("Das sind mehr als ein paar Tippfehler: vermutlich versucht jemand, deinen Code zu "
                       "raten. Dein richtiger Code gilt weiter. Ist er kurz oder leicht zu erraten, bitte den "
                       "Spielleiter um einen neuen."),
    "why_code missing": N_("ohne Code"),
    "why_code wrong": N_("falscher Code"),
    "why_sender": N_("Absender vom Mailserver nicht bestätigt ({why})"),
    "why_ambiguous": N_("Absender nicht eindeutig ({why})"),
    "clock": N_("{dt:%d.%m. %H:%M} Uhr"),
    "more_in_summary": N_("Kommen in der nächsten Stunde weitere solche Mails, fasse ich sie in einer Nachricht "
                         "zusammen."),
}


def language(value: Any) -> str:
    """A supported language code from a league-file value (``"nl"``, ``"NL"``,
    ``"nederlands"``, ``"dutch"``); German for anything else."""
    v = str(value or "").strip().lower()
    if v in ("nl", "nederlands", "dutch", "niederländisch", "niederlaendisch"):
        return "nl"
    return DEFAULT


def league_language(options: Mapping[str, Any] | None) -> str:
    """The language of a league's player mails (league option ``language``)."""
    return language((options or {}).get("language"))


def gm_language(options: Mapping[str, Any] | None) -> str:
    """The language of the game master's mails (league option ``gm_language``, default German)."""
    return language((options or {}).get("gm_language"))


def tr(lang: str, key: str, **kw: Any) -> str:
    """The sentence ``key`` of :data:`TEXTS` in ``lang`` (German when there is no translation)."""
    return texts(lang).gettext(TEXTS[key], **kw)


#: The one-line reasons why a mail could not be read, as bot.mail.message writes them (in
#: German, for the game master's records); :func:`unreadable_reason` finds the one a reason
#: is and gives it in another language from the catalog.
UNREADABLE = [
    N_("sie besteht aus zu vielen ineinander verschachtelten Teilen (mehr als {n})"),
    N_("sie besteht aus zu vielen Teilen (mehr als {n})"),
    N_("sie ist zu tief verschachtelt (zu viele ineinander steckende Teile)"),
    N_("ihr Aufbau (MIME) ist fehlerhaft ({error})"),
    N_("ihr Text ließ sich nicht entschlüsseln ({error})"),
    N_("ihr Text ließ sich nicht lesen ({error})"),
    N_("sie ist sehr groß ({kb} KB), und ihr Anfang enthält keinen Text"),
]


def unreadable_reason(why: str, lang: str) -> str:
    """``why`` (a German reason from :mod:`bot.mail.message`) in ``lang``; unchanged when
    ``lang`` is German or the reason is not one of :data:`UNREADABLE`."""
    if lang == DEFAULT:
        return why
    for msgid in UNREADABLE:
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", re.escape(msgid))
        m = re.fullmatch(pattern, why or "")
        if m:
            return texts(lang).gettext(msgid, **m.groupdict())
    return why
