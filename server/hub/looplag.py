"""How late the hub's event loop runs what is due: a probe for benchmarks (``JANTAKU_HUB_STATS=1``).

:class:`LoopLag` sleeps ``interval_s`` (10 ms) at a time and measures how much later than asked it
wakes up: a wake-up ``threshold_s`` (5 ms) or more late is a *stall* (a callback or a run of them,
a garbage-collector pause, the GIL held by another thread) that every table due in it waited
through. Each stall is also told apart by what the garbage collector did meanwhile: if its pauses
in the stall add up to at least half of it, the stall counts as the collector's (``gc_stalls``).
``/stats`` reports the count, the total and longest stall and the per-threshold counts; the probe
costs one timer per ``interval_s``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

STALL_THRESHOLDS_S = (0.005, 0.010, 0.020, 0.050)


class LoopLag:
    def __init__(
        self,
        gc_total: Callable[[], float],
        *,
        interval_s: float = 0.010,
        threshold_s: float = 0.005,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._gc_total = gc_total  # seconds of garbage-collector pauses so far
        self._clock = clock
        self.interval_s = interval_s
        self.threshold_s = threshold_s
        self.reset()

    def reset(self) -> None:
        self.wakeups = 0
        self.stalls = 0
        self.gc_stalls = 0
        self.stalled_s = 0.0
        self.longest_s = 0.0
        self.over = [0] * len(STALL_THRESHOLDS_S)

    def observe(self, late_s: float, gc_s: float) -> None:
        """One wake-up ``late_s`` late, ``gc_s`` of garbage-collector pauses since the last one."""
        self.wakeups += 1
        if late_s < self.threshold_s:
            return
        self.stalls += 1
        self.stalled_s += late_s
        self.longest_s = max(self.longest_s, late_s)
        if gc_s >= late_s / 2:
            self.gc_stalls += 1
        for i, threshold in enumerate(STALL_THRESHOLDS_S):
            if late_s >= threshold:
                self.over[i] += 1

    async def run(self) -> None:
        """Probe until cancelled."""
        while True:
            gc_before = self._gc_total()
            asked = self._clock()
            await asyncio.sleep(self.interval_s)
            self.observe(self._clock() - asked - self.interval_s, self._gc_total() - gc_before)

    def summary(self) -> dict[str, Any]:
        return {
            "wakeups": self.wakeups,
            "stalls": self.stalls,
            "gc_stalls": self.gc_stalls,
            "stalled_ms": round(self.stalled_s * 1000, 1),
            "longest_ms": round(self.longest_s * 1000, 3),
            **{f"over_{round(t * 1000)}ms": n for t, n in zip(STALL_THRESHOLDS_S, self.over, strict=True)},
        }
