"""A deterministic stream of uniform draws from a seed, for seatings and wall-set seeds.

SHA-256 in counter mode: block ``k`` is ``sha256(TAG || purpose || 0x00 || seed || k)`` (``k`` as 8
bytes, big-endian), read as four unsigned 64-bit big-endian integers. A draw below ``n`` rejects
values at or above the largest multiple of ``n`` (no modulo bias). Python's ``random`` is not used:
its algorithms are not promised to stay the same across versions, and a published seating must be
recomputable from its seed by anyone.

>>> a, b = Draws(b"seed", "example"), Draws(b"seed", "example")
>>> [a.below(10) for _ in range(5)] == [b.below(10) for _ in range(5)]
True
>>> items = list("abcdef"); Draws(b"seed", "x").shuffle(items); sorted(items) == list("abcdef")
True
"""

from __future__ import annotations

import hashlib
from typing import TypeVar

T = TypeVar("T")

TAG = b"jantaku-tournament-draws-v1\x00"
_SPAN = 1 << 64


class Draws:
    """Uniform draws from ``seed``, separated by ``purpose`` (two purposes never share a stream)."""

    __slots__ = ("_block", "_buffer", "_prefix")

    def __init__(self, seed: bytes, purpose: str) -> None:
        self._prefix = TAG + purpose.encode("utf-8") + b"\x00" + seed
        self._block = 0
        self._buffer: list[int] = []

    def _next(self) -> int:
        if not self._buffer:
            digest = hashlib.sha256(self._prefix + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            self._buffer = [int.from_bytes(digest[i : i + 8], "big") for i in (24, 16, 8, 0)]
        return self._buffer.pop()

    def below(self, n: int) -> int:
        """Uniform in ``0..n-1``."""
        if n <= 0:
            raise ValueError(f"cannot draw below {n}")
        limit = _SPAN - _SPAN % n
        while True:
            x = self._next()
            if x < limit:
                return x % n

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def derive(seed: bytes, purpose: str, length: int = 32) -> bytes:
    """``length`` bytes derived from ``seed`` for ``purpose`` (e.g. one wall set's match seed)."""
    out = b""
    block = 0
    while len(out) < length:
        out += hashlib.sha256(
            TAG + purpose.encode("utf-8") + b"\x01" + seed + block.to_bytes(8, "big")
        ).digest()
        block += 1
    return out[:length]
