"""The step writer on PostgreSQL at human pace: CPU per step of the database and of the writer.

    python bench/pgwriter.py [--tables 1000] [--seconds 10] [--owner n0] [--commit-interval-ms MS]
                             [--tree DIR] [--postgres-url URL]

One process appends the steps of ``--tables`` matches (a real match of greedy bots, as
tests/store/games.py records it) through ``SqlRepository.append_step``, each table one step every
0.5-1.5 s (uniform, as bench/hub.py's ``--pace 1``), awaiting each commit as a table does. With
``--owner`` (the default) the repository is a cluster node's: every match is fenced. After 4 s of
warm-up it measures over ``--seconds``: committed steps/s, commits/s (the writer's batches), the CPU
of the PostgreSQL processes serving the bench's own database (created and dropped) and of this
process (the writer and the tables' tasks), per step and per commit. ``--tree DIR`` takes the
``server`` package from another checkout (an A/B against an older commit, as docs/benchmarks.md
does); ``--commit-interval-ms`` overrides the writer's interval between commits (a tree that has one).
Nothing here is asserted by the test suite; the figures go to docs/benchmarks.md ("Cluster").
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import random
import secrets
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from cluster import postgres_cpu as postgres_processes
from hub import cpu_seconds

REPO = Path(__file__).resolve().parents[1]
DEFAULT_POSTGRES = os.environ.get(
    "JANTAKU_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)


def postgres_cpu(database: str) -> float:
    """CPU seconds so far of the PostgreSQL processes serving ``database`` (bench/cluster.py's)."""
    return sum(seconds for seconds, mine in postgres_processes(database).values() if mine)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from sqlalchemy import text
    from sqlalchemy.engine import make_url
    from sqlalchemy.ext.asyncio import create_async_engine

    from server.store.repository import SqlRepository
    from tests.store.games import match_record, played

    async def admin(sql: str) -> None:
        engine = create_async_engine(args.postgres_url, isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                await conn.execute(text(sql))
        finally:
            await engine.dispose()

    name = f"jantaku_bench_pgwriter_{secrets.token_hex(4)}"
    await admin(f'CREATE DATABASE "{name}"')
    try:
        url = make_url(args.postgres_url).set(database=name).render_as_string(hide_password=False)
        extra: dict[str, Any] = {}
        if args.commit_interval_ms is not None:
            extra["commit_interval_s"] = args.commit_interval_ms / 1000
        repo = await SqlRepository.open(url, owner=args.owner or None, **extra)
        records, events = played()
        ids = [f"m-{i}" for i in range(args.tables)]
        for m in ids:
            await repo.create_match(replace(match_record(m, events), id=m))
        committed = 0
        stop = False

        async def table(match_id: str, rng: random.Random) -> None:
            nonlocal committed
            for r in records:
                if stop:
                    return
                await asyncio.sleep(0.5 + rng.random())
                await repo.append_step(replace(r, match_id=match_id))
                committed += 1

        seeds = random.Random(1)
        tasks = [asyncio.create_task(table(m, random.Random(seeds.random()))) for m in ids]
        await asyncio.sleep(4.0)
        stats = repo.writer.stats

        def reading() -> tuple[int, int, float, float, float]:
            """Steps, commits, PostgreSQL's and this process's CPU seconds, and the time, now."""
            return committed, stats.batches, postgres_cpu(name), cpu_seconds(os.getpid()), time.monotonic()

        s0, b0, pg0, me0, t0 = reading()
        await asyncio.sleep(args.seconds)
        s1, b1, pg1, me1, t1 = reading()
        stop = True
        await asyncio.gather(*tasks)
        await repo.close()
    finally:
        await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    steps, commits, span = max(1, s1 - s0), max(1, b1 - b0), t1 - t0
    return {
        "tree": str(args.tree),
        "tables": args.tables,
        "commit_interval_ms": args.commit_interval_ms,
        "steps_per_s": round(steps / span, 1),
        "commits_per_step": round(commits / steps, 3),
        "postgres_cpu_percent": round(100 * (pg1 - pg0) / span, 1),
        "postgres_us_per_step": round(1e6 * (pg1 - pg0) / steps, 1),
        "postgres_us_per_commit": round(1e6 * (pg1 - pg0) / commits, 1),
        "writer_process_us_per_step": round(1e6 * (me1 - me0) / steps, 1),
        "one_statement_batches": getattr(stats, "one_statement", None),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--owner", default="n0", help="the node id ('' = single-node mode, nothing fenced)")
    parser.add_argument("--commit-interval-ms", type=float, default=None)
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose server package runs")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES)
    args = parser.parse_args()
    if not 1 <= args.tables <= 3000 or not 0 < args.seconds <= 120:
        parser.error("bounded: 1-3000 tables, at most 120 s")
    sys.path.insert(0, str(REPO))  # tests.store.games
    sys.path.insert(0, str(args.tree.resolve()))  # server
    loop_factory = None
    if importlib.util.find_spec("uvloop") is not None:
        import uvloop

        loop_factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        result = runner.run(run(args))
    print(" ".join(f"{k}={v}" for k, v in result.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
