"""The players' API on the game port (``server/web/api/bridge.py``): the same answers as the review
API's, only for ``/api/me...``; and through a real hub, with the players' pages at ``/games/``."""

from __future__ import annotations

import json

import pytest

from server.app.compose import build_hub
from server.hub.settings import HubSettings
from server.store.memory import InMemoryRepository
from server.web.api import ApiSettings, create_app
from server.web.api.bridge import player_api
from tests.hub.netkit import connect_client, http_get
from tests.web_api.conftest import Api

pytestmark = pytest.mark.asyncio


async def test_the_bridge_answers_exactly_what_the_api_answers_for_players(api: Api) -> None:
    bridge = player_api(create_app(api.repo, ApiSettings()))
    for who, path in (
        ("alice", "/api/me/games"),
        ("bob", "/api/me/games/m-humans/replay"),
        ("alice", "/api/me/games/m-bots"),  # not hers: 404
        (None, "/api/me/games"),  # 401
        ("alice", "/api/me/games?stauts=1"),  # 422
    ):
        answered = await bridge(path, list(api.headers(who).items()))
        assert answered is not None
        status, headers, body = answered
        direct = await api.client.get(path, headers=api.headers(who))
        assert status == direct.status_code, (who, path)
        assert json.loads(body) == direct.json(), (who, path)
        assert dict(headers)["content-type"].startswith("application/json")
    assert await bridge("/api/admin/games", list(api.headers("admin").items())) is None
    assert await bridge("/api/openapi.json", []) is None


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
        assert (await http_get(hub, "/api/admin/games", auth))[0] == 404  # the admin port's only
        status, body = await http_get(hub, "/games/")
        assert status == 200 and 'data-mode="player"' in body
        assert (await http_get(hub, "/games/js/main.js"))[0] == 200
        assert (await http_get(hub, "/games/client/tiles.js"))[0] == 200
        assert (await http_get(hub, "/games/client/../../api/app.py"))[0] == 404
        await alice.close()
    finally:
        await hub.shutdown()
