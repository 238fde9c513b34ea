"""Server-side latency of the protocol's actions, for benchmarks (``bench/hub.py``).

Off unless the environment has ``JANTAKU_HUB_STATS=1``; then the hub wraps each ``/ws`` connection
in :class:`TimedConnection`, answers ``GET /stats`` (``?reset=1`` starts a new window) with JSON,
and logs the figures at shutdown.

What is measured, per applied action: from the moment the server has read the ``act`` frame off the
socket to the moment its ``ack`` is handed to the socket. The table adopts the step and queues its
events for every seat in the same synchronous step as the ack, and the ack is written by the
connection's writer task only after that step, so this is the action-to-broadcast time as the
server sees it: the inbox wait, the engine, the commit (the store), redaction, encoding, and the
event loop's queueing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from typing import Any

from websockets.asyncio.server import ServerConnection

from client_protocol.codec import decode_json
from client_protocol.errors import ProtocolError

ENV = "JANTAKU_HUB_STATS"
MAX_SAMPLES = 2_000_000


def enabled() -> bool:
    return os.environ.get(ENV, "") not in ("", "0")


class LatencyStats:
    def __init__(self) -> None:
        self.connections = 0
        self.peak_connections = 0
        self.reset()

    def reset(self) -> None:
        self.samples: list[float] = []
        self.acks = 0
        self.started = time.perf_counter()

    def record(self, seconds: float) -> None:
        self.acks += 1
        if len(self.samples) < MAX_SAMPLES:
            self.samples.append(seconds)

    def opened(self) -> None:
        self.connections += 1
        self.peak_connections = max(self.peak_connections, self.connections)

    def closed(self) -> None:
        self.connections -= 1

    def summary(self) -> dict[str, Any]:
        window = time.perf_counter() - self.started
        ordered = sorted(self.samples)

        def pct(p: float) -> float | None:
            if not ordered:
                return None
            return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000, 3)

        return {
            "window_s": round(window, 3),
            "actions": self.acks,
            "actions_per_s": round(self.acks / window, 1) if window > 0 else 0.0,
            "p50_ms": pct(50),
            "p90_ms": pct(90),
            "p99_ms": pct(99),
            "max_ms": round(ordered[-1] * 1000, 3) if ordered else None,
            "connections": self.connections,
            "peak_connections": self.peak_connections,
        }


class TimedConnection:
    """A :class:`ServerConnection` stand-in that times each ``act`` until its ``ack`` is sent."""

    def __init__(self, ws: ServerConnection, stats: LatencyStats) -> None:
        self._ws = ws
        self._stats = stats
        self._pending: dict[int, float] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ws, name)

    def _seen(self, frame: str | bytes) -> None:
        if isinstance(frame, str) and '"act"' in frame and len(self._pending) < 64:
            try:
                message = decode_json(frame)
            except ProtocolError:
                return
            if isinstance(message, dict) and message.get("type") == "act":
                rid = message.get("request_id")
                if isinstance(rid, int):
                    self._pending[rid] = time.perf_counter()

    async def recv(self) -> str | bytes:
        frame = await self._ws.recv()
        self._seen(frame)
        return frame

    async def __aiter__(self) -> AsyncIterator[str | bytes]:
        async for frame in self._ws:
            self._seen(frame)
            yield frame

    async def send(self, message: bytes, text: bool = True) -> None:
        if self._pending and b'"ack"' in message[:24]:
            try:
                rid = json.loads(message).get("request_id")
            except ValueError:
                rid = None
            sent_at = self._pending.pop(rid, None) if isinstance(rid, int) else None
            if sent_at is not None:
                self._stats.record(time.perf_counter() - sent_at)
        await self._ws.send(message, text=text)
