"""Fixtures of the cluster tests: Redis and PostgreSQL on loopback.

Redis is ``$JANTAKU_TEST_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``); every test gets key
prefix of its own (``jt-<run>-<n>``), deleted afterwards, so runs and lanes never collide. Like
PostgreSQL's, an unreachable Redis skips these tests with the reason, except under ``CI=true``,
where they fail (``.ci/run`` starts it).
"""

from __future__ import annotations

import asyncio
import io
import itertools
import os
import secrets
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from tests.store.conftest import _in_thread, in_ci, postgres  # noqa: F401  (postgres: a fixture)

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
RUN_ID = f"jt-{os.getpid()}-{secrets.token_hex(3)}"
_numbers = itertools.count()


def redis_url() -> str:
    return os.environ.get("JANTAKU_TEST_REDIS_URL", DEFAULT_REDIS_URL)


async def _probe(url: str) -> str | None:
    client: Redis = Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    try:
        await client.ping()
        return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        await client.aclose()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """The Redis URL, once it answered (skip, or fail under CI=true, if it does not)."""
    url = redis_url()
    error = _in_thread(lambda: _probe(url))
    if error is not None:
        reason = f"Redis at {url} is unreachable ({error})"
        if in_ci():
            pytest.fail(f"{reason}; CI=true requires it (start it: see .ci/run)", pytrace=False)
        pytest.skip(f"{reason}; set JANTAKU_TEST_REDIS_URL to test it")
    yield url


@pytest_asyncio.fixture
async def redis_prefix(redis_server: str) -> AsyncIterator[str]:
    """A key prefix of this test's own; its keys are deleted afterwards."""
    prefix = f"{RUN_ID}-{next(_numbers)}"
    yield prefix
    await drop_keys(redis_server, prefix)


async def drop_keys(url: str, prefix: str) -> None:
    client: Redis = Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    try:
        keys = [k async for k in client.scan_iter(match=f"{prefix}:*", count=500)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


STUCK_AFTER_S = 200.0  # well inside pytest-timeout's 300 s


@pytest_asyncio.fixture(autouse=True)
async def _report_stuck_tasks() -> AsyncIterator[None]:
    """If a test is still running after STUCK_AFTER_S, print what each of its tasks awaits (a hung
    cluster test then says where it hangs, not only that pytest-timeout stopped it)."""
    loop = asyncio.get_running_loop()

    def dump() -> None:
        out = io.StringIO()
        for task in asyncio.all_tasks(loop):
            print(f"--- task {task.get_name()}", file=out)
            awaited: Any = task.get_coro()
            while awaited is not None:  # the chain of awaits, outermost first
                frame = (
                    getattr(awaited, "cr_frame", None)
                    or getattr(awaited, "ag_frame", None)
                    or getattr(awaited, "gi_frame", None)
                )
                if frame is not None:
                    print(f"    {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}", file=out)
                following = getattr(awaited, "cr_await", None) or getattr(awaited, "ag_await", None)
                if following is None and frame is not None and frame.f_code.co_name == "__aexit__":
                    following = getattr(frame.f_locals.get("self"), "gen", None)  # an async generator
                if following is None and frame is not None:
                    print(f"    awaits {getattr(awaited, 'cr_await', None)!r}", file=out)
                awaited = following or getattr(awaited, "gi_yieldfrom", None)
        sys.stderr.write(f"still running after {STUCK_AFTER_S:g} s; its tasks:\n{out.getvalue()}")

    handle = loop.call_later(STUCK_AFTER_S, dump)
    try:
        yield
    finally:
        handle.cancel()


async def eventually(check: object, timeout: float = 10.0, every: float = 0.05) -> None:
    """Wait until ``check()`` (sync or async) is true; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = check()  # type: ignore[operator]
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return
        if loop.time() > deadline:
            raise AssertionError(f"not true within {timeout} s: {check}")
        await asyncio.sleep(every)
