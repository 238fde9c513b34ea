"""Where a table may run, and how a client reaches it: the port through which cluster mode
(``server.cluster``, ``docs/scaling.md``) decides it, so the hub never imports the cluster and
never asks which placement it has.

The lobby asks :meth:`Placement.claim` before a table runs on this node (a new match, or one
rebuilt from its stored log: crash recovery, a takeover) and tells :meth:`Placement.released` once
it stopped running here. A connection asks :meth:`Placement.relay_player` at its hello and
:meth:`Placement.relay_match` / :meth:`Placement.relay_invite` for a request this node cannot
serve, and the hub hands a queued player over with :meth:`Placement.hand_off`: in a cluster each
may answer an :class:`Upstream`, the client's connection to the node concerned, through which the
connection passes the client's frames both ways (``server.cluster.relay``). One process
(:class:`LocalPlacement`) runs every table, relays nothing and has no one to ask.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from server.services.tables import TableAnswer, TableCommand

# The header a relaying node sends with the real address of the client it relays (cluster mode).
RELAY_HEADER = "X-Jantaku-Relayed-For"
# The header with which a node hands a queued player over to a queue's matcher: how long it waited.
QUEUE_HEADER = "X-Jantaku-Queued-For"


class StillMovingError(Exception):
    """What the client asks for runs on no node now (its node died or drained a moment ago) and
    was not placed within the wait: the client should ask again in a moment."""


class RelayClient(Protocol):
    """A client's connection as a relay sees it (``server.hub.connection.WebSocketConnection``)."""

    @property
    def session_id(self) -> str: ...

    @property
    def address(self) -> str | None:
        """The client's own address (a relayed one is vouched for to the node relayed to)."""
        ...

    @property
    def path(self) -> str:
        """The websocket path of the client's protocol (``/ws``, ``/mjai``)."""
        ...

    @property
    def open_timeout_s(self) -> float: ...

    def relay_hello(self, *, queue: str | None = None) -> str | None:
        """The client's own hello, every field of it, with credentials every node accepts (None:
        it cannot be relayed); ``queue``: for a hand-over to that queue's matcher."""
        ...

    def relay_join(self, queue: str, request_id: int | None) -> str | None:
        """The frame that queues a handed-over client after its hello (None: the hello does)."""
        ...

    async def store_session(self) -> None:
        """Make the client's session known to every node (a guest's is stored)."""
        ...

    def incoming(self) -> AsyncIterator[str | bytes]:
        """The client's next frames."""
        ...

    def put(self, frame: bytes) -> bool:
        """One frame to the client; False when its connection is over."""
        ...

    def close(self, code: int, reason: str) -> None: ...

    def handed_back(self, queued: QueuedPlayer) -> None:
        """Its hand-over to the queue's matcher failed: it waits here again, in its place."""
        ...


class Upstream(Protocol):
    """A client's connection to another node, opened with the client's hello."""

    async def send(self, frame: str | bytes) -> None: ...

    async def pipe(self, client: RelayClient, *, first: str | bytes | None, skip_welcome: bool) -> None:
        """Pass the frames both ways until either side ends (``first``: the request to send after
        the hello; ``skip_welcome``: the client has its welcome already); then the client is told
        to reconnect (1012)."""
        ...


@dataclass(frozen=True, slots=True)
class QueuedPlayer:
    """A player handed over to its queue's matcher node: where it queued and since when."""

    queue: str
    request_id: int | None
    since: float  # the hub's clock
    waited_s: float


class HandOff(Protocol):
    """A hand-over under way: ``ready`` is its upstream once open (None: it failed)."""

    @property
    def ready(self) -> asyncio.Future[Upstream | None]: ...

    async def stop(self) -> None: ...


class Placement(Protocol):
    async def claim(self, match_id: str, *, new: bool) -> bool:
        """May this node run the table of ``match_id`` (``new``: a match not stored yet)? True once
        it owns it (cluster mode: its lease taken and, for a stored match, its fencing token
        acquired); False when another node owns it or ownership cannot be decided now (the
        cluster's coordination is unreachable): then the lobby does not run it."""
        ...

    def released(self, match_id: str, *, finished: bool) -> None:
        """The table of ``match_id`` stopped running on this node: it ended (``finished``: no
        node needs to look for it again), or it was dropped (a drain: another node takes it)."""
        ...

    async def relay_player(
        self, client: RelayClient, account_id: str, *, here: Callable[[], bool]
    ) -> Upstream | None:
        """At the hello of ``account_id``: its connection to the node running the player's live
        match when that is another node; None: serve it here (``here()``: this node runs it now).
        While one of its matches is between nodes, waits for a node to run it; raises
        :class:`StillMovingError` when that takes too long."""
        ...

    async def relay_match(
        self, client: RelayClient, match_id: str, *, here: Callable[[], bool]
    ) -> Upstream | None:
        """A resume or spectate of ``match_id``, not running here: the connection to the node
        running it (None: serve it here, or nowhere known); waits while it is between nodes,
        then raises :class:`StillMovingError`."""
        ...

    async def relay_invite(self, client: RelayClient, code: str) -> Upstream | None:
        """A join of private table ``code`` waiting on another node: the connection there."""
        ...

    async def locate(self, match_id: str) -> str | None:
        """The websocket URL of the node running ``match_id`` if that is another node (None: this
        one, or nowhere known): what the table factory says of a table it does not run."""
        ...

    async def control(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        """Have the node that runs the table of ``match_id`` (:meth:`locate` named another node) do
        ``command`` (pause, unpause, end, lock or unlock a seat, seat a substitute) as its table
        factory does for its own tables: its answer (done, refused there, or the match is over:
        nothing left to do); None when no node could do it now (the match is between nodes, its
        node cannot be reached): nothing was done."""
        ...

    def hand_off(self, client: RelayClient, base_url: str, queued: QueuedPlayer) -> HandOff | None:
        """Relay ``client``, queued here, to its queue's matcher node at ``base_url``, starting
        with its hello and its join there (and how long it has waited). None: it cannot be."""
        ...

    def relayed_wait(self, value: str) -> float | None:
        """The wait a :data:`QUEUE_HEADER` ``value`` vouches for (seconds), when another node of the
        cluster signed it; None otherwise (then the player's wait starts here)."""
        ...

    @property
    def queue_local_wait_s(self) -> float | None:
        """How long a queued player waits to be paired on its own node before it is handed over to
        its queue's matcher node (cluster mode, ``server.hub.crossnode``); None: one process, every
        player is paired here."""
        ...

    def relayed_address(self, value: str) -> str | None:
        """The client address a :data:`RELAY_HEADER` ``value`` vouches for, when another node of
        the cluster signed it; None otherwise (then the connection counts as its own address)."""
        ...

    async def invited(self, code: str, ttl_s: float) -> None:
        """A private table with invite ``code`` waits on this node (for ``ttl_s`` at most)."""
        ...

    async def locate_queue(self, queue: str, *, keep: bool = False) -> str | None:
        """The base URL of the node where quick-match ``queue`` pairs the players not paired on
        their own node (its matcher), if that is another node (None: this one, or the cluster
        cannot say now: the players stay here). ``keep``: this node was sent players for it, so it
        becomes the matcher if there is none."""
        ...

    async def hand_over(self, match_ids: Sequence[str]) -> None:
        """The node is shutting down (a drain): the tables of ``match_ids`` stopped after their
        last committed step and were released. Return once other nodes run them (bounded), so
        that the clients, told to reconnect next, find them there."""
        ...


class LocalPlacement:
    """A single process: every table runs here."""

    async def claim(self, match_id: str, *, new: bool) -> bool:
        return True

    def released(self, match_id: str, *, finished: bool) -> None:
        return None

    # one process relays nothing: every table is here (or nowhere), every player queues here

    async def relay_player(
        self, client: RelayClient, account_id: str, *, here: Callable[[], bool]
    ) -> Upstream | None:
        return None

    async def relay_match(
        self, client: RelayClient, match_id: str, *, here: Callable[[], bool]
    ) -> Upstream | None:
        return None

    async def relay_invite(self, client: RelayClient, code: str) -> Upstream | None:
        return None

    async def locate(self, match_id: str) -> str | None:
        return None

    async def control(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        return None  # never asked: every table is here (locate names no other node)

    def hand_off(self, client: RelayClient, base_url: str, queued: QueuedPlayer) -> HandOff | None:
        return None

    def relayed_address(self, value: str) -> str | None:
        return None  # one process relays nothing: such a header comes from a client

    def relayed_wait(self, value: str) -> float | None:
        return None

    @property
    def queue_local_wait_s(self) -> float | None:
        return None

    async def invited(self, code: str, ttl_s: float) -> None:
        return None

    async def locate_queue(self, queue: str, *, keep: bool = False) -> str | None:
        return None

    async def hand_over(self, match_ids: Sequence[str]) -> None:
        return None  # one process: its matches resume when it starts again (crash recovery)
