"""``GET /private/new`` (docs/hub.md "Private tables"): typed errors in the one shape of every HTTP
error, and a refused request uses up nothing (issue 27 item 10)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.domain.records import AccountKind
from server.hub.server import Hub
from tests.hub.netkit import connect_client, http_get, serving

pytestmark = pytest.mark.asyncio


async def bearer(hub: Hub, name: str = "alice") -> dict[str, str]:
    client = await connect_client(hub, name)
    assert client.welcome is not None
    token = client.welcome.session_token
    await client.close()
    return {"Authorization": f"Bearer {token}"}


async def ask(hub: Hub, query: str, auth: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    status, body = await http_get(hub, f"/private/new?{query}", auth)
    return status, json.loads(body)


def error(answer: tuple[int, dict[str, Any]]) -> tuple[int, str, list[Any]]:
    status, body = answer
    assert set(body) == {"error"}, body
    details = body["error"].get("details", [])
    return status, body["error"]["code"], [d["loc"] for d in details]


async def test_a_refused_request_uses_up_no_invitation() -> None:
    async with serving(max_private_per_account=1) as hub:
        auth = await bearer(hub)
        for query in ("bots=1&colour=red", "bots=1&bots=2", "rules=notjson", "rules=[1]", "preset=nosuch"):
            status, _, _ = error(await ask(hub, query, auth))
            assert status == 422, query
        status, body = await ask(hub, "bots=1", auth)  # the one invitation this account may hold
        assert status == 200 and body["players_needed"] == 3, body
        status, code, _ = error(await ask(hub, "bots=1", auth))
        assert (status, code) == (403, "forbidden")


async def test_every_error_is_typed_and_names_its_parameter() -> None:
    async with serving() as hub:
        auth = await bearer(hub)
        assert error(await ask(hub, "colour=red", auth)) == (422, "invalid_request", [["query", "colour"]])
        assert error(await ask(hub, "bots=1&bots=2", auth)) == (422, "invalid_request", [["query", "bots"]])
        assert error(await ask(hub, "rules=notjson", auth)) == (422, "invalid_request", [["query", "rules"]])
        assert error(await ask(hub, "rules=[1]", auth)) == (422, "invalid_request", [["query", "rules"]])
        assert error(await ask(hub, "preset=nosuch", auth)) == (422, "invalid_request", [["query", "preset"]])
        assert error(await ask(hub, "bots=4", auth)) == (422, "invalid_request", [["query", "bots"]])
        assert error(await ask(hub, "spectators=maybe", auth))[:2] == (422, "invalid_request")
        status, body = await ask(hub, 'rules={"no_such_option":1}', auth)
        assert error((status, body))[:2] == (422, "invalid_request") and "no_such_option" in str(body)
        # authentication comes first, as on the admin port
        assert error(await ask(hub, "colour=red")) == (401, "unauthenticated", [])
        bad = {"Authorization": "Bearer s-0000.nope"}
        assert error(await ask(hub, "bots=1", bad)) == (401, "unauthenticated", [])


async def test_a_bot_is_told_it_may_not_create_private_tables() -> None:
    async with serving() as hub:
        _, token = await hub.auth.create_account("robo", AccountKind.BOT)
        status, body = await ask(hub, "bots=1", {"Authorization": f"Bearer {token}"})
        assert error((status, body))[:2] == (403, "forbidden")
        assert body["error"]["message"] == "this account may not create private tables"
