"""What a :class:`~server.hub.table.TableActor` receives: the messages of its one inbox, the inbox
itself (:class:`Mailbox`), and the description of its seats. Adapters (our protocol's sessions,
mjai's) and the lobby talk to a table only by putting these in its inbox (``TableActor.submit``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from server.domain.records import AccountKind
from server.engine.actions import Action
from server.hub.history import History
from server.hub.outputs import Participant


class CommitError(Exception):
    """The step could not be stored (the store raised or was too slow); nothing was adopted."""


class TableDivergedError(Exception):
    """The stored log and the table disagree: the table stops (loudly) rather than guess."""


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who sits at a seat: a connected player (``account_id``) or a built-in bot (``bot``)."""

    name: str
    kind: AccountKind
    account_id: str | None = None
    bot: str | None = None


# -- inbox messages ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class ActRequest:
    """A participant's action; the seat is the one this participant is attached to, never a field."""

    participant: Participant
    request_id: int
    step: int
    action: Action


@dataclass(frozen=True, slots=True, eq=False)
class Attach:
    """Attach a participant to a seat (replacing its previous connection) or, with ``seat`` None, as
    a spectator; it receives its stream after ``since_version`` and its pending prompt."""

    participant: Participant
    seat: int | None
    since_version: int = 0
    announce: bool = False  # send ``seated`` first (a join; a resume does not)
    history: History | None = None  # the forgotten versions, read from the store for this attach
    ticket: int = 0  # which read of the table's brought ``history`` (a newer attach makes it stale)
    caster: bool = False  # a spectator asking for the caster view (the policy decides)


@dataclass(frozen=True, slots=True, eq=False)
class Detach:
    participant: Participant
    notify: bool = False  # answer ``left`` (an explicit leave; not for a lost connection)
    on_purpose: bool = False  # its player left (``leave``): a seat is played for at once


@dataclass(frozen=True, slots=True)
class Tick:
    """The table's timer fired: look at what came due."""


@dataclass(frozen=True, slots=True, eq=False)
class Barrier:
    """Resolved once the table has handled everything before it and nothing is due (tests)."""

    future: asyncio.Future[None]


@dataclass(frozen=True, slots=True)
class Stop:
    """Stop the actor: ``abort`` ends the match for everyone (aborted); otherwise (server shutdown)
    it just stops, sending nothing (connections are closed with 1012 by the server)."""

    abort: bool = False
    why: str | None = None  # stored as the aborted match's status reason (the factory's ``end``)


@dataclass(frozen=True, slots=True, eq=False)
class Pause:
    """Stop the table's clocks (``paused``) or start them again (not ``paused``); ``done`` is
    resolved once the table has done it (the table factory's live-table interface)."""

    paused: bool
    reason: str
    done: asyncio.Future[None]


InboxItem = ActRequest | Attach | Detach | Tick | Barrier | Stop | Pause


class Mailbox:
    """A table's one inbox: the queue of :data:`InboxItem`, whether it is closed (the actor stops),
    and the :class:`Barrier` futures waiting for the table to be idle."""

    __slots__ = ("_barriers", "_queue", "closed")

    def __init__(self) -> None:
        self._queue: asyncio.Queue[InboxItem] = asyncio.Queue()
        self._barriers: list[asyncio.Future[None]] = []
        self.closed = False  # the actor takes nothing more

    def put(self, item: InboxItem) -> None:
        """Never blocks."""
        self._queue.put_nowait(item)

    async def get(self) -> InboxItem:
        return await self._queue.get()

    def empty(self) -> bool:
        return self._queue.empty()

    def wait_idle(self, future: asyncio.Future[None]) -> None:
        """``future`` (a :class:`Barrier`'s) is resolved at the next :meth:`idle`."""
        self._barriers.append(future)

    @property
    def waiting(self) -> bool:
        """Whether a barrier waits for the table to be idle."""
        return bool(self._barriers)

    def idle(self) -> None:
        """The table handled everything before the barriers and nothing is due: resolve them."""
        barriers, self._barriers = self._barriers, []
        for future in barriers:
            if not future.done():
                future.set_result(None)

    def drain(self) -> None:
        """The actor stopped: drop what is left, resolving every barrier (nobody waits forever)."""
        while not self._queue.empty():
            leftover = self._queue.get_nowait()
            if isinstance(leftover, Barrier):
                self._barriers.append(leftover.future)
        self.idle()
