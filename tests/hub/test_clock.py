"""The injectable clock, deadlines, the rate limit and the settings' checks."""

from __future__ import annotations

import asyncio
import doctest

import pytest

import server.domain.clock
import server.hub.adapter
import server.hub.clock
import server.hub.seating
import server.hub.server
import server.hub.settings
import server.hub.timing
import server.services.auth
from server.hub.clock import ManualClock, SystemClock, sleep_until, with_deadline
from server.hub.settings import ConnectionLimits, HubSettings, SettingsError, TableTimers


@pytest.mark.parametrize(
    "module",
    [
        server.domain.clock,
        server.hub.clock,
        server.hub.adapter,
        server.hub.settings,
        server.services.auth,
        server.hub.server,
        server.hub.seating,
        server.hub.timing,
    ],
)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0 and result.attempted > 0


def test_manual_clock_runs_callbacks_in_deadline_order() -> None:
    clock = ManualClock()
    fired: list[tuple[str, float]] = []
    clock.call_at(3, lambda: fired.append(("c", clock.now())))
    clock.call_at(1, lambda: fired.append(("a", clock.now())))
    cancelled = clock.call_at(2, lambda: fired.append(("b", clock.now())))
    cancelled.cancel()
    assert clock.pending() == 2 and clock.next_deadline() == 1
    clock.advance(10)
    assert fired == [("a", 1), ("c", 3)] and clock.now() == 10
    assert not clock.advance_to_next()
    with pytest.raises(ValueError):
        clock.advance(-1)


@pytest.mark.asyncio
async def test_sleep_until_and_deadlines_on_the_manual_clock() -> None:
    clock = ManualClock()
    woke = asyncio.Event()

    async def sleeper() -> None:
        await sleep_until(clock, 5)
        woke.set()

    task = asyncio.create_task(sleeper())
    await asyncio.sleep(0)
    clock.advance(4)
    await asyncio.sleep(0)
    assert not woke.is_set()
    clock.advance(1)
    await task
    assert woke.is_set()

    never: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    pending = asyncio.create_task(with_deadline(clock, never, clock.now() + 2, "the thing"))
    await asyncio.sleep(0)
    clock.advance(2)
    with pytest.raises(TimeoutError, match="the thing"):
        await pending
    assert never.cancelled()

    async def quick() -> int:
        return 7

    assert await with_deadline(clock, quick(), clock.now() + 1) == 7
    assert clock.pending() == 0


@pytest.mark.asyncio
async def test_system_clock_follows_the_loop() -> None:
    clock = SystemClock()
    loop = asyncio.get_running_loop()
    assert abs(clock.now() - loop.time()) < 1
    done = asyncio.Event()
    clock.call_at(clock.now(), done.set)
    await done.wait()


def test_settings_are_checked() -> None:
    with pytest.raises(SettingsError):
        TableTimers(action_ms=-1)
    with pytest.raises(SettingsError):
        ConnectionLimits(outbound_queue=10)
    with pytest.raises(SettingsError):
        HubSettings(port=70000)
    assert TableTimers().replace(min_call_ms=800).min_call_ms == 800
