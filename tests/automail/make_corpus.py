"""Writes the corpus of automatic mails in this folder (``*.eml``) and ``expected.json``.

Bounces, DSNs, delay warnings, auto-replies and out-of-office mails in the shapes of
common servers and clients (Postfix, Exim, qmail, sendmail, Exchange/Outlook in four
languages, Gmail, GMX, Web.de, T-Online, Yahoo, MDaemon, Thunderbird/Sieve vacation,
mailing lists, no-reply senders, read receipts, virus scanners), made for the tests by
hand after the shapes these send; no real mail of anyone. Every bounce is about
:data:`OUR_ID`, an acknowledgement the bot sent to the address in ``expected.json``.

Run ``python tests/automail/make_corpus.py`` to write the files again.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
BOT = "spielleiter@example.org"
OUR_ID = "<5f2b1c0d9e8a7b6c5d4e3f2a1b0c9d8e.spielleiter@example.org>"
DATE = "Mon, 7 Dec 2026 20:15:02 +0100"


def orig(rcpt: str) -> str:
    return (f"From: Spielleiter <{BOT}>\nTo: {rcpt}\nSubject: =?utf-8?q?Re=3A_Z=C3=BCge?=\nDate: {DATE}\n"
            f"Message-ID: {OUR_ID}\nAuto-Submitted: auto-generated\nMIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=utf-8\n")


def dsn(*, frm: str, subject: str, rcpt: str, text: str, action: str = "failed", status: str = "5.1.1",
        diag: str = "smtp; 550 5.1.1 User unknown", mta: str = "mx.example.net", headers_only: bool = False,
        extra: str = "", return_path: str = "<>", lang_note: str = "") -> str:
    third = (f"Content-Type: text/rfc822-headers\n\n{orig(rcpt)}" if headers_only else
             f"Content-Type: message/rfc822\n\n{orig(rcpt)}\nHallo,\n\nich habe deine Züge so gelesen: ...\n")
    return (f"Return-Path: {return_path}\nFrom: {frm}\nTo: {BOT}\nSubject: {subject}\nDate: {DATE}\n"
            f"Message-ID: <dsn-{zlib.crc32((frm + subject + rcpt).encode())}@{mta}>\n{extra}MIME-Version: 1.0\n"
            "Content-Type: multipart/report; report-type=delivery-status;\n\tboundary=\"=_report_1\"\n\n"
            f"{lang_note}--=_report_1\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
            f"{text}\n\n--=_report_1\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; {mta}\n"
            f"Arrival-Date: {DATE}\n\nFinal-Recipient: rfc822; {rcpt}\nOriginal-Recipient: rfc822;{rcpt}\n"
            f"Action: {action}\nStatus: {status}\nRemote-MTA: dns; mail.example.org\nDiagnostic-Code: {diag}\n\n"
            f"--=_report_1\n{third}\n--=_report_1--\n")


def plain(*, frm: str, subject: str, body: str, headers: str = "", return_path: str | None = None,
          to: str = BOT) -> str:
    rp = f"Return-Path: {return_path}\n" if return_path is not None else ""
    return (f"{rp}From: {frm}\nTo: {to}\nSubject: {subject}\nDate: {DATE}\n"
            f"Message-ID: <auto-{zlib.crc32((frm + subject).encode())}@example.net>\n{headers}MIME-Version: 1.0\n"
            f"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n{body}\n")


A, B, C = "anna@example.org", "bernd@example.org", "clara@example.org"
ORIG_BLOCK = lambda r: "\n------ This is a copy of the message, including all the headers. ------\n\n" + orig(r) + "\nHallo\n"  # noqa

CORPUS: dict[str, tuple[str, dict]] = {
    # -- bounces and DSNs --------------------------------------------------------------------
    "postfix-user-unknown.eml": (dsn(
        frm="MAILER-DAEMON@mx.example.net (Mail Delivery System)", subject="Undelivered Mail Returned to Sender",
        rcpt=A, extra="Auto-Submitted: auto-replied\n",
        text=f"This is the mail system at host mx.example.net.\n\nI'm sorry to have to inform you that your message "
             f"could not\nbe delivered to one or more recipients.\n\n<{A}>: host mail.example.org[192.0.2.7] said: 550 "
             f"5.1.1\n    <{A}>: Recipient address rejected: User unknown"), {"bounced": [A], "permanent": True}),
    "postfix-headers-only.eml": (dsn(
        frm="MAILER-DAEMON@mx.example.net (Mail Delivery System)", subject="Undelivered Mail Returned to Sender",
        rcpt=B, headers_only=True, status="5.2.1", diag="smtp; 550 5.2.1 Mailbox disabled",
        text=f"<{B}>: host mail.example.org said: 550 5.2.1 Mailbox disabled"), {"bounced": [B], "permanent": True}),
    "postfix-delayed.eml": (dsn(
        frm="MAILER-DAEMON@mx.example.net (Mail Delivery System)",
        subject="Delayed Mail (still being retried)", rcpt=C, action="delayed", status="4.4.1",
        diag="smtp; 421 4.4.1 connection timed out",
        text=f"This is the mail system at host mx.example.net.\n\n####### THIS IS A WARNING ONLY.  YOU DO NOT NEED TO "
             f"RESEND YOUR MESSAGE. #######\n\n<{C}>: connect to mail.example.org: Connection timed out"),
        {"bounced": [C], "permanent": False}),
    "exim-failed.eml": (plain(
        frm="Mail Delivery System <Mailer-Daemon@mx.example.net>",
        subject="Mail delivery failed: returning message to sender", return_path="<>",
        headers="X-Failed-Recipients: anna@example.org\nAuto-Submitted: auto-replied\n",
        body=f"This message was created automatically by mail delivery software.\n\nA message that you sent could not "
             f"be delivered to one or more of its\nrecipients. This is a permanent error. The following address(es) "
             f"failed:\n\n  {A}\n    host mail.example.org [192.0.2.7]\n    SMTP error from remote mail server after "
             f"RCPT TO:<{A}>:\n    550 5.1.1 User unknown\n" + ORIG_BLOCK(A)), {"bounced": [A], "permanent": True}),
    "exim-delayed.eml": (plain(
        frm="Mail Delivery System <Mailer-Daemon@mx.example.net>",
        subject="Warning: message 1kXyZ-0004Ab-Cd delayed 24 hours", return_path="<>",
        headers="Auto-Submitted: auto-replied\n",
        body=f"This message was created automatically by mail delivery software.\nA message that you sent has not yet "
             f"been delivered to one or more of its\nrecipients after more than 24 hours on the queue on mx.example.net."
             f"\n\n  {B}\n    Delay reason: SMTP error from remote mail server after RCPT TO:<{B}>:\n    451 4.7.1 "
             "Greylisted\n\nNo action is required on your part. Delivery attempts will continue for some time.\n"
             + ORIG_BLOCK(B)), {"bounced": [B], "permanent": False}),
    "exchange-ndr-en.eml": (dsn(
        frm="Microsoft Outlook <postmaster@firma.example>", subject="Undeliverable: Re: Züge", rcpt=C,
        status="5.1.10", diag="smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address "
                             "lookup", mta="EX01.firma.example", return_path="<>",
        extra="X-MS-Exchange-Message-Is-Ndr: \nAuto-Submitted: auto-replied\n",
        text=f"Your message to {C} couldn't be delivered.\n{C.split('@')[0]} wasn't found at example.org.\n\n"
             "Remote Server returned '550 5.1.10 RESOLVER.ADR.RecipientNotFound'"), {"bounced": [C], "permanent": True}),
    "exchange-ndr-de-text.eml": (plain(
        frm="Microsoft Outlook <MicrosoftExchange329e71ec88ae4615bbc36ab6ce41109e@firma.example>",
        subject="=?utf-8?q?Unzustellbar=3A_Re=3A_Z=C3=BCge?=",
        body=f"Die Nachricht konnte nicht an die folgenden Empfänger zugestellt werden:\n\n{B}\nDas Postfach des "
             f"Empfängers ist voll. 552 5.2.2 mailbox full\n\nOriginalnachricht-Header:\nMessage-ID: {OUR_ID}\n"
             "Subject: Re: Züge\n"), {"bounced": [B], "permanent": True}),
    "exchange-ndr-de-dsn.eml": (dsn(
        frm="Microsoft Outlook <postmaster@firma.example>", subject="Unzustellbar: Re: Züge", rcpt=A,
        status="5.4.1", diag="smtp;550 5.4.1 Recipient address rejected: Access denied", mta="EX02.firma.example",
        text=f"Ihre Nachricht an {A} konnte nicht zugestellt werden.\n\n{A} wurde bei example.org nicht gefunden.\n\n"
             "Diagnoseinformationen für Administratoren: Remoteserver hat '550 5.4.1 Access denied' zurückgegeben"),
        {"bounced": [A], "permanent": True}),
    "exchange-ndr-fr.eml": (dsn(
        frm="Microsoft Outlook <postmaster@entreprise.example>", subject="Non remis : Re: Züge", rcpt=C,
        status="5.1.1", mta="EX03.entreprise.example",
        text=f"Votre message à {C} n'a pas pu être remis.\n\n{C.split('@')[0]} est introuvable sur example.org."),
        {"bounced": [C], "permanent": True}),
    "exchange-ndr-nl.eml": (dsn(
        frm="Microsoft Outlook <postmaster@bedrijf.example>", subject="Onbestelbaar: Re: Züge", rcpt=B,
        status="5.1.1", mta="EX04.bedrijf.example",
        text=f"Uw bericht aan {B} kan niet worden bezorgd.\n\n{B.split('@')[0]} is niet gevonden op example.org."),
        {"bounced": [B], "permanent": True}),
    "gmail-dsn-failure.eml": (dsn(
        frm="Mail Delivery Subsystem <mailer-daemon@googlemail.com>", subject="Delivery Status Notification (Failure)",
        rcpt=A, status="5.1.1", mta="mx.google.com", diag="smtp; 550-5.1.1 The email account that you tried to reach "
        "does not exist.", extra="Auto-Submitted: auto-replied\n",
        text=f"** Address not found **\n\nYour message wasn't delivered to {A} because the address couldn't be found, "
             "or is unable to receive mail."), {"bounced": [A], "permanent": True}),
    "gmail-dsn-delay.eml": (dsn(
        frm="Mail Delivery Subsystem <mailer-daemon@googlemail.com>", subject="Delivery Status Notification (Delay)",
        rcpt=C, action="delayed", status="4.4.7", mta="mx.google.com", diag="smtp; 421 4.4.7 try again later",
        extra="Auto-Submitted: auto-replied\n",
        text=f"** Message not delivered yet **\n\nThere was a temporary problem delivering your message to {C}. Gmail "
             "will retry for 46 more hours."), {"bounced": [C], "permanent": False}),
    "gmx-mailer-daemon.eml": (plain(
        frm="\"Mail Delivery System\" <mailer-daemon@gmx.net>", subject="Mail delivery failed: returning message to sender",
        return_path="<>",
        body=f"Diese Nachricht wurde automatisch vom Mail-System erzeugt.\n\nDie folgende Nachricht konnte nicht "
             f"zugestellt werden:\n\n{B}:\n  SMTP error from remote server for RCPT TO command, host: mail.example.org "
             f"reason: 550 5.1.1 <{B}>: Recipient address rejected\n\n--- Die Header der Originalnachricht ---\n"
             + orig(B)), {"bounced": [B], "permanent": True}),
    "webde-unzustellbar.eml": (plain(
        frm="Mail Delivery System <MAILER-DAEMON@web.de>", subject="Unzustellbar: Zustellung fehlgeschlagen",
        body=f"Ihre Nachricht konnte nicht zugestellt werden an:\n\n{C}\n  552 5.2.2 Postfach voll\n\n"
             f"Message-ID der Originalnachricht: {OUR_ID}\n"), {"bounced": [C], "permanent": True}),
    "tonline-returned.eml": (plain(
        frm="Mail Delivery System <MAILER-DAEMON@mailout.t-online.de>",
        subject="Returned Mail - Error During Delivery",
        body=f"------ Failed Recipients ------\n<{A}>: 550 5.1.1 User unknown\n\n-------- Returned Mail --------\n"
             + orig(A)), {"bounced": [A], "permanent": True}),
    "qmail-failure-notice.eml": (plain(
        frm="MAILER-DAEMON@mx.example.net", subject="failure notice", return_path="<>",
        body=f"Hi. This is the qmail-send program at mx.example.net.\nI'm afraid I wasn't able to deliver your message "
             f"to the following addresses.\nThis is a permanent error; I've given up. Sorry it didn't work out.\n\n<{B}>:"
             f"\n192.0.2.7 does not like recipient.\nRemote host said: 550 5.1.1 <{B}>: no mailbox here by that name\n"
             "\n--- Below this line is a copy of the message.\n\n" + orig(B)), {"bounced": [B], "permanent": True}),
    "sendmail-returned.eml": (dsn(
        frm="Mail Delivery Subsystem <MAILER-DAEMON@mx.example.net>",
        subject="Returned mail: see transcript for details", rcpt=C,
        text=f"The original message was received at {DATE}\nfrom localhost [127.0.0.1]\n\n   ----- The following "
             f"addresses had permanent fatal errors -----\n<{C}>\n    (reason: 550 5.1.1 User unknown)"),
        {"bounced": [C], "permanent": True}),
    "yahoo-failure.eml": (plain(
        frm="MAILER-DAEMON@yahoo.com", subject="Failure Notice", return_path="<>",
        body=f"Sorry, we were unable to deliver your message to the following address.\n\n<{A}>:\nRemote host said: "
             f"550 5.1.1 <{A}>... User unknown [RCPT_TO]\n\n--- Below this line is a copy of the message.\n\n"
             + orig(A)), {"bounced": [A], "permanent": True}),
    "mdaemon-could-not-be-delivered.eml": (plain(
        frm="MDaemon@mail.verein.example", subject="Mail could not be delivered", return_path="<>",
        headers="X-MDDSN-Message: Yes\n",
        body=f"The attached message had PERMANENT fatal delivery errors!\n\nAfter one or more unsuccessful delivery "
             f"attempts the attached message\nhas been removed from the mail queue on this server.\n\n{B}\n  550 5.1.1 "
             f"Mailbox unavailable\n\nMessage-ID: {OUR_ID}\n"), {"bounced": [B], "permanent": True}),
    "return-path-daemon.eml": (plain(
        frm="Mail Administrator <admin@mx.example.net>", subject="Delivery failure notification",
        return_path="<MAILER-DAEMON@mx.example.net>",
        body=f"Your message could not be delivered to:\n\n{C}\n\n550 5.1.1 No such user\n\nMessage-ID: {OUR_ID}\n"),
        {"bounced": [C], "permanent": True}),
    "bare-mailer-daemon.eml": (plain(
        frm="MAILER-DAEMON", subject="Undeliverable mail: Re: Züge",
        body=f"Failed to deliver to '{A}'\nSMTP module(domain example.org) reports:\n 550 5.1.1 unknown user\n\n"
             f"Original message follows.\n\n" + orig(A)), {"bounced": [A], "permanent": True}),
    # plain-text reports from an ordinary sender, no automatic-mail header, the subject only
    # ending in "(delivery failed)": flufl.bounce's simple matcher reads them (the
    # "Your message could not be delivered to" line), nothing in the headers does
    "plain-delivery-failed-en.eml": (plain(
        frm="Mail Gateway <mailgw@relay.example.com>", subject="Re: Züge (delivery failed)",
        body=f"Your message could not be delivered to {A}\n\nReason: 550 5.1.1 Recipient address rejected: "
             f"User unknown\n\n----- Original message -----\nMessage-ID: {OUR_ID}\nSubject: Re: Züge\n"),
        {"bounced": [A], "permanent": True}),
    "plain-delivery-failed-fr.eml": (plain(
        frm="Passerelle de messagerie <passerelle@mail.example.fr>", subject="Re: Züge (delivery failed)",
        body=f"Votre message n'a pas pu etre delivre a:\nYour message could not be delivered to:\n{B}\n\n"
             f"Raison / Reason: 550 5.1.1 Destinataire inconnu / unknown recipient\n\n"
             f"Message d'origine / Original message:\nMessage-ID: {OUR_ID}\n"),
        {"bounced": [B], "permanent": True}),
    "plain-delivery-failed-de.eml": (plain(
        frm="Mail-Gateway <gateway@firma.example.de>", subject="Re: Züge (Zustellung fehlgeschlagen / delivery failed)",
        body=f"Ihre Nachricht konnte nicht zugestellt werden an:\nYour message could not be delivered to:\n{C}\n\n"
             f"Grund / Reason: 550 5.1.1 Empfänger unbekannt / recipient unknown\n\n"
             f"Ursprüngliche Nachricht / Original message:\nMessage-ID: {OUR_ID}\n"),
        {"bounced": [C], "permanent": True}),
    # -- automatic replies, lists, receipts ----------------------------------------------------
    "outlook-autoreply-de.eml": (plain(
        frm=f"Anna Albers <{A}>", subject="Automatische Antwort: Test-Rondo: Auswertung Runde 1",
        headers="Auto-Submitted: auto-generated\nX-Auto-Response-Suppress: All\n"
                "X-MS-Exchange-Inbox-Rules-Loop: anna@example.org\n",
        body="Vielen Dank für Ihre Nachricht. Ich bin bis 06.01.2027 nicht im Büro.\n"), {"bounced": []}),
    "outlook-autoreply-en.eml": (plain(
        frm=f"Bernd Becker <{B}>", subject="Automatic reply: Re: Züge",
        headers="X-Auto-Response-Suppress: All\nThread-Topic: Re: Züge\n",
        body="I am out of the office until January 6th with limited access to e-mail.\n"), {"bounced": []}),
    "outlook-oof-subject-only.eml": (plain(
        frm=f"Clara Conrad <{C}>", subject="Out of Office: Test-Rondo: Auswertung Runde 2",
        body="Ich bin im Urlaub. Partie R1: TOR\n"), {"bounced": []}),
    "thunderbird-sieve-vacation.eml": (plain(
        frm=f"Anna Albers <{A}>", subject="Abwesenheitsnotiz: Re: Züge",
        headers="Auto-Submitted: auto-replied (vacation)\nIn-Reply-To: " + OUR_ID + "\n",
        body="Hallo,\n\nich bin bis zum 6. Januar im Urlaub und lese meine Mails nicht.\n"), {"bounced": []}),
    "gmail-vacation.eml": (plain(
        frm=f"Bernd Becker <{B}>", subject="Urlaub bis 6.1.",
        headers="Auto-Submitted: auto-replied\nIn-Reply-To: " + OUR_ID + "\n",
        body="Ich bin im Urlaub und ab dem 6.1. wieder da.\n"), {"bounced": []}),
    "gmx-abwesenheit.eml": (plain(
        frm=f"Clara Conrad <{C}>", subject="Abwesenheitsnotiz",
        headers="X-Autoreply: yes\nX-UI-Filterresults: notjunk\n",
        body="Ich bin nicht da. Ihre Mail wird nicht weitergeleitet.\n"), {"bounced": []}),
    "webde-autorespond.eml": (plain(
        frm=f"Anna Albers <{A}>", subject="Re: Züge",
        headers="X-Autorespond: Abwesenheit\n", body="Bin bis Montag weg.\nPartie R1: ALT\n"), {"bounced": []}),
    "french-reponse-automatique.eml": (plain(
        frm=f"Clara Conrad <{C}>", subject="Réponse automatique : Re: Züge",
        body="Je suis absente du bureau jusqu'au 6 janvier.\n"), {"bounced": []}),
    "dutch-automatisch-antwoord.eml": (plain(
        frm=f"Bernd Becker <{B}>", subject="Automatisch antwoord: Re: Züge",
        body="Ik ben afwezig tot 6 januari.\n"), {"bounced": []}),
    "mailing-list.eml": (plain(
        frm=f"Anna Albers <{A}>", subject="[spieler] Partie R1", to="spieler@lists.example.org",
        headers="List-Id: Spieler <spieler.lists.example.org>\nList-Unsubscribe: <mailto:spieler-leave@lists.example.org>\n"
                "Precedence: list\n", body="Partie R1:\nTOR\n"), {"bounced": []}),
    "newsletter-bulk.eml": (plain(
        frm="Verein Newsletter <newsletter@verein.example>", subject="Unser Dezember-Rundbrief",
        headers="Precedence: bulk\n", body="Liebe Mitglieder, ...\n"), {"bounced": []}),
    "noreply-notification.eml": (plain(
        frm="Konto-Service <no-reply@accounts.example.com>", subject="Neue Anmeldung bei Ihrem Konto",
        body="Jemand hat sich angemeldet.\n"), {"bounced": []}),
    "challenge-response.eml": (plain(
        frm="Spamfilter <spamfilter@example.net>", subject="Bitte bestätigen Sie Ihre Nachricht",
        headers="Auto-Submitted: auto-replied\n", body="Klicken Sie hier, um zu bestätigen, dass Sie ein Mensch sind.\n"),
        {"bounced": []}),
    "virus-scanner.eml": (plain(
        frm="Virenscanner <virusalert@mx.example.net>", subject="VIRUS in Ihrer Mail gefunden", return_path="<>",
        body="In Ihrer Mail wurde ein Virus gefunden. Sie wurde nicht zugestellt.\n"), {"bounced": []}),
    "read-receipt.eml": (f"From: Anna Albers <{A}>\nTo: {BOT}\nSubject: Gelesen: Re: Züge\nDate: {DATE}\n"
                         "Message-ID: <mdn-1@example.org>\nMIME-Version: 1.0\nContent-Type: multipart/report; "
                         "report-type=disposition-notification; boundary=\"M\"\n\n--M\nContent-Type: text/plain; "
                         "charset=utf-8\n\nIhre Nachricht wurde gelesen.\n\n--M\nContent-Type: "
                         f"message/disposition-notification\n\nFinal-Recipient: rfc822;{A}\nOriginal-Message-ID: "
                         f"{OUR_ID}\nDisposition: manual-action/MDN-sent-manually; displayed\n\n--M--\n",
                         {"bounced": []}),
    "list-request-sender.eml": (plain(
        frm="spieler-request@lists.example.org", subject="Bestätigung Ihres Abonnements",
        body="Ihr Abonnement wurde bestätigt.\n"), {"bounced": []}),
}


def main() -> None:
    expected = {}
    for name, (text, exp) in CORPUS.items():
        (HERE / name).write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
        expected[name] = exp
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(CORPUS)} mails written")


if __name__ == "__main__":
    main()
