"""``/metrics``, ``/readyz`` and ``/healthz`` of a real ``jantaku serve`` process (in-memory store):
one client plays a match against three built-in bots, letting one decision time out, and every
named series exists and moves. Waiting on the process is bounded polling, no fixed sleeps."""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from client_protocol.client import Client
from client_protocol.messages import GuestAuth, Prompt
from server.hub.metrics import METRIC_NAMES
from tests.hub.netkit import play

ROOT = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(rb"Connect clients to ws://127\.0\.0\.1:(\d+)/ws")
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$")


async def http_get(port: int, path: str) -> tuple[int, str, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    data = await reader.read()
    writer.close()
    head, _, body = data.decode().partition("\r\n\r\n")
    return int(head.split()[1]), head, body


def samples(text: str) -> dict[str, float]:
    """``name{labels}`` -> value of a Prometheus text exposition."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            match = SAMPLE.match(line)
            assert match is not None, line
            out[match.group(1) + (match.group(2) or "")] = float(match.group(3))
    return out


async def scrape(port: int) -> dict[str, float]:
    status, head, body = await http_get(port, "/metrics")
    assert status == 200 and "text/plain" in head
    return samples(body)


@pytest_asyncio.fixture
async def hub_port(tmp_path: Path) -> AsyncIterator[int]:
    args = [sys.executable, "-m", "server.app", "serve", "--port", "0", "--http-port", "-1"]
    args += ["--database-url", "memory:", "--data-dir", str(tmp_path), "--action-ms", "400", "--bank-ms", "0"]
    args += ["--bot-delay-ms", "0", "--hand-pause-ms", "0", "--drain-s", "0"]  # a whole match, quickly
    log = tmp_path / "server.log"
    with log.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            *args, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=err, stdin=asyncio.subprocess.DEVNULL
        )
    assert proc.stdout is not None
    try:
        async with asyncio.timeout(30):
            while (match := URL_LINE.search(await proc.stdout.readline())) is None:
                assert proc.returncode is None, log.read_text()
        yield int(match.group(1))
    finally:
        if proc.returncode is None:
            proc.terminate()
        async with asyncio.timeout(30):
            await proc.communicate()


async def poll(port: int, series: str, at_least: float, timeout: float = 10.0) -> dict[str, float]:
    """Scrape until ``series`` reaches ``at_least`` (bounded polling of the server process)."""
    deadline = time.monotonic() + timeout
    while True:
        now = await scrape(port)
        if now.get(series, 0.0) >= at_least:
            return now
        assert time.monotonic() < deadline, f"{series} stayed at {now.get(series)}"
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_metrics_expose_every_series_and_move_during_a_match(hub_port: int) -> None:
    port = hub_port
    assert (await http_get(port, "/healthz"))[0] == 200
    assert (await http_get(port, "/readyz"))[:1] == (200,)
    before = await scrape(port)
    for name in METRIC_NAMES:
        if name.endswith("_seconds"):  # a histogram, with or without labels
            assert any(k.startswith(name + "_bucket{") and 'le="+Inf"' in k for k in before), name
            suffixes: tuple[str, ...] = ("_count", "_sum")
        else:
            suffixes = ("",)
        for suffix in suffixes:
            assert any(k == name + suffix or k.startswith(name + suffix + "{") for k in before), name + suffix
    assert before["jantaku_tables"] == 0 and before["jantaku_connections"] == 0

    client = Client(f"ws://127.0.0.1:{port}/ws", GuestAuth(name="metrics"), timeout=15.0)
    await client._open(client.auth)
    await client.join_queue("tenhou+bots")
    # The first decision is left unanswered: the table plays its default when action_ms runs out.
    first = await play(client, stop=lambda m: isinstance(m, Prompt))
    assert isinstance(first, Prompt)
    during = await poll(port, "jantaku_timeouts_total", 1)
    assert during["jantaku_tables"] == 1 and during["jantaku_connections"] == 1
    assert (await http_get(port, "/readyz"))[0] == 200
    await play(client)
    after = await scrape(port)
    await client.close()
    gone = await poll(port, "jantaku_disconnects_total", before["jantaku_disconnects_total"] + 1)

    for source in ("player", "bot", "timeout"):
        key = f'jantaku_actions_total{{source="{source}"}}'
        assert after[key] > before[key], key
    assert after["jantaku_timeouts_total"] >= 1
    for histogram in ("jantaku_action_latency_seconds", "jantaku_commit_latency_seconds"):
        assert after[histogram + "_count"] > before[histogram + "_count"]
        assert after[histogram + "_sum"] > before[histogram + "_sum"]
    assert after["jantaku_commit_latency_seconds_count"] >= sum(
        after[f'jantaku_actions_total{{source="{s}"}}'] for s in ("player", "bot", "timeout")
    )
    assert gone["jantaku_connections"] == 0
    # jantaku serve collects its young objects on a 0.1 s tick (server/hub/gcpolicy.py): timed here.
    young = 'jantaku_gc_pause_seconds_count{generation="0"}'
    assert after[young] > before[young]
