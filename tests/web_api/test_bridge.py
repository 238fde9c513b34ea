"""The one route table (``server.web.api``) on both ports: the game port hands its plain HTTP
requests to the same application in-process (``server/hub/asgi.py``), which answers there the game
port's routes only; the players' API answers the same on both; every HTTP error of both ports has
one shape."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from fastapi import FastAPI

from server.app.compose import build_hub
from server.hub.server import Hub
from server.hub.settings import HubSettings
from server.store.memory import InMemoryRepository
from server.web.api import models as m
from server.web.api.ports import BothPortsRoute
from tests.hub.netkit import connect_client, http_get
from tests.web_api.conftest import Api

pytestmark = pytest.mark.asyncio


def one_shape(status: int, body: str) -> m.ErrorBody:
    """The error document every HTTP error of both ports has, with the status of its code."""
    error = m.ErrorResponse.model_validate_json(body).error
    assert set(json.loads(body)) == {"error"}
    assert status >= 400
    return error


async def test_the_game_port_answers_the_players_api_exactly_as_the_admin_port(api: Api) -> None:
    hub = build_hub(HubSettings(port=0), api.repo)
    await hub.start()
    try:
        for who, path in (
            ("alice", "/api/me/games"),
            ("bob", "/api/me/games/m-humans/replay"),
            ("alice", "/api/me/games/m-bots"),  # not hers: 404
            (None, "/api/me/games"),  # 401
            ("alice", "/api/me/games?stauts=1"),  # 422
        ):
            status, body = await http_get(hub, path, api.headers(who))
            direct = await api.client.get(path, headers=api.headers(who))
            assert status == direct.status_code, (who, path)
            assert json.loads(body) == direct.json(), (who, path)
        # the admin port's routes are not the game port's, nor the other way round
        status, body = await http_get(hub, "/api/admin/games", api.headers("admin"))
        assert (status, one_shape(status, body).code) == (404, m.ErrorCode.NOT_FOUND)
        assert (await http_get(hub, "/api/openapi.json"))[0] == 404
        assert (await http_get(hub, "/admin/"))[0] == 404
        for path in ("/healthz", "/tables/live", "/private/new", "/games/", "/static/style.css"):
            direct = await api.client.get(path)
            assert direct.status_code == 404, path
            assert one_shape(direct.status_code, direct.text).code is m.ErrorCode.NOT_FOUND
        assert (await api.client.get("/")).headers["location"] == "/admin/"  # the admin port's /
    finally:
        await hub.shutdown()


async def test_every_http_error_of_the_game_port_has_the_one_shape() -> None:
    hub = build_hub(HubSettings(port=0, allowed_origins=()), InMemoryRepository())
    await hub.start()
    try:
        cases: list[tuple[str, dict[str, str], int, m.ErrorCode]] = [
            ("/nothing-here", {}, 404, m.ErrorCode.NOT_FOUND),
            ("/static/nothing.js", {}, 404, m.ErrorCode.NOT_FOUND),
            ("/games/nothing.js", {}, 404, m.ErrorCode.NOT_FOUND),
            ("/private/new", {}, 401, m.ErrorCode.UNAUTHENTICATED),
            ("/private/new", {"Authorization": "Bearer nope.nope"}, 401, m.ErrorCode.UNAUTHENTICATED),
            ("/api/me/games", {}, 401, m.ErrorCode.UNAUTHENTICATED),
            # a websocket path without an upgrade (websockets' own refusal, put in the shape)
            ("/ws", {}, 426, m.ErrorCode.UPGRADE_REQUIRED),
            # a browser from a foreign page (the hub's admission)
            ("/ws", {**UPGRADE, "Origin": "https://evil.test"}, 403, m.ErrorCode.FORBIDDEN),
        ]
        for path, headers, status, code in cases:
            got, body = await http_get(hub, path, headers)
            assert got == status, (path, body)
            assert one_shape(got, body).code is code, (path, body)
        got, body = await raw_request(hub, "POST /healthz HTTP/1.1")
        assert (got, one_shape(got, body).code) == (405, m.ErrorCode.METHOD_NOT_ALLOWED)
        assert await raw_request(hub, "HEAD /healthz HTTP/1.1") == (200, "")  # a load balancer's probe
    finally:
        await hub.shutdown()


UPGRADE = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
}


async def raw_request(hub: Hub, request_line: str) -> tuple[int, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", hub.port)
    head = f"{request_line}\r\nHost: 127.0.0.1:{hub.port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    writer.write(head.encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.decode().partition("\r\n\r\n")
    return int(head.split()[1]), body


async def test_the_game_port_serves_my_games_and_their_pages() -> None:
    hub = build_hub(HubSettings(port=0), InMemoryRepository())
    await hub.start()
    try:
        alice = await connect_client(hub, "alice")
        assert alice.welcome is not None
        auth = {"Authorization": f"Bearer {alice.welcome.session_token}"}
        # A guest is stored once it sits at a table: until then it has no games to read.
        assert (await http_get(hub, "/api/me/games", auth))[0] == 401
        await hub.auth.store_guest(alice.welcome.player.id)
        status, body = await http_get(hub, "/api/me/games", auth)
        assert status == 200 and json.loads(body)["games"] == []
        assert (await http_get(hub, "/api/me/games"))[0] == 401
        status, body = await http_get(hub, "/games/")
        assert status == 200 and 'data-mode="player"' in body
        assert (await http_get(hub, "/games"))[0] == 200
        assert (await http_get(hub, "/games/js/main.js"))[0] == 200
        assert (await http_get(hub, "/games/client/tiles.js"))[0] == 200
        assert (await http_get(hub, "/games/client/../../api/app.py"))[0] == 404
        await alice.close()
    finally:
        await hub.shutdown()


async def test_a_bug_is_a_500_internal_in_the_one_shape_on_both_ports() -> None:
    hub = build_hub(HubSettings(port=0), InMemoryRepository())
    app = hub.http_app
    assert isinstance(app, FastAPI)

    async def boom() -> None:
        raise RuntimeError("a bug")

    app.router.add_api_route("/boom", boom, route_class_override=BothPortsRoute)
    await hub.start()
    try:
        status, body = await http_get(hub, "/boom")  # the game port (the hub logs the traceback)
        assert (status, one_shape(status, body).code) == (500, m.ErrorCode.INTERNAL)
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)  # the admin port's view
        async with httpx.AsyncClient(transport=transport, base_url="http://admin") as client:
            r = await client.get("/boom")
        assert (r.status_code, one_shape(r.status_code, r.text).code) == (500, m.ErrorCode.INTERNAL)
    finally:
        await hub.shutdown()
