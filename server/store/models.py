"""The schema: typed SQLAlchemy 2.x models (``docs/store.md`` draws it).

Every constraint and index is named by :data:`NAMING_CONVENTION`, so migrations can name what they
alter on both databases. Ids are strings chosen by the hub (``p-…``, ``m-…``); timestamps are
timezone-aware UTC (:class:`~server.store.types.UTCDateTime`); JSON documents are ``sa.JSON``.

The migrations in ``migrations/versions/`` must build exactly this schema:
``tests/store/test_migrations.py`` compares them (the ``alembic check`` of CI) on SQLite and
PostgreSQL.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Text,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from server.store.types import UTCDateTime

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Column presets.
ID_LENGTH = 64
STEP_SOURCE_LENGTH = 16  # steps.source: "player", "bot", "timeout", "disconnected", "left"
entity_id = Annotated[str, mapped_column(String(ID_LENGTH), primary_key=True)]
sha256_hex = Annotated[str, mapped_column(String(64))]
short_text = Annotated[str, mapped_column(String(64))]
timestamp = Annotated[datetime, mapped_column(UTCDateTime())]
optional_timestamp = Annotated[datetime | None, mapped_column(UTCDateTime())]
seat_number = Annotated[int, mapped_column(Integer)]
json_doc = Annotated[Any, mapped_column(JSON)]
# Python None is SQL NULL (not the JSON document ``null``).
optional_json_doc = Annotated[Any, mapped_column(JSON(none_as_null=True), nullable=True)]

ACCOUNT_KINDS = ("guest", "player", "bot")
MATCH_STATUSES = ("running", "completed", "aborted")
HAND_OUTCOMES = ("won", "drawn")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class AccountRow(Base):
    """A guest, registered player or bot. Only sha256 of the API token is stored."""

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint(_one_of("kind", ACCOUNT_KINDS), name="kind"),
        # Players and bots have unique names; guests may share theirs.
        Index(
            "uq_accounts_registered_name",
            "name",
            unique=True,
            sqlite_where=text("kind != 'guest'"),
            postgresql_where=text("kind != 'guest'"),
        ),
    )

    id: Mapped[entity_id]
    name: Mapped[short_text]
    kind: Mapped[str] = mapped_column(String(16))
    scopes: Mapped[json_doc]  # sorted list of scope names
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_at: Mapped[timestamp]
    revoked_at: Mapped[optional_timestamp]


class SessionRow(Base):
    """A resumable session (the ``session_token`` of ``welcome``), hashed."""

    __tablename__ = "sessions"

    id: Mapped[entity_id]
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    account_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[timestamp]
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class MatchRow(Base):
    """One match: what rules, which commitments, which versions; the seed once it is over."""

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint(_one_of("status", MATCH_STATUSES), name="status"),
        # Commit-reveal: the seed is public only once the match can no longer be played.
        CheckConstraint("seed_hex IS NULL OR status != 'running'", name="seed_revealed_after_end"),
    )

    id: Mapped[entity_id]
    # The exact canonical document: ruleset_hash is computed over these bytes, so it is kept as
    # text, not re-serialised JSON.
    ruleset_json: Mapped[str] = mapped_column(Text)
    ruleset_hash: Mapped[str] = mapped_column(String(64), index=True)
    seed_commitment: Mapped[sha256_hex]
    seed_hex: Mapped[str | None] = mapped_column(String(256))
    engine_version: Mapped[str] = mapped_column(String(32))
    wall_algorithm: Mapped[short_text]
    status: Mapped[str] = mapped_column(String(16), index=True)
    source: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    ended_at: Mapped[optional_timestamp]
    # Why it ended when that is not obvious ("diverged: ...", "unrecoverable: ...", "table failed").
    status_reason: Mapped[str | None] = mapped_column(Text)
    # Cluster mode (migration 0007, docs/scaling.md): the node that owns the running match and the
    # fencing token it acquired; every append of that node is checked against it.
    owner_node: Mapped[str | None] = mapped_column(String(64))
    fence: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    # How many seats play it: 4, or 3 for a three-player ruleset (migration 0010; admin search's
    # ``seats`` filter). Matches stored before it were counted from their seat rows.
    seat_count: Mapped[int] = mapped_column(SmallInteger, server_default=text("4"), index=True)

    seats: Mapped[list[SeatRow]] = relationship(
        back_populates="match", order_by="SeatRow.seat", lazy="raise", passive_deletes=True
    )
    hands: Mapped[list[HandResultRow]] = relationship(
        order_by="HandResultRow.hand_index", lazy="raise", viewonly=True
    )
    results: Mapped[list[MatchResultRow]] = relationship(
        order_by="MatchResultRow.seat", lazy="raise", viewonly=True
    )


class MatchRecoveryRow(Base):
    """What a restarted server needs to resume a running match: the SECRET seed (every wall follows
    from it) and the table's settings. A table of its own so that nothing reading ``matches`` can
    reveal the seed before ``matches.seed_hex`` does, at the end."""

    __tablename__ = "match_recovery"

    match_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seed_hex: Mapped[str] = mapped_column(String(256))
    table_settings: Mapped[optional_json_doc]  # {"timers": {...}, "spectate": {...}}


class SeatRow(Base):
    """Who sits where in a match (built-in bots have no account)."""

    __tablename__ = "seats"
    __table_args__ = (CheckConstraint("seat BETWEEN 0 AND 3", name="seat"),)

    match_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[seat_number] = mapped_column(primary_key=True)
    account_id: Mapped[str | None] = mapped_column(String(ID_LENGTH), ForeignKey("accounts.id"), index=True)
    name: Mapped[short_text]
    kind: Mapped[str] = mapped_column(String(16))
    bot: Mapped[str | None] = mapped_column(String(64))

    match: Mapped[MatchRow] = relationship(back_populates="seats", lazy="raise")


class StepRow(Base):
    """The append-only event log: step ``k`` of a match is the action applied at engine step
    ``k - 1`` (step 0: the deal) with every event it produced, omniscient."""

    __tablename__ = "steps"
    __table_args__ = (CheckConstraint("step >= 0", name="step"),)

    match_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    step: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[optional_json_doc]
    events: Mapped[json_doc]  # list of event objects, in the step's format_version
    request_id: Mapped[int | None] = mapped_column(BigInteger)
    applied_at: Mapped[timestamp]
    # Who decided: player, bot, timeout, disconnected, left (StepRecord.source); NULL for the deal and
    # for rows stored before migration 0003. No CHECK: adding one would rebuild ``steps`` on SQLite.
    source: Mapped[str | None] = mapped_column(String(STEP_SOURCE_LENGTH))
    # The event-log format of events and action (server.eventlog.codec); rows stored before
    # migration 0004 are format 1, which the default gives them.
    format_version: Mapped[int] = mapped_column(SmallInteger, server_default=text("1"))
    # Each seat's time bank left after this step, in ms, by seat (StepRecord.banks); NULL for rows
    # stored before migration 0005. Crash recovery restarts the pending decision with these banks.
    banks: Mapped[optional_json_doc]


class HandResultRow(Base):
    """One hand of a match, projected from the step log in the same transaction as the steps
    (``server.store.projection``): how it started, how it ended, and the revealed wall."""

    __tablename__ = "hand_results"
    __table_args__ = (CheckConstraint(_one_of("outcome", HAND_OUTCOMES), name="outcome"),)

    match_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    hand_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_wind: Mapped[int]
    kyoku: Mapped[int]
    honba: Mapped[int]
    riichi_sticks: Mapped[int]
    dealer: Mapped[seat_number]
    scores_before: Mapped[json_doc]
    wall_commitment: Mapped[sha256_hex]
    start_step: Mapped[int]
    end_step: Mapped[int | None]
    outcome: Mapped[str | None] = mapped_column(String(16))  # None while the hand is played
    draw_reason: Mapped[str | None] = mapped_column(String(32))
    wins: Mapped[json_doc]  # one object per winner: seat, from_seat, yaku, han, fu, points, ...
    tenpai: Mapped[optional_json_doc]  # drawn hands: tenpai flag per seat
    nagashi: Mapped[optional_json_doc]  # drawn hands: seats paid nagashi mangan
    deltas: Mapped[optional_json_doc]
    scores_after: Mapped[optional_json_doc]
    wall_salt: Mapped[str | None] = mapped_column(String(128))
    wall: Mapped[optional_json_doc]  # the revealed wall, mpsz tile names


class MatchResultRow(Base):
    """Final standings, one row per seat."""

    __tablename__ = "match_results"

    match_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[seat_number] = mapped_column(primary_key=True)
    score: Mapped[int]
    rank: Mapped[int]
    final_points: Mapped[float] = mapped_column(Float)


class AuditRow(Base):
    """Admin audit log: who did what, to which match, when. Kept when a match is deleted."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    actor_id: Mapped[str | None] = mapped_column(String(ID_LENGTH), ForeignKey("accounts.id"))
    actor: Mapped[short_text]  # the account name, or "cli:<os user>" for local commands
    action: Mapped[short_text]  # "game.read", "game.export", "account.revoke", ...
    match_id: Mapped[str | None] = mapped_column(String(ID_LENGTH), index=True)
    detail: Mapped[json_doc]


class CredentialRow(Base):
    """A registered player's password: an argon2id hash (PHC string), never the password."""

    __tablename__ = "credentials"

    account_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    password_hash: Mapped[str] = mapped_column(String(256))
    updated_at: Mapped[timestamp]


class StandingRow(Base):
    """A player's rank, points and R in one board (``ranked`` or the bot ``ladder``) and game length."""

    __tablename__ = "standings"
    __table_args__ = (
        # The leaderboard's order, account id last, so a page is an index-only scan.
        Index("ix_standings_board_order", "board", "length", "rank", "points", "rating", "account_id"),
        Index("ix_standings_board_rating", "board", "length", "rating"),
    )

    account_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    board: Mapped[str] = mapped_column(String(16), primary_key=True)
    length: Mapped[str] = mapped_column(String(16), primary_key=True)
    rank: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    rating: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    firsts: Mapped[int] = mapped_column(Integer)
    seconds: Mapped[int] = mapped_column(Integer)
    thirds: Mapped[int] = mapped_column(Integer)
    fourths: Mapped[int] = mapped_column(Integer)


class RatedMatchRow(Base):
    """A match whose rating has been applied: ``match_id`` is unique, so it is applied exactly once;
    ``seq`` is the order of application (what ``ratings rebuild`` replays)."""

    __tablename__ = "rated_matches"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("matches.id", ondelete="CASCADE"), unique=True
    )
    room: Mapped[str] = mapped_column(String(32))
    board: Mapped[str] = mapped_column(String(16))
    length: Mapped[str] = mapped_column(String(16))
    table_version: Mapped[str] = mapped_column(String(32))
    rated_at: Mapped[timestamp]
    # per seat [hands, riichi hands, call hands], counted from the log when rated (None: rated before)
    play_counts: Mapped[optional_json_doc]


class RatingChangeRow(Base):
    """What one rated match did to one seat: standing before and after, with the table version."""

    __tablename__ = "rating_changes"
    __table_args__ = (Index("ix_rating_changes_account_seq", "account_id", "seq"),)

    match_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("rated_matches.match_id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[seat_number] = mapped_column(primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)
    account_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("accounts.id", ondelete="CASCADE"))
    board: Mapped[str] = mapped_column(String(16))
    length: Mapped[str] = mapped_column(String(16))
    placement: Mapped[int] = mapped_column(Integer)
    rank_before: Mapped[int] = mapped_column(Integer)
    points_before: Mapped[int] = mapped_column(Integer)
    rating_before: Mapped[float] = mapped_column(Float)
    rank_after: Mapped[int] = mapped_column(Integer)
    points_after: Mapped[int] = mapped_column(Integer)
    rating_after: Mapped[float] = mapped_column(Float)
    games_after: Mapped[int] = mapped_column(Integer)
    table_version: Mapped[str] = mapped_column(String(32))
    rated_at: Mapped[timestamp]


class EventRow(Base):
    """A tournament (``docs/tournaments.md``): its settings and state as documents."""

    __tablename__ = "events"

    id: Mapped[entity_id]
    name: Mapped[str] = mapped_column(String(100))
    status: Mapped[str] = mapped_column(String(16))
    created_by: Mapped[str] = mapped_column(String(ID_LENGTH))
    created_at: Mapped[timestamp]
    settings: Mapped[json_doc]
    organizers: Mapped[json_doc]
    secret_hex: Mapped[str] = mapped_column(String(128))  # the walls' seeds derive from it; never shown


class EventEntrantRow(Base):
    __tablename__ = "event_entrants"

    event_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("events.id", ondelete="CASCADE"), primary_key=True
    )
    entrant_id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    entered_at: Mapped[timestamp]
    doc: Mapped[json_doc]


class EventRoundRow(Base):
    __tablename__ = "event_rounds"

    event_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("events.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    doc: Mapped[json_doc]


class EventAdjustmentRow(Base):
    __tablename__ = "event_adjustments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    event_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("events.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[timestamp]
    doc: Mapped[json_doc]


class EventAuditRow(Base):
    """Every organizer action (who, when, what, why); ``event_id`` "" for role grants."""

    __tablename__ = "event_audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    event_id: Mapped[str] = mapped_column(String(ID_LENGTH), index=True)
    at: Mapped[timestamp]
    actor: Mapped[str] = mapped_column(String(ID_LENGTH))
    action: Mapped[short_text]
    detail: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text)
    key: Mapped[str | None] = mapped_column(String(128))


class OrganizerRow(Base):
    """Accounts an administrator made organizers."""

    __tablename__ = "organizers"

    account_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    granted_at: Mapped[timestamp]


class SocialLinkRow(Base):
    """The one link between two accounts (docs/social.md): ``low`` < ``high`` is the pair, ``a`` and
    ``b`` its direction (``a`` asked or blocked ``b``)."""

    __tablename__ = "social_links"

    low: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    high: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True, index=True)
    a: Mapped[str] = mapped_column(String(ID_LENGTH))
    b: Mapped[str] = mapped_column(String(ID_LENGTH))
    kind: Mapped[str] = mapped_column(String(16))  # requested | friends | blocked
    since: Mapped[timestamp]


class SocialMuteRow(Base):
    """``account_id`` muted ``muted_id``: its messages and stamps are not delivered to it."""

    __tablename__ = "social_mutes"

    account_id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    muted_id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)


class SocialPrefRow(Base):
    """A player's own social settings (migration 0013): ``hide_presence``, shown as offline."""

    __tablename__ = "social_prefs"

    account_id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    hide_presence: Mapped[int] = mapped_column(SmallInteger, nullable=False)  # 1: hidden


class SanctionRow(Base):
    """A chat ban or suspension an administrator gave (kept when lifted or over: the audit)."""

    __tablename__ = "sanctions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[str] = mapped_column(String(ID_LENGTH), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # chat_ban | suspension
    reason: Mapped[str] = mapped_column(Text)
    given_by: Mapped[short_text]
    starts: Mapped[timestamp]
    ends: Mapped[optional_timestamp]
    lifted_at: Mapped[optional_timestamp]
    lifted_by: Mapped[str | None] = mapped_column(String(64))


class LobbyLineRow(Base):
    """A line said in a lobby channel (docs/social.md): the history shown on join, and the context
    of reports; pruned after the retention (lines a report points at are kept)."""

    __tablename__ = "lobby_lines"
    __table_args__ = (Index("ix_lobby_lines_channel_id", "channel", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    channel: Mapped[short_text]
    account_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    name: Mapped[short_text]
    text: Mapped[str | None] = mapped_column(Text)
    stamp: Mapped[str | None] = mapped_column(String(32))
    at: Mapped[timestamp] = mapped_column(UTCDateTime(), index=True)


class ReportRow(Base):
    """A player's report of a player or a chat line, with its context, and its resolution."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    target_id: Mapped[str] = mapped_column(String(ID_LENGTH), index=True)
    place: Mapped[str] = mapped_column(String(16))  # lobby | table | player
    reason: Mapped[str] = mapped_column(Text)
    context: Mapped[str] = mapped_column(Text)  # JSON
    created_at: Mapped[timestamp]
    status: Mapped[str] = mapped_column(String(16), index=True)  # open | dismissed | actioned
    resolved_by: Mapped[str | None] = mapped_column(String(64))
    resolved_at: Mapped[optional_timestamp]
    resolution: Mapped[str | None] = mapped_column(Text)
    sanction_id: Mapped[int | None] = mapped_column(Integer)
