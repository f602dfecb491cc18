"""The interface every game implements (:class:`GameRules`), and what it reads and raises.

A game module is pure: it holds a Partie's state as a JSON-compatible ``dict``,
reads and writes its move notation, validates and scores moves, adjudicates a
round and generates moves. The service layer (storage, mail, scheduling,
rendering) only calls these methods and reads the capability flags a game declares
(:data:`CAPABILITIES`); it never contains game rules and never inspects a game's code.

What the rules make of moves and rounds lives in :mod:`bot.games.reports` (:class:`MoveReport`,
:class:`PlayerRound`, :class:`RoundReport`), the privacy wrappers in :mod:`bot.games.sealed`
(:class:`Sealed`, :class:`Redacted`, :class:`Withheld`), a line's spelling in
:mod:`bot.games.spelling` (:class:`Spelled`), the shapes the service reads (:data:`State`,
:class:`PublicView` ...) in :mod:`bot.games.shapes`; all are re-exported here, so ``from
bot.games.base import MoveReport`` keeps working. The registry of games is
:mod:`bot.games.registry`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, Hashable, Mapping, Sequence

from bot.games.reports import (MoveReport, PlayerRound, RoundReport,  # noqa: F401 (re-exported)
                               render_move, round_seen_by)
from bot.games.sealed import Redacted, Sealed, Withheld  # noqa: F401 (re-exported)
from bot.games.shapes import MoveT, PublicView, State, Submissions, WordList  # noqa: F401 (re-exported)
from bot.games.spelling import Spelled, spell_for
from bot.games.verdict import N_, Param, Verdict, as_verdict
from bot.games.visibility import GM_ONLY, PUBLIC, Audience, PrivacyError, Visibility  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from bot.lexicon.rules import WordRules


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


#: The capability flags every game declares on its class (the contract test
#: tests/test_game_contract.py checks each registered game declares every one and that
#: they agree with what the game does). The service reads these, never a game's methods'
#: code: ``multiline`` (one move of several lines, no Ersatzzüge), ``merges_moves`` (a
#: later mail replaces only the parts it has, :meth:`GameRules.merge_move`),
#: ``private_state`` (moves judged against hidden racks, hands or grids),
#: ``player_views`` (:meth:`GameRules.player_view` gives each player a private part),
#: ``closes_early`` (:meth:`GameRules.round_complete` may end a round before its ZAT),
#: ``notes_closed_round`` (:meth:`GameRules.closed_note` may refuse a late mail),
#: ``turn_rounds`` (a round is one player's turn; the mails count turns),
#: ``reads_parsed_move`` (:meth:`GameRules.check_line` takes the parsed ``move``).
CAPABILITIES: tuple[str, ...] = ("multiline", "merges_moves", "private_state", "player_views", "closes_early",
                                 "notes_closed_round", "turn_rounds", "reads_parsed_move")


class GameRules(ABC, Generic[MoveT]):
    """One game's rules. Implementations are stateless; all state is passed in.
    ``GameRules[Move]``: ``Move`` is what :meth:`read_move` returns.

    **Capabilities**: every game declares each flag of :data:`CAPABILITIES` on its class; the service asks a
    game only what its flags say it does (and never looks at which methods a game overrides or what they take).

    Words reach the rules through a lexicon object with ``__contains__(word)`` and ``has_prefix(prefix)`` on
    words normalised to the game's alphabet (see :mod:`bot.lexicon`).

    Players are named by opaque string keys (the service uses ``str(player.id)``), given in seat order (the
    order of the league file) to :meth:`new_partie`.

    **Private state** (racks, hands, grids): the state dict holds every player's private part;
    :meth:`public_view` must never show it, :meth:`player_view` gives one player's own part. The service renders
    every mail from ``public_view`` (shared by all) plus, per recipient, ``player_view`` and that player's own
    :class:`PlayerRound` (with its ``private`` dict); nothing in the service knows what a rack or a grid is.
    What a round shows of one player to others goes through :meth:`seen_by` (public verdicts, hidden move lines,
    :class:`Redacted` private part); the service holds round data :class:`Sealed` (docs/development/privacy.md).
    A game with private state sets :attr:`private_state` and gives each move a ``public`` verdict;
    :meth:`gm_picture` is what ``spielleiter show`` prints for the game master.

    **Turns** (a round is one player's turn, with its own ZAT): :meth:`movers` names who is to move in the open
    round; :attr:`turn_hours` (or the league option ``turn_hours``) sets each turn's ZAT relative to the end of
    the previous one; and :meth:`round_complete` lets a round end before its ZAT (a valid move by the player
    whose turn it is, the second valid Presto crossword).
    """

    #: Game key used in league files and the database, e.g. ``"rondo"``.
    name: str
    #: Lexicon alphabet name (see ``bot.lexicon.ALPHABETS``).
    alphabet: str
    #: German display name.
    title: str
    #: The game's notation grammar, a file in ``grammar/`` (``rondo_move.lark``); a family
    #: may share one (RONDO-NL reads RONDO's).
    grammar: str
    #: Whether players may join a running league by mail (ANMELDEN); late joiners are
    #: scored as NMR for the rounds before (shared/RULES.md, Monoscrabble).
    open_join: bool = False
    #: Number of players a league of this game needs (inclusive); None: no upper bound.
    min_players: int = 1
    max_players: int | None = None
    # -- capability flags (:data:`CAPABILITIES`): every game declares each one on its class --
    #: True when all move lines of a Partie section form ONE move (Crossword: placement,
    #: wish and word list; Presto: a finished crossword). The service then passes the
    #: section's lines joined by ``"\n"`` as the only move text; there are no Ersatzzuege.
    multiline: bool = False
    #: True when a move has parts and a later mail replaces only the parts it contains
    #: (Crossword: placement, wish, word list; RONDO: exchanges and word): the game
    #: overrides :meth:`merge_move`, and the service reads the standing move to merge with.
    #: False: a later mail replaces the whole move (the service asks nothing).
    merges_moves: bool = False
    #: True for games with private state (racks, hands, grids): the public verdict of a
    #: move is then only what the game put in ``MoveReport.public`` (docs/development/privacy.md).
    private_state: bool = False
    #: True when :meth:`player_view` gives each player a private part (a rack, a hand, a
    #: grid) that goes into their own mails and the game master's ``show``; False: it is
    #: always ``{}`` and the service does not ask.
    player_views: bool = False
    #: True when :meth:`round_complete` may end a round before its ZAT (a valid move by the
    #: player whose turn it is; the second valid Presto crossword): the service asks after
    #: every poll. False: a round ends at its ZAT.
    closes_early: bool = False
    #: True when :meth:`closed_note` may refuse a mail for a round already decided before
    #: its ZAT (Presto: the race is over); the service asks before storing a mail's moves.
    notes_closed_round: bool = False
    #: True when each round after the opening is one player's turn (RONDO): the mails
    #: then name the turn ("Auswertung Zug 3", the public view's ``turn``), not the round.
    turn_rounds: bool = False
    #: True when :meth:`check_line` takes the ``move`` the service read already (the
    #: parsed move or the :class:`NotationError`), so a line is parsed once; False: the
    #: service calls it without ``move`` and the game reads ``text`` itself.
    reads_parsed_move: bool = False

    # -- words (:mod:`bot.lexicon`) --
    #: The game's word rules on top of its alphabet's word list (words the game leaves out, with the reason its
    #: verdict gives, Crossword, seed 003 section 3; and the build layer of an alphabet naming one,
    #: ``Alphabet.rules``: Typ-Dom's rewrite of the igerman98 entries, seed 002, :mod:`bot.games.typdom.words`);
    #: None: none. The service and the CLI pass them to :func:`bot.lexicon.load`, ``lexicon build`` the layers
    #: of every game to :func:`bot.lexicon.build` (the lexicon knows no game).
    word_rules: "WordRules | None" = None
    #: True when the move generator reads the full word list over a GADDAG (Typ-Dom, issue 35):
    #: ``spielleiter lexicon build`` writes its file (:mod:`bot.games.gaddag`); turns only read it.
    search_gaddag: bool = False
    #: Hours from the end of one round to the ZAT of the next when each round is one turn (RONDO, "Wer behält
    #: recht?"); None: the league's ZAT schedule (days). The league option ``turn_hours`` overrides it.
    turn_hours: float | None = None
    #: True for games whose rounds are turns that may end early ("Wer behält recht?"): each round's ZAT then
    #: counts from the end of the previous round, ``zat_interval_days`` days later (or ``turn_hours``),
    #: instead of following the league's fixed schedule.
    relative_zat: bool = False
    #: The number of rounds (ZATs) a Partie of this game always has (Crossword: 7); the league file's
    #: ``rounds`` must then be absent or equal. None: the league file's ``rounds`` (default 20) is the number
    #: of rounds, or for games that end by themselves (Typ-Dom: a player is out; see :meth:`finished`) an
    #: upper bound.
    fixed_rounds: int | None = None
    #: Rounds before the first turn of a :attr:`turn_rounds` game (RONDO's opening: 1); the standings
    #: chart counts turns from the end of these (turn 0).
    opening_rounds: int = 0
    #: Rounds of a league when its file gives none. None: the game ends by itself (a player is out, the deck
    #: is empty; see :meth:`finished`) and ``rounds`` in a league file is only an upper bound.
    default_rounds: int | None = 20
    #: Keys of a move's ``detail`` that only the mover (and the game master) sees.
    private_detail: frozenset[str] = frozenset({"picture"})
    #: Keys of a :class:`PlayerRound`'s ``private`` dict that are no secret (others' views keep them;
    #: every other key raises when read there).
    public_round_keys: frozenset[str] = frozenset()
    #: Keys of the views that hold pictures for the templates only (boards, rows): not in ``show --json``.
    picture_keys: frozenset[str] = frozenset({"cells", "grid_text", "row_pretty", "vorgabe_pretty"})
    #: What others see instead of a move line while :meth:`move_text_public` is False.
    hidden_move_text: str = N_("(verdeckt bis zum Ende der Partie)")

    def shown_number(self, round_number: int) -> int:
        """The number a player sees for round ``round_number`` (subjects, bodies, UITSLAG n): the
        turn (round minus :attr:`opening_rounds`) in :attr:`turn_rounds` games, else the round (issue 32)."""
        return round_number - self.opening_rounds if self.turn_rounds else round_number

    def turn_of(self, round_number: int) -> int | None:
        """:meth:`shown_number` in a game of turns (0: the opening), None in a game of rounds."""
        return round_number - self.opening_rounds if self.turn_rounds else None

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
                   players: Sequence[str] = ()) -> dict[str, Any]:
        """State of a new Partie with the Vorgabe of round 1 drawn; JSON-compatible.
        ``players``: the player keys in seat order (games without private state or seats
        may ignore them)."""

    @abstractmethod
    def read_move(self, text: str) -> MoveT:
        """Parse one move line in the game's notation; raises :class:`NotationError`.

        The notation is a lark grammar in ``grammar/`` read with the LALR(1) parser
        (:func:`bot.games.grammar.lalr_parser`, linear time). The service reads each
        line once, when the mail is framed (:func:`bot.submission.read_submission`), and
        hands the result on to :meth:`check_line` as ``move``."""

    @abstractmethod
    def check_line(self, state: State, text: str, lexicon: WordList, index: int = 0, *,
                   player: str | None = None, move: "MoveT | NotationError | None" = None) -> MoveReport:
        """Read and judge one move line against ``state`` (never raises for bad moves).
        ``player`` is the sender's key, for games whose moves depend on private state
        (a rack, a grid). A ``detail["picture"]`` (text lines) is shown under the move in
        the acknowledgement (e.g. the player's grid after the placement).

        ``move``: what :meth:`read_move` made of ``text`` when the caller has read it
        already (the parsed move, or the :class:`NotationError` it raised; a ``syntax``
        report then), so the line is not parsed twice; None: read ``text`` here. The
        service calls it through :meth:`check_read`, which passes ``move`` only to a game
        that declares :attr:`reads_parsed_move` (the others read ``text`` again)."""

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
        return spell_for(text, self.lexicon_alphabets(options)[0], one_square=self.one_square_letters)

    def check_read(self, state: State, text: str, move: "MoveT | NotationError | None", lexicon: WordList,
                   index: int = 0, *,
                   player: str | None = None) -> MoveReport:
        """:meth:`check_line` with the move the caller read already (``move``: the result
        of :meth:`read_move` or the :class:`NotationError` it raised, None: not read) when
        this game declares :attr:`reads_parsed_move`, else with ``text`` alone.
        A line with a letter the game cannot take where it stands (:meth:`spell`; the
        service stores such a line as written) makes the move a ``syntax`` report with
        that verdict."""
        if not text.isascii():
            for line in text.splitlines():
                problem = self.spell(line).verdict
                if problem is not None:
                    return MoveReport(index, text, False, reason="syntax", verdict=problem)
        if move is not None and self.reads_parsed_move:
            return self.check_line(state, text, lexicon, index, player=player, move=move)
        return self.check_line(state, text, lexicon, index, player=player)

    def judging_key(self, state: State) -> Hashable | None:
        """All of ``state`` that :meth:`check_read` of a read move depends on, as a hashable value, when
        that check depends on nothing else (not the player: no private state); the service may then
        remember a check by it (``bot.service.conversations.ackmoves``). None (the default): every move
        is checked afresh."""
        return None

    @abstractmethod
    def adjudicate(self, state: State, submissions: Submissions,
                   lexicon: WordList, *, seed: str, partie: str, last_round: bool = False,
                   received: Mapping[str, datetime] | None = None) -> RoundReport:
        """Adjudicate the open round: ``submissions`` maps every player key that takes
        part in this round to their move lines (main move first) or None when nothing
        arrived (NMR). A key missing from ``submissions`` is a player no longer in the
        league (removed by the GM). ``received``: when each player's counted mail reached
        the server (aware datetimes), for games where arrival order matters (Presto)."""

    @abstractmethod
    def public_view(self, state: State) -> PublicView:
        """The public part of the state (for ``show --json``, the templates and the
        archive): the keys of :class:`PublicView` the service reads, plus whatever the
        game's templates read. Never contains private information (racks, hands, hidden
        grids)."""

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
    #: ``(mark, msgid)``: a move line holding ``mark`` gets the key ``msgid`` (N_) once a
    #: mail (acknowledgement, Auswertung - the game master's copy too -, AUSWERTUNG n ALLE),
    #: as the board has its own key (issue 32: Monoscrabble's ``*X`` is a Blanko); None:
    #: the game's move lines need no key.
    move_key: tuple[str, str] | None = None

    def example_move(self, state: State) -> list[str] | dict[str, Any] | None:
        """Notation lines (main move first, then Ersatzzüge) of a move written against the
        open round of ``state``, for a mail's example of the notation: it uses only free
        fields and cards or letters the position has, so it never contradicts what the
        player sees, but it is no suggestion (not checked against the word list, and the
        mail labels it "nur die Schreibweise"). No sentence, only notation (issue 32).
        A game may return its own notation data instead of lines when its templates
        print it (Typ-Dom: ``{"coord", "word", ...}``). None: the game gives no example
        for this position (or at all: the default)."""
        return None

    def player_view(self, state: State, player: str) -> dict[str, Any]:
        """What only ``player`` may see of ``state`` (their rack, hand or grid); ``{}``
        for games without private state. Rendered into that player's mails only; the
        game master's copy and ``show --json`` get every player's."""
        return {}

    def movers(self, state: State) -> list[str] | None:
        """The player keys who are to move in the open round (a turn: one player), or
        None when every player moves. Mails from others get a German "not your turn"
        answer; only movers are reminded and scored NMR."""
        return None

    def out_note(self, state: State, player: str) -> Verdict | None:
        """Why ``player`` sends no more moves in this Partie because they are out of it
        (since when, why), as a verdict addressed to them, or None when they are not out.
        The service answers their mail with it instead of "not your turn". Default: None."""
        return None

    def round_complete(self, state: State, submissions: Submissions,
                       lexicon: WordList, *, received: Mapping[str, datetime] | None = None) -> bool:
        """True when the open round may be adjudicated before its ZAT (the service asks
        after every submission): e.g. the player whose turn it is sent a valid move.
        ``submissions`` as for :meth:`adjudicate`. Default: never before the ZAT."""
        return False

    def closed_note(self, state: State, submissions: Submissions,
                    lexicon: WordList, *, received: Mapping[str, datetime] | None = None,
                    names: Mapping[str, str] | None = None) -> Verdict | str | None:
        """Why a mail that arrives after the open round was decided (a verdict for the
        sender; a plain German sentence is read as one) arrives too late: decided
        before its ZAT (e.g. a Presto race after the second valid crossword: that the race
        is over and how it ended), or None when the round still takes moves. The service
        then stores nothing of the mail. ``submissions``, ``received`` as for
        :meth:`round_complete`; ``names``: player key -> display name. Default: None."""
        return None

    def standings_note(self, state: State, player: str, lang: str = "de") -> str:
        """Something the standings show after a player's points (``STAND``), e.g. RONDO's
        marks: ``"  2 Striche"``; ``""`` by default. ``lang``: ``de`` or ``nl``."""
        return ""

    def lexicon_alphabets(self, options: Mapping[str, Any] | None = None) -> tuple[str, ...]:
        """The alphabets (word lists, :mod:`bot.lexicon`) whose union is a league's
        lexicon, from the league options; default: :attr:`alphabet` alone. RONDO picks
        Dutch or German and adds names or foreign words on request."""
        return (self.alphabet,)

    def finished(self, state: State) -> bool:
        """Whether this Partie is over (no further rounds)."""
        return bool(state.get("finished"))

    def run_case(self, case: Mapping[str, Any], lexicon: WordList) -> dict[str, Any]:
        """One conformance case (shared/conformance/README.md) judged: the fields its
        ``expect`` names. Every game has cases (``spielleiter conformance``)."""
        raise NotImplementedError(f"{self.name}: no conformance cases")

    def top_case(self, case: Mapping[str, Any], lexicon: WordList) -> dict[str, Any]:
        """The best move of a case's position: ``{"move", "score"}`` (``spielleiter top``);
        a game without a move search raises NotImplementedError."""
        raise NotImplementedError(f"{self.name}: no move search")

    # -- visibility (docs/development/privacy.md) -------------------------------------------------------
    def reason_gloss(self, reason: str | None) -> "Verdict | str":
        """The plain public gloss of a reason code, shown to others when a move of a game
        with private state has no ``public`` text; default ``""``."""
        return ""

    def move_text_public(self, state: State) -> bool:
        """Whether the move lines of a round are public once it is adjudicated (``state``:
        the Partie's state after the round). Crossword: only after the end (a placement
        names fields and letters of a private grid). Default: True."""
        return True

    def seen_by(self, pl: Mapping[str, Any], audience: Audience, state: State,
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
        return round_seen_by(pl, audience, lang, private_state=self.private_state,
                             text_public=self.move_text_public(state), hidden_text=self.hidden_move_text,
                             private_detail=self.private_detail, public_round_keys=self.public_round_keys)

    def gm_picture(self, state: State, names: Mapping[str, str], *, zat: str | None = None) -> list[str]:
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

    #: The demo's leagues of this game (``spielleiter demo`` plays them in registry order):
    #: each a league file's keys without ``game`` (``name``, ``partien``, ``rounds``,
    #: ``options`` ...) plus the demo's own: ``players`` (the players' styles in seat order,
    #: e.g. :data:`bot.games.demoplay.GERMAN_STYLES`; the demo names them), ``eml`` (the
    #: start of the .eml files' names), ``joiner`` (the style of a player who joins by mail,
    #: and in which round), ``max_rounds`` (the
    #: demo stops there, for games that end by themselves), ``rounds_option`` (the option
    #: counting the rounds of a game whose league file has none).
    demo_leagues: tuple[Mapping[str, Any], ...] = ()

    def demo_player(self, view: Mapping[str, Any], rng: Any, *, lexicon: Any = None,
                    style: str = "stark") -> list[Any] | None:
        """What a simulated player of ``style`` mails for one Partie in the open round
        (``spielleiter demo`` plays every game through this hook alone; the styles:
        :mod:`bot.games.demoplay`). ``view``: what the player sees of the Partie, as their
        start mail gets it (:func:`bot.service.domain.league.partie_views`: the
        :meth:`public_view` with ``name``, ``names``, ``example`` and ``mine``, their
        :meth:`player_view`) plus ``player``, their own key; ``rng`` a
        :class:`random.Random` (the demo seeds it, so its leagues replay alike);
        ``lexicon`` the league's word list. Returns the player's mails for this Partie in
        order (:class:`~bot.games.demoplay.DemoMail`: the section's move lines, and when
        the mail arrives; a second mail corrects the first), or None to send nothing
        (NMR; also for a player not to move). Default: None (the game has no demo player).
        A game's demo player lives in its own package (``bot/games/<game>/demo.py``)."""
        return None


