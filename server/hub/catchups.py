"""The catch-ups of one table that wait for versions it forgot (:mod:`server.hub.history`).

An :class:`~server.hub.inbox.Attach` whose catch-up reaches before the table's kept events starts a
read of the store here, in a task of its own; the attach comes back to the table's inbox with the
events read (and the ticket of that read). A newer attach or a detach of the same connection makes
a read stale: it is cancelled, and an attach that still comes back with it is ignored.

An act of a connection whose attach waits for its read (it came right behind the resume) is held
here and handed back to the table's inbox once the attach is done, so it is taken after the resume
(docs/protocol.md#re-sending-after-a-reconnection); a detach refuses the held acts as any act of a
connection without a seat is refused.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from client_protocol.errors import ErrorCode
from server.domain.ports import Repository
from server.engine.events import Event
from server.hub.history import History, read_history
from server.hub.inbox import ActRequest, Attach, InboxItem
from server.hub.outputs import ErrorOut, Participant
from server.hub.spectators import EventStream

MAX_HELD_ACTS = 8  # acts held behind one connection's resume; more are refused as before


class Catchups:
    __slots__ = ("_held", "_log", "_match_id", "_reads", "_repo", "_submit", "_tickets", "_timeout_s")

    def __init__(
        self,
        match_id: str,
        repo: Repository,
        submit: Callable[[InboxItem], None],
        log: logging.LoggerAdapter[Any],
        *,
        timeout_s: float,
    ) -> None:
        self._match_id = match_id
        self._repo = repo
        self._submit = submit
        self._log = log
        self._timeout_s = timeout_s
        self._reads: dict[Participant, tuple[int, asyncio.Task[None]]] = {}  # participant -> (ticket, read)
        self._tickets = 0
        self._held: dict[Participant, list[ActRequest]] = {}

    def __len__(self) -> int:
        return len(self._reads)

    def hold(self, p: Participant, act: ActRequest) -> bool:
        """Keep ``act`` if ``p``'s attach waits for its read (True); :meth:`release` hands it back."""
        held = self._held.setdefault(p, []) if p in self._reads else None
        if held is None or len(held) >= MAX_HELD_ACTS:
            return False
        held.append(act)
        return True

    def release(self, p: Participant) -> None:
        """``p``'s attach is done: its held acts go back to the table's inbox, in order."""
        for act in self._held.pop(p, ()):
            self._submit(act)

    def current(self, a: Attach) -> bool:
        """Whether the table should handle ``a`` now (False: it brings a stale read). Any read of its
        participant still under way is over: cancelled for a new attach, done for its own."""
        p = a.participant
        reading = self._reads.get(p)
        if a.history is not None and (reading is None or reading[0] != a.ticket):
            return False
        self.cancel(p)
        return True

    async def wait(self) -> bool:
        """Wait for the reads under way (tests: ``TableActor.settle``); False if there were none."""
        reads = [read for _, read in self._reads.values()]
        if reads:
            await asyncio.wait(reads)
        return bool(reads)

    def cancel(self, p: Participant, *, refuse: str | None = None) -> None:
        """Cancel ``p``'s read; ``refuse``: it detached, its held acts are refused with that reason."""
        reading = self._reads.pop(p, None)
        if reading is not None:
            reading[1].cancel()
        if refuse is not None:
            for act in self._held.pop(p, ()):
                p.deliver(ErrorOut(ErrorCode.FORBIDDEN, refuse, act.request_id))

    def cancel_all(self) -> None:
        for _, read in self._reads.values():
            read.cancel()
        self._reads.clear()
        self._held.clear()

    def forgotten(self, a: Attach, stream: EventStream) -> tuple[Event, ...] | None:
        """The versions ``stream`` forgot (``1..stream.base``) for ``a``'s catch-up: those it
        brings, or None when they must be read first (:meth:`read` starts that)."""
        have = a.history or History()
        if len(have.events) < stream.base:
            self.read(a, have, stream.base)
            return None
        return have.events[: stream.base]

    async def everything(self, stream: EventStream) -> tuple[Event, ...]:
        """All of ``stream``'s events, the forgotten ones read now (tests and tools)."""
        base, kept = stream.base, stream.window(stream.base, len(stream))
        have = await read_history(self._repo, self._match_id, History(), upto=base) if base else History()
        return have.events[:base] + kept

    def read(self, a: Attach, have: History, upto: int) -> None:
        """Read versions ``len(have.events) + 1 .. upto`` (at least); ``a`` comes back with them."""
        self._tickets += 1
        ticket, p = self._tickets, a.participant

        async def read() -> None:
            try:
                history = await asyncio.wait_for(
                    read_history(self._repo, self._match_id, have, upto=upto), self._timeout_s
                )
            except Exception as exc:
                if self._reads.get(p, (None,))[0] == ticket:
                    del self._reads[p]
                    self._log.warning("table %s: reading its history failed: %r", self._match_id, exc)
                    why = f"the match's history could not be read ({type(exc).__name__}); resume again"
                    p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, why))
                return
            self._submit(dataclasses.replace(a, history=history, ticket=ticket))

        self._reads[p] = (ticket, asyncio.create_task(read(), name=f"history-{self._match_id}"))
