"""The freshly written part of a mail's text (:func:`new_text`): quotes, reply headers
(German, English, Dutch, French and the other languages of :data:`REPLY_LANGUAGES`),
forwarded blocks, signatures and a phone's signature line are cut off; the library
mail-parser-reply backs up the own rules. Pure text in, text out."""

from __future__ import annotations

import logging
import re

from mailparser_reply import EmailReplyParser

log = logging.getLogger(__name__)

_SEP = r"[-_=*]{2,}"
# Reply headers of the mail clients in the languages players write in: German, English,
# Dutch (RONDO, seed 004) and French; Outlook, Gmail, Apple Mail, Thunderbird, GMX/web.de.
_ORIGINAL_RE = re.compile(
    rf"^\s*{_SEP}\s*(Urspr(ü|ue)ngliche Nachricht|Original\s*Message|Originalnachricht"
    r"|Oorspronkelijk bericht|Origineel bericht|Message d'origine|Message original)"
    rf"\s*{_SEP}\s*$",
    re.IGNORECASE,
)
_FORWARD_RE = re.compile(
    rf"^\s*({_SEP}\s*(Forwarded message|Weitergeleitete Nachricht|Doorgestuurd bericht|Message transf[ée]r[ée])"
    rf"\s*{_SEP}"
    r"|(Begin forwarded message|Anfang der weitergeleiteten Nachricht|Begin doorgestuurd bericht"
    r"|D[ée]but du message (r[ée]exp[ée]di[ée]|transf[ée]r[ée]))\s*:)\s*$",
    re.IGNORECASE,
)
#: "Am ... schrieb ...:", "Op ... schreef ...:" (Dutch), "Le ... a écrit :" (French)
_DE_WROTE_RE = re.compile(r"^\s*(Am|Op|Le)\s.*\b(schrieb|geschrieben|schreef|geschreven|a\s+écrit|écrit)\b.*:\s*$",
                          re.IGNORECASE)
_DE_WROTE_START = re.compile(r"^\s*(Am|Op|Le)\s", re.IGNORECASE)
_DE_WROTE_END = re.compile(r"\b(schrieb|geschrieben|schreef|geschreven|a\s+écrit|écrit)\b.*:\s*$", re.IGNORECASE)
_DE_WROTE_WORD = re.compile(r"\b(schrieb|geschrieben|schreef|geschreven|a\s+écrit|écrit)\b", re.IGNORECASE)
_EN_WROTE_RE = re.compile(r"^\s*On\s.*\bwrote:\s*$", re.IGNORECASE)
_EN_WROTE_START = re.compile(r"^\s*On\s", re.IGNORECASE)
_EN_WROTE_END = re.compile(r"\bwrote:\s*$", re.IGNORECASE)
#: Outlook's header block: Von/From/Van/De, then Gesendet/Sent/Verzonden/Envoyé, An/To/Aan/À,
#: Betreff/Subject/Onderwerp/Objet ... (French Outlook writes a space before the colon)
_FROM_LINE = re.compile(r"^\s*\**\s*(Von|From|Van|De)\s*:\**\s*\S", re.IGNORECASE)
_HEADER_LINE = re.compile(
    r"^\s*\**\s*(Gesendet|Sent|Verzonden|Envoy[ée]|Datum|Date|An|To|Aan|À|A|Betreff|Subject|Onderwerp|Objet"
    r"|Cc)\s*:", re.IGNORECASE
)
_UNDERLINE = re.compile(r"^\s*_{10,}\s*$")
_QUOTED = re.compile(r"^\s*>")
_SIGNATURE = re.compile(r"^--\s?$")
#: The signature line a phone's mail app writes below the fresh text ("Von meinem iPhone
#: gesendet", "Sent from my Galaxy", "Verstuurd vanaf mijn iPad"): what follows is no longer
#: the player's (issue 32: it was read as a move above the quote).
_DEVICE = r"[\w-]+(?: [\w-]+){0,3}"  # "iPhone", "Samsung Galaxy S23", "Huawei-Smartphone"
_MOBILE_SIGNATURE = re.compile(
    rf"^\s*(?:Von meinem {_DEVICE} gesendet|Gesendet von meine[mr] {_DEVICE}|Sent from my {_DEVICE}"
    rf"|Verstuurd (?:vanaf|met) mijn {_DEVICE}|Envoy[ée] de mon {_DEVICE})\s*\.?\s*$", re.IGNORECASE)

#: The languages whose reply headers mail-parser-reply looks for: every European language
#: it knows (players use mail clients in many languages, whatever their league's).
REPLY_LANGUAGES = ["de", "en", "nl", "fr", "it", "es", "da", "sv", "pl", "cs"]
_reply_parser = EmailReplyParser(languages=REPLY_LANGUAGES)

# The bot's own acknowledgement pasted back WITHOUT quote marks or reply header (some
# clients do that): "  Hauptzug: mondE" / "Ersatzzug 1: ..." followed by a "    -> ..."
# line, or its intro line. The copy starts at its "Hallo ...," greeting.
_OWN_MOVE = re.compile(r"^\s*(Hauptzug|Ersatzzug\s*\d+)\s*:", re.IGNORECASE)
_OWN_RESULT = re.compile(r"^\s*->\s")
_OWN_INTRO = re.compile(
    r"^\s*(ich habe deine Züge für Runde\s+\d+\b.*so gelesen:|in deiner Mail habe ich keinen Zug gefunden\."
    r"|diese Mail ersetzt deine frühere Einsendung\b)", re.IGNORECASE)
_OWN_SECTION = re.compile(r"^\s*Partie\s+\S+\s+\(.*\)\s*:\s*$", re.IGNORECASE)
_OWN_GREETING = re.compile(r"^\s*Hallo\b[^:]*,\s*$", re.IGNORECASE)


def _own_mail_at(lines: list[str], i: int) -> bool:
    """Does a pasted copy of the bot's acknowledgement show at line ``i``?"""
    if _OWN_INTRO.match(lines[i]):
        return True
    if _OWN_MOVE.match(lines[i]):
        # a multi-line move (Crossword) goes on in indented lines before its "->" line
        for nxt in (l for l in lines[i + 1 : i + 16] if l.strip()):
            if _OWN_RESULT.match(nxt):
                return True
            if not nxt[:1].isspace():
                return False
    return False


def _own_mail_start(lines: list[str], i: int) -> int:
    """First line of the bot's mail whose marker is at ``i`` (its greeting, section lines)."""
    k = i
    while k > 0:
        prev = lines[k - 1]
        if not prev.strip() or _OWN_SECTION.match(prev) or _OWN_INTRO.match(prev):
            k -= 1
        elif _OWN_GREETING.match(prev):
            return k - 1
        else:
            break
    return k


def _is_reply_header(lines: list[str], i: int) -> bool:
    line = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    if _ORIGINAL_RE.match(line):
        return True
    if _DE_WROTE_RE.match(line) or _EN_WROTE_RE.match(line):
        return True
    # "Am 01.12.2026 um 10:00 schrieb Spielleiter\n<bot@x>:" wrapped over two lines
    if _DE_WROTE_START.match(line) and nxt and _DE_WROTE_END.search(line + " " + nxt) and (
        _DE_WROTE_END.search(nxt) or _DE_WROTE_WORD.search(line)
    ):
        return True
    if _EN_WROTE_START.match(line) and nxt and _EN_WROTE_END.search(nxt):
        return True
    if _FROM_LINE.match(line):
        # Outlook block: Von:/From: followed by Gesendet:/Sent:/An:/... within 4 lines
        return any(_HEADER_LINE.match(l) for l in lines[i + 1 : i + 5])
    return False


def _header_block_end(lines: list[str], i: int) -> int:
    """Index of the first line after a header block starting at ``i``."""
    j = i + 1
    while j < len(lines) and (
        _FROM_LINE.match(lines[j]) or _HEADER_LINE.match(lines[j]) or re.match(r"^\s*\S+\s*:\s", lines[j])
    ):
        j += 1
    return j


def _bottom_quote_end(lines: list[str], i: int) -> int | None:
    """Bottom posting (Thunderbird, Apple Mail): when the "wrote" header at ``i`` (one or
    two lines) is followed by ``>`` lines only and then by unquoted text, the index of the
    first line after the quote; else None (the header starts the quoted rest)."""
    line = lines[i]
    if not (_DE_WROTE_START.match(line) or _EN_WROTE_START.match(line)):
        return None
    j = i + 1 if (_DE_WROTE_RE.match(line) or _EN_WROTE_RE.match(line)) else i + 2
    quoted = False
    while j < len(lines) and (not lines[j].strip() or _QUOTED.match(lines[j])):
        quoted = quoted or bool(lines[j].strip())
        j += 1
    if quoted and j < len(lines) and not _SIGNATURE.match(lines[j]):
        return j
    return None


def _cut(lines: list[str]) -> tuple[list[str], list[str] | None]:
    """Cut at the first reply header/signature; return (kept, forwarded_rest). A "wrote"
    header whose ``>`` quote is followed by fresh text (bottom posting) is dropped with
    its quote, and the text below is read."""
    lines = list(lines)
    i = -1
    while i + 1 < len(lines):
        i += 1
        line = lines[i]
        if _SIGNATURE.match(line) or _MOBILE_SIGNATURE.match(line):
            return lines[:i], None
        if _FORWARD_RE.match(line):
            return lines[:i], lines[_header_block_end(lines, i) :]
        if _own_mail_at(lines, i):
            return lines[: _own_mail_start(lines, i)], None
        if _is_reply_header(lines, i):
            end = _bottom_quote_end(lines, i)
            if end is not None:
                del lines[i:end]
                i -= 1
                continue
            # header lines directly above belong to the block (GMX, web.de: "Gesendet:"
            # before "Von:"), as does an Outlook "_____" separator
            while i > 0 and _HEADER_LINE.match(lines[i - 1]) and _FROM_LINE.match(line):
                i -= 1
            k = i
            while k > 0 and (not lines[k - 1].strip() or _UNDERLINE.match(lines[k - 1])):
                k -= 1
            if k < i and any(_UNDERLINE.match(l) for l in lines[k:i]):
                return lines[:k], None
            return lines[:i], None
    return lines, None


def _library_cut(lines: list[str]) -> list[str]:
    """Second pass with mail-parser-reply's header detection (:data:`REPLY_LANGUAGES`).

    The library normalises the text (strips every line), so its result is
    mapped back onto our lines by counting non-empty lines; signature and
    disclaimer heuristics of the library are NOT used (a line "Grüße" can
    be a legal move in a word game).
    """
    text = "\n".join(lines)
    if not text.strip():
        return lines
    try:
        parsed = _reply_parser.read(text)
        if not parsed.replies:
            return lines
        first = parsed.replies[0].content
    except Exception:
        log.exception("mail-parser-reply gescheitert")
        return lines
    keep = sum(1 for l in first.split("\n") if l.strip())
    total = sum(1 for l in lines if l.strip())
    if keep >= total or keep == 0:
        return lines
    seen = 0
    for idx, line in enumerate(lines):
        if line.strip():
            seen += 1
            if seen == keep:
                return lines[: idx + 1]
    return lines


def _tidy(lines: list[str]) -> str:
    lines = [l.rstrip() for l in lines if not _QUOTED.match(l)]
    return "\n".join(lines).strip("\n")


def new_text(text: str) -> str:
    """What the sender wrote now: ``text`` without quotes, reply headers, signature.

    Removes lines starting with ``>``; everything from a reply header on
    (``Am ... schrieb ...:`` also wrapped over two lines,
    ``-----Ursprüngliche Nachricht-----``, Outlook ``Von:``/``Gesendet:``
    blocks, ``On ... wrote:``, ``-----Original Message-----``,
    ``From:``/``Sent:``); everything after a signature delimiter line
    (``-- `` or ``--``); everything from a pasted copy of the bot's own
    acknowledgement on (``Hauptzug:``/``Ersatzzug n:`` followed by a ``->``
    line, or its intro line; quoted without ``>`` and without a reply header),
    so an old move in it is never read as a new one.  A forwarded message's
    content is only used when nothing was written above the forward marker.
    Never raises.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept, forwarded = _cut(lines)
    kept = _library_cut(kept)
    result = _tidy(kept)
    if not result.strip() and forwarded is not None:
        return new_text("\n".join(forwarded))
    return result
