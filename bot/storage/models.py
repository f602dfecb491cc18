"""Database models. SQLite is the embedded default; the same models run on PostgreSQL.

Every stage of the mail flow is joined by these tables, so a crash between two
stages loses nothing: ``inbound_mails`` (raw mail, stored first) -> ``submissions``
(+ ``submission_moves``) -> ``adjudications``/``results`` -> ``outbox``.
All times are aware UTC datetimes (:class:`UTCDateTime`).
"""

from __future__ import annotations

import zlib
from datetime import date, datetime, timezone
from typing import Any

from sqlalchemy import (JSON, BigInteger, Boolean, Date, DateTime, ForeignKey, Index, Integer, LargeBinary, String, Text,
                        TypeDecorator, UniqueConstraint, false, func)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from bot.packing import Packed, unpack


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator):
    """An aware UTC datetime on every backend (SQLite keeps no zone: we add it back)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; the bot stores aware UTC times only")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class CompressedBytes(TypeDecorator):
    """Bytes stored compressed when that saves room (an outgoing mail of a round: a large
    Auswertung in text and HTML shrinks to about a fifth); read back unchanged. A value
    made with its compressed form alongside (:class:`bot.packing.Packed`: the shared
    parts of a round's mails compressed once) is stored in that form (:data:`DEFLATE`
    and a raw-deflate stream), any other long one zlib-compressed (:data:`MARK`); no mail
    starts like either (a mail starts with a header line), so rows written before stay
    readable as they are."""

    impl = LargeBinary
    cache_ok = True
    MARK = b"\x00zlib\x00"
    DEFLATE = b"\x00defl\x00"
    #: values shorter than this are stored as they are
    MIN_SIZE = 2048

    def process_bind_param(self, value: bytes | None, dialect: Any) -> bytes | None:
        if value is None or len(value) < self.MIN_SIZE:
            return value if value is None else bytes(value)
        if isinstance(value, Packed):
            packed = self.DEFLATE + value.packed
        else:
            packed = self.MARK + zlib.compress(bytes(value), 3)
        return packed if len(packed) < len(value) else bytes(value)

    def process_result_value(self, value: bytes | None, dialect: Any) -> bytes | None:
        if value is None:
            return None
        head = bytes(value[:len(self.MARK)])
        if head == self.MARK:
            return zlib.decompress(bytes(value)[len(self.MARK):])
        if head == self.DEFLATE:
            return unpack(bytes(value)[len(self.DEFLATE):])
        return bytes(value)


class Base(DeclarativeBase):
    type_annotation_map = {datetime: UTCDateTime, dict[str, Any]: JSON, list[Any]: JSON}


class League(Base):
    """A league: one game, several Partien played at once, one standings table."""

    __tablename__ = "leagues"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    game: Mapped[str] = mapped_column(String(40))
    seed: Mapped[str] = mapped_column(String(100))
    rounds: Mapped[int] = mapped_column(Integer)
    first_zat: Mapped[datetime]
    zat_interval_days: Mapped[int] = mapped_column(Integer, default=7)
    timezone: Mapped[str] = mapped_column(String(64), default="Europe/Berlin")
    gm_email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    allow_words: Mapped[list[Any]] = mapped_column(JSON, default=list)
    deny_words: Mapped[list[Any]] = mapped_column(JSON, default=list)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(20), default="running")  # running | finished
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: every submission must carry the player's personal code (``Code: ...``)
    require_code: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: hash of the game master's code (GM commands by mail need address and code)
    gm_code_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    #: paused: ZATs do not fire until resumed
    paused: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: since when and by whom the league is paused (``cli``, ``mail <address>``, ``zurueck``);
    #: None while it runs (``show``, the archive and ``gm status`` say so; issue 33)
    paused_at: Mapped[datetime | None] = mapped_column(nullable=True)
    paused_by: Mapped[str | None] = mapped_column(String(254), nullable=True)
    #: review mode: each Auswertung waits in the outbox (status ``held``) for the GM's release
    review: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: hours before each ZAT at which players without a submission are reminded (0: never)
    reminder_hours: Mapped[int] = mapped_column(Integer, default=24, server_default="24")

    partien: Mapped[list["Partie"]] = relationship(back_populates="league", order_by="Partie.id")
    players: Mapped[list["Player"]] = relationship(back_populates="league", order_by="Player.id")
    rounds_: Mapped[list["Round"]] = relationship(back_populates="league", order_by="Round.number")


class Partie(Base):
    """One game of a league; ``state`` is the game's JSON state (see the rules module)."""

    __tablename__ = "partien"
    __table_args__ = (UniqueConstraint("league_id", "name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    name: Mapped[str] = mapped_column(String(40))
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)

    league: Mapped[League] = relationship(back_populates="partien")


class Player(Base):
    __tablename__ = "players"
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    name: Mapped[str] = mapped_column(String(100))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    joined_round: Mapped[int] = mapped_column(Integer, default=1)
    #: hash of the player's personal code (never the code itself)
    code_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    #: holiday (URLAUB), league-local dates; no reminders in that time
    away_from: Mapped[date | None] = mapped_column(Date, nullable=True)
    away_to: Mapped[date | None] = mapped_column(Date, nullable=True)

    league: Mapped[League] = relationship(back_populates="players")
    addresses: Mapped[list["PlayerAddress"]] = relationship(back_populates="player", order_by="PlayerAddress.id")

    @property
    def email(self) -> str:
        """Where reports go: the first (registered) address, unless it bounces permanently
        and another address does not; "" without any address."""
        good = next((a.email for a in self.addresses if a.bounced_at is None), None)
        return good or (self.addresses[0].email if self.addresses else "")


class PlayerAddress(Base):
    """A player's mail address (lower case); a player may have several."""

    __tablename__ = "player_addresses"
    __table_args__ = (UniqueConstraint("player_id", "email"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    email: Mapped[str] = mapped_column(String(254), index=True)

    #: a permanent bounce (flufl.bounce) of a mail to this address: when, and the server's words;
    #: reports then go to the player's other addresses; cleared when the player writes from it again
    bounced_at: Mapped[datetime | None] = mapped_column(nullable=True)
    bounce_reason: Mapped[str | None] = mapped_column(Text, nullable=True)

    player: Mapped[Player] = relationship(back_populates="addresses")


class AddressChange(Base):
    """A player's ``ADRESSE`` that is not proven yet: no personal code, and the receiving
    server did not authenticate the sender (issue 31, "an address change must be
    proven"). It waits for the game master: ``status`` ``pending`` -> ``confirmed``
    (``gm adresse ok``: the address is added and becomes the first) | ``refused`` (``gm
    adresse nein``, or the player's ``ADRESSE NEIN``) | ``superseded`` (a later ``ADRESSE``
    of the same player). Until it is confirmed, ``email`` gets nothing."""

    __tablename__ = "address_changes"
    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    #: the address asked for (lower case)
    email: Mapped[str] = mapped_column(String(254))
    #: the player's first address when it was asked for (it was told at once)
    old_email: Mapped[str] = mapped_column(String(254))
    #: the sender of the ``ADRESSE`` mail, and the mail
    from_addr: Mapped[str | None] = mapped_column(String(254), nullable=True)
    mail_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_mails.id"), nullable=True)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    requested_at: Mapped[datetime] = mapped_column(default=utcnow)
    decided_at: Mapped[datetime | None] = mapped_column(nullable=True)
    #: who decided: ``gm`` (by mail), ``cli``, ``player`` (ADRESSE NEIN), ``adresse`` (a later ADRESSE)
    decided_by: Mapped[str | None] = mapped_column(String(20), nullable=True)

    player: Mapped["Player"] = relationship()


class Round(Base):
    """A round of a league (all its Partien share the ZAT)."""

    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("league_id", "number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    number: Mapped[int] = mapped_column(Integer)
    zat: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(20), default="open")  # open | adjudicated
    adjudicated_at: Mapped[datetime | None] = mapped_column(nullable=True)
    reminded_at: Mapped[datetime | None] = mapped_column(nullable=True)

    league: Mapped[League] = relationship(back_populates="rounds_")


class Vorgabe(Base):
    """The cards/letters given to a Partie for a round (kept for every round)."""

    __tablename__ = "vorgaben"
    __table_args__ = (UniqueConstraint("partie_id", "round_number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    partie_id: Mapped[int] = mapped_column(ForeignKey("partien.id"))
    round_number: Mapped[int] = mapped_column(Integer)
    cards: Mapped[str] = mapped_column(String(40))
    drawn_at: Mapped[datetime] = mapped_column(default=utcnow)


class InboundMail(Base):
    """Every received mail, stored raw before anything else happens to it.

    ``status``: ``stored`` (not yet read) -> ``processed`` | ``ignored`` | ``rejected`` | ``error``.
    ``sha256`` of the bytes as received: the same bytes are stored once. ``message_id``,
    ``content_sha256`` and ``received_at`` (the arrival time) are read from the headers at
    reading (:func:`bot.service.conversations.intake.identify`; until then ``received_at`` is the time
    of storing): a re-delivery, the same Message-ID with the same content, is read as a
    repeat (``ignored``, ``parse["duplicate_of"]``), while a different mail reusing a
    Message-ID is read as a new one. A mail larger than
    ``[bot] max_mail_bytes`` is stored cut to that size; ``raw_size`` then says how large it was.
    """

    __tablename__ = "inbound_mails"
    __table_args__ = (Index("ix_inbound_mails_status", "status"),
                      Index("ix_inbound_mails_repeat_key", "repeat_key", "received_at"))
    id: Mapped[int] = mapped_column(primary_key=True)
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    source: Mapped[str] = mapped_column(Text)  # imap:<folder> | maildir | ingest | demo
    #: IMAP UIDVALIDITY and UID are unsigned 32-bit: above PostgreSQL's integer
    uidvalidity: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    uid: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    message_id: Mapped[str | None] = mapped_column(String(500), nullable=True, index=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    #: :func:`bot.service.stages.store.content_hash`: with ``message_id`` it tells a re-delivery
    #: (same content) from a different mail reusing a Message-ID
    content_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    #: size in bytes as received when ``raw`` was cut (too large); None: stored whole
    raw_size: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    from_addr: Mapped[str | None] = mapped_column(String(254), nullable=True)
    subject: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str] = mapped_column(String(20), default="stored")
    kind: Mapped[str | None] = mapped_column(String(20), nullable=True)  # submission | command | ignored
    parse: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id"), nullable=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    #: set when the GM should look at this mail (a bounce of a report, a forged sender, ...)
    flagged: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: whose code this mail failed (missing, wrong, or a forged sender): ``player:<id>`` or
    #: ``gm:<league id>``; counts wrong codes per owner and hour
    auth_failure: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    #: :func:`bot.service.conversations.loops.repeat_key`: sender, subject and text as read,
    #: normalised; an identical mail within an hour of an answered one is answered no more
    repeat_key: Mapped[str | None] = mapped_column(String(64), nullable=True)


class Submission(Base):
    """A player's moves for one Partie and round, from one mail. A later mail before the
    ZAT supersedes it (``superseded_by``)."""

    __tablename__ = "submissions"
    __table_args__ = (Index("ix_submissions_partie_round_player", "partie_id", "round_number", "player_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    mail_id: Mapped[int] = mapped_column(ForeignKey("inbound_mails.id"))
    partie_id: Mapped[int] = mapped_column(ForeignKey("partien.id"))
    round_number: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    superseded_by: Mapped[int | None] = mapped_column(ForeignKey("submissions.id"), nullable=True)

    moves: Mapped[list["SubmissionMove"]] = relationship(order_by="SubmissionMove.position",
                                                         cascade="all, delete-orphan")


class SubmissionMove(Base):
    """One move line; ``position`` 0 is the main move, 1.. the Ersatzzuege in order."""

    __tablename__ = "submission_moves"
    __table_args__ = (UniqueConstraint("submission_id", "position"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"))
    position: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)


class Adjudication(Base):
    """The adjudication of one round of one Partie: the whole report as JSON."""

    __tablename__ = "adjudications"
    __table_args__ = (UniqueConstraint("partie_id", "round_number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    partie_id: Mapped[int] = mapped_column(ForeignKey("partien.id"))
    round_number: Mapped[int] = mapped_column(Integer)
    report: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Result(Base):
    """A player's result in one round of one Partie: ``points`` count in the standings
    (the score in Rondo, the Besser-Wertung points in Monoscrabble), ``score`` is the
    counted move's score (0 for NMR), ``submitted`` whether a mail with moves arrived."""

    __tablename__ = "results"
    __table_args__ = (UniqueConstraint("partie_id", "round_number", "player_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    partie_id: Mapped[int] = mapped_column(ForeignKey("partien.id"))
    round_number: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id"), nullable=True)
    counted: Mapped[int | None] = mapped_column(Integer, nullable=True)
    points: Mapped[int] = mapped_column(Integer)
    score: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    submitted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class OutboxMail(Base):
    """A mail to send, rendered completely (``raw``) when it is queued, so a resend is
    byte-identical. ``key`` is unique per logical mail (e.g. ``auswertung:3:5:7``), so a
    crash and re-run never queues a second, different version. ``status``: pending |
    held (review mode: waits for the GM) | sent | failed. ``raw`` is stored compressed
    (:class:`CompressedBytes`; read through the model it is the mail's bytes)."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status", "status"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(30))  # ack | auswertung | error | welcome
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id"), nullable=True)
    round_number: Mapped[int | None] = mapped_column(Integer, nullable=True)
    to_addr: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(Text)
    message_id: Mapped[str] = mapped_column(String(300), unique=True)
    raw: Mapped[bytes] = mapped_column(CompressedBytes)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    next_attempt_at: Mapped[datetime | None] = mapped_column(nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(nullable=True)
    #: the sender that claimed the row for sending (``host:pid:start``) and when
    #: (:func:`bot.service.stages.outbox.deliver`); cleared after the attempt
    claimed_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    claimed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    #: a game master's notice waiting to be merged with the next ones of its league
    #: (:func:`bot.service.conversations.gm.announce`): the notices' subjects and texts
    #: (``[{"subject": ..., "body": ...}]``); None for every other mail
    notices: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)


class SendAttempt(Base):
    """One SMTP session begun for an outbox row, recorded (and committed) before the
    session starts, so the send limits count it even when the process dies before the
    row is marked sent (issue 34; :class:`bot.service.stages.quota.Budget`)."""

    __tablename__ = "send_attempts"
    __table_args__ = (Index("ix_send_attempts_at", "at"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    outbox_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    at: Mapped[datetime] = mapped_column()


class ServiceLease(Base):
    """The lease of ``spielleiter run`` (:mod:`bot.service.operations.lease`): one row
    per database (``name`` ``run``), held by the service whose heartbeat is fresh."""

    __tablename__ = "service_lease"
    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    holder: Mapped[str] = mapped_column(String(200))
    host: Mapped[str] = mapped_column(String(200))
    pid: Mapped[int] = mapped_column(Integer)
    since: Mapped[datetime] = mapped_column()
    heartbeat_at: Mapped[datetime] = mapped_column()


#: the answers to an address within an hour (bot.service.conversations.loops.gate_answers compares
#: lower-cased addresses): without it each mail's answer cap would scan the outbox
Index("ix_outbox_to_created", func.lower(OutboxMail.to_addr), OutboxMail.created_at)


class PollState(Base):
    """IMAP UIDVALIDITY and the last UID stored, per mailbox."""

    __tablename__ = "poll_state"
    mailbox: Mapped[str] = mapped_column(String(200), primary_key=True)
    uidvalidity: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_uid: Mapped[int] = mapped_column(BigInteger, default=0)
