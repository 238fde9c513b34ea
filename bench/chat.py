"""Chat benchmark (issue 32): server CPU per delivered chat message against the bare websockets
floor, and a table in play while chat floods.

    python bench/chat.py [--spectators 1000] [--senders 10] [--seconds 10] [--json]

Processes on 127.0.0.1: ``jantaku serve`` (SQLite in a temporary directory), this one (the
orchestrator, the chat senders and the *measured table*: one guest against three built-in bots in
another match, answering every prompt at once and timing each ``act`` -> ``ack``) and a listener
process (this file with ``--listen``) holding ``--spectators`` connections that watch one private
table and count the chat lines they receive.

* **Fan-out**: ``--senders`` spectators of the watched table, each on its own loopback address
  (127.0.0.11, 127.0.0.12, ...: the per-address chat limit is 4 lines/s), send one line a second
  (the per-connection limit); every line reaches every spectator. Server CPU (``/proc/PID/stat``)
  over the window / lines delivered.
* **Floor**: a bare ``websockets`` server (same library, same event loop kind) that sends each
  received line, as a frame of the hub's mean chat frame size, to every listener, each its own
  ``send``; the same listeners, senders and window. ``chat fan-out floor ratio`` = the hub's CPU
  per delivered message / the floor's.
* **The table in play**: then a measured table plays (one guest against three bots, another
  match): its round trips alone (baseline), then while the senders talk and one more address floods
  the watched table as fast as it can (its lines beyond the limit are refused with
  ``rate_limited``; it reconnects when the server closes it).

Nothing is asserted (docs/benchmarks.md, "Chat").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client_protocol.client import Client  # noqa: E402
from client_protocol.errors import ConnectionLostError  # noqa: E402
from client_protocol.messages import Ack, GuestAuth, MatchEnd, Prompt, Seated  # noqa: E402

HELLO = json.dumps({"type": "hello", "protocol": 1, "auth": {"type": "guest"}})
LINE = "good game everyone, that was a close one"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def new_loop(kind: str) -> asyncio.AbstractEventLoop:
    if kind == "uvloop":
        import uvloop

        return uvloop.new_event_loop()
    return asyncio.new_event_loop()


def resolve_loop(kind: str) -> str:
    if kind != "auto":
        return kind
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


# -- the listener process --------------------------------------------------------------------------


async def enter(ws: Any, room: str | None) -> None:
    """Say hello and follow ``room`` (``table:<match_id>``: spectate it; ``lobby:<channel>``: join
    the lobby channel; None: the floor's listener)."""
    if room is None:
        await ws.send("L")
        await ws.recv()
        return
    await ws.send(HELLO)
    await ws.recv()  # welcome
    kind, _, name = room.partition(":")
    if kind == "table":
        await ws.send(json.dumps({"type": "join", "target": {"type": "spectate", "match_id": name}}))
        answer = '"seated"'
    else:
        await ws.send(json.dumps({"type": "lobby_join", "channel": name}))
        answer = '"lobby_history"'
    while answer not in str(await ws.recv()):
        pass


def said(room: str | None) -> str:
    """A line said in ``room`` (the floor's sender sends the bare text)."""
    if room is None:
        return LINE
    kind, _, name = room.partition(":")
    if kind == "table":
        return json.dumps({"type": "chat", "text": LINE})
    return json.dumps({"type": "lobby_say", "channel": name, "text": LINE})


def heard_prefix(room: str | None) -> str:
    if room is None:
        return ""
    return '{"type":"chat"' if room.startswith("table:") else '{"type":"lobby_line"'


async def listen(url: str, room: str | None, n: int) -> None:
    """Hold ``n`` connections following ``room`` (:func:`enter`); count the chat frames; "window"
    on stdin resets the counts, end of stdin prints them."""
    from websockets.asyncio.client import connect

    counts = {"lines": 0, "bytes": 0}
    ready = 0
    all_ready = asyncio.Event()
    prefix = heard_prefix(room)

    sem = asyncio.Semaphore(100)  # connections being opened at once

    async def one() -> None:
        nonlocal ready
        await sem.acquire()
        async with connect(url, open_timeout=60, compression=None, max_queue=None) as ws:
            await enter(ws, room)
            sem.release()
            ready += 1
            if ready == n:
                all_ready.set()
            async for frame in ws:
                text = frame if isinstance(frame, str) else frame.decode()
                if text.startswith(prefix):
                    counts["lines"] += 1
                    counts["bytes"] += len(text)

    async def guarded() -> None:
        with contextlib.suppress(Exception):
            await one()

    tasks = [asyncio.create_task(guarded()) for _ in range(n)]
    await asyncio.wait_for(all_ready.wait(), 300)
    print(json.dumps({"connected": ready}), flush=True)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        if line.strip() == b"window":
            counts["lines"] = counts["bytes"] = 0
    print(json.dumps(counts), flush=True)
    for t in tasks:
        t.cancel()


# -- the floor server ------------------------------------------------------------------------------


async def floor_server(frame_size: int) -> None:
    from websockets.asyncio.server import ServerConnection, serve
    from websockets.exceptions import ConnectionClosed

    listeners: list[ServerConnection] = []
    payload = '{"type":"chat"' + "x" * max(0, frame_size - 15) + "}"

    async def handler(ws: ServerConnection) -> None:
        role = await ws.recv()
        await ws.send("W")
        if role == "L":
            listeners.append(ws)
            with contextlib.suppress(ConnectionClosed):
                await ws.wait_closed()
            listeners.remove(ws)
            return
        with contextlib.suppress(ConnectionClosed):
            async for _ in ws:
                for listener in list(listeners):
                    with contextlib.suppress(ConnectionClosed):
                        await listener.send(payload)

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with serve(
        handler, "127.0.0.1", 0, compression=None, max_queue=16, write_limit=32 * 1024
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(json.dumps({"port": port}), flush=True)
        await reader.read()


# -- the orchestrator ------------------------------------------------------------------------------


class Table:
    """One guest against three built-in bots; every act's round trip (ms) with when it was sent."""

    def __init__(self, port: int) -> None:
        self.url = f"ws://127.0.0.1:{port}/ws"
        self.samples: list[tuple[float, float]] = []

    async def play(self, until: float) -> None:
        client = await Client.connect(self.url, GuestAuth(name="measured"), timeout=60.0)
        await client.join_queue("tenhou+bots")
        async for message in client:
            if time.perf_counter() > until:
                break
            match message:
                case Prompt():
                    t0 = time.perf_counter()
                    await client.act(message.legal_actions[0], step=message.step)
                    self.samples.append((t0, (time.perf_counter() - t0) * 1000))
                case MatchEnd():
                    await client.join_queue("tenhou+bots")
                case Ack():
                    pass
        await client.close()


async def sender(url: str, room: str | None, address: str, until: float, every_s: float) -> int:
    """One connection on ``address`` saying a line in ``room`` every ``every_s`` (None: the floor's
    sender). Returns the lines sent."""
    from websockets.asyncio.client import connect

    sent = 0
    async with connect(url, open_timeout=60, compression=None, local_addr=(address, 0)) as ws:
        if room is None:
            await ws.send("S")
            await ws.recv()
        else:
            await enter(ws, room)
        drain = asyncio.create_task(_drain(ws))
        line = said(room)
        while time.perf_counter() < until:
            await ws.send(line)
            sent += 1
            await asyncio.sleep(every_s)
        drain.cancel()
    return sent


async def _drain(ws: Any) -> None:
    with contextlib.suppress(Exception):
        async for _ in ws:
            pass


async def flood(url: str, room: str, until: float) -> dict[str, int]:
    """One address saying lines in ``room`` as fast as it can, reconnecting whenever the server
    closes it."""
    from websockets.asyncio.client import connect

    out = {"sent": 0, "connections": 0}
    spam = said(room).replace(LINE, "spam " * 30)
    while time.perf_counter() < until:
        with contextlib.suppress(Exception):
            async with connect(url, open_timeout=10, compression=None, local_addr=("127.0.0.99", 0)) as ws:
                out["connections"] += 1
                await enter(ws, room)
                drain = asyncio.create_task(_drain(ws))
                while time.perf_counter() < until:
                    await ws.send(spam)
                    out["sent"] += 1
                    await asyncio.sleep(0.002)
                drain.cancel()
        await asyncio.sleep(0.2)
    return out


def start_listeners(url: str, room: str | None, n: int, loop: str) -> subprocess.Popen[str]:
    argv = [sys.executable, __file__, "--listen", "--url", url, "--spectators", str(n), "--loop", loop]
    argv += ["--room", room] if room is not None else []
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise SystemExit("the listener process failed")
    return proc


def finish_listeners(proc: subprocess.Popen[str]) -> dict[str, int]:
    out, _ = proc.communicate(timeout=120)
    return dict(json.loads(out.strip().splitlines()[-1]))


async def fan_out(
    args: argparse.Namespace, url: str, room: str | None, pid: int, listeners: subprocess.Popen[str]
) -> dict[str, Any]:
    """Warm up, then the window: the senders' lines while the server's CPU is read."""
    start = time.perf_counter()
    until = start + args.warmup + args.seconds
    sends = [
        asyncio.create_task(sender(url, room, f"127.0.0.{11 + i}", until, 1.05)) for i in range(args.senders)
    ]
    await asyncio.sleep(args.warmup)
    assert listeners.stdin is not None
    listeners.stdin.write("window\n")
    listeners.stdin.flush()
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    await asyncio.sleep(args.seconds)
    cpu1, t1 = cpu_seconds(pid), time.perf_counter()
    sent = sum(await asyncio.gather(*sends))
    counts = finish_listeners(listeners)
    delivered = max(1, counts["lines"])
    return {
        "window_s": round(t1 - t0, 2),
        "lines_sent": sent,
        "delivered": counts["lines"],
        "mean_frame_bytes": round(counts["bytes"] / delivered, 1),
        "cpu_percent_of_one_core": round(100 * (cpu1 - cpu0) / (t1 - t0), 1),
        "cpu_us_per_delivered": round(1e6 * (cpu1 - cpu0) / delivered, 2),
    }


async def flood_phase(args: argparse.Namespace, url: str, room: str) -> dict[str, Any]:
    """The senders again, with one address flooding the same table as fast as it can."""
    until = time.perf_counter() + args.seconds
    sends = [
        asyncio.create_task(sender(url, room, f"127.0.0.{11 + i}", until, 1.05)) for i in range(args.senders)
    ]
    flooded = await flood(url, room, until)
    await asyncio.gather(*sends)
    return flooded


async def orchestrate(args: argparse.Namespace) -> dict[str, Any]:
    game_port = free_port()
    loop_kind = resolve_loop(args.loop)
    with tempfile.TemporaryDirectory(prefix="jantaku-chat-") as tmp:
        log = Path(tmp) / "serve.log"
        argv = [sys.executable, "-m", "server.app", "serve", "--port", str(game_port)]
        argv += ["--data-dir", str(Path(tmp) / "d"), "--loop", loop_kind, "--log-level", "WARNING"]
        argv += ["--bot-delay-ms", "0", "--hand-pause-ms", "0", "--spectate-delay-s", "0"]
        argv += ["--ip-connect-rate", "100000", "--ip-connect-burst", "100000"]
        argv += ["--ip-guest-rate", "100000", "--ip-guest-burst", "100000"]
        server = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        url = f"ws://127.0.0.1:{game_port}/ws"
        try:
            host = await wait_for_server(url, server, log)
            assert host.welcome is not None
            request = urllib.request.Request(
                f"http://127.0.0.1:{game_port}/private/new?bots=3&action_ms=3600000&bank_ms=0",
                headers={"Authorization": f"Bearer {host.welcome.session_token}"},
            )
            with urllib.request.urlopen(request, timeout=10) as answer:
                code = json.loads(answer.read())["code"]
            await host.join_private(code)
            match_id = ""
            async for message in host:
                if isinstance(message, Seated):
                    match_id = message.match_id
                    break
            rooms = {"table": f"table:{match_id}"}
            if args.lobby:
                rooms["lobby"] = "lobby:general"
            hub: dict[str, dict[str, Any]] = {}
            for kind, room in rooms.items():
                n = args.spectators if kind == "table" else args.lobby
                listeners = await asyncio.to_thread(start_listeners, url, room, n, loop_kind)
                hub[kind] = await fan_out(args, url, room, server.pid, listeners)
            table = Table(game_port)
            flood_start = time.perf_counter() + args.baseline
            play = asyncio.create_task(table.play(flood_start + args.seconds))
            await asyncio.sleep(args.baseline)
            flooded = await flood_phase(args, url, rooms["table"])
            await asyncio.wait_for(play, 120)
            await host.close()
            tracebacks = log.read_text(errors="replace").count("Traceback")
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    result: dict[str, Any] = {
        "loop": loop_kind,
        "spectators": args.spectators,
        "lobby_connections": args.lobby,
    }
    for kind, measured in hub.items():
        n = args.spectators if kind == "table" else args.lobby
        floor = await measure_floor(args, int(measured["mean_frame_bytes"]), n, loop_kind)
        result[kind] = {
            "hub": measured,
            "floor": floor,
            "floor_ratio": round(
                measured["cpu_us_per_delivered"] / max(1e-9, floor["cpu_us_per_delivered"]), 2
            ),
        }
    before = [ms for t, ms in table.samples if t < flood_start]
    during = [ms for t, ms in table.samples if t >= flood_start]
    result["table_in_play"] = {
        "baseline": {"acts": len(before), "p50_ms": pct(before, 0.5), "p99_ms": pct(before, 0.99)},
        "during": {"acts": len(during), "p50_ms": pct(during, 0.5), "p99_ms": pct(during, 0.99)},
        "flood": flooded,
    }
    result["server_log_tracebacks"] = tracebacks
    return result


async def wait_for_server(url: str, server: subprocess.Popen[bytes], log: Path) -> Client:
    deadline = time.monotonic() + 60
    while True:
        try:
            return await Client.connect(url, GuestAuth(name="host"), timeout=30.0)
        except (OSError, ConnectionLostError):
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"the server did not start: {log.read_text()[-2000:]}") from None
            await asyncio.sleep(0.2)


async def measure_floor(args: argparse.Namespace, frame_size: int, n: int, loop_kind: str) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--floor-server", "--frame", str(frame_size), "--loop", loop_kind]
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = json.loads(server.stdout.readline())["port"]
        url = f"ws://127.0.0.1:{port}/"
        listeners = await asyncio.to_thread(start_listeners, url, None, n, loop_kind)
        return await fan_out(args, url, None, server.pid, listeners)
    finally:
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=1000, help="connections watching the chatty table")
    parser.add_argument("--senders", type=int, default=10, help="connections saying a line a second each")
    parser.add_argument(
        "--lobby",
        type=int,
        default=5000,
        help="connections in the lobby's general channel (0: skip the lobby)",
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="the measured window")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--baseline", type=float, default=5.0, help="the measured table alone, before")
    parser.add_argument("--loop", choices=["auto", "asyncio", "uvloop"], default="auto")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--listen", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--frame", type=int, default=100, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--room", help=argparse.SUPPRESS)
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    loop_kind = resolve_loop(args.loop)
    with asyncio.Runner(loop_factory=lambda: new_loop(loop_kind)) as runner:
        if args.listen:
            runner.run(listen(args.url, args.room, args.spectators))
            return
        if args.floor_server:
            runner.run(floor_server(args.frame))
            return
        result = runner.run(orchestrate(args))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    lines = []
    for kind in ("table", "lobby"):
        if kind not in result:
            continue
        hub, floor = result[kind]["hub"], result[kind]["floor"]
        where = (
            f"{result['spectators']} spectators of one table"
            if kind == "table"
            else f"{result['lobby_connections']} connections in one lobby channel"
        )
        lines += [
            f"chat fan-out to {where} ({result['loop']}): {hub['lines_sent']} lines, {hub['delivered']} "
            f"delivered in {hub['window_s']} s, server {hub['cpu_us_per_delivered']} us CPU per delivered "
            f"message ({hub['cpu_percent_of_one_core']}% of a core); bare websockets floor, the same frames: "
            f"{floor['cpu_us_per_delivered']} us",
            f"{'chat' if kind == 'table' else 'lobby chat'} fan-out floor ratio: "
            f"{result[kind]['floor_ratio']}",
        ]
    play = result["table_in_play"]
    b, d = play["baseline"], play["during"]
    lines += [
        f"table in play, act->ack: baseline p50 {b['p50_ms']:.1f} ms, p99 {b['p99_ms']:.1f} ms "
        f"({b['acts']} acts); "
        f"during the chat flood p50 {d['p50_ms']:.1f} ms, p99 {d['p99_ms']:.1f} ms ({d['acts']} acts; "
        f"flood: {json.dumps(play['flood'])})",
        f"tracebacks in the server log: {result['server_log_tracebacks']}",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
