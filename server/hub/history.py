"""A live match's older events, read back from the store's step log.

A table keeps in memory only the hands its pacing and its spectators still need
(:meth:`server.hub.spectators.EventStream.forget`); the store has every event (the step log, each
step's events in the order the engine made them). A join, a resume or a spectator whose catch-up
reaches further back gets the forgotten versions from here, read in pages of :data:`PAGE_STEPS`
steps by a task of its own (never by the table's actor, which goes on playing meanwhile), then
the actor completes the catch-up with the events it kept, in one go: no gap, no duplicate
(``docs/hub.md``, "Catch-up").

>>> import asyncio
>>> from server.engine import new_match
>>> from server.engine.rules import TENHOU
>>> from server.hub.steplog import step_record
>>> t = new_match(TENHOU, b"doc")
>>> class Repo:
...     async def steps(self, match_id, after=-1, limit=None):
...         return [step_record(match_id, t, seat=None, action=None, request_id=None, applied_at=0.0)]
>>> loaded = asyncio.run(read_history(Repo(), "m", History(), upto=2))
>>> len(loaded.events) == len(t.events), loaded.last_step
(True, 0)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from server.domain.ports import Repository
from server.engine.events import Event
from server.eventlog.codec import decode_event

PAGE_STEPS = 200  # steps per read (a few hundred events): the loop runs other tasks between pages


class HistoryError(Exception):
    """The store's log does not hold the events the table published (a bug, or a broken store)."""


@dataclass(frozen=True, slots=True)
class History:
    """The first versions of a match's stream as read so far: ``events`` are versions 1.. of every
    step up to ``last_step`` (-1: nothing read yet)."""

    events: tuple[Event, ...] = ()
    last_step: int = -1


async def read_history(repo: Repository, match_id: str, have: History, *, upto: int) -> History:
    """``have`` extended with the steps after it until it holds at least ``upto`` events."""
    events, last = list(have.events), have.last_step
    while len(events) < upto:
        page = await repo.steps(match_id, after=last, limit=PAGE_STEPS)
        if not page:
            raise HistoryError(f"the log of {match_id} ends at step {last}: {len(events)} of {upto} events")
        for record in page:
            if record.step != last + 1:
                raise HistoryError(f"the log of {match_id} skips from step {last} to {record.step}")
            if record.engine_events is not None:
                events.extend(record.engine_events)
            else:
                events.extend(decode_event(data, record.format_version) for data in record.events)
            last = record.step
        await asyncio.sleep(0)  # one page at a time: the tables go on meanwhile
    return History(tuple(events), last)
