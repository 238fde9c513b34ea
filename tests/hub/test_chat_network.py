"""Chat and stamps over the network, through the hub (server/hub/server.py binds every connection
of our protocol to the node's chat desk): two players at a private table and a spectator, with
the library client (``Client.chat``, ``Client.stamp``)."""

from __future__ import annotations

import json

import pytest

from client_protocol.messages import ChatLine, ErrorMessage, Seated
from server.hub.settings import PACED_TIMERS
from tests.hub.netkit import connect_client, http_get, next_of, serving


@pytest.mark.asyncio
async def test_players_and_a_spectator_chat_at_a_private_table() -> None:
    async with serving(timers=PACED_TIMERS) as hub:
        alice = await connect_client(hub, "alice")
        bob = await connect_client(hub, "bob")
        carol = await connect_client(hub, "carol")
        assert alice.welcome is not None
        auth = {"Authorization": f"Bearer {alice.welcome.session_token}"}
        status, body = await http_get(hub, "/private/new?bots=2&action_ms=60000", auth)
        assert status == 200, body
        code = json.loads(body)["code"]
        await alice.join_private(code)
        await bob.join_private(code)
        seated = await next_of(bob, Seated)
        alice_seat = (await next_of(alice, Seated)).seat
        await carol.spectate(seated.match_id)
        await next_of(carol, Seated)

        await alice.chat("hello <b>bob</b>")
        for client in (alice, bob, carol):  # the sender hears itself: that is the confirmation
            line = await next_of(client, ChatLine)
            assert (line.role.value, line.sender, line.name, line.text) == (
                "seated",
                alice_seat,
                "alice",
                "hello <b>bob</b>",
            )
        await carol.chat("from the rail")
        line = await next_of(carol, ChatLine)
        assert (line.role.value, line.sender, line.text) == ("spectator", "carol", "from the rail")
        await bob.stamp("thanks")
        for client in (alice, bob, carol):
            line = await next_of(client, ChatLine)  # the seats never got carol's line before this
            assert (line.name, line.stamp) == ("bob", "thanks")
        rid = await bob.stamp("<script>")
        error = await next_of(bob, ErrorMessage)
        assert (error.code.value, error.request_id) == ("unknown_stamp", rid)
        for client in (alice, bob, carol):
            await client.close()
