"""Languages of the bot's mails (issue 11: a Dutch league gets its mails in Dutch, the game
master's mails stay in the game master's language). No game rules here.

A league's language is the league file's ``language`` (``"de"``, the default, or
``"nl"``); the game master's is ``gm_language`` (default ``"de"``). Templates are looked
up per language (:func:`bot.render.render`: ``templates/nl/<name>`` before
``templates/<name>``); the sentences the service writes in Python are in :data:`TEXTS`.
"""

from __future__ import annotations

from typing import Any, Mapping

LANGUAGES = ("de", "nl")
DEFAULT = "de"

#: Weekday names, Monday first.
WEEKDAYS = {
    "de": ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
    "nl": ["maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag"],
}

#: The service's own sentences, by key and language (German is the original).
TEXTS: dict[str, dict[str, str]] = {
    "not_your_turn": {
        "de": "du bist in dieser Runde nicht am Zug; dein Zug wurde nicht gespeichert.{who}",
        "nl": "je bent in deze ronde niet aan de beurt; je zet is niet opgeslagen.{who}"},
    "who_moves": {"de": " Am Zug: {names}, bis zum ZAT {zat}.", "nl": " Aan de beurt: {names}, tot de ZAT {zat}."},
    "partie_over": {"de": "diese Partie ist beendet.", "nl": "deze partij is afgelopen."},
    "partie_waits": {"de": "diese Partie beginnt erst, wenn die Partie davor beendet ist.",
                     "nl": "deze partij begint pas als de partij ervoor is afgelopen."},
    "league_over": {"de": "die Liga {league} ist beendet.", "nl": "de competitie {league} is afgelopen."},
    "game_over": {"de": "Die Partie ist beendet: die Liga {league} ist zu Ende, deine Mail wurde nicht als Zug "
                        "gewertet. Der Endstand:",
                  "nl": "De partij is afgelopen: de competitie {league} is voorbij, je mail is niet als zet "
                        "geteld. De eindstand:"},
    "late": {"de": "deine Mail kam nach dem ZAT der Runde {round} ({zat}) und wird nicht mehr gewertet. "
                   "Sie bleibt für den Spielleiter gespeichert.",
             "nl": "je mail kwam na de deadline (ZAT) van ronde {round} ({zat}) en telt niet meer. "
                   "Hij blijft voor de spelleider bewaard."},
    "after_delayed_zat": {
        "de": "deine Mail kam nach dem ZAT der Runde {round} ({zat}) an, bevor der Bot diese Runde auswerten "
              "konnte (er war gestört). Sie zählt deshalb, wie jede Mail nach dem ZAT, für Runde {next}.",
        "nl": "je mail kwam na de deadline (ZAT) van ronde {round} ({zat}) binnen, voordat de bot die ronde kon "
              "uitwerken (hij was gestoord). Hij telt daarom, zoals elke mail na de ZAT, voor ronde {next}."},
    "joined_later": {"de": "du spielst in {league} erst ab Runde {joined} mit; der Spielleiter hat Runde {round} "
                           "zurückgesetzt, und sie zählt für dich weiter als NMR (wie bei deiner Anmeldung). "
                           "Deine Mail wird daher nicht gewertet; sie bleibt für den Spielleiter gespeichert. "
                           "Schick deine Züge für Runde {joined} bitte, wenn die Runde offen ist.",
                     "nl": "je speelt in {league} pas mee vanaf ronde {joined}; de spelleider heeft ronde {round} "
                           "teruggezet, en die telt voor jou nog steeds als NMR (zoals bij je aanmelding). "
                           "Je mail telt daarom niet; hij blijft voor de spelleider bewaard. Stuur je zetten "
                           "voor ronde {joined} graag als die ronde open is."},
    "no_partie": {"de": "Für diese Züge ist keine Partie angegeben: bitte 'Partie {first}:' o. ä. davor "
                        "schreiben ({moves}).",
                  "nl": "Bij deze zetten staat geen partij: schrijf er 'Partie {first}:' voor ({moves})."},
    "unknown_partie": {"de": "Eine Partie {partie} gibt es in {league} nicht (Partien: {names}).",
                       "nl": "Een partij {partie} bestaat niet in {league} (partijen: {names})."},
    "partie_note": {"de": "Partie {name}: {why}", "nl": "Partij {name}: {why}"},
    "no_move_found": {"de": "kein Zug gefunden.", "nl": "geen zet gevonden."},
    "unread_lines": {"de": "Zeilen, die ich nicht als Zug lesen konnte: {lines}. Hilfe zur Notation steht "
                           "in der Startmail (schick HILFE).",
                     "nl": "Regels die ik niet als zet kon lezen: {lines}. Hulp bij de notatie staat in de "
                           "startmail (stuur HELP)."},
    "none": {"de": "keine", "nl": "geen"},
    "subject_start": {"de": "{league}: Spielbeginn", "nl": "{league}: start van het spel"},
    "subject_welcome": {"de": "{league}: Willkommen", "nl": "{league}: welkom"},
    "subject_auswertung": {"de": "{league}: Auswertung Runde {round}", "nl": "{league}: uitslag ronde {round}"},
    "subject_final": {"de": "{league}: Schlussauswertung Runde {round}",
                      "nl": "{league}: einduitslag ronde {round}"},
    "subject_reminder": {"de": "{league}: Erinnerung an den ZAT der Runde {round}",
                         "nl": "{league}: herinnering aan de deadline van ronde {round}"},
    "reminder": {"de": "für Runde {round} von {league} fehlen noch deine Züge ({partien}).\nZAT: {zat}\n\n"
                       "Ohne Zug gibt es ein NMR. Wer nicht erinnert werden will: URLAUB von-bis.",
                 "nl": "voor ronde {round} van {league} ontbreken nog je zetten ({partien}).\nDeadline (ZAT): "
                       "{zat}\n\nZonder zet krijg je een NMR. Geen herinneringen meer: VAKANTIE van-tot."},
    "partie_one": {"de": "Partie {names}", "nl": "partij {names}"},
    "partie_many": {"de": "Partien {names}", "nl": "partijen {names}"},
    "standings_title": {"de": "Wertung {league}:", "nl": "Stand {league}:"},
    "standings_row": {"de": "{rank:>3}. {name:<24} {points:>5}  ({rounds} Runden gespielt)",
                      "nl": "{rank:>3}. {name:<24} {points:>5}  ({rounds} rondes gespeeld)"},
    "next_zat": {"de": "Nächster ZAT: {zat}", "nl": "Volgende deadline (ZAT): {zat}"},
    "gm_name": {"de": "Spielleiter", "nl": "Spelleider"},
    "cmd_which_round": {"de": "Welche Runde? Bitte so: AUSWERTUNG 3", "nl": "Welke ronde? Zo graag: UITSLAG 3"},
    "cmd_no_report": {"de": "Eine Auswertung der Runde {n} gibt es für dich nicht.",
                      "nl": "Een uitslag van ronde {n} is er voor jou niet."},
    "cmd_not_adjudicated": {"de": "Die Runde {n} von {league} ist noch nicht ausgewertet.",
                            "nl": "Ronde {n} van {league} is nog niet uitgewerkt."},
    "copy_subject": {"de": "Kopie: {subject}", "nl": "Kopie: {subject}"},
    "cmd_no_leave": {"de": "In {league} kann man nicht per Mail austreten; bitte schreib dem Spielleiter.",
                     "nl": "Uit {league} kun je niet per mail stoppen; schrijf de spelleider."},
    "cmd_left": {"de": "du bist aus {league} abgemeldet. Schade! Mit ANMELDEN kannst du jederzeit wieder einsteigen.",
                 "nl": "je bent afgemeld bij {league}. Jammer! Met ANMELDEN kun je altijd weer meedoen."},
    "cmd_away_end": {"de": "dein Urlaub ist beendet: du bekommst wieder Erinnerungen.",
                     "nl": "je vakantie is voorbij: je krijgt weer herinneringen."},
    "cmd_away_how": {"de": "Bitte so: URLAUB 24.12.2026-06.01.2027 (oder URLAUB ENDE).",
                     "nl": "Zo graag: VAKANTIE 24.12.2026-06.01.2027 (of VAKANTIE EINDE)."},
    "cmd_away_date": {"de": "Das Datum verstehe ich nicht. Bitte so: URLAUB 24.12.2026-06.01.2027",
                      "nl": "Die datum begrijp ik niet. Zo graag: VAKANTIE 24.12.2026-06.01.2027"},
    "cmd_away_order": {"de": "Das Ende liegt vor dem Anfang.", "nl": "Het einde ligt voor het begin."},
    "cmd_away_set": {"de": "Urlaub eingetragen: {start} bis {end}. In der Zeit schicke ich keine Erinnerungen; "
                           "Züge, die du vorher schickst, zählen wie immer. Ohne Zug gibt es ein NMR.",
                     "nl": "Vakantie genoteerd: {start} tot {end}. In die tijd stuur ik geen herinneringen; "
                           "zetten die je vooraf stuurt tellen gewoon. Zonder zet krijg je een NMR."},
    "cmd_address_how": {"de": "Bitte so: ADRESSE neu@example.org", "nl": "Zo graag: ADRES nieuw@example.org"},
    "cmd_address_taken": {"de": "{new} gehört in {league} schon jemand anderem.",
                          "nl": "{new} hoort in {league} al bij iemand anders."},
    "cmd_address_set": {"de": "Auswertungen gehen ab jetzt an {new}. Züge kannst du von allen deinen Adressen "
                              "schicken ({all}).",
                        "nl": "Uitslagen gaan vanaf nu naar {new}. Zetten kun je van al je adressen sturen ({all})."},
    "cmd_already_joined": {"de": "du bist in {league} schon angemeldet.", "nl": "je doet al mee in {league}."},
    "code_forged": {"de": "eine Mail mit deiner Adresse {addr} als Absender kam, aber der Mailserver bestätigt diesen "
                          "Absender nicht ({why}): sie ist wohl gefälscht und wurde nicht gewertet; nichts wurde "
                          "verändert. Warst du es doch, schreib deinen persönlichen Code in eine eigene Zeile "
                          "('Code: ...') oder melde dich beim Spielleiter.",
                    "nl": "er kwam een mail met jouw adres {addr} als afzender, maar de mailserver bevestigt die "
                          "afzender niet ({why}): hij is waarschijnlijk vervalst en telt niet; er is niets "
                          "veranderd. Was jij het toch, zet dan je persoonlijke code op een eigen regel "
                          "('Code: ...') of meld je bij de spelleider."},
    "code_missing": {"de": "eine Mail von {addr} kam ohne deinen persönlichen Code und wurde nicht gewertet; nichts "
                           "wurde verändert. Bitte schreib deinen Code in eine eigene Zeile: 'Code: ...'. Warst du "
                           "das nicht, melde dich beim Spielleiter.",
                     "nl": "er kwam een mail van {addr} zonder je persoonlijke code; hij telt niet en er is niets "
                           "veranderd. Zet je code op een eigen regel: 'Code: ...'. Was jij het niet, meld je dan "
                           "bij de spelleider."},
    "code_wrong": {"de": "eine Mail von {addr} kam mit einem falschen Code und wurde nicht gewertet; nichts wurde "
                         "verändert. Bitte schreib deinen Code in eine eigene Zeile: 'Code: ...'. Warst du das "
                         "nicht, melde dich beim Spielleiter.",
                   "nl": "er kwam een mail van {addr} met een verkeerde code; hij telt niet en er is niets "
                         "veranderd. Zet je code op een eigen regel: 'Code: ...'. Was jij het niet, meld je dan "
                         "bij de spelleider."},
    "subject_not_counted": {"de": "{league}: Mail nicht gewertet", "nl": "{league}: mail telt niet"},
    "unknown_sender": {
        "de": "diese Adresse ist bei keiner laufenden Liga angemeldet; deine Mail wurde nicht als Zug gewertet. "
              "Bitte schreib von deiner angemeldeten Adresse oder melde dich beim Spielleiter.",
        "nl": "dit adres is bij geen lopende competitie aangemeld; je mail is niet als zet geteld. Schrijf "
              "vanaf je aangemelde adres of neem contact op met de spelleider."},
    "named_by_unknown": {
        "de": "von der unbekannten Adresse {addr} kam eine Mail, die dich nennt. Sie wurde nicht gewertet und "
              "hat nichts verändert. Warst du das nicht, musst du nichts tun.",
        "nl": "van het onbekende adres {addr} kwam een mail waarin je naam staat. Hij is niet geteld en heeft "
              "niets veranderd. Was jij het niet, dan hoef je niets te doen."},
    "subject_notice": {"de": "{league}: Hinweis", "nl": "{league}: melding"},
    "mail_too_big": {"de": "deine Mail war zu groß ({size} MB, höchstens {limit} MB) und wurde nicht gelesen; nichts "
                           "wurde verändert. Bitte schick deine Züge als einfache Textmail ohne Anhänge.",
                     "nl": "je mail was te groot ({size} MB, hoogstens {limit} MB) en is niet gelezen; er is niets "
                           "veranderd. Stuur je zetten als eenvoudige tekstmail zonder bijlagen."},
    "mail_unreadable": {"de": "deine Mail (Betreff: {subject}) konnte ich nicht lesen: {why}. Sie wurde nicht gewertet "
                              "und hat nichts verändert; sie bleibt für den Spielleiter gespeichert. Bitte schick "
                              "deine Züge noch einmal als einfache Textmail.",
                        "nl": "je mail (onderwerp: {subject}) kon ik niet lezen: {why}. Hij telt niet en heeft niets "
                              "veranderd; hij blijft voor de spelleider bewaard. Stuur je zetten nog eens als "
                              "eenvoudige tekstmail."},
    "empty_subject": {"de": "(leer)", "nl": "(leeg)"},
    "what_player": {"de": "Züge oder Befehle für {league}", "nl": "zetten of opdrachten voor {league}"},
    "auth_summary": {"de": "zwischen {first} und {last} kamen {n} {mails} ({what}) ohne den richtigen Code oder mit "
                           "gefälschtem Absender, von: {senders}. Keine wurde ausgeführt oder gewertet; nichts wurde "
                           "verändert.",
                     "nl": "tussen {first} en {last} kwamen er {n} {mails} ({what}) zonder de juiste code of met een "
                           "vervalste afzender, van: {senders}. Geen ervan is uitgevoerd of geteld; er is niets "
                           "veranderd."},
    "mail_one": {"de": "Mail", "nl": "mail"},
    "mail_many": {"de": "Mails", "nl": "mails"},
    "auth_line": {"de": "  - {when}, von {sender}: {why}", "nl": "  - {when}, van {sender}: {why}"},
    "auth_earlier": {"de": "  ... und {n} frühere", "nl": "  ... en {n} eerdere"},
    "auth_guessing": {"de": "Das sind mehr als ein paar Tippfehler: vermutlich versucht jemand, deinen Code zu raten. "
                            "Dein richtiger Code gilt weiter. Ist er kurz oder leicht zu erraten, bitte den "
                            "Spielleiter um einen neuen.",
                      "nl": "Dat zijn meer dan een paar tikfouten: waarschijnlijk probeert iemand je code te raden. "
                            "Je juiste code blijft geldig. Is hij kort of makkelijk te raden, vraag de spelleider "
                            "dan om een nieuwe."},
    "why_code missing": {"de": "ohne Code", "nl": "zonder code"},
    "why_code wrong": {"de": "falscher Code", "nl": "verkeerde code"},
    "why_sender": {"de": "Absender vom Mailserver nicht bestätigt ({why})",
                   "nl": "afzender niet bevestigd door de mailserver ({why})"},
    "clock": {"de": "{dt:%d.%m. %H:%M} Uhr", "nl": "{dt:%d-%m %H:%M}"},
    "more_in_summary": {"de": "Kommen in der nächsten Stunde weitere solche Mails, fasse ich sie in einer Nachricht "
                              "zusammen.",
                        "nl": "Komen er het komende uur meer van zulke mails, dan vat ik ze samen in één bericht."},
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
    """The sentence ``key`` in ``lang`` (German when there is no translation)."""
    texts = TEXTS[key]
    return texts.get(lang, texts[DEFAULT]).format(**kw)


#: Dutch for the one-line reasons why a mail could not be read (bot.mail.message writes
#: them in German for the game master's records).
_UNREADABLE_NL = [
    (r"sie besteht aus zu vielen ineinander verschachtelten Teilen \(mehr als (\d+)\)",
     r"hij bestaat uit te veel in elkaar geneste delen (meer dan \1)"),
    (r"sie besteht aus zu vielen Teilen \(mehr als (\d+)\)", r"hij bestaat uit te veel delen (meer dan \1)"),
    (r"sie ist zu tief verschachtelt.*", "hij is te diep genest (te veel delen in elkaar)"),
    (r"ihr Aufbau \(MIME\) ist fehlerhaft \((\w+)\)", r"zijn opbouw (MIME) is fout (\1)"),
    (r"ihr Text ließ sich nicht (?:entschlüsseln|lesen) \((\w+)\)", r"zijn tekst was niet te lezen (\1)"),
    (r"sie ist sehr groß \((\d+) KB\), und ihr Anfang enthält keinen Text",
     r"hij is erg groot (\1 KB) en het begin bevat geen tekst"),
]


def unreadable_reason(why: str, lang: str) -> str:
    """``why`` (a German reason from :mod:`bot.mail.message`) in ``lang``; unchanged when
    ``lang`` is German or the reason is not known."""
    if lang == "nl":
        import re
        for pattern, repl in _UNREADABLE_NL:
            if re.fullmatch(pattern, why or ""):
                return re.sub(pattern, repl, why)
    return why
