"""Commit before broadcast, at the store's level: a process that "broadcasts" a step (prints it)
only after ``append_step`` returned is SIGKILLed at a random moment, repeatedly; every step it
printed must be in the database, and every log must be whole (steps 0..n-1, nothing else)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
import textwrap
from pathlib import Path

import pytest

from tests.store.conftest import Database

TABLES = 8

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from server.domain.records import AccountKind, MatchRecord, MatchStatus, SeatRecord, StepRecord
    from server.store.repository import SqlRepository

    URL, SEARCH_PATH, TABLES = sys.argv[1], sys.argv[2] or None, int(sys.argv[3])

    async def table(repo, m):
        if await repo.get_match(m) is None:
            seats = tuple(SeatRecord(i, f"b{i}", AccountKind.BOT, None, "greedy") for i in range(4))
            await repo.create_match(
                MatchRecord(m, "{}", "0" * 64, "0" * 64, "1", "w", seats, MatchStatus.RUNNING, time.time())
            )
        k = await repo.step_count(m)  # resume where the log ends
        while True:
            events = ({"type": "tile_discarded", "seat": k % 4, "tile": "1m", "n": k},)
            action = {"type": "discard", "tile": "1m"}
            await repo.append_step(StepRecord(m, k, k % 4, action, events, k, time.time()))
            print(json.dumps([m, k]), flush=True)  # the broadcast: only after the commit
            k += 1

    async def main():
        repo = await SqlRepository.open(URL, search_path=SEARCH_PATH)
        print(json.dumps(["ready", 0]), flush=True)
        await asyncio.gather(*(table(repo, f"m-{i}") for i in range(TABLES)))

    asyncio.run(main())
    """
)


async def _run_and_kill(db: Database, cwd: Path, lines_before_kill: int) -> list[tuple[str, int]]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        db.url,
        db.search_path or "",
        str(TABLES),
        stdout=asyncio.subprocess.PIPE,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert proc.stdout is not None
    seen: list[tuple[str, int]] = []
    try:
        async with asyncio.timeout(60):
            while len(seen) < lines_before_kill:
                line = await proc.stdout.readline()
                assert line, "the writer process ended early"
                m, k = json.loads(line)
                if m != "ready":
                    seen.append((m, k))
    finally:
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
    return seen


@pytest.mark.asyncio
async def test_sigkill_never_loses_a_broadcast_step(database: Database, tmp_path: Path) -> None:
    rng = random.Random(5)
    broadcast: set[tuple[str, int]] = set()
    for _ in range(3):
        broadcast |= set(await _run_and_kill(database, tmp_path, rng.randint(50, 400)))
        repo = await database.open()
        try:
            for i in range(TABLES):
                m = f"m-{i}"
                stored = [s.step for s in await repo.steps(m)]
                assert stored == list(range(len(stored)))  # whole: no gap, no duplicate
                assert {k for mm, k in broadcast if mm == m} <= set(stored)
                assert all(s.events[0]["n"] == s.step for s in await repo.steps(m))
        finally:
            await repo.close()
    assert len(broadcast) >= 150
