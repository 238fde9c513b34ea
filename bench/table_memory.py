"""Memory a live table holds as its match goes on, measured in-process (issue 17 §4).

    python bench/table_memory.py [--tables 200] [--every 120] [--until 1200] [--server-repo PATH]

``--tables`` tables of four built-in bots play the same kind of match (TENHOU hanchan, seeds
``0..tables-1``) on a manual clock: each bot thinks 1 s of that clock per turn (``bot_delay_ms``),
about human pace. Every ``--every`` seconds of the clock, up to ``--until``, the script prints, per
table: the bytes of every object a table reaches (:func:`retained`: its state, event stream,
decisions, seating..., each object counted once per table; not what all tables share: the store,
whose job is to keep everything, the clock, the bots, the ruleset, modules, classes, enum members,
the event loop), and the events it keeps in memory. The Python heap (``tracemalloc``) is printed
too, but it includes the engine's process-wide caches (``functools.lru_cache``s and plain dicts,
bounded: ``bench/engine_caches.py`` weighs them one by one), which fill up over the first minutes.
No wall-clock timing is involved: the figures depend on the code only,
not on how busy the machine is, so before/after runs compare exactly (``--server-repo`` runs the
code of another checkout, e.g. ``/work/main``, with that checkout's virtualenv's python).

Nothing here is asserted by the test suite; the figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import tracemalloc
from pathlib import Path
from typing import Any


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--every", type=float, default=120.0, help="seconds of the tables' clock")
    parser.add_argument("--until", type=float, default=1200.0, help="seconds of the tables' clock")
    parser.add_argument("--server-repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.tables > 2000 or args.until > 20000:
        parser.error("bounded: at most 2000 tables and 20000 s of clock")
    return args


# The bots, the logger adapter, the inbox's queue (the event loop) and the timer (the clock): each by
# its path in this checkout's table actor, or in older ones (``--server-repo``), the first found.
NOT_OWNED = (
    (("_decisions", "_turns"), ("_turns",)),
    (("_ledger", "commits", "_log"), ("_commits", "_log")),
    (("_log",),),
    (("_inbox", "_queue"), ("_inbox",)),
    (("_wakeup", "_alarm"),),
)


def not_owned(table: Any) -> list[Any]:
    found = []
    for paths in NOT_OWNED:
        for path in paths:
            o = table
            for name in path:
                o = getattr(o, name, None)
            if o is not None:
                found.append(o)
                break
    return found


def retained(root: object, shared: set[int]) -> int:
    """Bytes of the objects reachable from ``root``, each once, not crossing ``shared`` ids or
    modules, classes, functions, enum members, tasks, futures and event loops."""
    import asyncio as aio
    import enum
    import types

    skip = (
        types.ModuleType,
        type,
        types.FunctionType,
        types.BuiltinFunctionType,
        types.MethodType,
        enum.Enum,
        aio.Task,
        aio.Future,
        aio.AbstractEventLoop,
        types.FrameType,
        types.CodeType,
    )
    seen: set[int] = set(shared)
    todo = [root]
    total = 0
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, skip) or obj is None or isinstance(obj, bool):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        todo.extend(gc.get_referents(obj))
    return total


def engine_cache_entries() -> int:
    """Entries in the engine's process-wide caches: ``server.hub.stats.engine_cache_entries`` (its
    ``functools.lru_cache``s and the plain dicts it clears when full) where the checkout has it, else
    the ``lru_cache``s alone (older checkouts)."""
    import importlib

    for name in ("server.engine.hand", "server.engine.options", "server.engine.overlap"):
        importlib.import_module(name)
    counted = getattr(importlib.import_module("server.hub.stats"), "engine_cache_entries", None)
    if callable(counted):
        return int(counted())
    total = 0
    for name in ("server.engine.hand", "server.engine.options", "server.engine.overlap"):
        for value in vars(importlib.import_module(name)).values():
            info = getattr(value, "cache_info", None)
            if callable(info):
                total += info().currsize
    return total


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    sys.path.insert(0, str(args.server_repo.resolve()))
    from server.domain.clock import ManualClock
    from server.domain.records import AccountKind, StepRecord
    from server.engine.rules import TENHOU
    from server.hub.inbox import SeatSpec
    from server.hub.settings import SpectatePolicy, TableTimers
    from server.hub.table import TableActor
    from server.hub.tablesetup import TableDeps, TableSetup
    from server.store.memory import InMemoryRepository

    class Forgetful(InMemoryRepository):
        async def append_step(self, step: StepRecord) -> None:
            return None

    repo = Forgetful()
    clock = ManualClock()
    timers = TableTimers(bot_delay_ms=1000)
    seats = [SeatSpec(name=f"bot{s}", kind=AccountKind.BOT, bot="greedy") for s in range(4)]
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    deps = TableDeps(repo=repo, clock=clock)  # one for every table, as the factory's
    tables = [
        TableActor(
            TableSetup(
                match_id=f"m-{i}",
                ruleset=TENHOU,
                seed=i.to_bytes(4, "big"),
                seats=seats,
                timers=timers,
                spectate=SpectatePolicy(),
            ),
            deps,
        )
        for i in range(args.tables)
    ]
    for table in tables:
        await table.start({})
    rows = []
    elapsed = 0.0
    while elapsed < args.until:
        step = min(args.every, args.until - elapsed)
        for _ in range(int(step)):
            clock.advance(1.0)
            await asyncio.gather(*(t.settle() for t in tables))
        elapsed += step
        gc.collect()
        heap = tracemalloc.get_traced_memory()[0] - base
        live = [t for t in tables if not t.finished]
        shared = {id(o) for o in (repo, clock, timers, deps, TENHOU, *seats, asyncio.get_running_loop())}
        for t in tables:  # what every table refers to but does not own (named as the checkout has it)
            shared.update(id(o) for o in not_owned(t))
        held = sum(retained(t, shared) for t in live)
        n = max(1, len(live))
        rows.append(
            {
                "clock_s": elapsed,
                "live_tables": len(live),
                "kib_per_live_table": round(held / 1024 / n, 1),
                "heap_kib_per_table": round(heap / 1024 / len(tables), 1),
                "engine_cache_entries": engine_cache_entries(),
                "events_kept_per_table": round(
                    sum(len(t._audience.pacing.stream.events) for t in live) / max(1, len(live)), 1
                ),
                "steps_per_table": round(sum(t.state.step for t in live if t.state) / max(1, len(live)), 1),
            }
        )
        if not live:
            break
    for table in tables:
        await table.stop()
    return rows


def main() -> int:
    args = parse()
    rows = asyncio.run(run(args))
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{args.tables} tables of 4 greedy bots, 1 s per turn on a manual clock; code: {args.server_repo}")
    print(
        "clock s  live  steps/table  events kept/table  KiB held/table  heap KiB/table  engine cache entries"
    )
    for r in rows:
        print(
            f"{r['clock_s']:7.0f}  {r['live_tables']:4d}  {r['steps_per_table']:11.1f}  "
            f"{r['events_kept_per_table']:17.1f}  {r['kib_per_live_table']:14.1f}  "
            f"{r['heap_kib_per_table']:14.1f}  {r['engine_cache_entries']:20d}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
