"""Which asyncio event loop ``jantaku serve`` runs on (``--loop`` / ``JANTAKU_LOOP``).

``auto`` (the default) is uvloop where it is installed (it is a dependency on CPython outside
Windows: libuv under asyncio's API, which cuts the hub's CPU per action; docs/benchmarks.md) and
asyncio's own loop elsewhere; ``asyncio`` and ``uvloop`` choose one (``uvloop`` fails where it is
missing). The hub's code is the same on both: its tests run on each (``tests/hub/test_loops.py``).

>>> choose_loop("asyncio")[0]
'asyncio'
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

LOOP_CHOICES = ("auto", "asyncio", "uvloop")

LoopFactory = Callable[[], asyncio.AbstractEventLoop]


class LoopUnavailableError(RuntimeError):
    """``--loop uvloop`` where uvloop is not installed."""


def uvloop_factory() -> LoopFactory | None:
    """uvloop's loop factory, or None where uvloop is not installed."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def choose_loop(kind: str) -> tuple[str, LoopFactory]:
    """The loop ``kind`` stands for: its name (``asyncio`` or ``uvloop``) and its factory."""
    if kind not in LOOP_CHOICES:
        raise ValueError(f"unknown event loop {kind!r}; expected one of {', '.join(LOOP_CHOICES)}")
    if kind != "asyncio":
        factory = uvloop_factory()
        if factory is not None:
            return "uvloop", factory
        if kind == "uvloop":
            raise LoopUnavailableError("--loop uvloop: uvloop is not installed on this platform")
    return "asyncio", asyncio.new_event_loop
