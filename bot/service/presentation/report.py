"""Rendering the Auswertung of a league round from the stored adjudications.

No game rules here: each Partie's report (:class:`bot.games.base.RoundReport` as JSON,
stored in ``adjudications``) and the game's views are handed to the game's templates.
An Auswertung is put together from parts, each rendered once where it is the same for
everybody (issue "fast at every league size"):

- ``<game>/auswertung/partie.{txt,html}.j2``: the public part of one Partie (the board or
  row, the move that went on the table, the top, one line per player), once per Partie;
- ``<game>/auswertung/table.{txt,html}.j2``: the standings (``standings``, and ``rows``: the
  same rows with every Partie's result of the player, :func:`round_rows`), once per round;
- ``<game>/auswertung/footer.{txt,html}.j2``: next ZAT and how to move, once per round;
- ``<game>/auswertung/moves.{txt,html}.j2``: one player's complete move lines (main move,
  Ersatzzuege, verdicts, notes), rendered for the recipient and for everybody in the game
  master's copy; in ``AUSWERTUNG n ALLE`` and the archive as other players may see them
  (the public verdicts: :meth:`~bot.games.base.GameRules.seen_by`, docs/development/privacy.md);
- ``<game>/auswertung/private.{txt,html}.j2`` (games with private state only): what only
  that player sees (their grid, rack or hand: ``view`` from
  :meth:`~bot.games.base.GameRules.player_view`, and ``pl.private`` from the report);
  the recipient's own, and every player's in the game master's copy, never in anyone
  else's mail;
- the frame ``auswertung.{txt,html}.j2`` stitches them per recipient; the HTML frame puts
  the standings chart (``chart.html.j2``, data from :mod:`bot.service.presentation.chart`) below the table;
- the game's key of its move lines (:attr:`~bot.games.base.GameRules.move_key`,
  Monoscrabble's "(*X = Blanko als X)") comes once a mail: in the first Partie part that
  writes the mark (the later ones get ``key_given``), else after the first of the
  recipient's move sections that does (the move parts get ``keyed``: the frame gives it),
  so the game master's copy, with every player's moves, has it once too;
- the text part is kept within :data:`TEXT_WIDTH` characters a line (:func:`fold_text`),
  board pictures excepted.

With the league option ``sequential``, a Partie that starts in the next round is added
to the Auswertung that ends the one before it (:func:`starting_partie`: ``p.starting``
is set, there are no moves), so each player learns their new private part in time.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Sequence

from markupsafe import Markup

from bot.games.base import GM_ONLY, PUBLIC, Audience, GameRules, PrivacyError, Sealed, Visibility
from bot.mail.compose import Segments, qp_lines
from bot.packing import Chunked
from bot.i18n import DEFAULT, texts
from bot.render import has_template, render

FORMATS = ("txt", "html")
#: Longest line of a text part (board pictures excepted), for every mail client.
TEXT_WIDTH = 72
_PICTURE_CHARS = set("│┃─━┼┌┐└┘├┤┬┴|+·")


def is_picture(line: str) -> bool:
    """Whether ``line`` belongs to a board picture (a grid of one- or two-character cells,
    or box-drawing lines), which must keep its width."""
    cells = line.split()
    if any(ch in _PICTURE_CHARS for ch in line) and sum(len(c) <= 3 for c in cells) >= 0.6 * max(len(cells), 1):
        return True
    return len(cells) >= 8 and sum(len(c) <= 2 for c in cells) >= 0.8 * len(cells)


def fold_text(text: str, width: int = TEXT_WIDTH) -> str:
    """Wrap every line of ``text`` longer than ``width`` at spaces, continuing with the
    line's indentation plus two spaces; board pictures (:func:`is_picture`) and words
    longer than a line stay as they are."""
    out = []
    for line in text.split("\n"):
        if len(line) <= width or is_picture(line):
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip())]
        out.extend(textwrap.wrap(line.strip(), width=width, initial_indent=indent, subsequent_indent=indent + "  ",
                                 break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)


def _part(game: GameRules, part: str, fmt: str, lang: str = DEFAULT, **ctx: Any) -> str:
    return render(f"{game.name}/auswertung/{part}.{fmt}.j2", lang, **ctx)


def _both(game: GameRules, part: str, lang: str = DEFAULT, **ctx: Any) -> dict[str, str]:
    return {fmt: _part(game, part, fmt, lang, **ctx) for fmt in FORMATS}


@dataclass
class PartieRound:
    """One Partie's round as the templates see it: ``p`` (the public view after the
    round plus ``name``, ``board_move``, ``top``, ``lot``, ``example`` (notation lines of
    :meth:`~bot.games.base.GameRules.example_move` for the next round, or None), ``names`` (player key -> display
    name, for games that name players by key in their views) and ``players``, one public row
    per player: name, key, submitted, counted, points, score, ``counted_text`` and
    ``result``, all as every player may see them), ``full`` (player key ->
    :class:`~bot.games.base.Sealed` round data of the players of this round: read only
    through :meth:`seen` for a recipient, docs/development/privacy.md) and ``views`` (player key ->
    :meth:`player_view` after the round, for every player of the league, also those
    whose turn it was not; private, rendered only in the ``private`` part)."""

    p: dict[str, Any]
    full: dict[str, Sealed]
    views: dict[str, dict[str, Any]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    def seen(self, key: str, audience: Audience, lang: str = DEFAULT) -> dict[str, Any]:
        """The :class:`PlayerRound` JSON of ``key`` plus ``name`` as ``audience`` may see
        it, its verdicts rendered in ``lang`` (a bare one when they did not play)."""
        sealed = self.full.get(key)
        if sealed is None:
            return {"player": key, "name": self.names.get(key, key), "submitted": False,
                    "moves": [], "counted": None, "points": 0, "score": 0, "private": {}}
        return dict(sealed.open(audience, lang), name=self.names.get(key, key))

    def player(self, key: str, audience: Audience = PUBLIC, lang: str = DEFAULT) -> dict[str, Any]:
        """:meth:`seen` (default: as everybody sees it)."""
        return self.seen(key, audience, lang)


def partie_round(game: GameRules, name: str, report: dict[str, Any], names: dict[str, str],
                 state_after: dict[str, Any], players: Sequence[str] | None = None) -> PartieRound:
    """Build the template data of one Partie's round from its stored ``report`` (the
    RoundReport JSON); ``names`` maps player keys to display names; ``players``: the keys
    whose private view is shown (default: the players of the report)."""
    view = game.public_view(state_after)
    bm = dict(report["board_move"]) if report.get("board_move") else None
    if bm:
        bm["names"] = [names.get(k, k) for k in bm.get("players", [])]
        bm["new_squares"] = [f"{q[0]},{q[1]}" for q in bm.get("placements", [])]
    rows, full = [], {}
    for pr in sorted(report["players"], key=lambda x: names.get(x["player"], x["player"]).lower()):
        key = pr["player"]
        full[key] = Sealed(pr, game, state_after)
        d = game.seen_by(pr, PUBLIC, state_after)
        counted = d["moves"][d["counted"]] if d.get("counted") is not None else None
        rows.append({"key": key, "name": names.get(key, key), "submitted": d["submitted"], "counted": d["counted"],
                     "points": d["points"], "score": d["score"],
                     "counted_text": counted["text"] if counted else None,
                     "result": _result(counted) if counted else None})
    views = {}
    if game.player_views:
        views = {k: game.player_view(state_after, k) for k in (players if players is not None else full)}
    p = dict(view, name=name, board_move=bm, top=report.get("top"), lot=report.get("lot"), players=rows,
             names=dict(names), example=game.example_move(state_after))
    return PartieRound(p, full, views, dict(names))


def starting_partie(game: GameRules, name: str, names: dict[str, str], state: dict[str, Any],
                    players: Sequence[str]) -> PartieRound:
    """A Partie that starts in the next round (league option ``sequential``): its public
    view with ``starting`` set and every player's private view (a newly dealt rack or
    hand), so the Auswertung that ends the Partie before it tells each player what they
    hold now. No moves, no results."""
    pr = partie_round(game, name, {"board_move": None, "players": [], "top": None, "lot": None}, names, state,
                      players)
    pr.p["starting"] = True
    return pr


def _result(move: dict[str, Any]) -> str:
    """The short public result of a counted move: its word(s), else its text."""
    d = move.get("detail") or {}
    words = d.get("words")
    if words:
        return " + ".join(words)
    return d.get("word") or move.get("text") or ""


def round_rows(standings: list[dict[str, Any]], partien: Sequence[PartieRound]) -> list[dict[str, Any]]:
    """The standings rows (best first), each with ``partien``: per Partie the player's
    public row of the round (``PartieRound.p["players"]``: ``result``, ``points``,
    ``submitted``, ``counted``), or None where the player had no part in it; for a table
    with one line per player for the whole round (names once, not once per Partie)."""
    by_key = [{row["key"]: row for row in pr.p["players"]} for pr in partien]
    return [dict(s, partien=[rows.get(str(s["player_id"])) for rows in by_key]) for s in standings]


@dataclass
class Recipient:
    """Who gets a copy: ``key`` the player key (None for the game master), ``name``,
    ``email``; the game master's copy (``gm``) carries every player's moves and private
    part."""

    key: str | None
    name: str
    email: str
    gm: bool = False
    #: The language of this copy (bot.i18n): the league's for players, the GM's own for the GM.
    lang: str = DEFAULT

    @property
    def ident(self) -> tuple[str, str | None]:
        """Who this copy is for, by role and never by address: ``("player", key)`` or
        ``("gm", None)``. Two recipients may share an address (a game master who plays in
        their own league with one address); their copies must not replace each other
        (issue 31)."""
        return ("gm", None) if self.gm else ("player", self.key)


def render_auswertungen(game: GameRules, *, league: dict[str, Any], round: int, partien: Sequence[PartieRound],
                        standings: list[dict[str, Any]], next_zat: str | None,
                        recipients: Sequence[Recipient], chart: str = ""
                        ) -> dict[tuple[str, str | None], tuple[Segments, Segments]]:
    """Render every recipient's Auswertung; returns ``{Recipient.ident: (text, html)}``
    (``("player", key)`` or ``("gm", None)``, never keyed by address: issue 31) as
    :class:`~bot.mail.compose.Segments` (``.text()`` gives the whole string). Raises
    ``ValueError`` when two recipients have the same role and key.

    The shared parts are rendered once per language (bot.i18n: a recipient's ``lang``) and
    quoted-printable encoded and compressed once (:class:`bot.packing.Chunked`); per
    recipient only their own moves and private part (the game master: everybody's) and
    the frame are rendered, so the cost of a round grows with the number of players, not
    with its square (every Auswertung carries the round's table). ``chart``: the standings
    chart (:func:`bot.service.presentation.chart.league_chart`), shown below the table of the HTML part,
    also shared. ``next_zat``: the next ZAT as text, or a function of the language giving
    it. The text part is folded to :data:`TEXT_WIDTH` (:func:`fold_text`), the shared
    parts once."""
    common = dict(league=league, round=round)
    has_private = has_template(f"{game.name}/auswertung/private.txt.j2")
    per_lang: dict[str, dict[str, Any]] = {}
    moves_cache: dict[tuple[str, int, str, bool], dict[str, str]] = {}
    rows = round_rows(standings, partien)

    def parts(lang: str) -> dict[str, Any]:
        """The shared parts in ``lang``, each as a marker line in the frame; the parts go
        in as encoded bytes (:func:`_segments`)."""
        if lang in per_lang:
            return per_lang[lang]
        pieces: dict[str, list[str]] = {"txt": [], "html": []}

        def mark(fmt: str, value: str) -> str:
            pieces[fmt].append(value)
            return f"\x00{len(pieces[fmt]) - 1}\x00"

        # the game's key of its move lines (GameRules.move_key) comes once a mail: in the
        # first Partie part that writes the mark (``key_given`` tells the later ones it was
        # given), else after the first of a recipient's move sections that does (below)
        key = texts(lang).gettext(game.move_key[1]) if game.move_key else None
        shared, shared_gm, given = [], [], False
        for pr in partien:
            shared.append(_both(game, "partie", lang, p=pr.p, key_given=given, **common))
            # the game master's copy, where a game's Partie part speaks to the players
            # (Presto's start: "Dein neuer Satz steht unten"); the same part elsewhere
            gm_part = _both(game, "partie", lang, p=pr.p, key_given=given, gm=True, **common)
            shared_gm.append(None if gm_part == shared[-1] else gm_part)
            given = given or (key is not None and key in shared[-1]["txt"])
        table = _both(game, "table", lang, standings=standings, rows=rows, partien=[pr.p for pr in partien],
                      **common)
        zat = next_zat(lang) if callable(next_zat) else next_zat
        footer = _both(game, "footer", lang, next_zat=zat, partien=[pr.p for pr in partien], **common)
        # the game master's copy: the players' instructions said about them, not to them
        footer_gm = _both(game, "footer", lang, next_zat=zat, partien=[pr.p for pr in partien], gm=True, **common)
        footer_gm = None if footer_gm == footer else footer_gm

        def both(x: dict[str, str], trim=str.rstrip) -> dict[str, str]:
            """A part's text (trimmed, folded) and HTML, each kept once as a piece."""
            return {"txt": mark("txt", fold_text(trim(x["txt"]))), "html": mark("html", x["html"])}

        got = per_lang[lang] = {
            "shared": [both(x) for x in shared],
            "shared_gm": [None if x is None else both(x) for x in shared_gm],
            "table": both(table),
            "footer": both(footer, str.strip),
            "footer_gm": None if footer_gm is None else both(footer_gm, str.strip),
            "chart": mark("html", chart) if chart else "",
            "key": None if given else key,  # the key, for a move section, when no Partie part gave it
            "pieces": pieces,
            # encoded and compressed once, joined into every mail (bot.packing)
            "encoded": {fmt: [Chunked(qp_lines(x)) for x in xs] for fmt, xs in pieces.items()}}
        return got

    def moves(lang: str, i: int, key: str, audience: Audience) -> dict[str, str]:
        # only ever rendered for the mover or the game master: both see the whole
        if not audience.sees(key, Visibility.MOVER):
            raise PrivacyError(f"Züge von {key} als eigene Züge für einen anderen Empfänger")
        # the game master's rendering differs from the mover's (verdicts about the mover,
        # bot.games.verdict.about_mover): cached apart
        at = (lang, i, key, audience.gm)
        if at not in moves_cache:
            pr = partien[i]
            moves_cache[at] = _both(game, "moves", lang, p=pr.p, pl=pr.seen(key, audience, lang),
                                    keyed=True, **common)  # (the frame gives the move key)
        return moves_cache[at]

    def private(lang: str, i: int, key: str, audience: Audience) -> dict[str, str] | None:
        pr = partien[i]
        if not has_private or key not in pr.views:
            return None
        if not audience.sees(key, Visibility.MOVER):
            raise PrivacyError(f"privater Teil von {key} für einen anderen Empfänger")
        # gm: the game master's copy speaks about the player ("Bank:", "Hand:"), not to them
        return _both(game, "private", lang, p=pr.p, pl=pr.seen(key, audience, lang), view=pr.views[key],
                     gm=audience.gm, **common)

    out: dict[tuple[str, str | None], tuple[Segments, Segments]] = {}
    if len({rc.ident for rc in recipients}) != len(recipients):
        raise ValueError("zwei Empfänger mit derselben Rolle: " + ", ".join(map(str, (rc.ident for rc in recipients))))
    for rc in recipients:
        lang = rc.lang
        audience = GM_ONLY if rc.gm else Audience(viewer=rc.key)
        got = parts(lang)
        shared, table, footer = got["shared"], got["table"], got["footer"]
        if rc.gm:
            shared = [g or x for g, x in zip(got["shared_gm"], shared)]
            footer = got["footer_gm"] or footer
        blocks = []
        move_key = got["key"]  # given once, after the first move section writing the mark
        for i, pr in enumerate(partien):
            keys = list(pr.full) if rc.gm else ([rc.key] if rc.key in pr.full else [])
            secret = list(pr.views) if rc.gm else [rc.key]
            mine = [dict(name=pr.names.get(k, k), **moves(lang, i, k, audience)) for k in keys]
            keyed = move_key is not None and any(game.move_key[0] in m["txt"] for m in mine)
            blocks.append({
                "name": pr.p["name"], "shared": shared[i], "mine": mine, "key": move_key if keyed else None,
                "private": [dict(name=pr.names.get(k, k), **x) for k in secret
                            if (x := private(lang, i, k, audience))],
            })
            move_key = None if keyed else move_key
        ctx = dict(common, recipient={"name": rc.name, "gm": rc.gm}, partien=blocks, title=game.title)
        text = fold_text(render("auswertung.txt.j2", lang, fmt="txt", table=table["txt"], footer=footer["txt"], **ctx))
        html = render("auswertung.html.j2", lang, fmt="html", table=Markup(table["html"]),
                      footer=Markup(footer["html"]), chart=Markup(got["chart"]), **_markup(ctx))
        out[rc.ident] = (_segments(text, got["pieces"]["txt"], got["encoded"]["txt"]),
                         _segments(html, got["pieces"]["html"], got["encoded"]["html"]))
    return out


_MARKER = re.compile("\x00([0-9]+)\x00")


def _segments(rendered: str, plain: list[str], encoded: list[bytes]) -> Segments:
    """The rendered frame with each marker replaced by its shared part: the encoded bytes
    where the part stands on lines of its own (so the whole is encoded the same), else
    the text."""
    parts = _MARKER.split(rendered)
    out: list[str | bytes] = []
    used: list[str] = []
    line_start = True
    for i, part in enumerate(parts):
        if i % 2 == 0:
            if part:
                out.append(part)
                line_start = part.endswith("\n")
            continue
        n = int(part)
        after = parts[i + 1]
        line_end = plain[n].endswith("\n") or after.startswith("\n") or (not after and i + 2 == len(parts))
        if line_start and line_end:
            out.append(encoded[n])
            used.append(plain[n])
        else:
            out.append(plain[n])
        line_start = plain[n].endswith("\n")
    return Segments(tuple(out), tuple(used))


def render_all_moves(game: GameRules, *, league: dict[str, Any], round: int,
                     partien: Sequence[PartieRound], audience: Audience = PUBLIC, lang: str = DEFAULT,
                     shown: int | None = None) -> str:
    """Every player's complete move lines of one round, as text (``AUSWERTUNG n ALLE``),
    each as ``audience`` may see it (the asking player: their own whole, everybody
    else's public verdicts only; docs/development/privacy.md). ``shown``: the number the
    player asked for (the turn in a game of turns, :meth:`GameRules.shown_number`)."""
    common = dict(league=league, round=round)
    parts = []
    for pr in partien:  # (listing: the key of the move lines comes once, from the frame)
        lines = [_part(game, "moves", "txt", lang, p=pr.p, pl=pr.seen(k, audience, lang), listing=True, **common)
                 for k in pr.full]
        parts.append({"name": pr.p["name"], "moves": lines})
    return fold_text(render("alle.txt.j2", lang, partien=parts, shown=round if shown is None else shown,
                            turns=game.turn_rounds, move_key=game.move_key, **common))


def _markup(ctx: dict[str, Any]) -> dict[str, Any]:
    """The rendered HTML parts of ``ctx["partien"]`` marked safe for the HTML frame."""
    blocks = []
    for b in ctx["partien"]:
        blocks.append({"name": b["name"], "shared": Markup(b["shared"]["html"]), "key": b.get("key"),
                       "mine": [{"name": m["name"], "html": Markup(m["html"])} for m in b["mine"]],
                       "private": [{"name": m["name"], "html": Markup(m["html"])} for m in b["private"]]})
    return dict(ctx, partien=blocks)
