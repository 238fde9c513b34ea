"""Ranked rooms: quick-match queues whose matches are rated (``docs/ranking.md``).

A ranked queue is named ``ranked:<room>:<length>`` (``{"type": "queue", "preset":
"ranked:open:east"}``): the room's entry requirement (:class:`server.ranking.Room`), the game length
(``east`` or ``east_south``) of the ruleset preset its tables name (``tenhou`` for the four-player
rooms, ``tenhou-sanma`` for the three-player ``sanma-...`` rooms). Its matches are stored with that
name as their ``source``, which is what makes the store rate them.

* Only registered players enter the ranked rooms, and only bot accounts the bot ladder (``ladder``);
  guests, and players below the room's rank or R, get ``forbidden`` with the reason.
* A ranked table is never filled with built-in bots and never starts "now against bots": it waits
  for as many players as its ruleset has seats (``queued`` says how many wait); ``leave`` takes the
  player out of the queue.
* A player who disconnects or leaves a ranked match still takes the placement the match ends with
  (the table plays for an absent seat, as in every match).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from client_protocol.errors import ErrorCode
from server.domain.ports import Ratings
from server.domain.ranked import board_of_room
from server.domain.records import Account, AccountKind
from server.engine.rules import ALL_PRESETS, Ruleset
from server.ranking import (
    CURRENT_SETS,
    Length,
    RankingTables,
    Room,
    Standing,
    may_enter,
    parse_ranked_source,
    ranked_source,
    tables_of_room,
)


class RankedEntryError(Exception):
    """Entry refused: ``code`` is ``not_found`` (no such room) or ``forbidden`` (not allowed in)."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class RankedQueue:
    name: str  # the queue's preset name: "ranked:open:east"
    room: Room
    length: Length
    ruleset: Ruleset
    tables: RankingTables


ALIASES = {
    "ladder": "ranked:ladder:east",
    "ladder:east_south": "ranked:ladder:east_south",
    "sanma-ladder": "ranked:sanma-ladder:east",
    "sanma-ladder:east_south": "ranked:sanma-ladder:east_south",
}
"""Short names of ranked queues (``jantaku bot connect --queue ladder``, ``--queue sanma-ladder``)."""


def canonical_queue(name: str) -> str:
    return ALIASES.get(name, name)


def is_ranked(name: str) -> bool:
    return name.startswith("ranked:")


def ranked_queue(name: str, rulesets: Mapping[str, Ruleset] | None = None) -> RankedQueue:
    """The ranked queue ``name``: its room, length and tables, and the ruleset it plays (its tables'
    preset, taken from ``rulesets`` when given there, at the queue's length). RankedEntryError if
    there is no such queue."""
    parsed = parse_ranked_source(name)
    tables = room = None
    if parsed is not None:
        try:
            tables = tables_of_room(parsed[0])
            room = tables.room(parsed[0])
        except KeyError:
            tables = room = None
    if parsed is None or tables is None or room is None:
        names = ", ".join(all_queue_names())
        raise RankedEntryError(ErrorCode.NOT_FOUND, f"no ranked room {name!r}; rooms: {names}")
    length = parsed[1]
    base = (rulesets or {}).get(tables.preset) or ALL_PRESETS[tables.preset]
    return RankedQueue(name, room, length, base.with_options(game_length=length.value), tables)


def all_queue_names() -> list[str]:
    """Every ranked queue: the four-player rooms' first, then the three-player ones."""
    return [
        ranked_source(room.key, length)
        for tables in CURRENT_SETS
        for room in tables.rooms
        for length in Length
    ]


def requirement(room: Room) -> str:
    """The room's requirement in words."""
    if room.bots_only:
        return "bot accounts only"
    tables = tables_of_room(room.key)
    parts = []
    if room.min_rank:
        parts.append(f"{tables.ranks[room.min_rank].label} or higher")
    if room.min_rating:
        parts.append(f"R {room.min_rating:.0f} or higher")
    return " and ".join(parts) if parts else "any registered player"


async def check_entry(ratings: Ratings | None, account: Account, q: RankedQueue) -> Standing:
    """The account's standing if it may enter; RankedEntryError (``forbidden``) with why not."""
    if q.room.bots_only:
        if account.kind is not AccountKind.BOT:
            raise RankedEntryError(ErrorCode.FORBIDDEN, "the bot ladder is for bot accounts only")
    elif account.kind is not AccountKind.PLAYER:
        raise RankedEntryError(
            ErrorCode.FORBIDDEN,
            "ranked rooms are for registered players: sign up (a guest keeps its games)"
            if account.kind is AccountKind.GUEST
            else "bots play ranked in the bot ladder (ranked:ladder:...)",
        )
    if ratings is None:
        raise RankedEntryError(ErrorCode.NOT_FOUND, "this server keeps no ratings")
    standing = await ratings.standing(account.id, board_of_room(q.room.key), q.length)
    if not may_enter(standing, q.room):
        rank = q.tables.ranks[standing.rank].label
        raise RankedEntryError(
            ErrorCode.FORBIDDEN,
            f"{q.room.label} needs {requirement(q.room)}; you are {rank}, R {standing.rating:.0f}",
        )
    return standing
