"""A private table's chat policy chosen by its creator (``GET /private/new?chat=``, docs/social.md
"Chat policy per room, table and event"): the choice applies at the table, an unknown mode or one
allowing more than the server's rule for private tables is refused and uses up nothing."""

from __future__ import annotations

import random

import pytest

from client_protocol.errors import ErrorCode
from client_protocol.messages import ChatLine, ErrorMessage, Seated
from server.hub.clock import ManualClock
from server.hub.lobby import Lobby
from server.hub.settings import PACED_TIMERS, HubSettings
from server.services.errors import LobbyError
from server.social.chat import FreeText
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST, account
from tests.hub.netkit import connect_client, next_of, serving
from tests.hub.test_private_http import ask, bearer, error

pytestmark = pytest.mark.asyncio


async def test_a_table_opened_with_chat_off_refuses_its_players_free_text_but_not_stamps() -> None:
    async with serving(timers=PACED_TIMERS) as hub:
        alice = await connect_client(hub, "alice")
        bob = await connect_client(hub, "bob")
        assert alice.welcome is not None
        auth = {"Authorization": f"Bearer {alice.welcome.session_token}"}
        status, body = await ask(hub, "bots=2&action_ms=60000&chat=off", auth)
        assert status == 200 and body["chat"] == "off", body
        await alice.join_private(body["code"])
        await bob.join_private(body["code"])
        await next_of(alice, Seated)
        await next_of(bob, Seated)
        rid = await alice.chat("gg")
        refused = await next_of(alice, ErrorMessage)
        assert (refused.code.value, refused.request_id) == ("text_off", rid)
        await alice.stamp("good_luck")
        for client in (alice, bob):  # the refused line never reached bob: the stamp is his first line
            line = await next_of(client, ChatLine)
            assert (line.name, line.stamp, line.text) == ("alice", "good_luck", None)
        for client in (alice, bob):
            await client.close()


async def test_an_unknown_chat_mode_is_refused_and_uses_up_nothing() -> None:
    async with serving(max_private_per_account=1) as hub:
        auth = await bearer(hub)
        for query in ("bots=1&chat=loud", "bots=1&chat=", "bots=1&chat=ON", "bots=1&chat=on&chat=off"):
            assert error(await ask(hub, query, auth)) == (422, "invalid_request", [["query", "chat"]]), query
        status, body = await ask(hub, "bots=1&chat=between_hands", auth)  # the one invitation it may hold
        assert status == 200 and body["chat"] == "between_hands", body


async def test_the_servers_rule_for_private_tables_is_the_most_a_creator_may_choose() -> None:
    async with serving(table_chat=(("private", "between_hands"),), max_private_per_account=1) as hub:
        auth = await bearer(hub)
        status, body = await ask(hub, "bots=1&chat=on", auth)
        assert error((status, body))[:2] == (403, "forbidden")
        assert (
            "'between_hands'" in body["error"]["message"]
            and "between_hands or off" in body["error"]["message"]
        )
        status, body = await ask(hub, "bots=1&chat=off", auth)  # nothing was used up by the refusal
        assert status == 200 and body["chat"] == "off", body
        other = await bearer(hub, "bob")
        status, body = await ask(hub, "bots=1", other)  # no choice: the server's rule, as before
        assert status == 200 and body["chat"] == "between_hands", body


async def test_without_a_choice_a_private_table_follows_the_servers_rule() -> None:
    async with serving() as hub:
        status, body = await ask(hub, "bots=1", await bearer(hub))
        assert status == 200 and body["chat"] == "on", body


async def test_the_lobby_checks_the_mode_itself() -> None:
    lobby = Lobby(
        repo=InMemoryRepository(),
        clock=ManualClock(),
        settings=HubSettings(),
        rulesets={"tenhou": EAST},
        rng=random.Random(1),
    )
    creator = account("alice")
    with pytest.raises(LobbyError) as refused:
        await lobby.create_private(creator, bots=3, chat="loud")
    assert refused.value.code is ErrorCode.MALFORMED
    lobby.private_chat = lambda: FreeText.OFF
    with pytest.raises(LobbyError) as refused:
        await lobby.create_private(creator, bots=3, chat="between_hands")
    assert refused.value.code is ErrorCode.FORBIDDEN
    invite = await lobby.create_private(creator, bots=3, chat="off")
    assert (invite.chat, invite.chat_mode) == ("off", "off")
