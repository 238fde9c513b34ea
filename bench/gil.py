"""The GIL hand-off between the event loop and the SQLite writer thread, on its own.

    python bench/gil.py [--seconds 8] [--busy 0.7] [--rounds 2] [--intervals 0.005,0.001,0.0005]

The hub's loop thread runs Python almost all the time when busy; the SQLite writer thread
(server/store/sqlite_writer.py) drops the GIL around every sqlite3 call and the fsync and must get it
back after each. CPython hands the GIL over only when the holder waits for I/O or after the *switch
interval* (``sys.setswitchinterval``, 5 ms by default), so at a busy loop every hand-back can cost the
writer up to one interval, and a transaction has several. This bench reproduces that without the
network: an asyncio loop (uvloop when installed) kept ``--busy`` busy by pure-Python callbacks (1 ms
slices), and a writer thread committing one small transaction at a time (SQLAlchemy Core
``insert()`` executemany of 4 JSON rows, WAL, ``synchronous=FULL``), submitted from the loop as the
hub's writer does; it prints the commit latency seen by the loop and the loop's own lag, for each
switch interval, interleaved over ``--rounds``. Nothing is asserted; figures go to
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import sqlalchemy as sa


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000 if ordered else 0.0


def make_engine(path: Path) -> tuple[sa.Engine, sa.Table]:
    engine = sa.create_engine(f"sqlite:///{path}")
    meta = sa.MetaData()
    table = sa.Table(
        "steps",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("match_id", sa.String(36)),
        sa.Column("step", sa.Integer),
        sa.Column("payload", sa.JSON),
    )
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA journal_mode=WAL")
    meta.create_all(engine)
    return engine, table


async def run_once(engine: sa.Engine, table: sa.Table, seconds: float, busy: float) -> dict[str, float]:
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(1)
    conn = executor.submit(engine.connect).result()
    executor.submit(conn.exec_driver_sql, "PRAGMA synchronous=FULL").result()
    executor.submit(conn.commit).result()
    commits: list[float] = []
    lags: list[float] = []
    stop = time.perf_counter() + seconds
    step = 0

    def transaction(rows: list[dict[str, object]]) -> None:
        conn.execute(sa.insert(table), rows)
        conn.commit()

    def spin() -> None:  # one slice of the loop's own work
        end = time.perf_counter() + 0.001 * busy
        while time.perf_counter() < end:
            pass
        if time.perf_counter() < stop:
            loop.call_later(0.001 * (1 - busy), spin)

    async def writer() -> None:
        nonlocal step
        while time.perf_counter() < stop:
            rows = [
                {"match_id": "m", "step": step + i, "payload": {"events": [{"t": "discard", "tile": i}]}}
                for i in range(4)
            ]
            step += 4
            started = time.perf_counter()
            await loop.run_in_executor(executor, transaction, rows)
            commits.append(time.perf_counter() - started)

    async def lag() -> None:
        while time.perf_counter() < stop:
            asked = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - asked - 0.01)

    loop.call_soon(spin)
    await asyncio.gather(writer(), lag())
    executor.submit(conn.close).result()
    executor.shutdown()
    return {
        "commits_per_s": len(commits) / seconds,
        "commit_p50_ms": pct(commits, 50),
        "commit_p99_ms": pct(commits, 99),
        "lag_p99_ms": pct(lags, 99),
        "lag_max_ms": max(lags) * 1000 if lags else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--busy", type=float, default=0.7, help="fraction of the loop's time in Python")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--intervals", default="0.005,0.001,0.0005")
    args = parser.parse_args()
    try:
        import uvloop

        def runner(main: Coroutine[Any, Any, dict[str, float]]) -> dict[str, float]:
            return uvloop.run(main)
    except ImportError:

        def runner(main: Coroutine[Any, Any, dict[str, float]]) -> dict[str, float]:
            return asyncio.run(main)

    intervals = [float(x) for x in args.intervals.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        engine, table = make_engine(Path(tmp) / "gil.db")
        for r in range(args.rounds):
            for interval in intervals:
                sys.setswitchinterval(interval)
                res = runner(run_once(engine, table, args.seconds, args.busy))
                print(
                    f"round {r + 1} switch interval {interval * 1000:g} ms: "
                    + ", ".join(f"{k} {v:.2f}" for k, v in res.items()),
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
