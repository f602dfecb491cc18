"""Read the move part of a submission mail into Partie sections (shared/NOTATION.md,
"A submission mail"). Game-independent: each line is framed by the lark grammar
``grammar/submission.lark`` (section header, label, move text), and the move text
itself is read by the game's own notation (:meth:`GameRules.read_move`).

Rules:
- ``Partie R2:`` or ``R2:`` opens the section of Partie R2 (a move may follow on the
  same line). Without any section line the Partie comes from the subject, or from the
  player having only one Partie.
- In a section, the first move line is the main move, every further one an Ersatzzug,
  in the order written. Labels ``Ersatz:``, ``Ersatzwort:``, ``Ersatzzug:``, ``1.``,
  ``2)`` are allowed.
- The caller passes only the text the sender wrote now (quotes, reply headers and
  signatures already removed by :mod:`bot.mail.message`). Greeting and closing lines are
  not moves; a line after a closing (``Viele Grüße``) is the signature and ignored. A
  line of one upper-case token that reads as a move is a move even when it is a greeting
  or closing word (a crossword row ``MIT``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping, Sequence

from lark import Lark, UnexpectedInput

from bot.games.base import GameRules, NotationError, Spelled
from bot.games.grammar import lalr_parser

LABEL_WORDS = {"ersatzzug", "ersatzwort", "ersatz", "hauptzug", "zug", "wort",
               "reserve", "reservewoord", "alternatief", "woord", "zet"}  # Dutch (RONDO, seed 004)
GREETINGS = {
    "hallo", "hi", "hey", "moin", "servus", "lieber", "liebe", "liebes", "sehr", "guten", "gruess", "grüß",
    "hier", "anbei", "danke", "vielen", "dank", "bitte", "meine", "mein", "ich", "und", "das", "die", "der",
    "hierbij", "bedankt", "goedemorgen", "goedemiddag", "goedenavond",  # Dutch; never a three-letter word
    "dear", "hello", "thanks",  # English
    "bonjour", "salut", "coucou", "merci", "voici",  # French
}
CLOSINGS = {
    "gruß", "gruss", "grüße", "gruesse", "grüsse", "viele", "beste", "liebe", "lg", "vg", "mfg", "bg",
    "tschüss", "tschüs", "tschuess", "ciao", "cheers", "regards", "best", "bis", "schöne", "schönen",
    "herzliche", "freundliche", "mit",
    "groeten", "groet", "groetjes", "met", "vriendelijke", "hartelijke", "doei", "mvg",  # Dutch
    "kind", "kindest", "thanks", "yours",  # English
    "cordialement", "amicalement", "bises", "bisous", "salutations", "bien",  # French
}
_WORD = re.compile(r"[\wäöüÄÖÜß]+")
#: What an unknown section name must look like to be read as a (wrong) Partie name
#: rather than prose: a short code with a number, like R4 or P12.
_PARTIE_LIKE = re.compile(r"^[A-Za-z]{0,3}[0-9]{1,3}$")
#: Marks that prose lines (greetings, closings) do not have but move lines may: a digit,
#: or a run of two of ``. - _`` (empty fields of a written grid row).
_MOVE_MARKS = re.compile(r"[0-9]|[.\-_]{2}")


@dataclass
class Section:
    """The moves for one Partie: ``partie`` as written (None: not named), ``moves`` the
    move lines as written (main move first), ``parsed`` what the game's
    :meth:`~bot.games.base.GameRules.read_move` made of each of them (the move, or the
    :class:`NotationError`; None for a game whose moves span several lines, which are
    read as one move later), so no line is parsed twice; ``header_line`` the section
    line as written."""

    partie: str | None
    moves: list[str] = field(default_factory=list)
    header_line: str | None = None
    parsed: list[Any] = field(default_factory=list)
    #: each move's whole line as written (with its label: ``Ersatz: mondES``)
    lines: list[str] = field(default_factory=list)
    #: the moves the game spelled its own way, as (written, read) pairs: ``("ÖLE", "OELE")``
    #: (:meth:`~bot.games.base.GameRules.spell`, issue 33); the acknowledgement shows them
    readings: list[tuple[str, str]] = field(default_factory=list)

    def add(self, text: str, parsed: Any, line: str | None = None, written: str | None = None) -> None:
        if written is not None and written != text:
            self.readings.append((written, text))
        self.moves.append(text)
        self.parsed.append(parsed)
        self.lines.append(text if line is None else line)


@dataclass
class ReadSubmission:
    sections: list[Section]
    ignored: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"sections": [{"partie": s.partie, "moves": list(s.moves)} for s in self.sections],
                "ignored": list(self.ignored)}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR(1) parser of ``grammar/submission.lark`` (contextual lexer, linear time)."""
    return lalr_parser("submission.lark")


@lru_cache(maxsize=8192)
def frame_line(line: str) -> tuple[str, str | None, str | None]:
    """('header', name, move_or_None) | ('labelled', None, move) | ('plain', None, line).
    Remembered per line: greetings, section lines and the round's good moves recur in
    many mails. A line without a colon that starts neither with a digit nor with a
    "p" (Partie, Partij) can only be a plain move line in the grammar (every header and
    label needs one of them): not parsed."""
    if ":" not in line and not line[:1].isdigit() and line[:1] not in ("p", "P"):
        return ("plain", None, line)
    try:
        tree = _parser().parse(line)
    except UnexpectedInput:
        return ("plain", None, line)
    node = tree.children[0]
    if not hasattr(node, "data"):
        return ("plain", None, line)
    toks = {t.type: str(t) for t in node.children}
    if node.data == "header":
        name = toks.get("NAME", "")
        if name.lower() in LABEL_WORDS:
            return ("labelled", None, toks.get("MOVE_TEXT", "").strip())
        return ("header", name, toks.get("MOVE_TEXT"))
    return ("labelled", None, toks.get("MOVE_TEXT", "").strip())


@lru_cache(maxsize=8192)
def is_section_header(line: str) -> bool:
    """Whether ``line`` is a section header alone, without a move (``Partie R1:``,
    ``Partij 2:``, ``R1:``). Such a line is never one of the bot's lines quoted back
    (:mod:`bot.service.conversations.quoted`, issue 32): it opens the player's section.
    Remembered (8,192 lines): the lines of the bot's own mails recur in every reply."""
    line = line.strip()
    if _HEADER_ALONE.match(line):
        return True
    kind, name, move = frame_line(line)
    return kind == "header" and bool(name) and not (move or "").strip()


#: "Partie 1:", "Partij R1", "Partie: R2" - a section header without a move, whatever
#: the Partie's name (the grammar reads a name starting with a letter only)
_HEADER_ALONE = re.compile(r"(?i)^(partie|partij)\s*:?\s*[\w-]{1,16}\s*:?$")


def _first_word(line: str) -> str:
    m = _WORD.search(line)
    return m.group(0).lower() if m else ""


def read_submission(text: str, game: GameRules, partie_names: Sequence[str], *,
                    subject: str = "", player_names: Sequence[str] = (),
                    options: Mapping[str, Any] | None = None) -> ReadSubmission:
    """Split ``text`` into :class:`Section` objects for the Partien ``partie_names``.

    Each move line is read in the game's own spelling (:meth:`GameRules.spell` with the
    league ``options``: ``ÖLE`` is read and stored as ``OELE``, noted in
    :attr:`Section.readings`; a letter the game cannot take where it stands makes the line
    a :class:`NotationError` that says which letter and how to write it).

    A section line naming an unknown Partie opens a section whose ``partie`` is that
    name; the caller answers with an error for it. Sections without a name get the
    Partie from ``subject`` or, with one Partie only, that one; otherwise ``partie``
    stays None.
    """
    known = {n.lower(): n for n in partie_names}
    names_lower = {n.strip().lower() for n in player_names if n.strip()}
    for n in list(names_lower):
        names_lower.update(w.lower() for w in n.split())
    sections: list[Section] = []
    current: Section | None = None
    ignored: list[str] = []
    closed = False
    spelled_lines: dict[str, Any] = {}

    def spell(text: str):
        sp = spelled_lines.get(text)
        if sp is None:
            sp = spelled_lines[text] = game.spell(text, options)
        return sp

    def add_move(move_text: str, parsed: Any = _UNREAD) -> None:
        nonlocal current
        if current is None:
            current = Section(None)
            sections.append(current)
        move_text = move_text.strip()
        sp = spell(move_text)
        if parsed is _UNREAD:
            parsed = _read(game, sp)
        current.add(sp.text, None if game.multiline else parsed, line, move_text)

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if closed:
            ignored.append(line)
            continue
        kind, name, move_text = frame_line(line)
        parsed = _UNREAD  # what the game makes of the whole line, read at most once

        def reads(strict: bool = False) -> bool:
            nonlocal parsed
            if parsed is _UNREAD:
                parsed = _read(game, spell(line), always=True)
            return _is_move(parsed, strict)

        if kind == "header" and name is not None and name.lower() not in known \
                and not line.lower().startswith(("partie", "partij")) and reads(strict=True):
            add_move(line, parsed)  # e.g. Crossword "A1: X" (field and letter), not a Partie A1
            continue
        if kind == "header" and name is not None and (name.lower() in known or line.lower().startswith(("partie", "partij"))
                                                      or _PARTIE_LIKE.match(name)):
            current = Section(known.get(name.lower(), name), header_line=line)
            sections.append(current)
            if move_text:
                add_move(move_text)
            continue
        if kind == "labelled" and move_text:
            add_move(move_text)
            continue
        # a plain line: a move only when it reads as one and is not prose
        first = _first_word(line)
        if line.isupper() and " " not in line and reads(strict=True):
            add_move(line, parsed)  # one upper-case token is no greeting: a Presto row "MIT", a Rondo "ICH"
            continue
        if _MOVE_MARKS.search(line) and not line.endswith((",", "!", "?", ":")) and reads(strict=True):
            add_move(line, parsed)  # digits or a run of . - _ are no prose: "DIE A1-A3", "DIE..." in Crossword
            continue
        if first in CLOSINGS and not reads():
            closed = bool(sections)  # "Grüße aus Köln!" above the moves is no closing
            ignored.append(line)
            continue
        if first in CLOSINGS or first in GREETINGS or line.endswith((",", "!", "?", ":")) \
                or line.lower() in names_lower or len(line) > 60:
            if first in CLOSINGS:
                closed = bool(sections)
            ignored.append(line)
            continue
        if reads() and not _prose_typed(line):
            add_move(line, parsed)
        else:
            ignored.append(line)

    # sections without a name: from the subject, or the only Partie
    for sec in sections:
        if sec.partie is None:
            sec.partie = _partie_from_subject(subject, known) or (partie_names[0] if len(partie_names) == 1 else None)
    # merge sections naming the same Partie (later lines continue the earlier section)
    merged: dict[str | None, Section] = {}
    out: list[Section] = []
    for sec in sections:
        key = sec.partie.lower() if sec.partie else None
        if key in merged:
            merged[key].moves.extend(sec.moves)
            merged[key].parsed.extend(sec.parsed)
            merged[key].lines.extend(sec.lines)
            merged[key].readings.extend(sec.readings)
        else:
            merged[key] = sec
            out.append(sec)
    return ReadSubmission([s for s in out if s.moves or s.header_line], ignored)


#: Two words side by side, one with a lower-case letter: prose ("Schönes Wochenende").
_TWO_WORDS = re.compile(r"(?:^|\s)(?=[^\W\d_]*[^\W\d_A-ZÄÖÜß])[^\W\d_]{2,}\s+[^\W\d_]{2,}(?:\s|$)"
                        r"|(?:^|\s)[^\W\d_]{2,}\s+(?=[^\W\d_]*[^\W\d_A-ZÄÖÜß])[^\W\d_]{2,}(?:\s|$)")


def _prose_typed(line: str) -> bool:
    """Whether a plain line with letters the game spells its own way (``Ä``, ``ß``, an
    accent) is prose: two words side by side, one with lower case (``Schönes
    Wochenende``, ``Bin nächste Woche weg``). Such a line was never read as a move before
    umlauts were spelled (the grammars refused them), and stays unread; a move with an
    umlaut is one token (``mÖle``), upper case, or labelled."""
    return not line.isascii() and bool(_TWO_WORDS.search(line))


#: Marks a move line not read yet.
_UNREAD: Any = object()


def _read(game: GameRules, spelled: Spelled, *, always: bool = False) -> Any:
    """What ``game.read_move`` makes of a line in the game's spelling (``spelled``, from
    :meth:`GameRules.spell`): the move, or the :class:`NotationError`. A line with a
    letter the game cannot take where it stands is a :class:`NotationError` with the
    spelling's verdict, meant as a move when the line reads with that letter replaced
    (``spelled.probe``), else the reader's own error (prose).
    For a game whose move spans several lines (``multiline``) a line is read only where
    ``always`` asks for it (to tell a move line from prose); its result is then not kept.
    Remembered per game and line (moves are immutable values, and the same good move
    arrives from many players)."""
    if game.multiline and not always:
        return None
    if spelled.verdict is not None:
        probe = _read_cached(game, spelled.probe)
        if _is_move(probe):
            return NotationError(spelled.verdict, spelled.text, meant=True)
        return probe
    return _read_cached(game, spelled.text)


@lru_cache(maxsize=8192)
def _read_cached(game: GameRules, line: str) -> Any:
    try:
        return game.read_move(line)
    except NotationError as exc:
        return exc


def _is_move(parsed: Any, strict: bool = False) -> bool:
    """Whether what ``read_move`` made of a line is a move: it read, or (unless
    ``strict``) the game says it is meant as one but broken (:attr:`NotationError.meant`),
    so it is judged and answered rather than passed over."""
    if not isinstance(parsed, NotationError):
        return True
    return parsed.meant and not strict


def _partie_from_subject(subject: str, known: dict[str, str]) -> str | None:
    words = {w.lower() for w in _WORD.findall(subject or "")}
    hits = [known[w] for w in words if w in known]
    return hits[0] if len(hits) == 1 else None
