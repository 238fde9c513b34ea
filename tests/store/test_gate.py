"""The SQLite write gate (server/store/gate.py): ordinary writers first come first served, the step
writer next whenever it waits (but never twice in a row while others wait), cancellation safe."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from server.store.gate import WriteGate


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_ordinary_writers_go_in_order_and_the_step_writer_goes_next() -> None:
    gate = WriteGate()
    order: list[str] = []
    release = asyncio.Event()

    async def writer(name: str, *, priority: bool = False, wait: asyncio.Event | None = None) -> None:
        async with gate.hold(priority=priority):
            order.append(name)
            if wait is not None:
                await wait.wait()

    first = asyncio.create_task(writer("first", wait=release))
    await _settle()
    others = [asyncio.create_task(writer(f"w{i}")) for i in range(3)]
    await _settle()
    steps = asyncio.create_task(writer("steps", priority=True))
    await _settle()
    assert order == ["first"] and gate.locked
    release.set()
    await asyncio.gather(first, steps, *others)
    assert order == ["first", "steps", "w0", "w1", "w2"]
    assert not gate.locked


@pytest.mark.asyncio
async def test_a_busy_step_writer_does_not_starve_the_others() -> None:
    gate = WriteGate()
    order: list[str] = []
    stop = asyncio.Event()

    async def step_writer() -> None:
        while not stop.is_set():
            async with gate.hold(priority=True):
                order.append("S")
                await asyncio.sleep(0)

    async def other(i: int) -> None:
        async with gate:
            order.append(f"o{i}")
            await asyncio.sleep(0)

    steps = asyncio.create_task(step_writer())
    await _settle()
    await asyncio.gather(*(other(i) for i in range(4)))
    stop.set()
    await steps
    others = [i for i, name in enumerate(order) if name != "S"]
    assert [order[i] for i in others] == ["o0", "o1", "o2", "o3"]
    # Between two ordinary writers at most one batch of steps.
    assert all(b - a <= 2 for a, b in itertools.pairwise(others)), order


@pytest.mark.asyncio
async def test_a_cancelled_waiter_is_skipped_and_the_lock_is_not_lost() -> None:
    gate = WriteGate()
    release = asyncio.Event()
    got: list[str] = []

    async def holder() -> None:
        async with gate:
            await release.wait()

    async def waiter(name: str, priority: bool = False) -> None:
        async with gate.hold(priority=priority):
            got.append(name)

    h = asyncio.create_task(holder())
    await _settle()
    doomed = asyncio.create_task(waiter("doomed"))
    doomed_steps = asyncio.create_task(waiter("doomed-steps", priority=True))
    survivor = asyncio.create_task(waiter("survivor"))
    await _settle()
    doomed.cancel()
    doomed_steps.cancel()
    release.set()  # released while the cancelled waiters are still queued
    await h
    await asyncio.gather(doomed, doomed_steps, return_exceptions=True)
    await survivor
    assert got == ["survivor"]
    assert not gate.locked
    async with gate.hold(priority=True):  # and the gate still works
        assert gate.locked
