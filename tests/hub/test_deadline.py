"""``with_deadline`` on the system clock runs the awaitable in the caller's task (issue 17: no task
per store call) and keeps its contract: the value, the awaitable's own errors, TimeoutError at the
deadline with the awaitable cancelled."""

from __future__ import annotations

import asyncio

import pytest

from server.domain.clock import SystemClock, with_deadline


@pytest.mark.asyncio
async def test_the_value_comes_back_without_a_task_of_its_own() -> None:
    clock = SystemClock()
    tasks: list[int] = []

    async def call() -> int:
        tasks.append(len(asyncio.all_tasks()))
        return 7

    before = len(asyncio.all_tasks())
    assert await with_deadline(clock, call(), clock.now() + 5.0) == 7
    assert tasks == [before]


@pytest.mark.asyncio
async def test_the_deadline_cancels_the_awaitable_and_raises_timeout() -> None:
    clock = SystemClock()
    cancelled = asyncio.Event()

    async def slow() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(TimeoutError, match="the store did not finish in time"):
        await with_deadline(clock, slow(), clock.now() + 0.01, "the store")
    assert cancelled.is_set()


@pytest.mark.asyncio
async def test_the_awaitables_own_errors_pass_through() -> None:
    clock = SystemClock()

    async def fails() -> None:
        raise TimeoutError("the database's own timeout")

    with pytest.raises(TimeoutError, match="the database's own timeout"):
        await with_deadline(clock, fails(), clock.now() + 5.0)
    with pytest.raises(KeyError):
        await with_deadline(clock, asyncio.ensure_future(_raise_key()), clock.now() + 5.0)


async def _raise_key() -> None:
    raise KeyError("x")
