"""The admin/review HTTP port is bounded (issue 14 §2): held half-sent requests time out, and beyond
the connection cap a new connection is answered 503 at once instead of holding a descriptor.

A real socket, a tiny ASGI app, small limits; the waits are bounded polls, not timing assertions.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.web.api.http import HttpLimits, serve_http

pytestmark = pytest.mark.asyncio
LIMITS = HttpLimits(max_connections=4, request_timeout_s=0.5, idle_timeout_s=1)
HALF_SENT = b"GET /api/me HTTP/1.1\r\nHost: x\r\n"  # no blank line: the head never ends


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"3")]})
    await send({"type": "http.response.body", "body": b"ok\n"})


async def get(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    return data


async def closed_by_server(reader: asyncio.StreamReader) -> bytes:
    """What the server sends before it closes the connection (bounded wait)."""
    return await asyncio.wait_for(reader.read(), 5)


async def test_half_sent_requests_time_out_and_the_cap_answers_503() -> None:
    stop = asyncio.Event()
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(
        serve_http(app, "127.0.0.1", 0, stop, on_ready=ready.set_result, limits=LIMITS)  # type: ignore[arg-type]
    )
    port = int((await asyncio.wait_for(ready, 10)).rsplit(":", 1)[1])
    try:
        held = []
        for _ in range(LIMITS.max_connections):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(HALF_SENT)
            held.append((reader, writer))
        await asyncio.sleep(0.05)
        # Over the cap: answered at once, and closed.
        assert (await get(port)).startswith(b"HTTP/1.1 503")
        # The held requests never completed: the server closes each (no answer needed).
        for reader, writer in held:
            assert await closed_by_server(reader) == b""
            writer.close()
        # Descriptors are free again: a normal request is served.
        assert (await get(port)).startswith(b"HTTP/1.1 200")
        # A connection that says nothing at all is closed too.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await closed_by_server(reader) == b""
        writer.close()
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
