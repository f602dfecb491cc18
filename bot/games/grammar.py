"""The games' lark grammars (``grammar/*.lark``) as linear-time parsers.

Every move notation and the submission-line framing are lark grammars in ``grammar/``,
the one source of the notation. They are read with lark's LALR(1) parser and its
contextual lexer (each token is matched only against the terminals the parser can take
at that point), so a line is read in time linear in its length, and with a
``transformer`` the move object is built while parsing, without a parse tree.

LALR(1) decides with one token of lookahead, so a grammar written for it carries
significant whitespace inside the terminals that need it rather than as a separate
optional token (``POINTS: /[ \\t]+[0-9]+/`` in ``rondo_move.lark``: after a card, a
space followed by a number is the points, a space followed by a letter another card).
``Lark`` reports any conflict when the grammar is loaded.

The pattern for a game (see ``bot/games/rondo/notation.py``)::

    @lru_cache(maxsize=1)
    def _parser() -> Lark:
        return lalr_parser("rondo_move.lark", _ToMove())

    def parse_move(text: str) -> Move:
        src = text.strip()
        try:
            return _parser().parse(src)          # the Move, built by _ToMove
        except UnexpectedInput as exc:
            raise NotationError(verdict("syntax", N_("... (bei Zeichen {col})"),
                                        col=error_column(exc, src)), text) from None

The error is a verdict as data (:mod:`bot.games.verdict`): a code, the German msgid
marked with ``N_`` and its parameters typed by who may see them; never a sentence.
"""

from __future__ import annotations

from lark import Lark, Transformer, UnexpectedEOF, UnexpectedInput

from bot import GRAMMAR_DIR


def lalr_parser(filename: str, transformer: Transformer | None = None) -> Lark:
    """The LALR(1) parser (contextual lexer) of ``grammar/<filename>``; with
    ``transformer`` its callbacks build the result while parsing (``parse`` returns what
    the ``start`` callback returns). Raises ``lark.exceptions.GrammarError`` for a grammar
    that is not LALR(1) (a conflict). Build it once and keep it (``functools.lru_cache``)."""
    return Lark((GRAMMAR_DIR / filename).read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                transformer=transformer)


def error_column(exc: UnexpectedInput, src: str) -> int | None:
    """The 1-based column of ``src`` where reading stopped (leading spaces of the offending
    token skipped, since terminals may begin with them), or None when the line ended too
    early (something is missing at its end) or lark gives no position."""
    token = getattr(exc, "token", None)
    if isinstance(exc, UnexpectedEOF) or getattr(token, "type", None) == "$END":
        return None
    pos = getattr(exc, "pos_in_stream", None)
    if not isinstance(pos, int) or pos < 0:
        col = getattr(exc, "column", None)
        return col if isinstance(col, int) and col > 0 else None
    while pos < len(src) - 1 and src[pos] in " \t":
        pos += 1
    return min(pos, max(0, len(src) - 1)) + 1
