"""The records of the read side: finding stored matches, their per-hand results, the audit log.

What the admin review reads through :class:`~server.domain.ports.ReadModel` (implemented on SQL by
``server.store.repository.SqlRepository`` and in memory by ``server.store.memory.InMemoryRepository``;
``tests/store/test_reads.py`` holds both to the same answers).

A :class:`MatchQuery` selects matches; every field None means "any", and the fields combine:

* ``status``: that status; ``finished`` = completed or aborted.
* ``player``: a seat's account id, or a seat's exact name.
* ``q``: part of a seat's name, case-insensitive.
* ``ruleset``: a ruleset's sha256 hash (64 hex digits, any case), else its exact name (the ``name``
  of the canonical ruleset document; SQLite, whose ``LIKE`` ignores ASCII case, also takes it in
  another case).
* ``since`` / ``until``: created at or after / before.
* ``lineup``: who sat at the table; a seat is a bot when it was a bot account or a built-in bot.
* ``account_id``: only matches where that account had a seat.
* ``seats``: only matches of that many seats (3 or 4; stored with each match, ``matches.seat_count``).

A page (:class:`MatchPage`) is newest first (creation time, then id, both descending); ``total``
counts every match the query selects, over all pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from server.domain.records import JSON, AccountKind, MatchRecord, ResultRecord, SeatRecord


class StatusFilter(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    ABORTED = "aborted"
    FINISHED = "finished"  # completed or aborted


class Lineup(StrEnum):
    """Who sat at the table: a seat is a bot if it was a bot account or a built-in bot."""

    HUMANS = "humans"  # four humans
    BOTS = "bots"  # four bots
    MIXED = "mixed"  # humans and bots
    WITH_BOTS = "with_bots"  # at least one bot
    WITH_HUMANS = "with_humans"  # at least one human


def is_bot(seat: SeatRecord) -> bool:
    """A bot account's seat or a built-in bot's."""
    return seat.kind is AccountKind.BOT or seat.bot is not None


@dataclass(frozen=True, slots=True)
class MatchQuery:
    """Which matches, and which page of them (see the module docstring)."""

    status: StatusFilter | None = None
    player: str | None = None
    q: str | None = None
    ruleset: str | None = None
    since: datetime | None = None  # aware (UTC)
    until: datetime | None = None
    lineup: Lineup | None = None
    account_id: str | None = None
    seats: int | None = None  # 3 or 4: only matches of that many seats
    limit: int = 50
    offset: int = 0


@dataclass(frozen=True, slots=True)
class MatchListing:
    """One match of a page, with its final standings once it has them."""

    match: MatchRecord
    result: ResultRecord | None


@dataclass(frozen=True, slots=True)
class MatchPage:
    listings: tuple[MatchListing, ...]
    total: int  # matches the query selects, over all pages


@dataclass(frozen=True, slots=True)
class HandResult:
    """One hand of a match, projected from its log; ``outcome`` is None while it is being played.

    ``wins`` are win summaries and ``wall`` tile names (:mod:`server.eventlog.summary` reads them)."""

    match_id: str
    hand_index: int
    round_wind: int
    kyoku: int
    honba: int
    riichi_sticks: int
    dealer: int
    scores_before: tuple[int, ...]
    wall_commitment: str
    start_step: int
    end_step: int | None
    outcome: str | None  # "won" | "drawn"
    draw_reason: str | None
    wins: tuple[JSON, ...]  # per winner: seat, from_seat, win_tile, yaku, han, fu, points, ...
    deltas: tuple[int, ...] | None
    scores_after: tuple[int, ...] | None
    tenpai: tuple[bool, ...] | None
    nagashi: tuple[int, ...] | None
    wall_salt: str | None
    wall: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """Who did what to which match, when (``id`` is assigned by the store)."""

    at: float
    actor: str  # account name, or "cli:<os user>"
    action: str  # "game.read", "game.export", "account.revoke", ...
    actor_id: str | None = None
    match_id: str | None = None
    detail: JSON = None  # a JSON object
    id: int | None = None
