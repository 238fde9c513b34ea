"""How ``jantaku serve`` runs Python's garbage collector, and what its pauses cost.

A busy hub holds a large, long-lived heap (every live match and connection: about 800,000 tracked
objects at 1,000 tables) and allocates fast. Python's default collector keeps promoting objects
that live a second or so (a table's state between two actions) into its oldest generation, and so
runs a *full* collection every few seconds, each one stopping the event loop for 0.3-0.7 s at that
size; even its young collections grow to tens of thousands of objects and 10-60 ms, because the
trigger counts allocations *minus* deallocations and the old objects die as fast as new ones are
made. Every table waits through each pause (measured with ``bench/hub.py``; docs/benchmarks.md).

The policy here, applied by ``jantaku serve`` only (tests and embedders keep Python's defaults):

* every ``freeze_every_s`` seconds (0.025 s), a **young collection** (``gc.collect(0)``: only what was
  allocated since the last tick and is still tracked), then ``gc.freeze()``: what survived moves out
  of the collector's view for good. Each pause is bounded by one tick's allocations, so the tick is
  short: the pause's length goes with the tick while the collector's total time does not (a tick of
  0.1 s paused 2.7 ms on average and up to 19 ms at 1,000 tables; 0.025 s makes four times as many
  pauses a quarter as long, for the same total: docs/benchmarks.md). Reference counting still
  frees frozen objects the moment they are unused; only a reference *cycle* that was alive at a
  tick and becomes garbage later waits for the next full collection, and the hub makes almost none
  (none in 30 s with 1,000 tables at human pace, about 500 objects in 30 s at full bot speed on
  SQLite).
* automatic collections stay on, with **thresholds** ``(50_000, 1_000, 1_000)``, as a safety net
  for a loop blocked between ticks;
* a **full collection** every ``full_every_s`` seconds (unfreeze, collect, freeze) returns what such
  cycles hold; it is the one long pause left (0.5-1.2 s at 1,000 tables), once an hour by default
  (0: never).

``freeze_every_s = 0`` leaves the collector exactly as Python sets it.

The other process-wide setting ``jantaku serve`` makes is the GIL's switch interval
(:func:`switching`, ``--gil-switch-interval``, 1 ms): the SQLite writer thread drops the GIL around
each sqlite3 call and the fsync and, to get it back while the event loop runs Python, waits until
the loop's thread is asked to drop it, which Python does only after the interval (5 ms by default):
at a busy loop a group commit paid that several times (``bench/gil.py``; docs/benchmarks.md).

:class:`GcPauses` times every collection (``gc.callbacks``) for ``/metrics``
(``jantaku_gc_pause_seconds``) and ``/stats``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Protocol

from server.hub.settings import GcPolicy

log = logging.getLogger(__name__)


class GcModule(Protocol):
    """What the policy uses of :mod:`gc` (tests pass a stand-in)."""

    def get_threshold(self) -> tuple[int, int, int]: ...
    def set_threshold(self, threshold0: int, threshold1: int = ..., threshold2: int = ..., /) -> None: ...
    def freeze(self) -> None: ...
    def unfreeze(self) -> None: ...
    def collect(self, generation: int = 2) -> int: ...


class GcPauses:
    """Times every garbage collection of the process while registered (``gc.callbacks``).

    :meth:`summary` gives the count, total and longest pause per generation since the last
    :meth:`reset`. The callback runs inside the collector, so it only does arithmetic and appends to
    a list (no locks: it may interrupt code that holds one); :meth:`flush` hands the pauses seen
    since the last flush to ``observe`` (the hub's Prometheus histogram, before each scrape).
    """

    MAX_PENDING = 10_000  # pauses kept between two flushes (more are counted, not observed)

    def __init__(self, observe: Callable[[int, float], None] | None = None) -> None:
        self._observe = observe
        self._started = 0.0
        self._registered = False
        self._pending: list[tuple[int, float]] = []
        self.reset()

    def reset(self) -> None:
        self.count = [0, 0, 0]
        self.total = [0.0, 0.0, 0.0]
        self.longest = [0.0, 0.0, 0.0]
        self.collected = [0, 0, 0]  # unreachable objects found (reference cycles)

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        generation = min(2, max(0, int(info.get("generation", 2))))
        self.record(generation, time.perf_counter() - self._started, int(info.get("collected", 0)))

    def record(self, generation: int, seconds: float, collected: int = 0) -> None:
        self.count[generation] += 1
        self.collected[generation] += collected
        self.total[generation] += seconds
        self.longest[generation] = max(self.longest[generation], seconds)
        if len(self._pending) < self.MAX_PENDING:
            self._pending.append((generation, seconds))

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        if self._observe is not None:
            for generation, seconds in pending:
                self._observe(generation, seconds)

    def register(self) -> None:
        if not self._registered:
            gc.callbacks.append(self.callback)
            self._registered = True

    def unregister(self) -> None:
        if self._registered:
            with contextlib.suppress(ValueError):
                gc.callbacks.remove(self.callback)
            self._registered = False

    def summary(self, *, heap: bool = False) -> dict[str, Any]:
        """Per generation since the last reset; with ``heap``, also how many objects are frozen now.
        Counting them walks the whole frozen heap with the event loop stopped (``gc.get_freeze_count``
        is a list walk: about 115 ms at 1,400 tables), so only a caller that asks for it pays it."""
        frozen = {"frozen": gc.get_freeze_count()} if heap else {}
        return {
            **frozen,
            **{
                f"gen{g}": {
                    "collections": self.count[g],
                    "total_ms": round(self.total[g] * 1000, 3),
                    "max_ms": round(self.longest[g] * 1000, 3),
                    "collected": self.collected[g],
                }
                for g in range(3)
            },
        }


async def run_policy(
    policy: GcPolicy,
    *,
    collector: GcModule = gc,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Every ``freeze_every_s`` seconds collect the young generation and freeze the survivors; every
    ``full_every_s`` (counted in ticks) collect everything instead; until cancelled. The caller sets
    the thresholds (:func:`applied`)."""
    if not policy.active:
        return
    per_full = round(policy.full_every_s / policy.freeze_every_s) if policy.full_every_s else 0
    ticks = 0
    while True:
        await sleep(policy.freeze_every_s)
        ticks += 1
        if per_full and ticks % per_full == 0:
            started = time.perf_counter()
            collector.unfreeze()
            found = collector.collect(2)
            log.info(
                "full garbage collection: %d unreachable objects, %.0f ms",
                found,
                (time.perf_counter() - started) * 1000,
            )
        else:
            collector.collect(0)  # what was allocated since the last tick and is garbage already
        collector.freeze()


@contextlib.contextmanager
def switching(interval_s: float) -> Iterator[None]:
    """``sys.setswitchinterval(interval_s)`` for the duration of the block (0: leave Python's),
    then the interval as it was."""
    if not interval_s:
        yield
        return
    before = sys.getswitchinterval()
    sys.setswitchinterval(interval_s)
    log.info("GIL switch interval: %g ms (Python's default: 5 ms)", interval_s * 1000)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@contextlib.asynccontextmanager
async def applied(policy: GcPolicy, *, collector: GcModule = gc) -> AsyncIterator[None]:
    """Run ``policy`` on this process for the duration of the block, then give the collector back
    as it was (thresholds restored, everything unfrozen)."""
    if not policy.active:
        yield
        return
    before = collector.get_threshold()
    collector.collect()  # start from a clean heap: what survives startup is frozen at once
    collector.freeze()
    collector.set_threshold(*policy.thresholds)
    task = asyncio.create_task(run_policy(policy, collector=collector), name="gc-policy")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        collector.set_threshold(*before)
        collector.unfreeze()
