"""The interface every game implements, and the registry of games.

A game module is pure: it holds a Partie's state as a JSON-compatible ``dict``,
reads and writes its move notation, validates and scores moves, adjudicates a
round and generates moves. The service layer (storage, mail, scheduling,
rendering) only calls these methods and never contains game rules.
"""

from __future__ import annotations

import enum
import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Mapping, Sequence


class NotationError(ValueError):
    """A move line that cannot be read. ``verdict`` says why, as data
    (:class:`~bot.games.verdict.Verdict`; a plain German sentence is read as
    :func:`~bot.games.verdict.legacy`); ``message`` is its German text for logs and tests.

    ``meant``: the line is clearly meant as a move of this game (it has the shape of one,
    e.g. a Crossword field with its letter missing) but is broken. The submission reader
    then keeps it in the Partie section, so the game judges it and the player gets the
    precise error, instead of passing it over as prose."""

    def __init__(self, message: "Verdict | str", text: str = "", *, meant: bool = False) -> None:
        self.verdict = as_verdict(message)
        super().__init__(self.verdict.text("de") if self.verdict else "")
        self.text = text
        self.meant = meant

    @property
    def message(self) -> str:
        """The reason as the mover reads it, in German."""
        return self.verdict.text("de") if self.verdict else ""


from bot.games.visibility import GM_ONLY, PUBLIC, Audience, PrivacyError, Visibility  # noqa: F401 (re-exported)
from bot.games.verdict import N_, INVALID, NOT_TRIED, VALID_UNUSED, Param, Verdict, as_verdict, legacy
from bot.i18n import texts
from bot.lexicon.alphabet import alphabet_for_game, spell_line


class Withheld:
    """The stand-in for a text that the audience of a projection may not see. Rendering
    it (``str``, ``__html__``, iterating, indexing) raises :class:`PrivacyError`; it is
    false in a condition, so ``{% if m.private %}`` simply skips it."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def _refuse(self, *_: Any) -> Any:
        raise PrivacyError(f"privater Inhalt ({self.what}) in einer Ansicht, die ihn nicht zeigen darf")

    __str__ = __html__ = __iter__ = __getitem__ = __len__ = __format__ = _refuse  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        self._refuse()

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"Withheld({self.what!r})"


class Redacted(dict):
    """A player's ``private`` round dict as someone else sees it: only the keys the game
    declares public (:attr:`GameRules.public_round_keys`, e.g. RONDO's ``partner_turn``);
    reading any other key it had raises :class:`PrivacyError`."""

    def __init__(self, shown: Mapping[str, Any], hidden: set[str]) -> None:
        super().__init__(shown)
        self._hidden = frozenset(hidden)

    def _check(self, key: Any) -> None:
        if key in self._hidden:
            raise PrivacyError(f"privater Eintrag {key!r} in einer Ansicht, die ihn nicht zeigen darf")

    def get(self, key: Any, default: Any = None) -> Any:
        self._check(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self._check(key)
        return super().__getitem__(key)


class Sealed:
    """A player's raw round data (the :class:`PlayerRound` JSON) that can only be read
    through :meth:`open` for an :class:`Audience`; every other access (an attribute, an
    item, a template rendering it) raises :class:`PrivacyError`. The service keeps
    round data sealed, so a public context cannot reach a private text by mistake."""

    __slots__ = ("_raw", "_game", "_state")

    def __init__(self, raw: Mapping[str, Any], game: "GameRules", state: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_raw", raw)
        object.__setattr__(self, "_game", game)
        object.__setattr__(self, "_state", state)

    def open(self, audience: "Audience", lang: str = "de") -> dict[str, Any]:
        """The round data as ``audience`` may see it, rendered in ``lang``
        (:meth:`GameRules.seen_by`)."""
        return self._game.seen_by(self._raw, audience, self._state, lang)

    @property
    def owner(self) -> str:
        return str(self._raw["player"])

    def _refuse(self, *_: Any) -> Any:
        raise PrivacyError("versiegelte Runden-Daten ohne Empfänger gelesen (Sealed.open(audience) benutzen)")

    __getitem__ = __iter__ = __str__ = __html__ = __len__ = _refuse  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        self._refuse()


@dataclass(frozen=True)
class Spelled:
    """A move line in the game's own spelling (:meth:`GameRules.spell`): ``text``, and
    ``verdict`` (None, or why a letter cannot be read where it stands) and ``probe``
    (then: the line with that letter replaced by one the game takes)."""

    text: str
    verdict: "Verdict | None" = None
    probe: str = ""


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


class GameRules(ABC):
    """One game's rules. Implementations are stateless; all state is passed in.

    Words reach the rules through a lexicon object with ``__contains__(word)`` and
    ``has_prefix(prefix)`` on words normalised to the game's alphabet
    (see :mod:`bot.lexicon`).

    Players are named by opaque string keys (the service uses ``str(player.id)``),
    given in seat order (the order of the league file) to :meth:`new_partie`.

    **Private state** (racks, hands, grids): the state dict holds every player's
    private part; :meth:`public_view` must never show it, :meth:`player_view` gives one
    player's own part. The service renders every mail from ``public_view`` (shared by
    all) plus, per recipient, ``player_view`` and that player's own
    :class:`PlayerRound` (with its ``private`` dict); nothing in the service knows what
    a rack or a grid is. What a round shows of one player to others goes through
    :meth:`seen_by` (public verdicts, hidden move lines, :class:`Redacted` private
    part); the service holds round data :class:`Sealed` (docs/development/privacy.md). A game with
    private state sets :attr:`private_state` and gives each move a ``public`` verdict;
    :meth:`gm_picture` is what ``spielleiter show`` prints for the game master.

    **Turns** (a round is one player's turn, with its own ZAT): :meth:`movers` names who
    is to move in the open round; :attr:`turn_hours` (or the league option
    ``turn_hours``) sets each turn's ZAT relative to the end of the previous one; and
    :meth:`round_complete` lets a round end before its ZAT (a valid move by the player
    whose turn it is, the second valid Presto crossword).
    """

    #: Game key used in league files and the database, e.g. ``"rondo"``.
    name: str
    #: Lexicon alphabet name (see ``bot.lexicon.ALPHABETS``).
    alphabet: str
    #: German display name.
    title: str
    #: Whether players may join a running league by mail (ANMELDEN); late joiners are
    #: scored as NMR for the rounds before (shared/RULES.md, Monoscrabble).
    open_join: bool = False
    #: Number of players a league of this game needs (inclusive); None: no upper bound.
    min_players: int = 1
    max_players: int | None = None
    #: True when all move lines of a Partie section form ONE move (Crossword: placement,
    #: wish and word list; Presto: a finished crossword). The service then passes the
    #: section's lines joined by ``"\n"`` as the only move text; there are no Ersatzzuege.
    multiline: bool = False
    #: Hours from the end of one round to the ZAT of the next when each round is one turn
    #: (RONDO, "Wer behält recht?"); None: the league's ZAT schedule (days). The league
    #: option ``turn_hours`` overrides it.
    turn_hours: float | None = None
    #: True for games whose rounds are turns that may end early ("Wer behält recht?"): each
    #: round's ZAT then counts from the end of the previous round, ``zat_interval_days``
    #: days later (or ``turn_hours``), instead of following the league's fixed schedule.
    relative_zat: bool = False
    #: The number of rounds (ZATs) a Partie of this game always has (Crossword: 7); the
    #: league file's ``rounds`` must then be absent or equal. None: the league file's
    #: ``rounds`` (default 20) is the number of rounds, or for games that end by
    #: themselves (Typ-Dom: a player is out; see :meth:`finished`) an upper bound.
    fixed_rounds: int | None = None
    #: True when each round after the opening is one player's turn (RONDO): the mails
    #: then name the turn ("Auswertung Zug 3", the public view's ``turn``), not the round.
    turn_rounds: bool = False
    #: Rounds before the first turn of a :attr:`turn_rounds` game (RONDO's opening: 1);
    #: the standings chart counts turns from the end of these (turn 0).
    opening_rounds: int = 0
    #: Rounds of a league when its file gives none. None: the game ends by itself (a
    #: player is out, the deck is empty; see :meth:`finished`) and ``rounds`` in a
    #: league file is only an upper bound.
    default_rounds: int | None = 20
    #: True for games with private state (racks, hands, grids): the public verdict of a
    #: move is then only what the game put in ``MoveReport.public`` (docs/development/privacy.md).
    private_state: bool = False
    #: Keys of a move's ``detail`` that only the mover (and the game master) sees.
    private_detail: frozenset[str] = frozenset({"picture"})
    #: Keys of a :class:`PlayerRound`'s ``private`` dict that are no secret (others' views
    #: keep them; every other key raises when read there).
    public_round_keys: frozenset[str] = frozenset()
    #: What others see instead of a move line while :meth:`move_text_public` is False.
    hidden_move_text: str = N_("(verdeckt bis zum Ende der Partie)")

    def shown_number(self, round_number: int) -> int:
        """The number a player sees for round ``round_number`` (subjects, bodies, UITSLAG n):
        the turn (round minus :attr:`opening_rounds`) for :attr:`turn_rounds` games, else the
        round itself. RONDO: round 2 is turn 1 (issue 32)."""
        return round_number - self.opening_rounds if self.turn_rounds else round_number

    def round_of(self, shown: int) -> int:
        """The round behind the number ``shown`` to players (inverse of :meth:`shown_number`):
        ``UITSLAG 3`` in RONDO asks for turn 3, round 4."""
        return shown + self.opening_rounds if self.turn_rounds else shown

    def check_players(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> Verdict | None:
        """Why a league with these players (keys, seat order) cannot be played, as a
        verdict for the game master (code ``players``; the service renders it in the game
        master's language), or None. The default checks :attr:`min_players` and
        :attr:`max_players`."""
        n = len(players)
        if n < self.min_players or (self.max_players is not None and n > self.max_players):
            if self.max_players == self.min_players:
                msgid = N_("{title} braucht genau {min} Spieler, die Ligadatei hat {n}.")
            elif self.max_players is None:
                msgid = N_("{title} braucht mindestens {min} Spieler, die Ligadatei hat {n}.")
            else:
                msgid = N_("{title} braucht {min} bis {max} Spieler, die Ligadatei hat {n}.")
            return Verdict("players", msgid, {"title": Param(self.title, Visibility.GM),
                                              "min": Param(self.min_players, Visibility.GM),
                                              "max": Param(self.max_players or 0, Visibility.GM),
                                              "n": Param(n, Visibility.GM)}, None, Visibility.GM)
        return None

    def check_partie_name(self, name: str) -> Verdict | None:
        """Why ``name`` cannot name a Partie of this game (it would be read as a move,
        e.g. a Crossword field), as a verdict for the game master, or None. The default
        allows any name."""
        return None

    @abstractmethod
    def new_partie(self, *, seed: str, partie: str, options: Mapping[str, Any] | None = None,
                   players: Sequence[str] = ()) -> dict:
        """State of a new Partie with the Vorgabe of round 1 drawn; JSON-compatible.
        ``players``: the player keys in seat order (games without private state or seats
        may ignore them)."""

    @abstractmethod
    def read_move(self, text: str) -> Any:
        """Parse one move line in the game's notation; raises :class:`NotationError`.

        The notation is a lark grammar in ``grammar/`` read with the LALR(1) parser
        (:func:`bot.games.grammar.lalr_parser`, linear time). The service reads each
        line once, when the mail is framed (:func:`bot.submission.read_submission`), and
        hands the result on to :meth:`check_line` as ``move``."""

    @abstractmethod
    def check_line(self, state: Mapping[str, Any], text: str, lexicon: Any, index: int = 0, *,
                   player: str | None = None, move: Any = None) -> MoveReport:
        """Read and judge one move line against ``state`` (never raises for bad moves).
        ``player`` is the sender's key, for games whose moves depend on private state
        (a rack, a grid). A ``detail["picture"]`` (text lines) is shown under the move in
        the acknowledgement (e.g. the player's grid after the placement).

        ``move``: what :meth:`read_move` made of ``text`` when the caller has read it
        already (the parsed move, or the :class:`NotationError` it raised; a ``syntax``
        report then), so the line is not parsed twice; None: read ``text`` here. The
        service calls it through :meth:`check_read`, which leaves ``move`` out for an
        implementation that does not take it (it then reads ``text`` again)."""

    #: Whether a letter standing alone (``B3 Ö``, ``Wunsch: Ö``, ``M13 Ö ÖL``) or in a written
    #: grid row stands on one field, so that a letter the alphabet spells with two (Ö = OE)
    #: cannot stand there (:func:`bot.lexicon.alphabet.spell_line`): Crossword, Wer behält
    #: recht?.
    one_square_letters: bool = False

    def spell(self, text: str, options: Mapping[str, Any] | None = None) -> "Spelled":
        """A move line as the player typed it, in the game's own spelling (issue 33):
        ``(text, None)`` with ``Ä Ö Ü ß`` written as this game's alphabet writes them
        (``ÖLE`` -> ``OELE`` in Rondo, Crossword and Typ-Dom, seed 000 II.1 a; Monoscrabble
        keeps its Ä Ö Ü tiles; RONDO in Dutch drops accents, ``RUÏNE`` -> ``RUINE``), case
        kept (lower case keeps its meaning: an old card, a tile on the board), and
        ``verdict`` None; or, when a letter cannot stand where it is written, ``text``
        unchanged and ``verdict`` the public ``syntax`` verdict that names the letter and
        how to write it (``probe``: the line with that letter replaced by one the game
        takes, to tell a move from prose). The alphabet is the
        league's (:meth:`lexicon_alphabets`: RONDO may play with German words). Never raises."""
        try:
            alpha = alphabet_for_game(self.lexicon_alphabets(options)[0])
        except Exception:  # a test game without a known alphabet: nothing to spell
            return Spelled(text)
        sp = spell_line(text, alpha, one_square=self.one_square_letters)
        if not sp.problems:
            return Spelled(sp.text)
        ch, spelled, why = sp.problems[0]
        if why == "joker":
            msgid = N_("*{ch} geht nicht: hinter * steht genau ein Buchstabe, und {ch} wird in "
                       "diesem Spiel {spelled} geschrieben (zwei Buchstaben). Bitte die beiden "
                       "Buchstaben einzeln schreiben.")
        elif why == "square":
            msgid = N_("{ch} geht hier nicht: ein Feld hält genau einen Buchstaben, und {ch} wird "
                       "in diesem Spiel {spelled} geschrieben (zwei Felder).")
        elif spelled:
            msgid = N_("Den Buchstaben {ch} kennt dieses Spiel nicht: bitte {spelled} schreiben "
                       "(ohne Akzent).")
        else:
            msgid = N_("Den Buchstaben {ch} kennt dieses Spiel nicht: geschrieben wird mit "
                       "{letters}.")
        letters = "A-Z" + "".join(", " + c for c in alpha.letters if c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return Spelled(text, Verdict("syntax", msgid, {"ch": Param(ch, Visibility.PUBLIC),
                                               "spelled": Param(spelled, Visibility.PUBLIC),
                                               "letters": Param(letters, Visibility.PUBLIC)},
                             None, Visibility.PUBLIC), sp.probe)

    def check_read(self, state: Mapping[str, Any], text: str, move: Any, lexicon: Any, index: int = 0, *,
                   player: str | None = None) -> MoveReport:
        """:meth:`check_line` with the move the caller read already (``move``: the result
        of :meth:`read_move` or the :class:`NotationError` it raised, None: not read) when
        this game's ``check_line`` takes a ``move`` keyword, else with ``text`` alone.
        A line with a letter the game cannot take where it stands (:meth:`spell`; the
        service stores such a line as written) makes the move a ``syntax`` report with
        that verdict."""
        if not text.isascii():
            for line in text.splitlines():
                problem = self.spell(line).verdict
                if problem is not None:
                    return MoveReport(index, text, False, reason="syntax", verdict=problem)
        if move is not None and _takes_move(type(self)):
            return self.check_line(state, text, lexicon, index, player=player, move=move)
        return self.check_line(state, text, lexicon, index, player=player)

    @abstractmethod
    def adjudicate(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                   lexicon: Any, *, seed: str, partie: str, last_round: bool = False,
                   received: Mapping[str, datetime] | None = None) -> RoundReport:
        """Adjudicate the open round: ``submissions`` maps every player key that takes
        part in this round to their move lines (main move first) or None when nothing
        arrived (NMR). A key missing from ``submissions`` is a player no longer in the
        league (removed by the GM). ``received``: when each player's counted mail reached
        the server (aware datetimes), for games where arrival order matters (Presto)."""

    @abstractmethod
    def public_view(self, state: Mapping[str, Any]) -> dict:
        """The public part of the state (for ``show --json``, the templates and the
        archive). Never contains private information (racks, hands, hidden grids)."""

    def merge_move(self, earlier: Sequence[str], later: Sequence[str]) -> list[str]:
        """The move texts that stand after a player's later mail ``later`` for a Partie
        and round in which their mail ``earlier`` was read before (both as the service
        stores them: the main move first, then the Ersatzzuege; one text of ``\n``-joined
        lines for a :attr:`multiline` game). Default: the later mail replaces the earlier
        one (RULES.md "Common to all games": "A later mail before the ZAT replaces the
        earlier one"). A game whose move has parts (Crossword: placement, wish, word list;
        RONDO: exchanges and word) returns the earlier move with only the parts the later
        mail contains replaced (issue 24); the service then stores and acknowledges the
        result as the whole move. Never raises: an unreadable text is replaced."""
        return list(later)

    #: The game's one rule for a correction, as a msgid (N_), said in the acknowledgement,
    #: the Auswertung and the help (issue 32: one rule, one sentence); None: the shared
    #: wording (a later mail replaces the earlier one, RULES.md "Common to all games").
    replace_rule: str | None = None
    #: What the points of an acknowledgement are reckoned on, as a msgid (N_), in the
    #: game's word for its board (issue 32: "Auslage" is Rondo's, "Brett" Monoscrabble's).
    points_rule: str = N_("Die Punkte gelten für die Auslage von jetzt.")
    #: ``(mark, msgid)``: a move line holding ``mark`` gets the key ``msgid`` (N_) once in
    #: an acknowledgement, as the board has its own key (issue 32: Monoscrabble's ``*X``
    #: is a Blanko); None: the game's move lines need no key.
    move_key: tuple[str, str] | None = None

    def example_move(self, state: Mapping[str, Any]) -> list[str] | None:
        """Notation lines (main move first, then Ersatzzüge) of a move written against the
        open round of ``state``, for a mail's example of the notation: it uses only free
        fields and cards or letters the position has, so it never contradicts what the
        player sees, but it is no suggestion (not checked against the word list, and the
        mail labels it "nur die Schreibweise"). No sentence, only notation (issue 32).
        A game may return its own notation data instead of lines when its templates
        print it (Typ-Dom: ``{"coord", "word", ...}``). None: the game gives no example
        for this position (or at all: the default)."""
        return None

    def player_view(self, state: Mapping[str, Any], player: str) -> dict:
        """What only ``player`` may see of ``state`` (their rack, hand or grid); ``{}``
        for games without private state. Rendered into that player's mails only; the
        game master's copy and ``show --json`` get every player's."""
        return {}

    def movers(self, state: Mapping[str, Any]) -> list[str] | None:
        """The player keys who are to move in the open round (a turn: one player), or
        None when every player moves. Mails from others get a German "not your turn"
        answer; only movers are reminded and scored NMR."""
        return None

    def out_note(self, state: Mapping[str, Any], player: str) -> Verdict | None:
        """Why ``player`` sends no more moves in this Partie because they are out of it
        (since when, why), as a verdict addressed to them, or None when they are not out.
        The service answers their mail with it instead of "not your turn". Default: None."""
        return None

    def round_complete(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                       lexicon: Any, *, received: Mapping[str, datetime] | None = None) -> bool:
        """True when the open round may be adjudicated before its ZAT (the service asks
        after every submission): e.g. the player whose turn it is sent a valid move.
        ``submissions`` as for :meth:`adjudicate`. Default: never before the ZAT."""
        return False

    def closed_note(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                    lexicon: Any, *, received: Mapping[str, datetime] | None = None,
                    names: Mapping[str, str] | None = None) -> str | None:
        """A German sentence for a mail that arrives after the open round was decided
        before its ZAT (e.g. a Presto race after the second valid crossword: that the race
        is over and how it ended), or None when the round still takes moves. The service
        then stores nothing of the mail. ``submissions``, ``received`` as for
        :meth:`round_complete`; ``names``: player key -> display name. Default: None."""
        return None

    def standings_note(self, state: Mapping[str, Any], player: str, lang: str = "de") -> str:
        """Something the standings show after a player's points (``STAND``), e.g. RONDO's
        marks: ``"  2 Striche"``; ``""`` by default. ``lang``: ``de`` or ``nl``."""
        return ""

    def lexicon_alphabets(self, options: Mapping[str, Any] | None = None) -> tuple[str, ...]:
        """The alphabets (word lists, :mod:`bot.lexicon`) whose union is a league's
        lexicon, from the league options; default: :attr:`alphabet` alone. RONDO picks
        Dutch or German and adds names or foreign words on request."""
        return (self.alphabet,)

    def finished(self, state: Mapping[str, Any]) -> bool:
        """Whether this Partie is over (no further rounds)."""
        return bool(state.get("finished"))

    # -- visibility (docs/development/privacy.md) -------------------------------------------------------
    def reason_gloss(self, reason: str | None) -> "Verdict | str":
        """The plain public gloss of a reason code, shown to others when a move of a game
        with private state has no ``public`` text; default ``""``."""
        return ""

    def move_text_public(self, state: Mapping[str, Any]) -> bool:
        """Whether the move lines of a round are public once it is adjudicated (``state``:
        the Partie's state after the round). Crossword: only after the end (a placement
        names fields and letters of a private grid). Default: True."""
        return True

    def seen_by(self, pl: Mapping[str, Any], audience: Audience, state: Mapping[str, Any],
                lang: str = "de") -> dict[str, Any]:
        """One player's round data (the :class:`PlayerRound` JSON) as ``audience`` may see
        it, its verdicts rendered in ``lang`` (:mod:`bot.games.verdict`); ``state`` the
        Partie's state after the round. The mover and the game master get it whole
        (:func:`render_move`). Everybody else gets, per move line:

        - in a game without private state: the verdict and notes wherever every parameter
          is public (else the ``public`` verdict, else "ungültig");
        - in a game with :attr:`private_state` (docs/development/privacy.md, issue 31): the
          counted line with its ``public`` verdict and public notes; every other line only
          as "ungültig" (tried before the counted one, or nothing counted) or "nicht mehr
          probiert" (after it), with no text, reason, notes or detail: which check failed,
          and in which order, depends on what the player holds;

        the move line itself only when :meth:`move_text_public`, the detail without
        :attr:`private_detail`, and ``private`` as a :class:`Redacted` dict that raises
        when a private key is read."""
        owner = str(pl["player"])
        if audience.sees(owner, Visibility.MOVER):
            return dict(pl, moves=[render_move(m, lang, audience, owner) for m in pl.get("moves", [])])
        text_public = self.move_text_public(state)
        hidden = texts(lang).gettext(self.hidden_move_text)
        counted = pl.get("counted")
        moves = []
        for m in pl.get("moves", []):
            if self.private_state and m.get("index") != counted:
                generic = NOT_TRIED if counted is not None and m.get("index", 0) > counted else INVALID
                moves.append({"index": m.get("index"), "text": hidden, "valid": False, "score": None,
                              "bonus": None, "reason": None, "message": generic.render(lang, audience, owner),
                              "notes": [], "detail": {}})
                continue
            main = _stored_verdict(m)
            pub = as_verdict(m.get("public"), Visibility.PUBLIC)
            if not self.private_state and main.visible(audience, owner):
                msg = main.render(lang, audience, owner)
            elif pub is not None and pub.visible(audience, owner):
                msg = pub.render(lang, audience, owner)
            elif main.visible(audience, owner):
                msg = main.render(lang, audience, owner)
            else:
                msg = (VALID_UNUSED if m.get("valid") else INVALID).render(lang, audience, owner)
            raw_notes = m.get("public_notes")
            if raw_notes is None and not self.private_state:
                raw_notes = m.get("notes")
            notes = [v.render(lang, audience, owner) for v in map(as_verdict, raw_notes or [])
                     if v is not None and v.visible(audience, owner)]
            detail = _render_detail({k: v for k, v in (m.get("detail") or {}).items()
                                     if k not in self.private_detail}, lang, audience, owner)
            seen = {k: v for k, v in m.items() if k not in ("verdict", "public", "public_notes")}
            seen.update(message=msg, notes=notes, detail=detail)
            if not text_public:
                seen.update(text=hidden, detail={}, notes=[], message=pub.render(lang, audience, owner)
                            if pub is not None and pub.visible(audience, owner) else "")
            moves.append(seen)
        priv = pl.get("private") or {}
        shown = {k: v for k, v in priv.items() if k in self.public_round_keys}
        return dict(pl, moves=moves, private=Redacted(shown, set(priv) - set(shown)))

    def gm_picture(self, state: Mapping[str, Any], names: Mapping[str, str], *, zat: str | None = None) -> list[str]:
        """The text lines ``spielleiter show NAME`` prints for one Partie, for the game
        master alone: the picture its Auswertung uses plus every private part (racks,
        hands, grids, whose turn). ``names``: player key -> display name (seat order);
        ``zat``: the open round's ZAT as text. Default: the public view's scalar fields
        and board picture, then each player's :meth:`player_view` on a line."""
        view = self.public_view(state)
        lines = [", ".join(f"{k} {v}" for k, v in view.items()
                           if isinstance(v, (str, int)) and not isinstance(v, bool) and k not in ("grid_text", "name"))]
        lines += str(view.get("grid_text") or "").splitlines()
        for key, name in names.items():
            mine = self.player_view(state, key)
            if mine:
                lines.append(f"{name}: " + ", ".join(f"{k} {v}" for k, v in mine.items() if isinstance(v, (str, int))))
        return lines

    def player_fields(self) -> frozenset[str]:
        """Keys in this game's views whose values name players by key (``show --json``
        puts the player's address there instead). Dict keys that are player keys are
        replaced everywhere."""
        return frozenset({"player", "players", "seat_order", "order", "seats", "sides", "active", "out", "first_out",
                          "winner", "winners", "mover", "movers", "author", "leader", "starter", "opener", "moved",
                          "candidates", "chosen", "partners", "tied", "from", "to"})


@lru_cache(maxsize=None)
def _takes_move(cls: type) -> bool:
    """Whether ``cls.check_line`` takes the ``move`` keyword (games written before it
    was added do not, and get the text alone)."""
    params = inspect.signature(cls.check_line).parameters
    return "move" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
