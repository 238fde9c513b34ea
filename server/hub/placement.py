"""Where a table may run: the port through which cluster mode (``server.cluster``,
``docs/scaling.md``) decides it, so the hub never imports the cluster.

The lobby asks :meth:`Placement.claim` before a table runs on this node (a new match, or one
rebuilt from its stored log: crash recovery, a takeover) and tells :meth:`Placement.released` once
it stopped running here. One process (:class:`LocalPlacement`) runs every table and has no one to
ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

# The header a relaying node sends with the real address of the client it relays (cluster mode).
RELAY_HEADER = "X-Jantaku-Relayed-For"
# The header with which a node hands a queued player over to a queue's matcher: how long it waited.
QUEUE_HEADER = "X-Jantaku-Queued-For"


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

    async def locate(self, match_id: str) -> str | None:
        """The websocket URL of the node running ``match_id`` if that is another node (None: this
        one, or nowhere known). Asked on a resume or spectate of a match not running here."""
        ...

    async def locate_player(self, account_id: str) -> str | None:
        """The websocket URL of the node running the live match of ``account_id`` if that is
        another node (None otherwise). Asked once per ``hello``."""
        ...

    async def moving(self, match_id: str) -> bool:
        """``match_id`` runs (it is not over) but no live node runs its table now: its owner died
        or drained and no node took it over yet, or this node is rebuilding it. A connection
        asking for it waits (``server.hub.connection``)."""
        ...

    async def player_moving(self, account_id: str) -> bool:
        """One of the running matches of ``account_id`` is :meth:`moving`."""
        ...

    def relay_headers(
        self, client_address: str | None, *, waited_s: float | None = None
    ) -> list[tuple[str, str]]:
        """The headers with which this node opens a relay to another node for a client from
        ``client_address`` (cluster mode: its address, signed as this cluster's), and, for a
        queued player handed over to its queue's matcher, how long it has waited (``waited_s``)."""
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

    async def locate_invite(self, code: str) -> str | None:
        """The websocket URL of the node where the private table of ``code`` waits, if another."""
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

    async def locate(self, match_id: str) -> str | None:
        return None

    async def locate_player(self, account_id: str) -> str | None:
        return None

    async def moving(self, match_id: str) -> bool:
        return False  # one process: a running match's table is here or nowhere

    async def player_moving(self, account_id: str) -> bool:
        return False

    def relay_headers(
        self, client_address: str | None, *, waited_s: float | None = None
    ) -> list[tuple[str, str]]:
        return []

    def relayed_address(self, value: str) -> str | None:
        return None  # one process relays nothing: such a header comes from a client

    def relayed_wait(self, value: str) -> float | None:
        return None

    @property
    def queue_local_wait_s(self) -> float | None:
        return None

    async def invited(self, code: str, ttl_s: float) -> None:
        return None

    async def locate_invite(self, code: str) -> str | None:
        return None

    async def locate_queue(self, queue: str, *, keep: bool = False) -> str | None:
        return None

    async def hand_over(self, match_ids: Sequence[str]) -> None:
        return None  # one process: its matches resume when it starts again (crash recovery)
