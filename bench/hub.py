"""Hub load benchmark: T tables of 4 network bots against a ``jantaku serve`` process, over loopback.

    python bench/hub.py [--tables 60] [--pace 0] [--seconds 20] [--idle 2000] [--database-url memory:]
                        [--server-args "--gc-freeze-every 0"] [--json]

Three processes: this one (the orchestrator), ``jantaku serve`` (started with
``JANTAKU_HUB_STATS=1``, which times every action on the server: see ``server/hub/stats.py``) and a
separate load process (this file with ``--load``) holding every bot connection, so that the server
has its core to itself as far as the machine allows. Everything is on 127.0.0.1, bounded in count
and time.

1. **Idle connections**: the load process opens ``--idle`` connections that say hello (as guests)
   and then do nothing; the server's RSS (``/proc/PID/status``) before and after gives the memory
   per idle connection.
2. **Tables**: ``4 x --tables`` connections join the quick-match queue (no built-in bots: every
   seat is a network bot, our protocol at ``/ws``) and play whole matches, joining again when one
   ends. ``--pace 0`` answers every prompt at once (bot speed); ``--pace 1`` waits 0.5-1.5 s
   (uniform) before each answer, about one action per second per table (human pace). After the
   tables are seated and ``--warmup`` seconds, the server's figures are read over ``--seconds``:
   applied actions per second, action-to-broadcast latency p50/p99 (server side), the CPU the
   server process used (of one core), also per action by thread (the event loop's, and the others:
   the SQLite writer's, aiosqlite's; user and system, from ``/proc/PID/task``), its RSS, and how
   busy the whole machine was. The RSS is
   also read before the tables, at the window's start and every ``--rss-every`` seconds of it: its
   growth per minute after warm-up (least squares, over the window and over its second half), per
   table and per applied action, the KiB per live table (RSS at the end minus before the tables,
   over the tables: their 4 connections included), the engine's cache fill at each reading, and a
   verdict: "RSS flat after warm-up: yes" when the second half grew at most 1 KiB per table per
   minute (``RSS_FLAT_KIB_PER_TABLE_PER_MIN``; 1 MiB/min at 1,000 tables). A bot
   whose table could not start (an error before it is seated) joins again 5-15 s later.

``--load-impl`` picks the load process's implementation: ``c`` (the default wherever a C compiler,
``cc`` or ``gcc``, is on PATH and builds ``bench/loadgen.c`` into ``bench/.build/jantaku-loadgen``;
rebuilt when the source is newer) holds the same connections with the same frames on the wire as
the Python bots below (``BotClient``), for a fraction of their CPU: the load stands in for clients on
other machines, so the less of the shared cores it takes the better. ``python`` runs ``BotClient``
(and is what runs where no compiler is; the output says which ran). The floor's load is Python only.

``--server-args`` adds options to ``jantaku serve`` (for instance ``"--gc-freeze-every 0"`` runs it
with Python's own garbage-collector settings instead of the hub's policy, ``server/hub/gcpolicy.py``).
The server's garbage-collector pauses in the measured window are printed with the latency, and so
are the step commits' latencies, the event loop's stalls (a 10-ms probe: wake-ups >= 5 ms late,
and how many were mostly GC) and the engine's cache fill at each RSS reading (server/hub/stats.py).

Nothing here is asserted by the test suite; the figures go to docs/benchmarks.md ("Hub").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import msgspec

REPO = Path(__file__).resolve().parents[1]
SERVER_ENTRY = ["-m", "server.app"]  # how the server is started
CONNECT_BATCH = 100  # connections opened at once (the server's listen backlog is 100)
MAX_SIZE_SAMPLES = 50_000
LOOPS = ("auto", "asyncio", "uvloop")
# Every bot connects from 127.0.0.1: lift the server's per-address limits (docs/operations.md), by
# their environment variables, which a server from before those limits (--server-repo) ignores.
UNLIMITED_ADDRESS = {
    "JANTAKU_IP_CONNECT_RATE": "1000000",
    "JANTAKU_IP_CONNECT_BURST": "1000000",
    "JANTAKU_IP_GUEST_RATE": "1000000",
    "JANTAKU_IP_GUEST_BURST": "1000000",
}
# The load process in C (bench/loadgen.c): built on first use, rebuilt when the source is newer.
LOAD_IMPLS = ("python", "c")
LOADGEN_SOURCE = Path(__file__).resolve().parent / "loadgen.c"
LOADGEN_BINARY = Path(__file__).resolve().parent / ".build" / "jantaku-loadgen"
_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


# -- the load process ------------------------------------------------------------------------------
#
# The bots use a minimal websocket client of their own (RFC 6455 text frames over an asyncio
# Protocol) rather than the websockets library, and skip decoding ``event`` frames, so that one load
# process can keep thousands of connections busy and the server stays the bottleneck.


@dataclass
class LoadCounters:
    welcomed: int = 0
    seated: int = 0
    acts: int = 0
    acks: int = 0
    errors: int = 0
    matches_ended: int = 0
    frames: int = 0
    closed: int = 0
    latencies: list[float] = field(default_factory=list)  # client side: act sent -> ack received
    # The measured window (from the orchestrator's "window" line): the traffic the floor replays.
    window_acts: int = 0
    window_frames: int = 0
    window_bytes: int = 0
    window_act_bytes: int = 0
    window_sizes: list[int] = field(default_factory=list)  # sizes of the frames received (bounded)

    def start_window(self) -> None:
        self.window_acts = self.window_frames = self.window_bytes = self.window_act_bytes = 0
        self.window_sizes = []

    def received(self, size: int) -> None:
        self.frames += 1
        self.window_frames += 1
        self.window_bytes += size
        if len(self.window_sizes) < MAX_SIZE_SAMPLES:
            self.window_sizes.append(size)

    def acted(self, size: int) -> None:
        self.acts += 1
        self.window_acts += 1
        self.window_act_bytes += size


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Win when possible, else pass, else discard the drawn tile (keeps the bots cheap)."""
    for a in legal:
        if a["type"] in ("tsumo", "ron"):
            return a
    for a in legal:
        if a["type"] == "pass":
            return a
    for a in legal:
        if a["type"] == "discard" and a.get("tsumogiri"):
            return a
    return legal[0]


def client_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """One masked client frame (the mask is all zeros, so the payload goes as is)."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + b"\x00\x00\x00\x00" + payload


JOIN = _encode({"type": "join", "target": {"type": "queue", "preset": "tenhou"}})


class BotClient(asyncio.Protocol):
    """One bot connection: hello as a guest, then (``play``) queue, answer prompts, queue again."""

    def __init__(
        self, host: str, port: int, name: str, counters: LoadCounters, *, play: bool, pace: float, seed: int
    ) -> None:
        self._handshake = (
            f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
        self._hello = _encode({"type": "hello", "protocol": 1, "auth": {"type": "guest", "name": name}})
        self.counters = counters
        self.play = play
        self.pace = pace
        self.rng = random.Random(seed)
        self.stopping = False
        self.transport: asyncio.Transport | None = None
        self._upgraded = False
        self._buffer = bytearray()
        self._request_id = 0
        self._sent: dict[int, float] = {}
        self._seated = False
        self.welcomed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream transport (uvloop's is not a subclass of asyncio.Transport, hence no isinstance)
        self.transport = cast(asyncio.Transport, transport)
        self.transport.write(self._handshake)

    def connection_lost(self, exc: Exception | None) -> None:
        self.counters.closed += 1
        if not self.welcomed.done():
            self.welcomed.set_exception(ConnectionError(f"closed before welcome: {exc}"))

    def send(self, payload: bytes, opcode: int = 0x1) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(client_frame(payload, opcode))

    def data_received(self, data: bytes) -> None:
        buf = self._buffer
        buf += data
        if not self._upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if b" 101 " not in buf[: buf.find(b"\r\n")]:
                raise RuntimeError(f"no websocket upgrade: {bytes(buf[:200])!r}")
            del buf[: end + 4]
            self._upgraded = True
            self.send(self._hello)
        pos = 0
        while len(buf) - pos >= 2:
            opcode, n = buf[pos] & 0x0F, buf[pos + 1] & 0x7F
            head = 2
            if n == 126:
                if len(buf) - pos < 4:
                    break
                n, head = int.from_bytes(buf[pos + 2 : pos + 4], "big"), 4
            elif n == 127:
                if len(buf) - pos < 10:
                    break
                n, head = int.from_bytes(buf[pos + 2 : pos + 10], "big"), 10
            if len(buf) - pos < head + n:
                break
            payload = bytes(buf[pos + head : pos + head + n])
            pos += head + n
            if opcode == 0x1:
                self.on_text(payload)
            elif opcode == 0x9:
                self.send(payload, 0xA)  # pong
            elif opcode == 0x8 and self.transport is not None:
                self.transport.close()
        del buf[:pos]

    def on_text(self, payload: bytes) -> None:
        c = self.counters
        c.received(len(payload))
        if payload.startswith(b'{"type":"event"'):
            return
        message = _decode(payload)
        kind = message["type"]
        if kind == "prompt":
            if self.stopping:
                return
            if self.pace > 0:
                delay = self.pace * (0.5 + self.rng.random())
                asyncio.get_running_loop().call_later(delay, self.act, message)
            else:
                self.act(message)
        elif kind == "ack":
            c.acks += 1
            at = self._sent.pop(message["request_id"], None)
            if at is not None:
                c.latencies.append(time.perf_counter() - at)
        elif kind == "welcome":
            c.welcomed += 1
            self.welcomed.set_result(None)
            if self.play:
                self.send(JOIN)
        elif kind == "seated" and not self._seated:
            self._seated = True
            c.seated += 1
        elif kind == "error":
            c.errors += 1
            if self.play and not self._seated and not self.stopping:  # e.g. its table could not start
                # later and spread out: joining again at once makes a storm of table starts that a
                # saturated store cannot take (none starts at all)
                asyncio.get_running_loop().call_later(5.0 + 10.0 * self.rng.random(), self._join_again)
        elif kind == "match_end":
            c.matches_ended += 1
            if not self.stopping:
                self.send(JOIN)

    def _join_again(self) -> None:
        if not self._seated and not self.stopping:
            self.send(JOIN)

    def act(self, prompt: dict[str, Any]) -> None:
        if self.stopping:
            return
        self._request_id += 1
        action = choose(prompt["legal_actions"])
        self._sent[self._request_id] = time.perf_counter()
        act = _encode(
            {"type": "act", "request_id": self._request_id, "step": prompt["step"], "action": action}
        )
        self.send(act)
        self.counters.acted(len(act))


class FloorClient(BotClient):
    """A connection to the floor server: joins its group of four (``"GROUP INDEX"``), then answers
    each ``P`` frame (the floor's prompt) with an act of the hub's mean act size."""

    def __init__(self, host: str, port: int, join: str, counters: LoadCounters, *, act_size: int) -> None:
        super().__init__(host, port, join, counters, play=True, pace=0.0, seed=0)
        self._hello = join.encode()
        self._act = b"A" * max(1, act_size)

    def on_text(self, payload: bytes) -> None:
        c = self.counters
        c.received(len(payload))
        kind = payload[:1]
        if kind == b"P" and not self.stopping:
            self.send(self._act)
            c.acted(len(self._act))
        elif kind == b"W":
            c.welcomed += 1
            self.welcomed.set_result(None)
        elif kind == b"S":
            c.seated += 1


def run_load_process(args: argparse.Namespace) -> None:
    """The load process's event loop: uvloop where installed (as the server's ``auto``), so that the
    bots' socket and timer handling costs less of the cores the server shares with it;
    ``JANTAKU_BENCH_LOAD_LOOP=asyncio`` runs it on asyncio's own loop (an A/B of the load's CPU).
    The bots are the same either way: same frames, same answers, same pace."""
    kind = resolve_loop(os.environ.get("JANTAKU_BENCH_LOAD_LOOP", "auto"))
    with asyncio.Runner(loop_factory=new_event_loop_factory(kind)) as runner:
        runner.run(run_load(args))


async def run_load(args: argparse.Namespace) -> None:
    """The load process: report progress on stdout as JSON lines, stop when stdin closes."""
    # ``--url`` may list several servers (comma-separated): connection i goes to server i mod n,
    # round-robin (bench/cluster.py spreads the bots over the nodes of a cluster this way).
    targets = [(p.hostname or "127.0.0.1", p.port or 80) for p in map(urlsplit, args.url.split(","))]
    counters = LoadCounters()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    play = args.load in ("play", "floor")
    total = args.idle if args.load == "idle" else 4 * args.tables
    rng = random.Random(args.seed)
    clients: list[BotClient] = []
    act_size = 0
    if args.load == "floor":
        act_size = round(json.loads(Path(args.template).read_text())["act_size"])
    for start in range(0, total, CONNECT_BATCH):
        batch = []
        for i in range(start, min(total, start + CONNECT_BATCH)):
            seed = rng.randrange(2**32)
            host, port = targets[i % len(targets)]
            if args.load == "floor":
                client: BotClient = FloorClient(host, port, f"{i // 4} {i % 4}", counters, act_size=act_size)
            else:
                client = BotClient(host, port, f"b{i}", counters, play=play, pace=args.pace, seed=seed)
            batch.append(client)

            def made(c: BotClient = client) -> BotClient:
                return c

            await loop.create_connection(made, host, port)
        await asyncio.gather(*(c.welcomed for c in batch))
        clients += batch
    print(json.dumps({"connected": len(clients)}), flush=True)
    if play:
        progress_at = time.monotonic() + 10.0
        while counters.seated < len(clients):
            await asyncio.sleep(0.1)
            if time.monotonic() >= progress_at:  # what a stalled seating got to (bench/cluster.py)
                progress = {"seating": counters.seated, "of": len(clients), "closed": counters.closed}
                print(json.dumps(progress), flush=True)
                progress_at += 10.0
        print(json.dumps({"seated": counters.seated}), flush=True)
    # The orchestrator writes "window" when its measured window starts, and closes our stdin to stop us.
    while line := await reader.readline():
        if line.strip() == b"window":
            counters.start_window()
    for client in clients:
        client.stopping = True
        if client.transport is not None:
            client.transport.close()
    lat = sorted(counters.latencies)
    report = {
        "acts": counters.acts,
        "acks": counters.acks,
        "errors": counters.errors,
        "matches_ended": counters.matches_ended,
        "frames": counters.frames,
        "window_acts": counters.window_acts,
        "window_frames": counters.window_frames,
        "window_bytes": counters.window_bytes,
        "window_act_bytes": counters.window_act_bytes,
        "window_sizes": counters.window_sizes,
        "client_p50_ms": round(lat[len(lat) // 2] * 1000, 2) if lat else None,
        "client_p99_ms": round(lat[int(len(lat) * 0.99)] * 1000, 2) if lat else None,
    }
    print(json.dumps(report), flush=True)


# -- the load process in C -------------------------------------------------------------------------
#
# bench/loadgen.c does what BotClient and run_load do in the ``play`` and ``idle`` modes (same
# connections, same frames, same answers and pace, same lines on stdout and the same report), in C on
# epoll: the load then takes a fraction of the CPU it took from the cores the server shares with it.


def c_compiler() -> str | None:
    """The C compiler on PATH (``cc``, else ``gcc``), or None."""
    for name in ("cc", "gcc"):
        found = shutil.which(name)
        if found:
            return found
    return None


def build_loadgen() -> Path:
    """``bench/.build/jantaku-loadgen``, built from ``bench/loadgen.c`` with ``cc -O2`` when it is
    missing or older than the source. RuntimeError when there is no compiler or the build fails."""
    binary = LOADGEN_BINARY
    if binary.exists() and binary.stat().st_mtime >= LOADGEN_SOURCE.stat().st_mtime:
        return binary
    compiler = c_compiler()
    if compiler is None:
        raise RuntimeError("no C compiler (cc or gcc) on PATH to build bench/loadgen.c")
    binary.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_name(f"{binary.name}.{os.getpid()}.tmp")  # renamed into place: atomic
    done = subprocess.run(
        [compiler, "-O2", "-o", str(partial), str(LOADGEN_SOURCE)],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        raise RuntimeError(f"building bench/loadgen.c failed:\n{done.stderr.strip()}")
    partial.replace(binary)
    return binary


def resolve_load_impl(choice: str | None) -> tuple[str, str]:
    """The load process's implementation and a note saying why: ``choice`` when given (``c`` is
    built here, an error if it cannot be), else ``c`` where it builds and ``python`` where not."""
    if choice == "python":
        return "python", "python (bench/hub.py BotClient)"
    try:
        binary = build_loadgen()
    except RuntimeError as exc:
        if choice == "c":
            raise
        return "python", f"python (bench/hub.py BotClient; no C load: {str(exc).splitlines()[0]})"
    return "c", f"c ({binary.relative_to(REPO) if binary.is_relative_to(REPO) else binary})"


def load_command(impl: str, url: str, *extra: str) -> list[str]:
    """The load process's command line for ``--url url`` and the load options ``extra`` (``--load
    play --tables T --pace P``, or ``--load idle --idle N``): the C binary, or this file."""
    if impl == "c":
        return [str(build_loadgen()), "--url", url, *extra]
    return [sys.executable, str(Path(__file__).resolve()), "--url", url, *extra]


# -- the floor: a bare websockets server sending the hub's traffic ----------------------------------
#
# What the hub's frames cost at the least: a plain ``websockets`` server (same library, same options,
# same event loop kind) that, for each act it reads, sends the frames the hub sent per applied action
# (their count and sizes measured by the load process in the hub's window) to the act's group of
# four connections, each frame its own ``send``, and prompts the next connection of the group.
# ``floor ratio`` = the hub's CPU per applied action / the floor's CPU per act.


def new_event_loop_factory(kind: str) -> Any:
    """The loop factory for ``kind`` (``asyncio`` or ``uvloop``)."""
    if kind == "uvloop":
        import uvloop

        return uvloop.new_event_loop
    return asyncio.new_event_loop


def resolve_loop(kind: str) -> str:
    if kind != "auto":
        return kind
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


async def run_floor_server(args: argparse.Namespace) -> None:
    from websockets.asyncio.server import ServerConnection, serve
    from websockets.exceptions import ConnectionClosed

    template = json.loads(Path(args.template).read_text())
    per_act: float = template["frames_per_act"]
    sizes: list[int] = template["sizes"] or [100]
    payloads: dict[tuple[bytes, int], bytes] = {}
    groups: dict[int, list[ServerConnection | None]] = {}
    acts = 0
    cursor = 0

    def payload(kind: bytes, size: int) -> bytes:
        found = payloads.get((kind, size))
        if found is None:
            found = payloads[(kind, size)] = kind + b"x" * max(0, size - 1)
        return found

    async def handler(ws: ServerConnection) -> None:
        nonlocal acts, cursor
        g, i = (int(x) for x in str(await ws.recv()).split())
        conns = groups.setdefault(g, [None] * 4)
        conns[i] = ws
        await ws.send(b"W", text=True)
        if all(c is not None for c in conns):
            for c in conns:
                assert c is not None
                await c.send(b"S", text=True)
            first = conns[0]
            assert first is not None
            await first.send(payload(b"P", 100), text=True)
        with contextlib.suppress(ConnectionClosed):  # the load process goes away at the end
            async for _ in ws:
                n = int((acts + 1) * per_act) - int(acts * per_act)
                acts += 1
                for j in range(max(1, n)):
                    last = j >= n - 1
                    target = conns[(i + 1) % 4 if last else (i + j) % 4]
                    size = sizes[cursor % len(sizes)]
                    cursor += 1
                    if target is not None:
                        await target.send(payload(b"P" if last else b"E", size), text=True)

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with serve(
        handler, "127.0.0.1", 0, compression=None, max_queue=16, write_limit=32 * 1024
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(json.dumps({"port": port, "loop": type(loop).__module__}), flush=True)
        await reader.read()


def frame_template(client: dict[str, Any]) -> dict[str, Any]:
    """What the floor replays: the hub's frames per act and their sizes, the mean act size."""
    acts = max(1, client["window_acts"])
    return {
        "frames_per_act": client["window_frames"] / acts,
        "bytes_per_act": client["window_bytes"] / acts,
        "act_size": client["window_act_bytes"] / acts,
        "sizes": client["window_sizes"],
    }


def measure_floor(
    template: dict[str, Any], tables: int, loop: str, warmup: float, seconds: float
) -> dict[str, Any]:
    path = Path(tempfile.mkdtemp(prefix="jantaku-floor-")) / "template.json"
    path.write_text(json.dumps(template))
    argv = [sys.executable, str(Path(__file__).resolve()), "--floor-server", "--template", str(path)]
    server = subprocess.Popen(
        [*argv, "--loop", loop], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = json.loads(server.stdout.readline())["port"]
        url = f"ws://127.0.0.1:{port}/"
        load_argv = [sys.executable, str(Path(__file__).resolve()), "--url", url, "--load", "floor"]
        load = subprocess.Popen(
            [*load_argv, "--tables", str(tables), "--template", str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        read_json(load, "connected", 300)
        time.sleep(warmup)
        assert load.stdin is not None
        load.stdin.write("window\n")
        load.stdin.flush()
        cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
        time.sleep(seconds)
        cpu1, t1 = cpu_seconds(server.pid), time.monotonic()
        client = finish_load(load)
    finally:
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    acts = max(1, client["window_acts"])
    return {
        "loop": loop,
        "acts_per_s": round(client["window_acts"] / (t1 - t0), 1),
        "frames_per_act": round(client["window_frames"] / acts, 2),
        "bytes_per_act": round(client["window_bytes"] / acts, 1),
        "cpu_percent_of_one_core": round(100 * (cpu1 - cpu0) / (t1 - t0), 1),
        "cpu_us_per_act": round(1e6 * (cpu1 - cpu0) / acts, 1),
    }


# -- the orchestrator ------------------------------------------------------------------------------


def cpu_times(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds a process has used (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def thread_cpu(pid: int) -> dict[int, tuple[float, float]]:
    """(user, system) CPU seconds per thread of a process (``/proc/PID/task/TID/stat``)."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, tuple[float, float]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            out[int(task.name)] = (int(fields[11]) / tick, int(fields[12]) / tick)
    return out


def split_per_action(pid: int, before: dict[int, tuple[float, float]], actions: int) -> dict[str, float]:
    """CPU per action of the event loop's thread (the main one) and of the process's other threads
    (the SQLite writer's, aiosqlite's), user and system, since ``before``."""
    after = thread_cpu(pid)
    sums = {"loop_user": 0.0, "loop_sys": 0.0, "threads_user": 0.0, "threads_sys": 0.0}
    for tid, (user, system) in after.items():
        u0, s0 = before.get(tid, (0.0, 0.0))
        who = "loop" if tid == pid else "threads"
        sums[f"{who}_user"] += user - u0
        sums[f"{who}_sys"] += system - s0
    return {f"server_{k}_us_per_action": round(1e6 * v / max(1, actions), 1) for k, v in sums.items()}


def cpu_seconds(pid: int) -> float:
    return sum(cpu_times(pid))


def machine_seconds() -> list[float]:
    """The whole machine's CPU seconds so far per ``/proc/stat`` column: user, nice, system, idle,
    iowait, irq, softirq, steal (guest time is inside user and nice)."""
    ticks = Path("/proc/stat").read_text().splitlines()[0].split()[1:9]
    per_second = os.sysconf("SC_CLK_TCK")
    return [int(t) / per_second for t in ticks]


def machine_idle() -> tuple[float, float]:
    """(idle, total) CPU seconds of the whole machine so far (``/proc/stat``)."""
    seconds = machine_seconds()
    return seconds[3] + seconds[4], sum(seconds)


def machine_stolen() -> tuple[float, float]:
    """(stolen, total) CPU seconds of the whole machine so far (``/proc/stat``): steal is time the
    hypervisor gave this machine's virtual CPUs to someone else while they had work. A window with
    steal ran on less than two cores, and slower ones (docs/benchmarks.md, "Cluster")."""
    seconds = machine_seconds()
    return seconds[7], sum(seconds)


class Server:
    """``jantaku serve`` in a subprocess, with its figures."""

    def __init__(
        self, database_url: str | None, action_ms: int, extra: list[str], *, loop: str, repo: Path = REPO
    ) -> None:
        self.data_dir = tempfile.mkdtemp(prefix="jantaku-bench-")
        argv = [sys.executable, *SERVER_ENTRY, "serve", "--host", "127.0.0.1", "--port", "0"]
        argv += ["--data-dir", self.data_dir, "--bot-fill-after", "3600", "--log-level", "WARNING"]
        argv += ["--action-ms", str(action_ms), "--bank-ms", str(action_ms), "--hand-pause-ms", "0", *extra]
        if database_url:
            argv += ["--database-url", database_url]
        # The event loop goes by the environment (JANTAKU_LOOP), which a server without --loop ignores.
        env = {**os.environ, "JANTAKU_HUB_STATS": "1", "JANTAKU_LOOP": loop, **UNLIMITED_ADDRESS}
        self.proc = subprocess.Popen(argv, cwd=repo, env=env, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        port = None
        for line in self.proc.stdout:
            found = re.search(r"ws://127\.0\.0\.1:(\d+)/ws", line)
            if found:
                port = int(found.group(1))
                break
        if port is None:
            raise RuntimeError("jantaku serve did not start")
        self.port = port

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def stats(self, reset: bool = False) -> dict[str, Any]:
        query = "?reset=1" if reset else ""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats{query}", timeout=30) as r:
            data: dict[str, Any] = json.load(r)
        return data

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_load(server: Server, *extra: str, impl: str = "python") -> subprocess.Popen[str]:
    argv = load_command(impl, server.url, *extra)
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


_LINES: dict[int, queue.Queue[str]] = {}


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    """The lines of ``proc``'s stdout, read by a thread of their own (so that waiting for one can
    time out: a blocking ``readline`` would wait for ever on a load process that prints nothing)."""
    lines = _LINES.get(proc.pid)
    if lines is None:
        lines = _LINES[proc.pid] = queue.Queue()
        stdout = proc.stdout
        assert stdout is not None

        def pump(out: queue.Queue[str] = lines) -> None:
            for line in stdout:
                out.put(line)
            out.put("")  # the end

        threading.Thread(target=pump, daemon=True, name=f"stdout-{proc.pid}").start()
    return lines


def read_json(proc: subprocess.Popen[str], key: str, timeout: float) -> dict[str, Any]:
    """The load process's next JSON line that has ``key``; TimeoutError after ``timeout`` s."""
    lines = _lines(proc)
    last: dict[str, Any] = {}
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if not line:
            raise RuntimeError(f"the load process ended (code {proc.wait()}) before {key!r}")
        data: dict[str, Any] = json.loads(line)
        if key in data:
            return data
        last = data
    raise TimeoutError(f"no {key!r} from the load process in {timeout} s (its last report: {last})")


def finish_load(proc: subprocess.Popen[str]) -> dict[str, Any]:
    assert proc.stdin is not None
    proc.stdin.close()
    report = read_json(proc, "acts", 60)
    proc.wait(timeout=30)
    return report


def measure_idle(server: Server, count: int, *, load_impl: str = "python") -> dict[str, Any]:
    time.sleep(1.0)
    before = server.rss_kib()
    load = start_load(server, "--load", "idle", "--idle", str(count), impl=load_impl)
    read_json(load, "connected", 300)
    time.sleep(2.0)
    after = server.rss_kib()
    connections = server.stats()["connections"]
    cpu0, t0 = cpu_seconds(server.proc.pid), time.monotonic()
    time.sleep(12.0)  # two websocket ping intervals
    cpu1, t1 = cpu_seconds(server.proc.pid), time.monotonic()
    finish_load(load)
    return {
        "idle_connections": connections,
        "rss_before_kib": before,
        "rss_after_kib": after,
        "kib_per_idle_connection": round((after - before) / max(1, connections), 2),
        "server_cpu_percent_while_idle": round(100 * (cpu1 - cpu0) / (t1 - t0), 1),
    }


def rss_over(
    server: Server, seconds: float, every: float, caches: list[int] | None = None
) -> list[tuple[float, int]]:
    """Sleep ``seconds``, reading the server's RSS at the start and every ``every`` seconds (and at
    the end): ``(seconds since the start, KiB)``. With ``caches``, also appends the engine's cache
    entries (``/stats``) at each reading."""
    start = time.monotonic()
    samples = [(0.0, server.rss_kib())]
    if caches is not None:
        caches.append(server.stats().get("engine_cache_entries", -1))
    while (left := seconds - (time.monotonic() - start)) > 0:
        time.sleep(min(every, left))
        samples.append((round(time.monotonic() - start, 1), server.rss_kib()))
        if caches is not None:
            caches.append(server.stats().get("engine_cache_entries", -1))
    return samples


# "RSS flat after warm-up" (issue 17 §4): the least-squares growth over the second half of the
# window at most 1 KiB per table per minute (1 MiB/min at 1,000 tables). A live table's own state is
# flat at 22-29 KiB (bench/table_memory.py) and its 4 connections at 4 x 17 KiB, so a table that
# grew 1 KiB a minute would double only after ~2 hours, longer than any match; what grows faster is
# something not yet bounded (or a cache still filling), which the verdict is there to catch. Below
# ~300 tables the allowance (0.3 MiB/min) nears what the allocator and the SQLite page cache move
# by themselves between readings, so read the verdict at 300+ tables with readings a minute apart
# over 8+ minutes.
RSS_FLAT_KIB_PER_TABLE_PER_MIN = 1.0


def _slope_kib_per_s(samples: list[tuple[float, int]]) -> float | None:
    """Least-squares slope of (seconds, KiB) readings, KiB per second (None below two readings)."""
    n = len(samples)
    if n < 2:
        return None
    mean_t = sum(t for t, _ in samples) / n
    mean_r = sum(r for _, r in samples) / n
    var = sum((t - mean_t) ** 2 for t, _ in samples)
    if var <= 0:
        return None
    return sum((t - mean_t) * (r - mean_r) for t, r in samples) / var


def rss_growth(samples: list[tuple[float, int]], tables: int) -> dict[str, Any]:
    """RSS growth over the window after warm-up: the least-squares slope of the samples (MiB per
    minute, and KiB per table per minute), over the whole window and over its second half (the
    readings from its middle on), and the verdict on the second half's
    (``RSS_FLAT_KIB_PER_TABLE_PER_MIN``)."""
    slope = _slope_kib_per_s(samples)
    if slope is None or samples[-1][0] <= 0:
        return {}
    middle = samples[-1][0] / 2
    late = _slope_kib_per_s([s for s in samples if s[0] >= middle])
    out: dict[str, Any] = {
        "rss_samples_kib": samples,
        "rss_growth_mib_per_min": round(slope * 60 / 1024, 2),
        "rss_growth_kib_per_table_per_min": round(slope * 60 / max(1, tables), 2),
        "rss_flat_threshold_mib_per_min": round(RSS_FLAT_KIB_PER_TABLE_PER_MIN * max(1, tables) / 1024, 2),
    }
    if late is not None:
        out["rss_growth_second_half_mib_per_min"] = round(late * 60 / 1024, 2)
        out["rss_growth_second_half_kib_per_table_per_min"] = round(late * 60 / max(1, tables), 2)
        out["rss_flat"] = late * 60 / max(1, tables) <= RSS_FLAT_KIB_PER_TABLE_PER_MIN
    return out


def per_action(growth: dict[str, Any], actions_per_s: float) -> dict[str, Any]:
    """The RSS growth per applied action (bytes), over the window and its second half: comparable
    between runs that applied actions at different rates (a loaded machine)."""
    if "rss_growth_mib_per_min" not in growth or actions_per_s <= 0:
        return growth
    out = dict(growth)
    for key, per_action_key in (
        ("rss_growth_mib_per_min", "rss_growth_bytes_per_action"),
        ("rss_growth_second_half_mib_per_min", "rss_growth_second_half_bytes_per_action"),
    ):
        if key in growth:
            out[per_action_key] = round(growth[key] * 1024 * 1024 / 60 / actions_per_s)
    return out


def measure_tables(
    server: Server,
    tables: int,
    pace: float,
    warmup: float,
    seconds: float,
    *,
    rss_every: float = 60.0,
    load_impl: str = "python",
) -> dict[str, Any]:
    rss_before = server.rss_kib()  # no table yet (after the idle connections, if any, are gone)
    load = start_load(server, "--load", "play", "--tables", str(tables), "--pace", str(pace), impl=load_impl)
    read_json(load, "seated", 600)
    time.sleep(warmup)
    assert load.stdin is not None
    load.stdin.write("window\n")
    load.stdin.flush()
    server.stats(reset=True)
    pid = server.proc.pid
    threads0 = thread_cpu(pid)
    cpu0, load0, idle0, t0 = cpu_times(pid), cpu_seconds(load.pid), machine_idle(), time.monotonic()
    caches: list[int] = []
    samples = rss_over(server, seconds, rss_every, caches)
    stats = server.stats()
    cpu1, load1, idle1, t1 = cpu_times(pid), cpu_seconds(load.pid), machine_idle(), time.monotonic()
    threads = split_per_action(pid, threads0, stats["actions"])
    rss1 = server.rss_kib()
    client = finish_load(load)
    busy = 1 - (idle1[0] - idle0[0]) / max(1e-9, idle1[1] - idle0[1])
    return {
        **stats,
        "server_cpu_percent_of_one_core": round(100 * (sum(cpu1) - sum(cpu0)) / (t1 - t0), 1),
        "server_system_cpu_percent": round(100 * (cpu1[1] - cpu0[1]) / (t1 - t0), 1),
        "server_cpu_us_per_action": round(1e6 * (sum(cpu1) - sum(cpu0)) / max(1, stats["actions"]), 1),
        **threads,
        "load_process_cpu_percent": round(100 * (load1 - load0) / (t1 - t0), 1),
        "machine_busy_percent": round(100 * busy, 1),
        "rss_kib": rss1,
        "rss_before_tables_kib": rss_before,
        "kib_per_live_table": round((rss1 - rss_before) / max(1, tables), 1),  # its 4 connections too
        **per_action(rss_growth(samples, tables), stats["actions_per_s"]),
        "engine_cache_entries_samples": caches,
        "engine_cache_bound": stats.get("engine_cache_bound"),
        "client": client,
    }


SQLITE_TARGET = 1.5  # issue 17 section 2: CPU per action on SQLite <= 1.5x the in-memory store's


def compare_stores(args: argparse.Namespace, loop: str) -> dict[str, Any]:
    """``--compare-stores N``: the in-memory store and the other one (``--database-url``; SQLite,
    the default, when that is ``memory:``) in N rounds of the same tables and window, interleaved
    ABBA (memory first in even rounds, the other store first in odd ones: a drift of the machine's
    load weighs on both alike), each run a fresh server. Per round: both stores' CPU per applied
    action and the ratio; then the median of the per-round ratios and the verdict against 1.5."""
    other = "" if args.database_url == "memory:" else args.database_url
    label = other or "sqlite (default)"
    rounds: list[dict[str, Any]] = []
    for r in range(args.compare_stores):
        order = ["memory:", other] if r % 2 == 0 else [other, "memory:"]
        runs: dict[str, dict[str, Any]] = {}
        for url in order:
            server = Server(
                url or None, args.action_ms, shlex.split(args.server_args), loop=loop, repo=args.server_repo
            )
            load_before = os.getloadavg()[0]
            try:
                run = measure_tables(
                    server,
                    args.tables,
                    args.pace,
                    args.warmup,
                    args.seconds,
                    rss_every=3600,
                    load_impl=args.load_impl,
                )
            finally:
                server.stop()
            runs["memory" if url == "memory:" else "other"] = {
                "cpu_us_per_action": run["server_cpu_us_per_action"],
                "loop_us_per_action": round(
                    run.get("server_loop_user_us_per_action", 0.0)
                    + run.get("server_loop_sys_us_per_action", 0.0),
                    1,
                ),
                "threads_us_per_action": round(
                    run.get("server_threads_user_us_per_action", 0.0)
                    + run.get("server_threads_sys_us_per_action", 0.0),
                    1,
                ),
                "actions_per_s": run["actions_per_s"],
                "p99_ms": run["p99_ms"],
                "machine_busy_percent": run["machine_busy_percent"],
                "loadavg": load_before,
                "errors": run["client"]["errors"],
            }
        m, o = runs["memory"], runs["other"]
        ratio = round(o["cpu_us_per_action"] / max(1e-9, m["cpu_us_per_action"]), 3)
        rounds.append(
            {
                "round": r + 1,
                "first": "memory" if r % 2 == 0 else "other",
                "memory": m,
                "other": o,
                "ratio": ratio,
            }
        )
        if not args.json:
            print(compare_line(rounds[-1]), flush=True)
    ratios = sorted(x["ratio"] for x in rounds)
    median = statistics.median(ratios)
    return {
        "loop": loop,
        "server_repo": str(args.server_repo),
        "tables": args.tables,
        "pace_s": args.pace,
        "window_s": args.seconds,
        "store": label,
        "rounds": rounds,
        "ratio_median": round(median, 3),
        "ratio_min": ratios[0],
        "ratio_max": ratios[-1],
        "memory_median_us": round(statistics.median(x["memory"]["cpu_us_per_action"] for x in rounds), 1),
        "other_median_us": round(statistics.median(x["other"]["cpu_us_per_action"] for x in rounds), 1),
        "target": SQLITE_TARGET,
        "met": median <= SQLITE_TARGET,
        "load_impl": args.load_impl_note,
    }


def compare_line(x: dict[str, Any]) -> str:
    m, o = x["memory"], x["other"]
    return (
        f"round {x['round']} ({x['first']} first): memory {m['cpu_us_per_action']} us per action "
        f"({m['actions_per_s']} actions/s, load {m['loadavg']:.1f}); other store {o['cpu_us_per_action']} us "
        f"(event loop {o['loop_us_per_action']}, other threads {o['threads_us_per_action']}; "
        f"{o['actions_per_s']} actions/s, p99 {o['p99_ms']} ms, load {o['loadavg']:.1f}); "
        f"ratio {x['ratio']:.2f}"
    )


def compare_summary(c: dict[str, Any]) -> str:
    store = c["store"]
    name = (
        "SQLite" if store == "sqlite (default)" else "PostgreSQL" if store.startswith("postgres") else store
    )
    verdict = "met" if c["met"] else "NOT met"
    per_round = " / ".join(f"{x['ratio']:.2f}" for x in c["rounds"])
    return "\n".join(
        [
            f"compare stores ({c['server_repo']}, loop {c['loop']}, load process {c['load_impl']}): "
            f"{c['tables']} tables, "
            f"{c['window_s']} s windows, {len(c['rounds'])} round(s) ABBA; store {store} vs memory:",
            f"  per-round ratios {per_round}; median CPU per action memory {c['memory_median_us']} us, "
            f"{name} {c['other_median_us']} us",
            f"{name}/memory: {c['ratio_median']:.2f} (median of {len(c['rounds'])} round(s), "
            f"{c['ratio_min']:.2f}-{c['ratio_max']:.2f}; target <= {c['target']}: {verdict})",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--pace", type=float, default=0.0, help="seconds per answer (0: bot speed; 1: human)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument(
        "--rss-every", type=float, default=60.0, help="seconds between RSS samples in the window"
    )
    parser.add_argument("--idle", type=int, default=2000, help="idle connections to weigh (0: skip)")
    parser.add_argument(
        "--database-url", default="memory:", help="the server's store ('' = its default SQLite)"
    )
    parser.add_argument("--action-ms", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also measure a bare websockets server sending the same frames: prints the floor ratio",
    )
    parser.add_argument(
        "--loop",
        choices=LOOPS,
        default="auto",
        help="the event loop of the server and the floor (auto: uvloop where installed)",
    )
    parser.add_argument(
        "--server-repo",
        type=Path,
        default=REPO,
        help="run the server from this checkout (paired before/after runs; default: this one)",
    )
    parser.add_argument(
        "--compare-stores",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="run the tables on memory: and on --database-url (SQLite when memory:) interleaved ABBA for "
        "ROUNDS rounds: per-round CPU per action, ratio, median and the verdict (target <= 1.5)",
    )
    parser.add_argument(
        "--load-impl",
        choices=LOAD_IMPLS,
        default=None,
        help="the load process's implementation: c (bench/loadgen.c, built with cc -O2) or python (its "
        "BotClient); default c where a C compiler builds it, else python",
    )
    # the load process
    parser.add_argument("--load", choices=["idle", "play", "floor"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--floor-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--template", help=argparse.SUPPRESS)
    parser.add_argument(
        "--server-args",
        default="",
        metavar="OPTIONS",
        help='more options for jantaku serve, e.g. "--gc-freeze-every 0" (Python\'s GC settings)',
    )
    args = parser.parse_args()
    if args.load:
        run_load_process(args)
        return 0
    loop = resolve_loop(args.loop)
    if args.floor_server:
        with asyncio.Runner(loop_factory=new_event_loop_factory(loop)) as runner:
            runner.run(run_floor_server(args))
        return 0
    if args.tables > 1500 or args.idle > 8000 or args.seconds > 600:
        parser.error("bounded: at most 1500 tables, 8000 idle connections, 600 s")
    if args.floor and (not args.tables or args.pace):
        parser.error("--floor measures the tables at bot speed (--pace 0)")
    try:
        args.load_impl, args.load_impl_note = resolve_load_impl(args.load_impl)
    except RuntimeError as exc:
        parser.error(f"--load-impl c: {exc}")
    if args.compare_stores:
        if args.compare_stores > 12 or not args.tables or args.floor:
            parser.error("--compare-stores: 1-12 rounds, with tables, without --floor")
        compared = compare_stores(args, loop)
        print(json.dumps(compared) if args.json else compare_summary(compared))
        return 0
    server = Server(
        args.database_url or None,
        args.action_ms,
        shlex.split(args.server_args),
        loop=loop,
        repo=args.server_repo,
    )
    result: dict[str, Any] = {
        "loop": loop,
        "server_repo": str(args.server_repo),
        "tables": args.tables,
        "warmup_s": args.warmup,
        "pace_s": args.pace,
        "database_url": args.database_url or "sqlite (default)",
        "server_args": args.server_args,
        "load_impl": args.load_impl_note,
        "loadavg_before": os.getloadavg(),
    }
    try:
        if args.idle:
            result["idle"] = measure_idle(server, args.idle, load_impl=args.load_impl)
        if args.tables:
            result["tables_run"] = measure_tables(
                server,
                args.tables,
                args.pace,
                args.warmup,
                args.seconds,
                rss_every=args.rss_every,
                load_impl=args.load_impl,
            )
    finally:
        server.stop()
    if args.floor:
        run = result["tables_run"]
        template = frame_template(run["client"])
        floor = measure_floor(template, args.tables, loop, min(args.warmup, 3.0), args.seconds)
        result["floor"] = floor
        result["floor_ratio"] = round(run["server_cpu_us_per_action"] / max(1e-9, floor["cpu_us_per_act"]), 2)
    for key in ("window_sizes",):
        result.get("tables_run", {}).get("client", {}).pop(key, None)
    result["loadavg_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(result))
    else:
        print(summary(result))
    return 0


def memory_lines(t: dict[str, Any], tables: int, warmup: float) -> list[str]:
    """The RSS report (issue 17 §4): readings, growth after warm-up, KiB per live table, the
    engine's cache fill at each reading, and the verdict."""
    samples = ", ".join(f"{int(s)} s {r / 1024:.1f}" for s, r in t["rss_samples_kib"])
    lines = [
        f"  memory: RSS {t['rss_before_tables_kib'] / 1024:.1f} MiB before the tables, "
        f"{t['kib_per_live_table']} KiB per live table (with its 4 connections) at the end; "
        f"in the window, {warmup:.0f} s after the tables were seated (MiB): {samples}",
        f"  RSS growth after warm-up (least squares): window {t['rss_growth_mib_per_min']} MiB/min = "
        f"{t['rss_growth_kib_per_table_per_min']} KiB per table per minute = "
        f"{t.get('rss_growth_bytes_per_action')} bytes per applied action; second half "
        f"{t.get('rss_growth_second_half_mib_per_min')} MiB/min = "
        f"{t.get('rss_growth_second_half_kib_per_table_per_min')} KiB per table per minute = "
        f"{t.get('rss_growth_second_half_bytes_per_action')} bytes per applied action",
    ]
    if "engine_cache_entries" in t:
        fill = ", ".join(str(n) for n in t.get("engine_cache_entries_samples", []))
        bound = t.get("engine_cache_bound")
        lines.append(
            f"  engine caches: {t['engine_cache_entries']} entries at the end"
            + (f" of {bound} at most" if bound else "")
            + f"; at each RSS reading {fill}"
        )
    if "rss_flat" in t:
        lines.append(
            f"RSS flat after warm-up: {'yes' if t['rss_flat'] else 'no'} (growth "
            f"{t['rss_growth_second_half_mib_per_min']} MiB/min, "
            f"{t.get('rss_growth_second_half_bytes_per_action')} bytes per action over the window's "
            f"second half; threshold {RSS_FLAT_KIB_PER_TABLE_PER_MIN:g} KiB per table per minute = "
            f"{t['rss_flat_threshold_mib_per_min']} MiB/min at {tables} tables)"
        )
    return lines


def summary(r: dict[str, Any]) -> str:
    before, after = r["loadavg_before"][0], r["loadavg_after"][0]
    lines = [
        f"jantaku serve ({r['server_repo']}), store {r['database_url']}, "
        f"options {r['server_args'] or 'default'}, "
        f"loop {r['loop']}; load process {r.get('load_impl', 'python')}; "
        f"machine load average {before:.1f} -> {after:.1f}"
    ]
    if "idle" in r:
        i = r["idle"]
        lines.append(
            f"idle: {i['idle_connections']} connections, {i['kib_per_idle_connection']} KiB each (RSS "
            f"{i['rss_before_kib'] / 1024:.1f} -> {i['rss_after_kib'] / 1024:.1f} MiB); server CPU while "
            f"idle {i['server_cpu_percent_while_idle']}% of a core"
        )
    if "tables_run" in r:
        t = r["tables_run"]
        pace = "bot speed" if not r["pace_s"] else f"one answer per {r['pace_s']} s (0.5-1.5x)"
        lines.append(
            f"tables: {r['tables']} x 4 bots, {pace}: {t['actions_per_s']} applied actions/s over "
            f"{t['window_s']} s; action-to-broadcast p50 {t['p50_ms']} ms, p90 {t['p90_ms']} ms, "
            f"p99 {t['p99_ms']} ms, max {t['max_ms']} ms"
        )
        lines.append(
            f"  server CPU {t['server_cpu_percent_of_one_core']}% of one core "
            f"({t['server_cpu_us_per_action']} us per action), {t['connections']} connections, RSS "
            f"{t['rss_kib'] / 1024:.1f} MiB; load process {t['load_process_cpu_percent']}%; machine busy "
            f"{t['machine_busy_percent']}%; client side p50 {t['client']['client_p50_ms']} ms, "
            f"p99 {t['client']['client_p99_ms']} ms, errors {t['client']['errors']}"
        )
        if "server_loop_user_us_per_action" in t:
            lines.append(
                f"  server CPU per action by thread: event loop {t['server_loop_user_us_per_action']} us "
                f"user + {t['server_loop_sys_us_per_action']} us system; other threads (SQLite writer, "
                f"aiosqlite) {t['server_threads_user_us_per_action']} us user + "
                f"{t['server_threads_sys_us_per_action']} us system"
            )
        if "rss_growth_mib_per_min" in t:
            lines.extend(memory_lines(t, r["tables"], r.get("warmup_s", 0.0)))
        gc = t.get("gc", {})
        c = t["client"]
        acts = max(1, c["window_acts"])
        lines.append(
            f"  traffic per act: {c['window_frames'] / acts:.2f} frames, "
            f"{c['window_bytes'] / acts:.0f} bytes "
            f"(client side, {c['window_acts']} acts in the window)"
        )
        lines.append(
            "  garbage collector: "
            + "; ".join(
                f"{g}: {v['collections']} pauses, longest {v['max_ms']} ms, total {v['total_ms']} ms, "
                f"{v['collected']} objects collected"
                for g, v in gc.items()
                if g != "frozen"
            )
        )
        commits = t.get("commits")
        if commits and commits["count"]:
            lines.append(
                f"  step commits: {commits['count']}, p50 {commits['p50_ms']} ms, p90 "
                f"{commits['p90_ms']} ms, p99 {commits['p99_ms']} ms, max {commits['max_ms']} ms"
            )
        loop = t.get("loop")
        if loop:
            lines.append(
                f"  event loop: {loop['stalls']} stalls >= 5 ms of {loop['wakeups']} 10-ms wake-ups "
                f"({loop['gc_stalls']} mostly GC), >= 10 ms {loop['over_10ms']}, >= 20 ms "
                f"{loop['over_20ms']}, >= 50 ms {loop['over_50ms']}, longest {loop['longest_ms']} ms, "
                f"total {loop['stalled_ms']} ms"
            )
    if "floor" in r:
        f = r["floor"]
        lines.append(
            f"floor (bare websockets, {f['loop']}): {f['frames_per_act']} frames, "
            f"{f['bytes_per_act']} bytes per "
            f"act, {f['acts_per_s']} acts/s, {f['cpu_us_per_act']} us CPU per act "
            f"({f['cpu_percent_of_one_core']}% of one core)"
        )
        lines.append(f"floor ratio: {r['floor_ratio']}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
