"""``serve_http``: uvicorn in the running event loop, on a real socket, stopped by an event."""

from __future__ import annotations

import asyncio
import signal
import socket

import httpx
import pytest

from server.web.api import ApiSettings, create_app, serve_http
from server.web.api.http import bind
from tests.web_api.conftest import SeededDb

pytestmark = [pytest.mark.asyncio, pytest.mark.parametrize("seeded_db", ["sqlite"], indirect=True)]


async def test_serves_until_stopped(seeded_db: SeededDb) -> None:
    async with await seeded_db.open() as repo:
        stop = asyncio.Event()
        ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        handlers_before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
        task = asyncio.create_task(
            serve_http(create_app(repo, ApiSettings()), "127.0.0.1", 0, stop, on_ready=ready.set_result)
        )
        url = await asyncio.wait_for(ready, 10)
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":0")
        assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers_before
        token = seeded_db.data.tokens["admin"]
        async with httpx.AsyncClient(base_url=url) as client:
            r = await client.get("/api/admin/games/m-bots", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200 and r.json()["id"] == "m-bots"
            assert "server" not in r.headers  # no banner
            r = await client.get("/admin/")
            assert r.status_code == 200 and "Jantaku admin" in r.text
            r = await client.get("/api/openapi.json")
            assert r.status_code == 200
        stop.set()
        await asyncio.wait_for(task, 10)
        with pytest.raises(httpx.ConnectError):
            async with httpx.AsyncClient(base_url=url) as client:
                await client.get("/api/openapi.json")


async def test_a_busy_port_is_an_os_error(seeded_db: SeededDb) -> None:
    taken = bind("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        async with await seeded_db.open() as repo:
            with pytest.raises(OSError):
                await serve_http(create_app(repo, ApiSettings()), "127.0.0.1", port, asyncio.Event())
    finally:
        taken.close()


async def test_cancelling_the_server_closes_its_socket(seeded_db: SeededDb) -> None:
    async with await seeded_db.open() as repo:
        ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(
            serve_http(
                create_app(repo, ApiSettings()), "127.0.0.1", 0, asyncio.Event(), on_ready=ready.set_result
            )
        )
        url = await asyncio.wait_for(ready, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        port = int(url.rsplit(":", 1)[1])
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))  # free again
