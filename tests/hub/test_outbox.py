"""The outbound queue of one connection (server/hub/connection.py), on a stand-in websocket."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from websockets.asyncio.server import ServerConnection

from server.hub.connection import Outbox


class FakeTransport:
    def __init__(self) -> None:
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True


class FakeWs:
    """Records what the writer sends; ``gate`` holds every send until it is set (a stalled reader)."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closed: tuple[int, str] | None = None
        self.transport = FakeTransport()
        self.gate = asyncio.Event()
        self.gate.set()

    async def send(self, message: bytes, text: bool = True) -> None:
        await self.gate.wait()
        self.sent.append(message)

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def outbox(ws: FakeWs, maxsize: int = 4) -> Outbox:
    return Outbox(cast(ServerConnection, cast(Any, ws)), maxsize, name="test")


@pytest.mark.asyncio
async def test_frames_are_written_in_order_then_the_close() -> None:
    ws = FakeWs()
    box = outbox(ws)
    assert box.put(b"1") and box.put(b"2")
    await asyncio.sleep(0)
    assert box.put(b"3")
    box.close(1012, "server restarting")
    assert not box.put(b"late"), "nothing is queued after a close"
    await box.finish(1.0)
    assert ws.sent == [b"1", b"2", b"3"]
    assert ws.closed == (1012, "server restarting")
    assert not ws.transport.aborted


@pytest.mark.asyncio
async def test_a_reader_that_stops_fills_the_queue_and_is_dropped() -> None:
    ws = FakeWs()
    ws.gate.clear()
    box = outbox(ws, maxsize=3)
    assert box.put(b"a")
    await asyncio.sleep(0)  # the writer takes "a" and waits on the stalled socket
    assert all(box.put(f"{i}".encode()) for i in range(3))
    assert not box.put(b"overflow")
    assert box.dropped and ws.transport.aborted
    assert not box.open
    await box.finish(1.0)
    assert ws.sent == []


@pytest.mark.asyncio
async def test_an_idle_writer_wakes_for_each_frame() -> None:
    ws = FakeWs()
    box = outbox(ws)
    for i in range(20):
        await asyncio.sleep(0)
        assert box.put(str(i).encode())
        await asyncio.sleep(0)
    box.close(1000, "bye")
    await box.finish(1.0)
    assert ws.sent == [str(i).encode() for i in range(20)]
