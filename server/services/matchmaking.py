"""Quick match's queue policy: who is matched with whom, when a table forms, and, in cluster mode,
when a player waiting on one node goes to the node that pairs its queue (``docs/scaling.md``,
"Quick match across nodes"). Pure: no clock, no I/O, no connection; the times are given. The hub
applies it: the lobby's queues (``server/hub/lobby.py``) and the cross-node mechanics, the alarms,
the lookup of the queue's matcher and the hand-over of connections (``server/hub/crossnode.py``).

* **Order.** A queue is kept in the order players first queued (:func:`enqueue`): a player handed
  over from another node has waited longer, and its wait there counts (:func:`new_entry`, at most
  :data:`MAX_CARRIED_WAIT_S`).
* **A table.** As soon as a queue has as many players as the table has seats, the first ones make a
  table (:func:`take_table`); the bot fill-in takes whoever waits (:func:`take`).
* **Across nodes, locality first** (:class:`CrossNodePolicy`). A node pairs the players who wait on
  it. One not paired within ``local_wait_s`` of joining here is a *straggler*: the node asks who the
  queue's matcher is, and if it is another node, hands over every player waiting here for that
  queue. A player handed over from another node is looked at at once; a node that was sent players
  asks to keep the matcher's name (:meth:`CrossNodePolicy.keep_name`) rather than pass them on.
  Whoever stays (this node pairs the queue, nobody can be named, a hand-over failed) is looked at
  again ``recheck_s`` later, so nobody is left in a queue nobody joins.

>>> policy = CrossNodePolicy(local_wait_s=5.0, recheck_s=1.0)
>>> queue: list[QueueEntry[str]] = []
>>> enqueue(queue, new_entry("here", now=100.0, request_id=1))
>>> enqueue(queue, new_entry("sent", now=101.0, request_id=2, waited_s=30.0))
>>> [e.participant for e in queue], policy.next_look(queue)
(['sent', 'here'], 101.0)
>>> policy.to_hand_over(queue, "http://node-b", now=101.0) == queue
True
>>> policy.to_hand_over(queue, None, now=101.0), [e.check_at for e in queue]
([], [102.0, 102.0])
>>> take_table(queue, 4) is None and len(queue) == 2
True
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

P = TypeVar("P")

MAX_CARRIED_WAIT_S = 3600.0  # the most a hand-over's earlier wait counts for
RECHECK_S = 1.0  # a node with players waiting asks again this often who pairs their queue


@dataclass(eq=False, slots=True)
class QueueEntry(Generic[P]):
    """A player waiting in a queue (``participant``: whatever the caller seats, a connection)."""

    participant: P
    since: float  # when the player first queued (this node's clock; earlier if another node sent it)
    request_id: int | None = None  # its join's (a hand-over to another node repeats it)
    joined: float = 0.0  # when it joined here (cluster mode: its local wait counts from then)
    relayed: bool = False  # handed over by another node (cluster mode)
    check_at: float | None = None  # cluster mode: when this node next asks who pairs its queue


def new_entry(
    participant: P, *, now: float, request_id: int | None = None, waited_s: float | None = None
) -> QueueEntry[P]:
    """A player joining here at ``now``; ``waited_s``: handed over by another node after waiting
    that long there (it counts, up to :data:`MAX_CARRIED_WAIT_S`; negative counts as 0)."""
    if waited_s is None:
        return QueueEntry(participant, now, request_id, joined=now)
    waited = min(max(0.0, waited_s), MAX_CARRIED_WAIT_S)
    return QueueEntry(participant, now - waited, request_id, joined=now, relayed=True)


def enqueue(queue: list[QueueEntry[P]], entry: QueueEntry[P]) -> None:
    """Put ``entry`` in its place: the order players first queued (ties: the order they came)."""
    bisect.insort(queue, entry, key=lambda e: e.since)


def take(queue: list[QueueEntry[P]], seats: int) -> list[QueueEntry[P]]:
    """The first ``seats`` players (fewer if fewer wait), out of the queue."""
    group = queue[:seats]
    del queue[:seats]
    return group


def take_table(queue: list[QueueEntry[P]], seats: int) -> list[QueueEntry[P]] | None:
    """A table's players, out of the queue, once ``seats`` of them wait; None before."""
    return take(queue, seats) if len(queue) >= seats else None


def fill_at(queue: Sequence[QueueEntry[P]], fill_after_s: float) -> float | None:
    """When the bots fill the queue's next table: ``fill_after_s`` after its longest wait began."""
    return queue[0].since + fill_after_s if queue else None


@dataclass(frozen=True, slots=True)
class CrossNodePolicy:
    """When a node looks again at a queue, and whom it hands to the queue's matcher."""

    local_wait_s: float
    recheck_s: float = RECHECK_S

    def due(self, entry: QueueEntry[P]) -> float:
        """When ``entry`` is looked at next: its first look ``local_wait_s`` after it joined here
        (at once when another node handed it over), then every ``recheck_s``."""
        if entry.check_at is None:
            entry.check_at = entry.joined if entry.relayed else entry.joined + self.local_wait_s
        return entry.check_at

    def next_look(self, queue: Sequence[QueueEntry[P]]) -> float | None:
        """When the queue is looked at next (None: nobody waits)."""
        return min((self.due(e) for e in queue), default=None)

    def keep_name(self, queue: Sequence[QueueEntry[P]]) -> bool:
        """Whether this node asks to keep the matcher's name: it was sent players of the queue."""
        return any(e.relayed for e in queue)

    def stay(self, entry: QueueEntry[P], now: float) -> None:
        """``entry`` stays here (or came back after a failed hand-over): looked at again later."""
        entry.check_at = now + self.recheck_s

    def to_hand_over(
        self, queue: Sequence[QueueEntry[P]], matcher: str | None, *, now: float
    ) -> list[QueueEntry[P]]:
        """Whom to hand to ``matcher`` (the queue's matcher, None: this node, or nobody can be
        named): everyone waiting here, or nobody (each then stays, :meth:`stay`). A hand-over that
        fails is the caller's to :meth:`stay`."""
        if matcher is None:
            for e in queue:
                self.stay(e, now)
            return []
        return list(queue)
