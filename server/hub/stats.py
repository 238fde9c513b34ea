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

``/stats`` also gives, for the same window, the step commits' durations (``commits``: each
``append_step`` as the table awaits it), the event loop's stalls (``loop``:
:mod:`server.hub.looplag`), the garbage collector's pauses (``gc``) and how full the engine's
process-wide caches are (``engine_cache_entries``): what an action's tail latency and the RSS are
made of.

The latencies go into a fixed histogram (:class:`LatencyStats`: log-spaced buckets 1 % wide from 10
us to 1,000 s, one integer each), not a list of samples, so what the figures keep does not grow with
the number of actions (a list grew by 32 bytes per action: ~1.9 MiB a minute at 1,000 actions/s);
the percentiles are the buckets' geometric middles (within 0.5 % of the exact value) and the
maximum is exact.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import msgspec
from websockets.asyncio.server import ServerConnection

from client_protocol.codec import decode_json
from client_protocol.errors import ProtocolError

ENV = "JANTAKU_HUB_STATS"
LOWEST_S = 1e-5  # the first bucket's lower edge (shorter latencies are counted in it)
RATIO = 1.01  # each bucket's upper edge over its lower edge
BUCKETS = math.ceil(math.log(1_000 / LOWEST_S) / math.log(RATIO))  # up to 1,000 s: 1,852 buckets
_LOG_RATIO = math.log(RATIO)


class _Tagged(msgspec.Struct):
    """The two fields the timing reads of our own ``ack`` frames (msgspec skips the rest)."""

    type: str = ""
    request_id: int | None = None


_peek = msgspec.json.Decoder(_Tagged).decode


ENGINE_CACHE_MODULES = ("server.engine.hand", "server.engine.options", "server.engine.overlap")


def engine_caches() -> list[dict[str, Any]]:
    """The engine's process-wide caches, one dict each: ``name`` (module.attribute), ``entries``,
    ``bound`` (None where the engine does not say) and, for ``functools.lru_cache``s, ``hits`` and
    ``misses``. Its ``lru_cache``s and the module-level dicts it clears when full (``_COMPLETIONS``
    and the like), each counted once."""
    seen: set[int] = set()
    out: list[dict[str, Any]] = []
    for name in ENGINE_CACHE_MODULES:
        module = sys.modules.get(name)
        if module is None:
            continue
        short = name.rsplit(".", 1)[1]
        bounds: dict[str, int] = getattr(module, "CACHE_BOUNDS", {})
        for key, value in vars(module).items():
            if id(value) in seen:
                continue
            info = getattr(value, "cache_info", None)
            if callable(info):
                seen.add(id(value))
                got = info()
                owner = getattr(value, "__module__", name).rsplit(".", 1)[-1]
                out.append(
                    {
                        "name": f"{owner}.{getattr(value, '__name__', key)}",
                        "entries": got.currsize,
                        "bound": got.maxsize,
                        "hits": got.hits,
                        "misses": got.misses,
                    }
                )
            elif isinstance(value, dict) and key.startswith("_") and key.isupper():
                seen.add(id(value))
                out.append({"name": f"{short}.{key}", "entries": len(value), "bound": bounds.get(key)})
    return out


def engine_cache_entries() -> int:
    """Entries in the engine's process-wide caches (:func:`engine_caches`). They are bounded, but
    fill over the first matches: the RSS the benchmarks watch grows with them until they are full."""
    return sum(c["entries"] for c in engine_caches())


def engine_cache_bound() -> int:
    """The most entries the engine's process-wide caches can hold together (the sum of their
    bounds; a cache whose bound the engine does not say counts as 0)."""
    return sum(c["bound"] or 0 for c in engine_caches())


def enabled() -> bool:
    return os.environ.get(ENV, "") not in ("", "0")


class Latencies:
    """A fixed log-spaced histogram of durations: the count, the percentiles and the exact maximum."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.counts = [0] * BUCKETS
        self.acks = 0
        self.longest: float | None = None
        self.started = time.perf_counter()

    def record(self, seconds: float) -> None:
        self.acks += 1
        if self.longest is None or seconds > self.longest:
            self.longest = seconds
        i = int(math.log(seconds / LOWEST_S) / _LOG_RATIO) if seconds > LOWEST_S else 0
        self.counts[min(i, BUCKETS - 1)] += 1

    def percentile(self, p: float) -> float | None:
        """The ``p``-th percentile in seconds (the middle of its bucket), None if nothing recorded."""
        if not self.acks:
            return None
        rank = min(self.acks - 1, int(p / 100 * self.acks))  # 0-based, as sorted(samples)[rank]
        seen = 0
        for i, n in enumerate(self.counts):
            seen += n
            if seen > rank:
                middle: float = LOWEST_S * RATIO ** (i + 0.5)
                return min(middle, self.longest) if self.longest is not None else middle
        return self.longest

    def brief(self) -> dict[str, Any]:
        """Count, p50/p90/p99 and max in milliseconds."""

        def ms(value: float | None) -> float | None:
            return None if value is None else round(value * 1000, 3)

        return {
            "count": self.acks,
            "p50_ms": ms(self.percentile(50)),
            "p90_ms": ms(self.percentile(90)),
            "p99_ms": ms(self.percentile(99)),
            "max_ms": ms(self.longest),
        }


class LatencyStats(Latencies):
    """The actions' latencies (:class:`TimedConnection`), the connections, and the step commits'
    durations (``commits``) in the same window."""

    def __init__(self) -> None:
        self.connections = 0
        self.peak_connections = 0
        self.commits = Latencies()
        super().__init__()

    def reset(self) -> None:
        super().reset()
        self.commits.reset()

    def opened(self) -> None:
        self.connections += 1
        self.peak_connections = max(self.peak_connections, self.connections)

    def closed(self) -> None:
        self.connections -= 1

    def summary(self) -> dict[str, Any]:
        window = time.perf_counter() - self.started

        def pct(p: float) -> float | None:
            value = self.percentile(p)
            return None if value is None else round(value * 1000, 3)

        return {
            "window_s": round(window, 3),
            "actions": self.acks,
            "actions_per_s": round(self.acks / window, 1) if window > 0 else 0.0,
            "p50_ms": pct(50),
            "p90_ms": pct(90),
            "p99_ms": pct(99),
            "max_ms": None if self.longest is None else round(self.longest * 1000, 3),
            "connections": self.connections,
            "peak_connections": self.peak_connections,
            "commits": self.commits.brief(),
            "engine_cache_entries": engine_cache_entries(),
            "engine_cache_bound": engine_cache_bound(),
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
                message = decode_json(frame)  # a client's frame: the entry point's limits
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

    def written(self, frames: Sequence[bytes]) -> None:
        """The connection's writer hands ``frames`` to the socket (``Outbox``): time the acks."""
        if not self._pending:
            return
        for frame in frames:
            if b'"ack"' in frame[:24]:
                try:
                    rid = _peek(frame).request_id
                except msgspec.DecodeError:
                    continue
                sent_at = self._pending.pop(rid, None) if rid is not None else None
                if sent_at is not None:
                    self._stats.record(time.perf_counter() - sent_at)
