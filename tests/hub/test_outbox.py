"""The outbound queue of one connection (server/hub/connection.py), on a stand-in websocket.

The stand-in has what the outbox uses of a ``websockets`` connection: its protocol object (which
frames a message: here it records the payloads), its transport (which records each write), the
``paused`` flag the transport's flow control sets, ``drain()``, ``close()`` and ``wait_closed()``.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from websockets.asyncio.server import ServerConnection
from websockets.protocol import State

from server.hub.connection import Outbox


class FakeTransport:
    def __init__(self) -> None:
        self.aborted = False
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def abort(self) -> None:
        self.aborted = True


class FakeProtocol:
    """Frames a text message as ``<payload>|`` (so one write of several frames shows the cut)."""

    def __init__(self) -> None:
        self.state = State.OPEN
        self.pending: list[bytes] = []

    def send_text(self, data: bytes) -> None:
        assert self.state is State.OPEN
        self.pending.append(data + b"|")

    def data_to_send(self) -> list[bytes]:
        out, self.pending = self.pending, []
        return out


class FakeWs:
    """``paused``: the transport's buffer is full (a stalled reader) until ``resume()``."""

    def __init__(self) -> None:
        self.protocol = FakeProtocol()
        self.transport = FakeTransport()
        self.closed: tuple[int, str] | None = None
        self.paused = False
        self._drained = asyncio.Event()
        self._closed = asyncio.Event()

    @property
    def sent(self) -> list[bytes]:
        """The frames written, in order."""
        return [f for w in self.transport.writes for f in w.split(b"|")[:-1]]

    def resume(self) -> None:
        self.paused = False
        self._drained.set()

    async def drain(self) -> None:
        if self.paused:
            self._drained.clear()
            await self._drained.wait()

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)
        self.protocol.state = State.CLOSED
        self._closed.set()

    async def wait_closed(self) -> None:
        await self._closed.wait()


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
async def test_the_frames_of_one_turn_go_out_in_one_write_in_order() -> None:
    ws = FakeWs()
    box = outbox(ws, maxsize=8)
    for frame in (b"event-1", b"event-2", b"prompt", b"ack"):
        assert box.put(frame)
    assert ws.transport.writes == [], "nothing is written before the turn ends"
    await asyncio.sleep(0)
    assert ws.transport.writes == [b"event-1|event-2|prompt|ack|"]
    assert box.put(b"next")
    await asyncio.sleep(0)
    assert ws.transport.writes[1:] == [b"next|"]


@pytest.mark.asyncio
async def test_the_size_cap_counts_frames_not_writes() -> None:
    """The queue holds at most ``maxsize`` frames of one turn; one more drops the connection."""
    ws = FakeWs()
    box = outbox(ws, maxsize=3)
    assert all(box.put(f"{i}".encode()) for i in range(3))
    assert not box.put(b"overflow")
    assert box.dropped and ws.transport.aborted
    await asyncio.sleep(0)
    assert ws.transport.writes == [], "a dropped connection writes nothing more"


@pytest.mark.asyncio
async def test_a_reader_that_stops_fills_the_queue_and_is_dropped() -> None:
    ws = FakeWs()
    box = outbox(ws, maxsize=3)
    assert box.put(b"a")
    await asyncio.sleep(0)  # written
    ws.paused = True  # the transport's buffer is over its limit: the client stopped reading
    assert all(box.put(f"{i}".encode()) for i in range(3))
    await asyncio.sleep(0)  # the writer waits for the buffer to drain; the frames stay queued
    assert not box.put(b"overflow")
    assert box.dropped and ws.transport.aborted
    assert not box.open
    await box.finish(1.0)
    assert ws.sent == [b"a"]


@pytest.mark.asyncio
async def test_a_slow_reader_gets_the_queued_frames_in_order_once_it_drains() -> None:
    ws = FakeWs()
    box = outbox(ws, maxsize=8)
    ws.paused = True
    for frame in (b"1", b"2"):
        assert box.put(frame)
    await asyncio.sleep(0)
    assert box.put(b"3")
    await asyncio.sleep(0)
    assert ws.sent == []
    ws.resume()
    for _ in range(3):
        await asyncio.sleep(0)
    assert ws.transport.writes == [b"1|2|3|"]
    box.close(1000, "bye")
    await box.finish(1.0)
    assert ws.closed == (1000, "bye")


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


@pytest.mark.asyncio
async def test_nothing_is_written_once_the_connection_is_closing() -> None:
    ws = FakeWs()
    box = outbox(ws)
    ws.protocol.state = State.CLOSING  # the client sent its close frame
    assert box.put(b"late")
    await asyncio.sleep(0)
    assert ws.transport.writes == [] and not ws.transport.aborted
    await box.finish(0.1)


@pytest.mark.asyncio
async def test_finish_returns_at_once_when_the_client_is_gone() -> None:
    ws = FakeWs()
    box = outbox(ws)
    await ws.close(1001, "going away")  # closed by the client's side
    await asyncio.wait_for(box.finish(30.0), 1.0)
    assert not box.dropped
