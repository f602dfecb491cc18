"""What the rules make of moves and rounds, as data: :class:`MoveReport` (one move line),
:class:`PlayerRound` (one player's result in a round), :class:`RoundReport` (a round's
adjudication), and their rendering for an audience (:func:`render_move`,
:func:`round_seen_by`; docs/development/privacy.md, issue 31)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from bot.games.sealed import Redacted
from bot.games.verdict import INVALID, NOT_TRIED, VALID_UNUSED, Verdict, as_verdict, legacy
from bot.games.visibility import Audience, Visibility
from bot.i18n import texts


class MoveReport:
    """What the rules made of one submitted move line.

    ``index`` 0 is the main move, 1.. the Ersatzzuege in order. ``score`` is None for
    an invalid move. ``reason`` is a conformance reason code (``syntax``, ``word``, ...).

    Verdicts are data (issue 31, :mod:`bot.games.verdict`): ``verdict`` says what the
    rules made of the line, for the mover (their acknowledgement and own Auswertung) and
    the game master; ``notes`` are remarks that do not change the outcome (a wrong claimed
    score, a lenient reading); ``public`` and ``public_notes`` are what every other player
    and the archive may read of the line when it was played (no rack, hand or grid
    detail). Each is a :class:`~bot.games.verdict.Verdict` whose parameters are typed by
    who may see them; the service renders them per recipient and language
    (:meth:`GameRules.seen_by`). ``message`` is the mover's German sentence (read only
    for tests and logs; setting it sets ``verdict``); a plain string given for a verdict is
    read as :func:`~bot.games.verdict.legacy` (the mover's, or public for ``public``).

    In a game with :attr:`GameRules.private_state`, others never see a line that was not
    played: they learn only that it was invalid or not tried (docs/development/privacy.md).
    """

    __slots__ = ("index", "text", "valid", "score", "bonus", "reason", "verdict", "notes", "detail", "public",
                 "public_notes")

    def __init__(self, index: int, text: str, valid: bool, score: int | None = None, bonus: int | None = None,
                 reason: str | None = None, message: Verdict | str | None = None, notes: Sequence[Any] | None = None,
                 detail: dict[str, Any] | None = None, public: Verdict | str | None = None,
                 public_notes: Sequence[Any] | None = None, *, verdict: Verdict | None = None) -> None:
        self.index = index
        self.text = text
        self.valid = valid
        self.score = score
        self.bonus = bonus
        self.reason = reason
        self.verdict: Verdict = verdict or as_verdict(message if message is not None else "")  # type: ignore[assignment]
        self.notes: list[Any] = list(notes or [])
        self.detail: dict[str, Any] = dict(detail or {})
        self.public: Verdict | None = as_verdict(public, Visibility.PUBLIC)
        self.public_notes: list[Any] | None = list(public_notes) if public_notes is not None else None

    @property
    def message(self) -> str:
        """The verdict as the mover reads it, in German."""
        return self.verdict.text("de")

    @message.setter
    def message(self, value: Verdict | str) -> None:
        self.verdict = as_verdict(value)  # type: ignore[assignment]

    @property
    def note_texts(self) -> list[str]:
        """The notes as the mover reads them, in German."""
        return [as_verdict(n).text("de") for n in self.notes]  # type: ignore[union-attr]

    def __repr__(self) -> str:
        return (f"MoveReport({self.index}, {self.text!r}, valid={self.valid}, score={self.score}, "
                f"reason={self.reason!r}, verdict={self.verdict.code!r})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MoveReport) and self.to_json() == other.to_json()

    def to_json(self) -> dict[str, Any]:
        out = {
            "index": self.index, "text": self.text, "valid": self.valid, "score": self.score,
            "bonus": self.bonus, "reason": self.reason, "verdict": self.verdict.to_json(),
            "notes": [as_verdict(n).to_json() for n in self.notes],  # type: ignore[union-attr]
            "detail": _detail_json(self.detail),
        }
        if self.public is not None:
            out["public"] = self.public.to_json()
        if self.public_notes is not None:
            out["public_notes"] = [as_verdict(n, Visibility.PUBLIC).to_json() for n in self.public_notes]  # type: ignore[union-attr]
        return out


def _detail_json(detail: Mapping[str, Any]) -> dict[str, Any]:
    """``detail`` with every :class:`Verdict` value, and every verdict in a list value (an
    acknowledgement's ``picture``), as its JSON (``{"verdict": ...}``)."""
    def one(v: Any) -> Any:
        return {"verdict": v.to_json()} if isinstance(v, Verdict) else v
    return {k: [one(x) for x in v] if isinstance(v, list) else one(v) for k, v in detail.items()}


def render_move(m: Mapping[str, Any], lang: str, audience: Audience, owner: str | None) -> dict[str, Any]:
    """One stored move (:meth:`MoveReport.to_json`) with its verdicts rendered for an
    ``audience`` that sees the mover's side (the mover or the game master): ``message``
    and ``notes`` as text in ``lang``, a ``detail`` verdict (``summary``) as text. A
    verdict this audience may not see whole is replaced by the public one, or left out
    (a note). Reports stored before issue 31 (``message`` a sentence) are read as they are."""
    out = dict(m)
    main = _stored_verdict(m)
    pub = as_verdict(m.get("public"), Visibility.PUBLIC)
    if main.visible(audience, owner):
        out["message"] = main.render(lang, audience, owner)
    elif pub is not None and pub.visible(audience, owner):
        out["message"] = pub.render(lang, audience, owner)
    else:
        out["message"] = (INVALID if not m.get("valid") else VALID_UNUSED).render(lang, audience, owner)
    out["notes"] = [v.render(lang, audience, owner) for v in map(as_verdict, m.get("notes") or [])
                    if v is not None and v.visible(audience, owner)]
    out["detail"] = _render_detail(m.get("detail") or {}, lang, audience, owner)
    for k in ("verdict", "public", "public_notes"):
        out.pop(k, None)
    return out


def _stored_verdict(m: Mapping[str, Any]) -> Verdict:
    if m.get("verdict") is not None:
        return as_verdict(m["verdict"])  # type: ignore[return-value]
    return legacy(str(m.get("message") or ""))


def _render_detail(detail: Mapping[str, Any], lang: str, audience: Audience, owner: str | None) -> dict[str, Any]:
    out = {}
    for k, v in detail.items():
        if isinstance(v, list) and any(isinstance(x, Verdict) or (isinstance(x, dict) and "verdict" in x)
                                       for x in v):
            # a list of verdicts (a picture's lines): each rendered, those this audience may not see left out
            shown = [x if isinstance(x, str) else as_verdict(x["verdict"] if isinstance(x, dict) else x) for x in v]
            out[k] = [x if isinstance(x, str) else x.render(lang, audience, owner)
                      for x in shown if isinstance(x, str) or (x is not None and x.visible(audience, owner))]
            continue
        if isinstance(v, dict) and "verdict" in v and len(v) == 1:
            vv = Verdict.from_json(v["verdict"])
            if not vv.visible(audience, owner):
                continue
            v = vv.render(lang, audience, owner)
        elif isinstance(v, Verdict):
            if not v.visible(audience, owner):
                continue
            v = v.render(lang, audience, owner)
        out[k] = v
    return out


@dataclass
class PlayerRound:
    """One player's result in one round of one Partie.

    ``counted`` is the index of the move that counts (the first valid one) or None
    (NMR: nothing sent, or nothing valid); ``score`` is the counted move's score (0 for
    NMR); ``points`` is what goes into the standings (the score in Rondo; the
    Besser-Wertung points, 0 or negative, in Monoscrabble). ``private`` holds what
    only this player may see (their new rack, the best move their rack allowed); it
    is rendered into their own Auswertung and the game master's copy, never into
    anyone else's.
    """

    player: str
    submitted: bool
    moves: list[MoveReport]
    counted: int | None
    points: int
    score: int | None = None
    private: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.score is None:
            self.score = self.points

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player, "submitted": self.submitted, "counted": self.counted,
            "points": self.points, "score": self.score, "moves": [m.to_json() for m in self.moves],
            "private": dict(self.private),
        }


@dataclass
class RoundReport:
    """The adjudication of one round of one Partie: every player's result, the move
    that went on the table, the best possible move (the "top"), and the state after."""

    round: int
    players: list[PlayerRound]
    board_move: dict[str, Any] | None
    top: dict[str, Any] | None
    state_before: dict[str, Any]
    state_after: dict[str, Any]
    lot: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round, "players": [p.to_json() for p in self.players],
            "board_move": self.board_move, "top": self.top, "lot": self.lot,
            "state_before": self.state_before, "state_after": self.state_after,
        }



def round_seen_by(pl: Mapping[str, Any], audience: Audience, lang: str, *, private_state: bool, text_public: bool,
                  hidden_text: str, private_detail: frozenset[str],
                  public_round_keys: frozenset[str]) -> dict[str, Any]:
    """One player's round data (the :class:`PlayerRound` JSON) as an ``audience`` other
    than the mover and the game master sees it, rendered in ``lang``: the rules of
    :meth:`bot.games.base.GameRules.seen_by`, with the game's flags passed in
    (``text_public``: :meth:`~bot.games.base.GameRules.move_text_public` of the state after
    the round; ``hidden_text`` the msgid shown instead of a hidden move line)."""
    owner = str(pl["player"])
    hidden = texts(lang).gettext(hidden_text)
    counted = pl.get("counted")
    moves = []
    for m in pl.get("moves", []):
        if private_state and m.get("index") != counted:
            generic = NOT_TRIED if counted is not None and m.get("index", 0) > counted else INVALID
            moves.append({"index": m.get("index"), "text": hidden, "valid": False, "score": None,
                          "bonus": None, "reason": None, "message": generic.render(lang, audience, owner),
                          "notes": [], "detail": {}})
            continue
        main = _stored_verdict(m)
        pub = as_verdict(m.get("public"), Visibility.PUBLIC)
        if not private_state and main.visible(audience, owner):
            msg = main.render(lang, audience, owner)
        elif pub is not None and pub.visible(audience, owner):
            msg = pub.render(lang, audience, owner)
        elif main.visible(audience, owner):
            msg = main.render(lang, audience, owner)
        else:
            msg = (VALID_UNUSED if m.get("valid") else INVALID).render(lang, audience, owner)
        raw_notes = m.get("public_notes")
        if raw_notes is None and not private_state:
            raw_notes = m.get("notes")
        notes = [v.render(lang, audience, owner) for v in map(as_verdict, raw_notes or [])
                 if v is not None and v.visible(audience, owner)]
        detail = _render_detail({k: v for k, v in (m.get("detail") or {}).items()
                                 if k not in private_detail}, lang, audience, owner)
        seen = {k: v for k, v in m.items() if k not in ("verdict", "public", "public_notes")}
        seen.update(message=msg, notes=notes, detail=detail)
        if not text_public:
            seen.update(text=hidden, detail={}, notes=[], message=pub.render(lang, audience, owner)
                        if pub is not None and pub.visible(audience, owner) else "")
        moves.append(seen)
    priv = pl.get("private") or {}
    shown = {k: v for k, v in priv.items() if k in public_round_keys}
    return dict(pl, moves=moves, private=Redacted(shown, set(priv) - set(shown)))
