"""bench/loadgen.c, the bench's load process in C (bench/hub.py ``--load-impl c``): its own self-test
(the frame parser over reads of every size, 16- and 64-bit lengths, the choice of action, the write
buffer, the timers), the same bytes on the wire as bench/hub.py's Python bots against a scripted
server, and real tables against ``jantaku serve``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.modload import load_module

BENCH = Path(__file__).resolve().parents[2] / "bench" / "hub.py"


@pytest.fixture(scope="module")
def hub() -> ModuleType:
    return load_module("bench_hub_for_loadgen", BENCH)


@pytest.fixture(scope="module")
def binary(hub: ModuleType) -> Path:
    if hub.c_compiler() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no C compiler (cc or gcc) on PATH: CI builds bench/loadgen.c")
        pytest.skip("no C compiler (cc or gcc) on PATH to build bench/loadgen.c")
    path: Path = hub.build_loadgen()
    return path


def test_the_self_test_passes(binary: Path) -> None:
    done = subprocess.run(
        [str(binary), "--self-test"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "self-test ok"


def test_floor_is_refused(binary: Path) -> None:
    done = subprocess.run(
        [str(binary), "--url", "ws://127.0.0.1:9/ws", "--load", "floor"],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    assert done.returncode != 0
    assert "only play and idle" in done.stderr


# -- the same bytes on the wire as the Python bots --------------------------------------------------


def server_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, n))
    elif n < 1 << 16:
        head = bytes((0x80 | opcode, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 127)) + n.to_bytes(8, "big")
    return head + payload


def text(message: dict[str, Any]) -> bytes:
    return server_frame(json.dumps(message, separators=(",", ":")).encode())


def prompt(step: int, legal: list[dict[str, Any]]) -> bytes:
    return text(
        {
            "type": "prompt",
            "match_id": "m-1",
            "step": step,
            "seat": 0,
            "version": step,
            "legal_actions": legal,
            "deadline_ms": 5000,
            "bank_ms": 10000,
        }
    )


DISCARDS = [{"type": "discard", "tile": t, "tsumogiri": t == "9p"} for t in ("1m", "4m", "0p", "9p", "1z")]
BIG_EVENT = text(
    {"type": "event", "match_id": "m-1", "version": 2, "event": {"type": "x", "pad": "x" * 70_000}}
)


async def scripted_bot_peer(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, log: dict[str, bytes], *, idle: bool
) -> None:
    """A server that plays one match's worth of frames with a bot, in pieces that cut frames in two,
    and keeps every byte the bot sent (by its guest name). An idle bot only says hello."""
    got = [await reader.readuntil(b"\r\n\r\n")]
    writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")

    async def frame() -> tuple[int, bytes]:
        head = await reader.readexactly(2)
        raw = head
        n = head[1] & 0x7F
        if n >= 126:
            ext = await reader.readexactly(2 if n == 126 else 8)
            raw += ext
            n = int.from_bytes(ext, "big")
        mask = await reader.readexactly(4)
        payload = await reader.readexactly(n)
        got.append(raw + mask + payload)
        return head[0] & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    async def send(*frames: bytes) -> None:
        data = b"".join(frames)
        for part in (data[: len(data) // 2 + 1], data[len(data) // 2 + 1 :]):
            writer.write(part)
            await writer.drain()
            await asyncio.sleep(0.01)

    _, hello = await frame()
    name = json.loads(hello)["auth"]["name"]
    await send(text({"type": "welcome", "protocol": 1, "session_id": "c-1", "seats": []}))
    if idle:
        log[name] = b"".join(got)
        return
    assert await frame() == (0x1, b'{"type":"join","target":{"type":"queue","preset":"tenhou"}}')
    await send(
        text({"type": "queued", "preset": "tenhou", "players_waiting": 1}),
        text({"type": "seated", "match_id": "m-1", "seat": 0, "players": []}),
        BIG_EVENT,
        prompt(3, DISCARDS),
        server_frame(b"ping", 0x9),
    )
    assert (await frame())[0] == 0x1  # the act
    assert await frame() == (0xA, b"ping")
    await send(
        text({"type": "ack", "request_id": 1, "step": 3, "duplicate": False}),
        text({"type": "seated", "match_id": "m-1", "seat": 0, "players": []}),
        prompt(6, [{"type": "pon", "consumed": ["1z", "1z"]}, {"type": "pass"}]),
    )
    await frame()
    await send(
        text({"type": "ack", "request_id": 2, "step": 6, "duplicate": False}),
        prompt(9, [{"type": "chi", "consumed": ["3s", "4s"]}, {"type": "chi", "consumed": ["4s", "6s"]}]),
    )
    await frame()
    await send(
        text({"type": "ack", "request_id": 3, "step": 9, "duplicate": False}),
        prompt(12, [{"type": "pass"}, {"type": "ron"}]),
    )
    await frame()
    await send(
        text({"type": "error", "code": "stale_step", "message": "over", "request_id": 4}),
        text({"type": "match_end", "match_id": "m-1", "reason": "completed", "result": {}}),
    )
    await frame()  # joins again
    await send(server_frame(b"\x03\xe8", 0x8))  # close
    log[name] = b"".join(got)


async def run_against_script(
    command: list[str], connections: int, *, idle: bool = False
) -> tuple[dict[str, bytes], list[dict[str, Any]]]:
    """Run a load process (``command``: the program, then its options) against the scripted server
    until every connection is through the script; then close its stdin: what each bot sent, and the
    JSON lines the load process printed."""
    log: dict[str, bytes] = {}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await scripted_bot_peer(reader, writer, log, idle=idle)
            await reader.read()  # until the bot closes
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, limit=1 << 20)
    port = server.sockets[0].getsockname()[1]
    url = f"ws://127.0.0.1:{port}/ws"
    proc = await asyncio.create_subprocess_exec(
        *command, "--url", url, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        deadline = time.monotonic() + 15
        while len(log) < connections and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        proc.stdin.close()
        out = await asyncio.wait_for(proc.stdout.read(), 15)
        assert await asyncio.wait_for(proc.wait(), 15) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        server.close()
    here = f"127.0.0.1:{port}".encode()  # the Host header's port: the same in every run
    sent = {name: data.replace(here, b"127.0.0.1:PORT") for name, data in log.items()}
    return sent, [json.loads(line) for line in out.decode().splitlines()]


def test_the_same_bytes_on_the_wire_as_the_python_bots(binary: Path, hub: ModuleType) -> None:
    play = ["--load", "play", "--tables", "1", "--pace", "0"]
    python = [sys.executable, str(BENCH), *play]
    c_log, c_lines = asyncio.run(run_against_script([str(binary), *play], 4))
    py_log, py_lines = asyncio.run(run_against_script(python, 4))
    assert sorted(c_log) == ["b0", "b1", "b2", "b3"]
    assert c_log == py_log  # every byte each bot sent, handshake included
    sent = c_log["b2"]
    assert b"\r\nHost: 127.0.0.1:PORT\r\n" in sent
    # the choices: the tsumogiri discard, pass, the first chi, ron
    for action in (
        b'"step":3,"action":{"type":"discard","tile":"9p","tsumogiri":true}}',
        b'"step":6,"action":{"type":"pass"}}',
        b'"request_id":3,"step":9,"action":{"type":"chi","consumed":["3s","4s"]}}',
        b'"request_id":4,"step":12,"action":{"type":"ron"}}',
    ):
        assert action in sent
    assert c_lines[:2] == py_lines[:2] == [{"connected": 4}, {"seated": 4}]
    c_report, py_report = c_lines[-1], py_lines[-1]
    assert set(c_report) == set(py_report)
    for key in ("acts", "acks", "errors", "matches_ended", "frames", "window_acts", "window_frames"):
        assert c_report[key] == py_report[key], key
    assert c_report["window_bytes"] == py_report["window_bytes"]
    assert c_report["window_act_bytes"] == py_report["window_act_bytes"]
    assert sorted(c_report["window_sizes"]) == sorted(py_report["window_sizes"])
    assert (c_report["acts"], c_report["acks"], c_report["errors"], c_report["matches_ended"]) == (
        16,
        12,
        4,
        4,
    )
    assert c_report["client_p50_ms"] is not None


def test_idle_connections_only_say_hello(binary: Path) -> None:
    log, lines = asyncio.run(run_against_script([str(binary), "--load", "idle", "--idle", "3"], 3, idle=True))
    assert lines[0] == {"connected": 3}
    assert sorted(log) == ["b0", "b1", "b2"]
    hello = b'{"type":"hello","protocol":1,"auth":{"type":"guest","name":"b1"}}'
    assert log["b1"].endswith(bytes((0x81, 0x80 | len(hello))) + b"\0\0\0\0" + hello)
    assert lines[-1]["acts"] == 0 and lines[-1]["frames"] == 3


# -- real tables ------------------------------------------------------------------------------------


def test_two_tables_against_jantaku_serve(binary: Path, hub: ModuleType) -> None:
    server = hub.Server("memory:", 10000, [], loop="auto")
    load: subprocess.Popen[str] | None = None
    try:
        load = hub.start_load(server, "--load", "play", "--tables", "2", "--pace", "0", impl="c")
        assert hub.read_json(load, "connected", 20) == {"connected": 8}
        assert hub.read_json(load, "seated", 20) == {"seated": 8}
        time.sleep(1.5)
        assert load.stdin is not None
        load.stdin.write("window\n")
        load.stdin.flush()
        time.sleep(1.5)
        report = hub.finish_load(load)
        assert load.returncode == 0
    finally:
        if load is not None:
            if load.poll() is None:
                load.kill()
                load.wait()
            lines = hub._lines(load)
            while lines.get(timeout=10):  # its reader thread is at the end: the pipe can close
                pass
            for pipe in (load.stdin, load.stdout):
                if pipe is not None:
                    pipe.close()
        server.stop()
        if server.proc.stdout is not None:
            server.proc.stdout.close()
    acts = report["acts"]
    assert acts > 0
    assert acts - 8 <= report["acks"] <= acts
    assert report["errors"] == 0
    assert report["frames"] > acts
    assert 0 < report["window_acts"] < acts
    assert report["window_frames"] > report["window_acts"]
    assert len(report["window_sizes"]) == min(report["window_frames"], 50_000)
    if report["window_frames"] <= 50_000:
        assert report["window_bytes"] == sum(report["window_sizes"])
    assert report["client_p50_ms"] is not None and report["client_p99_ms"] >= report["client_p50_ms"]
