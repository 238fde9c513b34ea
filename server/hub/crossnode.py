"""Cluster mode's quick match, the mechanics (``docs/scaling.md``, "Quick match across nodes").

The policy, whom a node hands to the queue's matcher and when it looks again, is
:class:`server.services.matchmaking.CrossNodePolicy` (pure). Here is what applies it: one alarm per
queue, set to the policy's next look; the lookup of the queue's matcher through the placement port
(:meth:`server.hub.placement.Placement.locate_queue`, one lookup per queue at a time); the hand-over
of each player's connection to the matcher (:data:`QueueHandoff`: the connection is relayed there,
its ``join`` included, with the time it has waited so far). A lookup that fails (Redis down) names
nobody: the players stay here (the bot fill-in, placed or refused, is the lobby's as in one
process).

>>> from server.hub.clock import ManualClock
>>> from server.services.matchmaking import new_entry
>>> class Here:  # a placement that always says "this node is the matcher"
...     async def locate_queue(self, queue: str, *, keep: bool = False) -> None: return None
>>> s = Stragglers({"tenhou": []}, ManualClock(), Here(), lambda *a: False, local_wait_s=1.0,
...                recheck_s=1.0, changed=lambda name: None, spawn=lambda coro: coro.close())
>>> s.policy.due(new_entry(None, now=0.0))
1.0
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from server.hub.clock import Alarm, Clock
from server.hub.outputs import Participant
from server.services.matchmaking import CrossNodePolicy, QueueEntry

log = logging.getLogger(__name__)


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
    """The cross-node mechanics of the lobby's quick-match and ranked queues (module docstring).

    It shares the lobby's queues (``queues``); after it took players out of one, it calls
    ``changed(name)`` (the lobby tells the others how many wait and re-arms the bot fill-in)."""

    def __init__(
        self,
        queues: dict[str, list[QueueEntry[Participant]]],
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
        self.policy = CrossNodePolicy(local_wait_s=local_wait_s, recheck_s=recheck_s)
        self._changed = changed
        self._spawn = spawn
        self._alarms: dict[str, Alarm] = {}
        self._busy: set[str] = set()  # queues being looked at (one lookup per queue at a time)
        self.handed_over = 0  # players handed to another node so far (metrics, tests)

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
        when = self.policy.next_look(queue)
        if name not in self._busy and when is not None:
            alarm.set(when)

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
        keep = self.policy.keep_name(self._queues.get(name, ()))
        try:
            url = await self._placement.locate_queue(name, keep=keep)
        except Exception:
            log.exception("locating the matcher of queue %s failed", name)
            url = None
        queue = self._queues.get(name, [])  # the queue may have changed meanwhile
        now = self._clock.now()
        moved = 0
        for w in self.policy.to_hand_over(queue, url, now=now):
            if url is not None and self._hand_off(w.participant, url, name, w.request_id, w.since):
                queue.remove(w)
                moved += 1
            else:
                self.policy.stay(w, now)
        if moved:
            self.handed_over += moved
            log.info("queue %s: %d players handed over to the matcher at %s", name, moved, url)
            self._changed(name)
