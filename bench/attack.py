"""Abuse benchmark (issue 14): a table in play while the server is attacked; bounded.

    python bench/attack.py [--half-open 10000] [--hellos 2000] [--seconds 20] [--json]

Three processes on 127.0.0.1: ``jantaku serve`` (SQLite in a temporary directory, the admin HTTP
port on), this one (the orchestrator and the *measured table*: one guest against three built-in
bots, answering every prompt at once and timing each ``act`` -> ``ack`` round trip) and an attacker
process (this file with ``--attacker``) that, at once:

* opens ``--half-open`` TCP connections to the admin HTTP port and sends each a request head with
  no blank line (``GET /api/me HTTP/1.1``...), then holds them;
* opens ``--hellos`` websocket connections to the game port, each saying a guest ``hello``, as fast
  as it can (200 in flight at a time).

Printed: the measured table's round trip p50/p99 before the attack (baseline) and during it (target:
p99 < 50 ms), ``/healthz`` of the game port during the attack, the server's open file descriptors
(``/proc/PID/fd``) during and after, and what the attacker got (half-open connections the server
closed or refused, hellos welcomed or refused). Everything is bounded in count and time; nothing is
asserted (docs/benchmarks.md, "Attack").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client_protocol.client import Client  # noqa: E402
from client_protocol.messages import Ack, GuestAuth, MatchEnd, Prompt  # noqa: E402

HALF_SENT = b"GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: attack\r\n"
HELLO = json.dumps({"type": "hello", "protocol": 1, "auth": {"type": "guest"}})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- the attacker process --------------------------------------------------------------------------------


async def half_open(port: int, n: int, hold_s: float) -> dict[str, int]:
    """Open ``n`` connections with a half-sent request; count how they end within ``hold_s``."""
    outcome = {"opened": 0, "refused": 0, "answered_503": 0, "closed_by_server": 0, "still_open": 0}

    async def one() -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            outcome["refused"] += 1
            return
        outcome["opened"] += 1
        try:
            writer.write(HALF_SENT)
            data = await asyncio.wait_for(reader.read(), hold_s)
            outcome["answered_503" if data.startswith(b"HTTP/1.1 503") else "closed_by_server"] += 1
        except TimeoutError:
            outcome["still_open"] += 1
        except OSError:
            outcome["closed_by_server"] += 1
        finally:
            writer.close()

    sem = asyncio.Semaphore(2000)

    async def bounded() -> None:
        async with sem:
            await one()

    await asyncio.gather(*(bounded() for _ in range(n)))
    return outcome


async def hellos(port: int, n: int) -> dict[str, int]:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    outcome = {"welcomed": 0, "rate_limited": 0, "http_429": 0, "failed": 0}
    sem = asyncio.Semaphore(200)

    async def one() -> None:
        async with sem:
            try:
                async with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10, compression=None) as ws:
                    await ws.send(HELLO)
                    reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if reply.get("type") == "welcome":
                        outcome["welcomed"] += 1
                    elif reply.get("code") == "rate_limited":
                        outcome["rate_limited"] += 1
                    else:
                        outcome["failed"] += 1
            except InvalidStatus as exc:
                key = "http_429" if exc.response.status_code == 429 else "failed"
                outcome[key] += 1
            except (OSError, TimeoutError, Exception):
                outcome["failed"] += 1

    await asyncio.gather(*(one() for _ in range(n)))
    return outcome


async def attacker(game_port: int, http_port: int, n_half: int, n_hellos: int, hold_s: float) -> None:
    started = time.perf_counter()
    half, hello = await asyncio.gather(half_open(http_port, n_half, hold_s), hellos(game_port, n_hellos))
    print(
        json.dumps({"half_open": half, "hellos": hello, "seconds": round(time.perf_counter() - started, 1)})
    )


# -- the orchestrator and the measured table --------------------------------------------------------------


async def healthz(port: int) -> float:
    started = time.perf_counter()
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    assert data.startswith(b"HTTP/1.1 200"), data[:40]
    return (time.perf_counter() - started) * 1000


class Table:
    """One guest against three built-in bots; every act's round trip (ms) with when it was sent."""

    def __init__(self, port: int) -> None:
        self.url = f"ws://127.0.0.1:{port}/ws"
        self.samples: list[tuple[float, float]] = []
        self.matches = 0

    async def play(self, until: float) -> None:
        self.client = await Client.connect(self.url, GuestAuth(name="measured"), timeout=30.0)
        await self.client.join_queue("tenhou+bots")
        async for message in self.client:
            if time.perf_counter() > until:
                break
            match message:
                case Prompt():
                    t0 = time.perf_counter()
                    await self.client.act(message.legal_actions[0], step=message.step)
                    self.samples.append((t0, (time.perf_counter() - t0) * 1000))
                case MatchEnd():
                    self.matches += 1
                    await self.client.join_queue("tenhou+bots")
                case Ack():
                    pass
        await self.client.close()


async def orchestrate(args: argparse.Namespace) -> dict[str, Any]:
    game_port, http_port = free_port(), free_port()
    with tempfile.TemporaryDirectory(prefix="jantaku-attack-") as tmp:
        log = Path(tmp) / "serve.log"
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.app",
                "serve",
                "--port",
                str(game_port),
                "--http-port",
                str(http_port),
                "--data-dir",
                str(Path(tmp) / "data"),
                "--bot-delay-ms",
                "0",
                "--hand-pause-ms",
                "0",
                "--log-level",
                "WARNING",
            ],
            cwd=ROOT,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    await healthz(game_port)
                    break
                except (OSError, AssertionError, TimeoutError):
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit(f"the server did not start; see {log.read_text()[-2000:]}") from None
                    await asyncio.sleep(0.1)
            fds_idle = open_fds(server.pid)
            start = time.perf_counter()
            baseline_end = start + args.baseline
            attack_end = baseline_end + args.seconds
            table = Table(game_port)
            play = asyncio.create_task(table.play(attack_end))
            await asyncio.sleep(args.baseline)
            attack = await asyncio.create_subprocess_exec(
                sys.executable,
                __file__,
                "--attacker",
                "--game-port",
                str(game_port),
                "--http-port",
                str(http_port),
                "--half-open",
                str(args.half_open),
                "--hellos",
                str(args.hellos),
                "--hold",
                str(args.seconds),
                stdout=asyncio.subprocess.PIPE,
            )
            health: list[float] = []
            fds_peak = fds_idle
            while time.perf_counter() < attack_end:
                with contextlib.suppress(OSError, AssertionError, TimeoutError):
                    health.append(await healthz(game_port))
                fds_peak = max(fds_peak, open_fds(server.pid))
                await asyncio.sleep(0.2)
            out, _ = await asyncio.wait_for(attack.communicate(), args.seconds + 60)
            await asyncio.wait_for(play, 60)
            await asyncio.sleep(1.0)
            fds_after = open_fds(server.pid)
            log_text = log.read_text(errors="replace")
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    before = [ms for t, ms in table.samples if t < baseline_end]
    during = [ms for t, ms in table.samples if t >= baseline_end]
    return {
        "baseline": {"acts": len(before), "p50_ms": pct(before, 0.5), "p99_ms": pct(before, 0.99)},
        "attack": {
            "acts": len(during),
            "p50_ms": pct(during, 0.5),
            "p99_ms": pct(during, 0.99),
            "max_ms": max(during, default=float("nan")),
        },
        "healthz_ms": {
            "checks": len(health),
            "median": statistics.median(health) if health else float("nan"),
            "max": max(health, default=float("nan")),
        },
        "server_fds": {"idle": fds_idle, "peak_during_attack": fds_peak, "after": fds_after},
        "attacker": json.loads(out.decode().strip().splitlines()[-1]) if out.strip() else None,
        "server_log_tracebacks": log_text.count("Traceback"),
        "matches_finished": table.matches,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half-open", type=int, default=10_000)
    parser.add_argument("--hellos", type=int, default=2_000)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the attack is measured")
    parser.add_argument("--baseline", type=float, default=5.0, help="seconds measured before the attack")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--attacker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--game-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--http-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--hold", type=float, default=20.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.attacker:
        asyncio.run(attacker(args.game_port, args.http_port, args.half_open, args.hellos, args.hold))
        return
    result = asyncio.run(orchestrate(args))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    b, a, h, f = result["baseline"], result["attack"], result["healthz_ms"], result["server_fds"]
    ratio = a["p99_ms"] / max(b["p99_ms"], 1e-9)
    lines = [
        f"measured table, act->ack round trip: baseline p50 {b['p50_ms']:.1f} ms, "
        f"p99 {b['p99_ms']:.1f} ms ({b['acts']} acts)",
        f"  during the attack: p50 {a['p50_ms']:.1f} ms, p99 {a['p99_ms']:.1f} ms, max {a['max_ms']:.1f} ms "
        f"({a['acts']} acts; target p99 < 50 ms; {ratio:.1f}x the baseline p99)",
        f"game port /healthz during the attack: median {h['median']:.1f} ms, max {h['max']:.1f} ms "
        f"({h['checks']} checks)",
        f"server open file descriptors: idle {f['idle']}, peak during the attack "
        f"{f['peak_during_attack']}, after {f['after']}",
        f"attacker: {json.dumps(result['attacker'])}",
        f"tracebacks in the server log: {result['server_log_tracebacks']}",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
