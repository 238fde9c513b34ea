"""Spectating for streams over the network (docs/social.md#spectating-for-streams): a private table
for named observers with a hand delay and a caster view, made by ``GET /private/new``; the caster
joins over the websocket protocol; ``GET /tables/{match_id}/overlay`` answers only whoever may watch,
and the same 404 to everyone else."""

from __future__ import annotations

import asyncio
import json

import pytest

from client_protocol.errors import ErrorCode
from client_protocol.events import RoundStarted
from client_protocol.messages import ErrorMessage, EventMessage, Seated, TokenAuth
from server.domain.records import AccountKind
from server.hub.settings import SpectatePolicy, TableTimers
from tests.hub.netkit import connect_client, http_get, next_of, play, serving

pytestmark = pytest.mark.asyncio


async def test_a_private_table_for_named_observers_with_a_caster_view_and_its_overlay() -> None:
    async with serving(timers=TableTimers(action_ms=200, bank_ms=0)) as hub:
        _, alice_token = await hub.auth.create_account("alice", AccountKind.PLAYER)
        _, olga_token = await hub.auth.create_account("olga", AccountKind.PLAYER)
        _, bob_token = await hub.auth.create_account("bob", AccountKind.PLAYER)
        auth = {"Authorization": f"Bearer {alice_token}"}
        status, body = await http_get(
            hub, "/private/new?bots=3&delay_hands=1&caster=true&observers=olga", auth
        )
        assert status == 200, body
        code = json.loads(body)["code"]
        alice = await connect_client(hub, auth=TokenAuth(token=alice_token))
        await alice.join_private(code)
        seated = await next_of(alice, Seated)
        match_id = seated.match_id
        player = asyncio.create_task(play(alice))

        bob = await connect_client(hub, auth=TokenAuth(token=bob_token))
        await bob.spectate(match_id)
        refused = await next_of(bob, ErrorMessage)
        assert refused.code is ErrorCode.FORBIDDEN and "named observers" in refused.message

        olga = await connect_client(hub, auth=TokenAuth(token=olga_token))
        await olga.spectate(match_id, caster=True)
        assert (await next_of(olga, Seated)).seat is None
        async with asyncio.timeout(60):  # hand 1 reaches the caster once hand 2 has begun: all open
            async for message in olga:
                if isinstance(message, EventMessage) and isinstance(message.event, RoundStarted):
                    assert all(hand is not None for hand in message.event.hands)
                    break

        anonymous = await http_get(hub, f"/tables/{match_id}/overlay")
        stranger = await http_get(
            hub, f"/tables/{match_id}/overlay", {"Authorization": f"Bearer {bob_token}"}
        )
        nowhere = await http_get(hub, "/tables/no-such-match/overlay")
        assert anonymous[0] == stranger[0] == nowhere[0] == 404
        assert json.loads(anonymous[1])["error"]["code"] == json.loads(nowhere[1])["error"]["code"]
        status, overlay = await http_get(
            hub, f"/tables/{match_id}/overlay", {"Authorization": f"Bearer {olga_token}"}
        )
        assert status == 200, overlay
        document = json.loads(overlay)
        assert document["match_id"] == match_id and document["delay"]["hands"] == 1
        assert "alice" in [s["name"] for s in document["seats"]]
        assert match_id not in (await http_get(hub, "/tables/live"))[1]  # not listed for the public
        player.cancel()
        for client in (alice, bob, olga):
            await client.close()


async def test_bad_spectator_options_are_refused_and_use_up_nothing() -> None:
    async with serving(max_private_per_account=1) as hub:
        _, token = await hub.auth.create_account("alice", AccountKind.PLAYER)
        auth = {"Authorization": f"Bearer {token}"}
        for query in ("delay_hands=17", "delay_hands=-1", "caster=true", "caster=true&delay_hands=0"):
            status, body = await http_get(hub, f"/private/new?bots=3&{query}", auth)
            assert status == 422, (query, body)
            assert set(json.loads(body)) == {"error"}
        status, body = await http_get(hub, "/private/new?bots=3&caster=true&delay_hands=1", auth)
        assert status == 200, body


async def test_a_private_tables_delay_in_seconds_is_never_shorter_than_the_servers() -> None:
    async with serving() as hub:  # the server's delay: 0 s (serving's)
        _, token = await hub.auth.create_account("alice", AccountKind.PLAYER)
        auth = {"Authorization": f"Bearer {token}"}
        status, body = await http_get(hub, "/private/new?bots=3&delay_s=120", auth)
        assert status == 200, body
        table = hub.lobby.open_private(json.loads(body)["code"])
        assert table is not None and table.spectate.delay_s == 120
        status, body = await http_get(hub, "/private/new?bots=3&delay_s=4000", auth)
        assert status == 422 and json.loads(body)["error"]["details"][0]["loc"] == ["query", "delay_s"]
    async with serving(spectate=SpectatePolicy(delay_s=30.0)) as hub:
        _, token = await hub.auth.create_account("alice", AccountKind.PLAYER)
        status, body = await http_get(
            hub, "/private/new?bots=3&delay_s=1", {"Authorization": f"Bearer {token}"}
        )
        table = hub.lobby.open_private(json.loads(body)["code"])
        assert status == 200 and table is not None and table.spectate.delay_s == 30
