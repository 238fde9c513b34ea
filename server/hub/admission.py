"""Who may open a connection, or say a guest hello, now: per-address token buckets.

A connection (any websocket path) takes a token of its client address's *connect* bucket before its
handshake is answered (HTTP 429 when empty); a guest ``hello`` takes one of the address's *guest*
bucket as well (``rate_limited``, then closed, when empty). Registered players, bots and sessions
coming back are not limited by the guest bucket. Limits are per address, so one address cannot flood
the server; the buckets of addresses that are quiet again are forgotten (memory stays bounded).

>>> now = [0.0]
>>> limiter = AddressLimiter(rate=1.0, burst=2, now=lambda: now[0])
>>> [limiter.take("10.0.0.1") for _ in range(3)], limiter.take("10.0.0.2")
([True, True, False], True)
>>> now[0] = 1.0; limiter.take("10.0.0.1")
True
"""

from __future__ import annotations

from collections.abc import Callable

MAX_ADDRESSES = 100_000  # buckets kept; beyond, the full (quiet) ones are forgotten


class AddressLimiter:
    """``rate`` tokens per second up to ``burst``, one bucket per client address."""

    __slots__ = ("_buckets", "_burst", "_max", "_now", "_rate")

    def __init__(
        self, rate: float, burst: int, now: Callable[[], float], *, max_addresses: int = MAX_ADDRESSES
    ) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._now = now
        self._max = max_addresses
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, when counted)

    def take(self, address: str | None) -> bool:
        """Take a token for ``address``; False when its bucket is empty (None: unknown, allowed)."""
        if address is None:
            return True
        now = self._now()
        tokens, last = self._buckets.get(address, (self._burst, now))
        tokens = min(self._burst, tokens + (now - last) * self._rate)
        if tokens < 1.0:
            self._buckets[address] = (tokens, now)
            return False
        self._buckets[address] = (tokens - 1.0, now)
        if len(self._buckets) > self._max:
            self._forget_quiet(now)
        return True

    def _forget_quiet(self, now: float) -> None:
        """Drop the buckets that are full again (their addresses are as good as new)."""
        full = self._burst
        self._buckets = {
            a: (t, last) for a, (t, last) in self._buckets.items() if t + (now - last) * self._rate < full
        }
        if len(self._buckets) > self._max:  # everyone is busy: start over rather than grow
            self._buckets.clear()

    def __len__(self) -> int:
        return len(self._buckets)
