"""Cluster benchmark: human-paced tables against 1 and 2 ``jantaku serve`` nodes on PostgreSQL.

    python bench/cluster.py [--quick] [--postgres-url URL] [--start 200] [--json]
    python bench/cluster.py --step 2:400 [--queue-local-wait S] [--server-tree DIR]   # one step
    [--load-nice N]   # either form: the load process at niceness N (default 0)

A step whose bots are not all seated within ``--seat-timeout`` (240 s) fails (reported with how
many were seated and how many connections the server closed) rather than waiting for ever; the
search counts it as a failure. ``--server-tree DIR`` runs the nodes from another checkout (an A/B
against an older commit in one window, as docs/benchmarks.md does).

Each step starts everything afresh: a new PostgreSQL database (created, migrated, and dropped
after), a redis-server of the bench's own on a free port (nothing on disk; its own, so that
``INFO commandstats`` counts only this cluster's commands), N nodes (``jantaku serve --redis-url
... --database-url ... --node-id nI``, the per-address limits lifted, ``JANTAKU_HUB_STATS=1``), and
bench/hub.py's load process with T tables of 4 network bots at human pace (``--pace 1``: each answer
0.5-1.5 s after its prompt), its connections spread round-robin over the nodes (connection i to node
i mod N, as a round-robin load balancer would, without a proxy process taking CPU from the two
cores). Each node's quick-match queue seats the bots connected to it.

For N = 1 and N = 2 a step search over T (T grows by ``--factor`` from ``--start`` while the
server p99 stays <= 20 ms, ``--p99-ms``; it shrinks while the first steps fail; then bisection
until the largest pass and the smallest failure are within ``--precision``, 5 %) gives the largest
T at p99 <= 20 ms (the p99 of a cluster is the worst of its nodes' p99s, each the
action-to-broadcast time of server/hub/stats.py) and the ratio 2-node / 1-node, with a verdict
only when both searches found a failing count. ``--repeat K`` runs each count up to K times, and
the count passes when more than half of K runs pass (it stops once that is decided): near the
limit one run's p99 moves by a factor of two from run to run on a shared machine, so a single run
says little (docs/benchmarks.md).

Then one run in single-node mode (no ``--redis-url``) at a table
count the 1-node cluster passed, and one more 1-node cluster run just after it (fresh databases,
back to back, so that a neighbour's load weighs on both alike), for the CPU per applied action of
cluster mode against single-node mode. Every step prints the Redis commands per applied action
(``INFO commandstats`` before and after the window, the INFO calls left out) and the PostgreSQL
commits per applied action (``pg_stat_database.xact_commit`` of the step's database), and where the
machine's CPU went in the window, as % of a core and us per applied action: the nodes, the load
process, PostgreSQL (the processes serving the step's database, and all of PostgreSQL: read from
``/proc/PID/stat`` of every process named ``postgres``) and the step's redis-server; "not nodes" is
the last three together (what shares the two cores with the nodes). "machine busy" counts the
hypervisor's steal time as busy, and "stolen" says how much of the window it was (``/proc/stat``):
a window with steal ran on slower and fewer cores than two, so its limits say less about Jantaku.

Each step also prints, per node, the p99 of its step commits (a step's broadcast waits for its
commit), its longest event-loop stall and its longest garbage collection in the window.
``--load-nice N`` runs the load process at niceness N: it stands in for clients that would run on
other machines, and at niceness 0 it competes with the nodes and PostgreSQL for the two cores as an
equal, so that a node's answer can wait behind the bots' own work; with N = 15 the nodes and
PostgreSQL run first when both cores are busy (the load process still gets what they leave).
``--load-impl c|python`` picks the load process's implementation (bench/hub.py): ``c``, the
default where a C compiler builds ``bench/loadgen.c``, holds the same connections with the same
frames as the Python bots (``python``, the default where it does not build) for a fraction of their
CPU. The load stands in for clients on other machines; on two shared cores, the CPU it takes is CPU
the nodes and PostgreSQL do not get, which weighs on the 2-node/1-node ratio. The step lines say
which ran.

A full run takes about 10 minutes, ``--quick`` about 2-3 (shorter windows, fewer steps). Nothing is
asserted by the test suite; the figures go to docs/benchmarks.md ("Cluster").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hub import (
    LOAD_IMPLS,
    Server,
    cpu_seconds,
    finish_load,
    load_command,
    machine_idle,
    machine_stolen,
    read_json,
    resolve_load_impl,
    resolve_loop,
)

DEFAULT_POSTGRES = os.environ.get(
    "JANTAKU_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
MAX_TABLES = 4900  # the load process holds 4 connections per table (19,600 of its 20,000 descriptors)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- PostgreSQL: a fresh database per step ---------------------------------------------------------


async def _admin(server_url: str, sql: str) -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(sql))
    finally:
        await engine.dispose()


async def _create(server_url: str, name: str) -> str:
    from sqlalchemy.engine import make_url

    from server.store.repository import SqlRepository

    await _admin(server_url, f'CREATE DATABASE "{name}"')
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
    repo = await SqlRepository.open(url)  # migrated before the nodes start
    await repo.close()
    return url


async def _commits(server_url: str, name: str) -> int:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(server_url)
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT pg_stat_clear_snapshot()"))
            row = await conn.execute(
                text("SELECT xact_commit FROM pg_stat_database WHERE datname = :n"), {"n": name}
            )
            return int(row.scalar_one())
    finally:
        await engine.dispose()


def postgres_cpu(database: str) -> dict[int, tuple[float, bool]]:
    """CPU seconds so far of every PostgreSQL process on this machine (``comm`` is ``postgres``):
    pid -> (seconds, whether it serves ``database``: a backend or autovacuum worker whose title in
    ``/proc/PID/cmdline`` names it). The others are the postmaster, its WAL writer, checkpointer,
    background writer, and the backends of other databases (on a shared machine, other work)."""
    out: dict[int, tuple[float, bool]] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (proc / "comm").read_text().strip() != "postgres":
                continue
            title = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            out[int(proc.name)] = (cpu_seconds(int(proc.name)), f" {database} " in title)
        except (OSError, ValueError):  # gone meanwhile
            continue
    return out


def postgres_cpu_used(
    before: dict[int, tuple[float, bool]], after: dict[int, tuple[float, bool]]
) -> tuple[float, float]:
    """CPU seconds PostgreSQL used between two :func:`postgres_cpu` readings: (the step database's
    processes, all of PostgreSQL). A process started in between counts from zero; one that ended
    in between is missed (the nodes' pools keep their connections)."""
    step = total = 0.0
    for pid, (seconds, ours) in after.items():
        used = max(0.0, seconds - before.get(pid, (0.0, ours))[0])
        total += used
        if ours:
            step += used
    return step, total


def pg_commits(server_url: str, name: str) -> int:
    """The commits of database ``name`` so far (read from the admin database, so that this query's
    own transaction is not counted in ``name``)."""
    time.sleep(1.2)  # backends flush their statistics at most once a second
    return asyncio.run(_commits(server_url, name))


# -- Redis: a server of the bench's own ------------------------------------------------------------


class RedisServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            if self.commands() >= 0:
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def by_command(self) -> dict[str, int]:
        """Calls so far per command (those run inside Lua scripts included), INFO left out."""
        import redis

        client = redis.Redis(port=self.port, socket_timeout=2)
        try:
            stats = client.info("commandstats")
        finally:
            client.close()
        return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items() if k != "cmdstat_info"}

    def commands(self) -> int:
        """Commands served so far (-1 while not up)."""
        import redis

        try:
            return sum(self.by_command().values())
        except redis.RedisError:
            return -1

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


# -- one step --------------------------------------------------------------------------------------


@dataclass
class Config:
    postgres: str
    warmup: float
    seconds: float
    loop: str
    p99_ms: float = 20.0
    seat_timeout_s: float = 240.0  # a step whose bots are not all seated by then failed
    local_wait_s: float | None = None  # the nodes' --queue-local-wait (None: their default)
    server_tree: Path | None = None  # run the nodes from this checkout (an A/B against another commit)
    load_nice: int = 0  # the load process's niceness (it stands in for clients on other machines)
    load_impl: str = "python"  # the load process: bench/hub.py's Python bots, or bench/loadgen.c ("c")


def run_step(cfg: Config, nodes: int, tables: int, *, cluster: bool) -> dict[str, Any]:
    name = f"jantaku_bench_cluster_{secrets.token_hex(4)}"
    database_url = asyncio.run(_create(cfg.postgres, name))
    redis = RedisServer() if cluster else None
    servers: list[Server] = []
    load: subprocess.Popen[str] | None = None
    started = time.monotonic()
    try:
        for i in range(nodes):
            extra = ["--port", str(free_port())]
            if redis is not None:
                extra += ["--redis-url", redis.url, "--node-id", f"n{i}", "--cluster-prefix", "bench"]
                if cfg.local_wait_s is not None:
                    extra += ["--queue-local-wait", str(cfg.local_wait_s)]
            tree = {"repo": cfg.server_tree} if cfg.server_tree else {}
            servers.append(Server(database_url, 10000, extra, loop=cfg.loop, **tree))
        urls = ",".join(s.url for s in servers)
        argv = load_command(cfg.load_impl, urls, "--load", "play", "--tables", str(tables), "--pace", "1")
        nice = ["nice", "-n", str(cfg.load_nice)] if cfg.load_nice else []
        load = subprocess.Popen(
            [*nice, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            read_json(load, "seated", cfg.seat_timeout_s)
        except (TimeoutError, RuntimeError) as exc:  # the step failed: reported, not waited for
            return unseated(nodes, tables, cluster, str(exc), time.monotonic() - started)
        time.sleep(cfg.warmup)
        assert load.stdin is not None
        load.stdin.write("window\n")
        load.stdin.flush()
        window_at = time.monotonic()
        commits0 = pg_commits(cfg.postgres, name)
        redis0 = redis.by_command() if redis else {}
        cpu0 = [cpu_seconds(s.proc.pid) for s in servers]
        pg0, redis_cpu0 = postgres_cpu(name), cpu_seconds(redis.proc.pid) if redis else 0.0
        load0, idle0, t0 = cpu_seconds(load.pid), machine_idle(), time.monotonic()
        stolen0 = machine_stolen()
        for s in servers:
            s.stats(reset=True)
        time.sleep(cfg.seconds)
        stats = [s.stats() for s in servers]
        cpu1 = [cpu_seconds(s.proc.pid) for s in servers]
        load1, idle1, t1 = cpu_seconds(load.pid), machine_idle(), time.monotonic()
        stolen1 = machine_stolen()
        pg1, redis_cpu1 = postgres_cpu(name), cpu_seconds(redis.proc.pid) if redis else 0.0
        redis1 = redis.by_command() if redis else {}
        commits1 = pg_commits(cfg.postgres, name)
        window_s = time.monotonic() - window_at
        client = finish_load(load)
        load = None
    finally:
        if load is not None and load.poll() is None:
            load.kill()
            load.wait()
        for s in servers:  # killed, not drained: the database is dropped just after
            s.proc.kill()
            s.proc.wait()
        if redis is not None:
            redis.stop()
        asyncio.run(_admin(cfg.postgres, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    # The actions the clients sent (their acts over the window, scaled to the measured part): a
    # node's own count also has the acts it relays to another node (its stats time every act that
    # passes its connections, the relay's round trip included), which counts a relayed act twice.
    actions = max(1, round(client["window_acts"] * (t1 - t0) / max(1e-9, window_s)))
    cpu = sum(cpu1) - sum(cpu0)
    busy = 1 - (idle1[0] - idle0[0]) / max(1e-9, idle1[1] - idle0[1])
    stolen = (stolen1[0] - stolen0[0]) / max(1e-9, stolen1[1] - stolen0[1])
    pg_step, pg_all = postgres_cpu_used(pg0, pg1)
    span = t1 - t0

    def share(seconds: float) -> dict[str, float]:  # % of a core, and us per applied action
        return {"percent": round(100 * seconds / span, 1), "us_per_action": round(1e6 * seconds / actions, 1)}

    p99s = [st["p99_ms"] for st in stats]
    per_command = {k: n - redis0.get(k, 0) for k, n in sorted(redis1.items()) if n > redis0.get(k, 0)}
    redis_calls = sum(per_command.values())
    return {
        "nodes": nodes,
        "mode": "cluster" if cluster else "single",
        "tables": tables,
        "load_impl": cfg.load_impl,
        "actions_per_s": round(actions / (t1 - t0), 1),
        "node_timed_acts_per_s": round(sum(st["actions"] for st in stats) / (t1 - t0), 1),
        # the share of the acts that passed two nodes (a node times every act through its
        # connections, the relayed ones included, so those are counted twice)
        "relayed_share": round(max(0.0, sum(st["actions"] for st in stats) / actions - 1), 3),
        "p50_ms": max((st["p50_ms"] or 0.0) for st in stats),
        "p99_ms": max((p or 0.0) for p in p99s),
        "node_p99_ms": p99s,
        "max_ms": max((st["max_ms"] or 0.0) for st in stats),
        # each node's step commits in the window (a step's broadcast waits for its commit)
        "node_commit_p99_ms": [st["commits"]["p99_ms"] for st in stats],
        # each node's longest event-loop stall and longest garbage collection in the window
        "node_loop_stall_max_ms": [(st.get("loop") or {}).get("longest_ms") for st in stats],
        "node_gc_max_ms": [
            max((g["max_ms"] for g in st.get("gc", {}).values() if isinstance(g, dict)), default=None)
            for st in stats
        ],
        "node_cpu_percent": [round(100 * (b - a) / (t1 - t0), 1) for a, b in zip(cpu0, cpu1, strict=True)],
        "cpu_us_per_action": round(1e6 * cpu / actions, 1),
        "redis_commands_per_action": round(redis_calls / actions, 4) if redis else None,
        "redis_commands_per_s": round(redis_calls / (t1 - t0), 1) if redis else None,
        "redis_commands_per_table_s": round(redis_calls / tables / (t1 - t0), 3) if redis else None,
        "redis_by_command_per_s": {k: round(n / (t1 - t0), 1) for k, n in per_command.items()},
        # the commit counters are read 1.2 s outside the window on each side: scaled to the window
        "pg_commits_per_action": round((commits1 - commits0) / actions * (t1 - t0) / (t1 - t0 + 2.4), 3),
        "pg_commits_per_s": round((commits1 - commits0) / (t1 - t0 + 2.4), 1),
        "load_process_cpu_percent": round(100 * (load1 - load0) / (t1 - t0), 1),
        # where the machine's CPU went in the window, per applied action: the nodes, and what is not
        # a node (the load process, PostgreSQL: the step database's processes / all of it, Redis)
        "cpu_budget": {
            "nodes": share(cpu),
            "load": share(load1 - load0),
            "postgres_step": share(pg_step),
            "postgres_all": share(pg_all),
            "redis": share(redis_cpu1 - redis_cpu0),
            "not_nodes": share(load1 - load0 + pg_all + redis_cpu1 - redis_cpu0),
        },
        "machine_busy_percent": round(100 * busy, 1),
        "machine_stolen_percent": round(100 * stolen, 1),
        "client_errors": client["errors"],
        "step_s": round(time.monotonic() - started, 1),
    }


def unseated(nodes: int, tables: int, cluster: bool, why: str, seconds: float) -> dict[str, Any]:
    """A step whose bots were not all seated in time: failed, with no figures."""
    return {
        "nodes": nodes,
        "mode": "cluster" if cluster else "single",
        "tables": tables,
        "failed": f"not seated: {why}",
        "p99_ms": float("inf"),
        "client_errors": None,
        "step_s": round(seconds, 1),
    }


def line(r: dict[str, Any]) -> str:
    if "failed" in r:
        return f"  {r['mode']} x{r['nodes']}, {r['tables']} tables: FAILED ({r['failed']}), {r['step_s']} s"
    redis = (
        f", Redis {r['redis_commands_per_action']} cmd/action ({r['redis_commands_per_s']}/s: "
        f"{r['redis_by_command_per_s']})"
        if r["redis_commands_per_action"] is not None
        else ""
    )
    return (
        f"  {r['mode']} x{r['nodes']}, {r['tables']} tables: {r['actions_per_s']} actions/s "
        f"({r['node_timed_acts_per_s']}/s timed at the nodes, relays included: relayed share "
        f"{r['relayed_share']}), "
        f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms (nodes {r['node_p99_ms']}), max {r['max_ms']} ms, "
        f"step commit p99 {r['node_commit_p99_ms']} ms, longest loop stall {r['node_loop_stall_max_ms']} ms, "
        f"longest GC {r['node_gc_max_ms']} ms; "
        f"CPU {r['node_cpu_percent']} % of a core, {r['cpu_us_per_action']} us/action; "
        f"PG {r['pg_commits_per_action']} commits/action ({r['pg_commits_per_s']}/s){redis}; "
        f"load process ({r['load_impl']}) {r['load_process_cpu_percent']} %, "
        f"machine busy {r['machine_busy_percent']} % (stolen {r['machine_stolen_percent']} %), "
        f"errors {r['client_errors']}, {r['step_s']} s\n"
        f"    CPU budget (% of a core / us per action): "
        + ", ".join(f"{who} {b['percent']} % / {b['us_per_action']} us" for who, b in r["cpu_budget"].items())
    )


def decompose(one: dict[str, Any], two: dict[str, Any]) -> dict[str, float] | None:
    """Why the 2-node limit is the multiple of the 1-node limit it is, from the two limit steps'
    CPU budgets (actions per second stand in for tables). One node's limit is its core share ``c1``
    over its CPU per action ``N1``; two nodes' is the share of the two cores the step used, ``2 m2``,
    over everything's CPU per action (the nodes' ``N2`` and what is not a node, ``O2``). So, exactly:
    ratio = (2 N1 / (N2 + O2)) x (m2 / c1): a cost factor, fixed by what an action costs where, and a
    busy factor, how full the two cores could be at the 2-node limit against the one core at the
    1-node limit. 1.6x with equal busy shares needs N2 + O2 <= 1.25 N1."""
    if "failed" in one or "failed" in two:
        return None
    budget1, budget2 = one["cpu_budget"], two["cpu_budget"]
    n1 = budget1["nodes"]["us_per_action"]
    n2, o2 = budget2["nodes"]["us_per_action"], budget2["not_nodes"]["us_per_action"]
    c1 = budget1["nodes"]["percent"] / 100
    m2 = (budget2["nodes"]["percent"] + budget2["not_nodes"]["percent"]) / 200
    if min(n1, n2 + o2, c1, m2) <= 0:
        return None
    return {
        "actions_ratio": round(two["actions_per_s"] / one["actions_per_s"], 2),
        "cost_factor": round(2 * n1 / (n2 + o2), 2),
        "busy_factor": round(m2 / c1, 2),
        "n1_us": n1,
        "n2_us": n2,
        "o2_us": o2,
        "c1": round(c1, 3),
        "m2": round(m2, 3),
    }


def search(
    cfg: Config,
    nodes: int,
    *,
    start: int,
    factor: float,
    steps: int,
    budget: float,
    repeat: int = 1,
    precision: float = 0.05,
) -> dict[str, Any]:
    """From ``start``, T grows by ``factor`` while p99 <= 20 ms (or shrinks by it while the first
    counts fail); then bisection between the largest pass and the smallest failure until they are
    within ``precision`` of each other; at most ``steps`` table counts within ``budget`` seconds.

    Each table count runs ``repeat`` times on fresh databases, and passes when most of its runs
    pass: one run's p99 near the limit moves by a factor of two from run to run on a shared
    machine (docs/benchmarks.md), so one lucky or unlucky run would otherwise set the limit. The
    run with the median p99 stands for the count."""
    deadline = time.monotonic() + budget
    runs: list[dict[str, Any]] = []
    counts: list[dict[str, Any]] = []
    passed: dict[str, Any] | None = None
    failed: dict[str, Any] | None = None

    def step(tables: int) -> bool:
        nonlocal passed, failed
        mine = []
        for _ in range(repeat):
            r = run_step(cfg, nodes, tables, cluster=True)
            r["passed"] = "failed" not in r and r["p99_ms"] <= cfg.p99_ms and not r["client_errors"]
            runs.append(r)
            mine.append(r)
            print(line(r), flush=True)
            passes = sum(bool(m["passed"]) for m in mine)
            if passes * 2 > repeat or (len(mine) - passes) * 2 >= repeat:
                break  # the majority is decided: the remaining runs would not change the verdict
        ok: bool = sum(bool(r["passed"]) for r in mine) * 2 > len(mine)
        median = sorted(mine, key=lambda r: r["p99_ms"])[(len(mine) - 1) // 2]
        counts.append({"tables": tables, "passed": ok, "p99_ms": [r["p99_ms"] for r in mine]})
        if repeat > 1:
            print(
                f"  {nodes} node(s), {tables} tables: {'PASS' if ok else 'FAIL'} "
                f"(p99 {[r['p99_ms'] for r in mine]} ms)",
                flush=True,
            )
        if ok and (passed is None or tables > passed["tables"]):
            passed = median
        if not ok and (failed is None or tables < failed["tables"]):
            failed = median
        return ok

    def rounded(value: float) -> int:
        return max(nodes, min(MAX_TABLES, round(value / (2 * nodes)) * 2 * nodes))

    tables = rounded(start)
    tried: set[int] = set()
    while len(counts) < steps and time.monotonic() < deadline and tables not in tried:
        tried.add(tables)
        ok = step(tables)
        if passed is not None and failed is not None:
            break
        tables = rounded(tables * factor if ok else tables / factor)
    while (
        passed is not None
        and failed is not None
        and len(counts) < steps
        and time.monotonic() < deadline
        and failed["tables"] - passed["tables"] > precision * passed["tables"]
    ):
        middle = rounded((passed["tables"] + failed["tables"]) / 2)
        if not passed["tables"] < middle < failed["tables"]:
            break
        step(middle)
    return {
        "nodes": nodes,
        "largest_tables": passed["tables"] if passed else 0,
        "smallest_failing": failed["tables"] if failed else None,
        "limit_run": passed,
        "bounded_by": "p99" if failed else "the step limit (not reached)",
        "repeat": repeat,
        "counts": counts,
        "runs": runs,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="about 2-3 minutes: short windows, few steps")
    parser.add_argument(
        "--postgres-url", default=DEFAULT_POSTGRES, help="a database the bench can connect to"
    )
    parser.add_argument("--start", type=int, default=0, help="first table count (0: 300, quick 200)")
    parser.add_argument("--factor", type=float, default=0.0, help="growth per step (0: 1.6, quick 2)")
    parser.add_argument(
        "--p99-ms", type=float, default=20.0, help="the latency bound of the search (the target's: 20)"
    )
    parser.add_argument(
        "--seat-timeout", type=float, default=240.0, help="a step not seated by then fails (seconds)"
    )
    parser.add_argument(
        "--queue-local-wait", type=float, default=None, help="the nodes' --queue-local-wait (their default)"
    )
    parser.add_argument(
        "--server-tree",
        type=Path,
        default=None,
        help="run the nodes from this checkout of Jantaku (an A/B against another commit; its "
        "compiled engine must be built there)",
    )
    parser.add_argument(
        "--step",
        default=None,
        metavar="NODES:TABLES",
        help="run this one cluster step only (e.g. 2:400) and print it",
    )
    parser.add_argument(
        "--load-nice",
        type=int,
        default=0,
        metavar="N",
        help="run the load process at this niceness (e.g. 15): when the two cores are busy the nodes "
        "and PostgreSQL run first, as they would with the clients on other machines (default 0: "
        "the load process competes with them as an equal)",
    )
    parser.add_argument(
        "--load-impl",
        choices=LOAD_IMPLS,
        default=None,
        help="the load process's implementation: c (bench/loadgen.c, built with cc -O2) or python "
        "(bench/hub.py's bots); default c where a C compiler builds it, else python",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="K",
        help="run each table count of the search K times; it passes when most of its runs pass "
        "(default 1; 3 for a verdict on a shared machine, where one run's p99 near the limit is noise)",
    )
    parser.add_argument(
        "--precision",
        type=float,
        default=0.05,
        help="bisect until the largest pass and the smallest failure are this close (default 0.05)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON at the end")
    args = parser.parse_args()
    if args.repeat < 1 or not 0 < args.precision < 1:
        parser.error("--repeat >= 1 and 0 < --precision < 1")
    try:
        load_impl, load_note = resolve_load_impl(args.load_impl)
    except RuntimeError as exc:
        parser.error(f"--load-impl c: {exc}")
    quick = args.quick
    cfg = Config(
        args.postgres_url,
        3.0 if quick else 5.0,
        8.0 if quick else 15.0,
        resolve_loop("auto"),
        args.p99_ms,
        args.seat_timeout,
        args.queue_local_wait,
        args.server_tree,
        args.load_nice,
        load_impl,
    )
    if args.step:
        nodes, tables = (int(v) for v in args.step.split(":"))
        if not 1 <= nodes <= 4 or not nodes <= tables <= MAX_TABLES:
            parser.error(f"--step: 1-4 nodes, at most {MAX_TABLES} tables")
        print(f"load process {load_note}, niceness {cfg.load_nice}", flush=True)
        r = run_step(cfg, nodes, tables, cluster=True)
        print(line(r), flush=True)
        if args.json:
            print(json.dumps(r))
        return 0 if "failed" not in r else 1
    start = args.start or (200 if quick else 300)
    factor = args.factor or (2.0 if quick else 1.6)
    steps, budget = (2, 75.0) if quick else (8, 3600.0)
    if start > MAX_TABLES:
        parser.error(f"bounded: at most {MAX_TABLES} tables")
    print(
        f"cluster bench ({'quick' if quick else 'full'}), loop {cfg.loop}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f}; window {cfg.seconds} s after {cfg.warmup} s; "
        f"load process {load_note}, niceness {cfg.load_nice}",
        flush=True,
    )
    began = time.monotonic()
    common = {"steps": steps, "budget": budget, "repeat": args.repeat, "precision": args.precision}
    one = search(cfg, 1, start=start, factor=factor, **common)
    # the 2-node search starts at the target (1.6 x the 1-node result)
    two_start = max(4, round((1.6 * one["largest_tables"] or start) / 4) * 4)
    two = search(cfg, 2, start=two_start, factor=1.5 if quick else 1.25, **common)
    # CPU per action: single-node mode (no --redis-url) against a 1-node cluster at the largest
    # table count the 1-node cluster passed, run back to back on fresh databases (a neighbour's load
    # on a shared machine then weighs on both alike).
    passed_runs = [r for r in one["runs"] if r["p99_ms"] <= cfg.p99_ms] or one["runs"]
    tables = max(int(r["tables"]) for r in passed_runs)
    single = run_step(cfg, 1, tables, cluster=False)
    print(line(single), flush=True)
    reference = run_step(cfg, 1, tables, cluster=True)
    print(line(reference), flush=True)
    ratio = two["largest_tables"] / one["largest_tables"] if one["largest_tables"] else None
    if "failed" in reference or "failed" in single:
        print("CPU per action: a reference step failed (above); no ratio")
        return 1
    cpu_ratio = reference["cpu_us_per_action"] / max(1e-9, single["cpu_us_per_action"])
    result = {
        "one_node": one,
        "two_nodes": two,
        "single_mode": single,
        "cpu_reference": reference,
        "ratio": round(ratio, 2) if ratio else None,
        "cpu_ratio": round(cpu_ratio, 2),
        "elapsed_s": round(time.monotonic() - began, 1),
        "load_average_after": os.getloadavg(),
    }
    print(
        f"largest table count at p99 <= {cfg.p99_ms:g} ms (most of {args.repeat} run(s) a count): "
        f"1 node {one['largest_tables']} (fails {one['smallest_failing']}), "
        f"2 nodes {two['largest_tables']} (fails {two['smallest_failing']}; {two['bounded_by']})"
    )
    # a limit is only a limit where a larger count failed: a search that ran out of steps gives none
    bounded = one["bounded_by"] == "p99" and two["bounded_by"] == "p99"
    verdict = (
        ("met" if ratio and ratio >= 1.6 else "NOT met") if bounded else "no verdict: a search found no limit"
    )
    print(f"ratio 2-node / 1-node: {result['ratio']} (target >= 1.6: {verdict})")
    print(
        f"CPU per action at {reference['tables']} tables: cluster mode {reference['cpu_us_per_action']} us, "
        f"single-node mode {single['cpu_us_per_action']} us: ratio {result['cpu_ratio']} "
        f"(target <= 1.2: {'met' if cpu_ratio <= 1.2 else 'NOT met'})"
    )
    parts = decompose(one["limit_run"], two["limit_run"]) if one["limit_run"] and two["limit_run"] else None
    result["decomposition"] = parts
    if parts:
        print(
            f"why: actions/s 2-node / 1-node at the limits {parts['actions_ratio']} = cost factor "
            f"2 x N1 / (N2 + O2) = 2 x {parts['n1_us']} / ({parts['n2_us']} + {parts['o2_us']}) us = "
            f"{parts['cost_factor']} x busy factor m2 / c1 = {parts['m2']} / {parts['c1']} = "
            f"{parts['busy_factor']} (N: the nodes' CPU per action, O2: not the nodes', c1: one node's "
            "core share at its limit, m2: the share of both cores used at the 2-node limit)"
        )
    print(f"elapsed {result['elapsed_s']} s")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    # SIGTERM (kill, timeout) unwinds like Ctrl-C, so that each step's ``finally`` stops its nodes,
    # redis-server and load process and drops its database instead of leaving them running
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
