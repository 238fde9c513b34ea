"""Ranked rooms: quick-match queues whose matches are rated (``docs/ranking.md``).

A ranked queue is named ``ranked:<room>:<length>`` (``{"type": "queue", "preset":
"ranked:open:east"}``): the room's entry requirement (:class:`server.ranking.Room`), the game length
(``east`` or ``east_south``) of the ``tenhou`` ruleset. Its matches are stored with that name as
their ``source``, which is what makes the store rate them.

* Only registered players enter the ranked rooms, and only bot accounts the bot ladder (``ladder``);
  guests, and players below the room's rank or R, get ``forbidden`` with the reason.
* A ranked table is never filled with built-in bots and never starts "now against bots": it waits
  for four (``queued`` says how many wait); ``leave`` takes the player out of the queue.
* A player who disconnects or leaves a ranked match still takes the placement the match ends with
  (the table plays for an absent seat, as in every match).
"""

from __future__ import annotations

from dataclasses import dataclass

from client_protocol.errors import ErrorCode
from server.domain.ports import Ratings
from server.domain.ranked import board_of_room
from server.domain.records import Account, AccountKind
from server.engine.rules import Ruleset
from server.ranking import CURRENT, Length, Room, Standing, may_enter, parse_ranked_source, ranked_source

BASE_PRESET = "tenhou"


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


ALIASES = {"ladder": "ranked:ladder:east", "ladder:east_south": "ranked:ladder:east_south"}
"""Short names of ranked queues (``jantaku bot connect --queue ladder``)."""


def canonical_queue(name: str) -> str:
    return ALIASES.get(name, name)


def is_ranked(name: str) -> bool:
    return name.startswith("ranked:")


def ranked_queue(name: str, base: Ruleset) -> RankedQueue:
    """The ranked queue ``name`` plays ``base`` at its length (RankedEntryError if there is none)."""
    parsed = parse_ranked_source(name)
    room = None
    if parsed is not None:
        try:
            room = CURRENT.room(parsed[0])
        except KeyError:
            room = None
    if parsed is None or room is None:
        names = ", ".join(all_queue_names())
        raise RankedEntryError(ErrorCode.NOT_FOUND, f"no ranked room {name!r}; rooms: {names}")
    length = parsed[1]
    return RankedQueue(name, room, length, base.with_options(game_length=length.value))


def all_queue_names() -> list[str]:
    return [ranked_source(room.key, length) for room in CURRENT.rooms for length in Length]


def requirement(room: Room) -> str:
    """The room's requirement in words."""
    if room.bots_only:
        return "bot accounts only"
    parts = []
    if room.min_rank:
        parts.append(f"{CURRENT.ranks[room.min_rank].label} or higher")
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
        rank = CURRENT.ranks[standing.rank].label
        raise RankedEntryError(
            ErrorCode.FORBIDDEN,
            f"{q.room.label} needs {requirement(q.room)}; you are {rank}, R {standing.rating:.0f}",
        )
    return standing
