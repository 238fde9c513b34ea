"""The benchmarks' event-loop probe (server/hub/looplag.py): late wake-ups counted as stalls, the
garbage collector's share told apart."""

from __future__ import annotations

import asyncio
import itertools

from server.hub.looplag import LoopLag


def test_late_wakeups_count_as_stalls_by_threshold_and_cause() -> None:
    lag = LoopLag(lambda: 0.0)
    lag.observe(0.001, 0.0)  # on time
    lag.observe(0.006, 0.0)  # a 6 ms stall, not the GC's
    lag.observe(0.030, 0.020)  # a 30 ms stall, mostly a GC pause
    s = lag.summary()
    assert s["wakeups"] == 3
    assert s["stalls"] == 2 and s["gc_stalls"] == 1
    assert (s["over_5ms"], s["over_10ms"], s["over_20ms"], s["over_50ms"]) == (2, 1, 1, 0)
    assert s["longest_ms"] == 30.0
    lag.reset()
    assert lag.summary()["stalls"] == 0


def test_the_probe_measures_each_wakeup_against_its_own_clock() -> None:
    # asked, woke (30 ms late), asked, woke (on time), then on time for ever
    readings = itertools.chain([0.0, 0.040, 0.040, 0.0505], itertools.count(1.0, 0.010))

    async def scenario() -> dict[str, object]:
        lag = LoopLag(lambda: 0.0, interval_s=0.010, clock=lambda: next(readings))
        task = asyncio.create_task(lag.run())
        while lag.wakeups < 2:
            await asyncio.sleep(0.01)
        task.cancel()
        return lag.summary()

    s = asyncio.run(scenario())
    assert isinstance(s["wakeups"], int) and s["wakeups"] >= 2 and s["stalls"] == 1
    assert s["longest_ms"] == 30.0
