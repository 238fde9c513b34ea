"""Cluster mode's quick match, locality first (``docs/scaling.md``, "Quick match across nodes").

A node pairs the players of a queue who wait on it (the lobby's own queue): four of them make a
table at once, here, as in one process. A player who is not paired within ``local_wait_s`` of
joining here is a *straggler*: the node asks the placement port which node is the queue's matcher
(:meth:`server.hub.placement.Placement.locate_queue`); if it is another node, the straggler and
every other player waiting here for that queue are handed over to it (:data:`QueueHandoff`: the
connection is relayed there, its ``join`` included, with the time it has waited so far), and the
matcher pairs the stragglers of every node.

Nobody is left in a queue nobody joins: every node that has players waiting in a queue looks again
at least every ``recheck_s`` (the first time ``local_wait_s`` after a player joined here, at once for
a player handed over from another node), and a node that is not the named matcher hands its
players to the one that is. A node that was sent players asks to keep the name (``keep``: it takes
the name if nobody holds it) rather than passing them on. A hand-over that fails (the matcher
cannot be reached) leaves the player here, to be looked at again ``recheck_s`` later. When the
matcher cannot be named (Redis down) the players stay here (the bot fill-in, placed or refused, is
the lobby's as in one process).

>>> queue: list[_Waiting] = []
>>> class Here:  # a placement that always says "this node is the matcher"
...     async def locate_queue(self, queue: str, *, keep: bool = False) -> None: return None
>>> from server.hub.clock import ManualClock
>>> s = Stragglers({"tenhou": queue}, ManualClock(), Here(), lambda *a: False, local_wait_s=1.0,
...                recheck_s=1.0, changed=lambda name: None, spawn=lambda coro: coro.close())
>>> s.due(_Waiting(None, 0.0, joined=0.0))  # type: ignore[arg-type]
1.0
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from server.hub.clock import Alarm, Clock
from server.hub.lobbytypes import _Waiting
from server.hub.outputs import Participant

log = logging.getLogger(__name__)

RECHECK_S = 1.0  # a node with players waiting asks again this often who pairs their queue


class QueueHandoff(Protocol):
    def __call__(self, p: Participant, url: str, queue: str, request_id: int | None, since: float) -> bool:
        """Relay ``p``'s connection to the node at ``url`` (a node's base URL), joining ``queue``
        there with ``request_id``, having queued since ``since`` (this node's clock). False when it
        cannot be (no session to relay with, the connection is over or relayed already): the
        player stays here."""
        ...


class QueueLocator(Protocol):
    async def locate_queue(self, queue: str, *, keep: bool = False) -> str | None: ...


class Stragglers:
    """The cross-node part of the lobby's quick-match and ranked queues (see the module docstring).

    It shares the lobby's queues (``queues``); after it took players out of one, it calls
    ``changed(name)`` (the lobby tells the others how many wait and re-arms the bot fill-in)."""

    def __init__(
        self,
        queues: dict[str, list[_Waiting]],
        clock: Clock,
        placement: QueueLocator,
        hand_off: QueueHandoff,
        *,
        local_wait_s: float,
        recheck_s: float,
        changed: Callable[[str], None],
        spawn: Callable[[Coroutine[Any, Any, None]], None],
    ) -> None:
        self._queues = queues
        self._clock = clock
        self._placement = placement
        self._hand_off = hand_off
        self.local_wait_s = local_wait_s
        self.recheck_s = recheck_s
        self._changed = changed
        self._spawn = spawn
        self._alarms: dict[str, Alarm] = {}
        self._busy: set[str] = set()  # queues being looked at (one lookup per queue at a time)
        self.handed_over = 0  # players handed to another node so far (metrics, tests)

    def due(self, w: _Waiting) -> float:
        """When ``w`` is looked at next: its first look ``local_wait_s`` after it joined here (at once
        when another node handed it over), then every ``recheck_s``."""
        if w.check_at is None:
            w.check_at = w.joined if w.relayed else w.joined + self.local_wait_s
        return w.check_at

    def schedule(self, name: str) -> None:
        """Arm the look at queue ``name`` for its earliest due player (none waiting: disarm)."""
        queue = self._queues.get(name)
        alarm = self._alarms.get(name)
        if not queue:
            if alarm is not None:
                alarm.cancel()
            return
        if alarm is None:
            alarm = self._alarms[name] = Alarm(self._clock, lambda: self._spawn(self._look(name)))
        if name not in self._busy:
            alarm.set(min(self.due(w) for w in queue))

    def close(self) -> None:
        for alarm in self._alarms.values():
            alarm.cancel()
        self._alarms.clear()

    async def _look(self, name: str) -> None:
        if name in self._busy or not self._queues.get(name):
            return
        self._busy.add(name)
        try:
            await self._look_now(name)
        finally:
            self._busy.discard(name)
            self.schedule(name)

    async def _look_now(self, name: str) -> None:
        keep = any(w.relayed for w in self._queues.get(name, ()))
        try:
            url = await self._placement.locate_queue(name, keep=keep)
        except Exception:
            log.exception("locating the matcher of queue %s failed", name)
            url = None
        queue = self._queues.get(name, [])  # the queue may have changed meanwhile
        now = self._clock.now()
        later = now + self.recheck_s
        if url is None:  # this node pairs the queue (or nobody can be named now): they stay
            for w in queue:
                w.check_at = later
            return
        moved = 0
        for w in list(queue):
            if self._hand_off(w.participant, url, name, w.request_id, w.since):
                queue.remove(w)
                moved += 1
            else:
                w.check_at = later
        if moved:
            self.handed_over += moved
            log.info("queue %s: %d players handed over to the matcher at %s", name, moved, url)
            self._changed(name)
