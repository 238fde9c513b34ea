"""Friends across nodes through the social bus (server/hub/friends.py, server/hub/socialbus.py): two
hubs of one process on one store, each with its own social service (as two nodes of a cluster hold
their own), each with its own in-process bus on shared handlers (``local_nodes``). A friendship made
on one node reaches the other; presence and an invitation cross; a block made on one node stops both
on the other; a node that starts late learns the presence already there; a node that goes silent is
forgotten."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator

import pytest

from client_protocol.messages import (
    ErrorMessage,
    EventNotice,
    FriendPresence,
    FriendsChanged,
    Invited,
    InviteSent,
    Seated,
)
from server.hub import friends
from server.hub.server import Hub, running_hub
from server.hub.settings import PACED_TIMERS, HubSettings, SpectatePolicy
from server.hub.socialbus import LocalBus, local_nodes
from server.services.eventbase import PostedNotice
from server.services.social import SocialService
from server.store.memory import InMemoryRepository
from server.web.api import create_app
from server.web.api.gameport import attach_hub
from tests.hub.helpers import EAST, ScannedClient
from tests.hub.netkit import FAST_LIMITS, connect_client, http_get, next_of

pytestmark = pytest.mark.asyncio


@contextlib.asynccontextmanager
async def node(repo: InMemoryRepository, bus: LocalBus) -> AsyncIterator[Hub]:
    settings = HubSettings(
        port=0,
        timers=PACED_TIMERS,
        limits=FAST_LIMITS,
        spectate=SpectatePolicy(delay_s=0.0),
        bot_fill_after_s=60.0,
        shutdown_grace_s=2.0,
    )
    app = create_app(repo)
    social = SocialService(time.time, store=repo)
    async with running_hub(settings, repo, rulesets={"tenhou": EAST}, http_app=app, social=social) as hub:
        attach_hub(app, hub)
        await hub.use_bus(bus)
        yield hub


def me(client: ScannedClient) -> str:
    assert client.welcome is not None
    return client.welcome.player.id


async def presence_of(client: ScannedClient, account_id: str, state: str) -> FriendPresence:
    while True:
        found = await next_of(client, FriendPresence)
        if found.account_id == account_id and found.presence.value == state:
            return found


async def test_presence_invitations_and_blocks_cross_nodes() -> None:
    repo, (bus_one, bus_two) = InMemoryRepository(), local_nodes("n1", "n2")
    async with asyncio.timeout(60), node(repo, bus_one) as one, node(repo, bus_two) as two:
        alice = await connect_client(one, "alice")
        bob = await connect_client(two, "bob")
        await one.chat.service.request(me(alice), me(bob))  # made through node 1
        await next_of(bob, FriendsChanged)  # node 2 heard of it
        await two.chat.service.accept(me(bob), me(alice))  # answered through node 2
        await next_of(alice, FriendsChanged)
        assert (await presence_of(alice, me(bob), "lobby")).name == "bob"
        assert (await presence_of(bob, me(alice), "lobby")).name == "alice"

        # bob sits at a table of node 2: alice, on node 1, sees which
        assert bob.welcome is not None
        auth = {"Authorization": f"Bearer {bob.welcome.session_token}"}
        status, body = await http_get(two, "/private/new?bots=3&action_ms=60000", auth)
        assert status == 200, body
        await bob.join_private(json.loads(body)["code"])
        seated = await next_of(bob, Seated)
        assert (await presence_of(alice, me(bob), "at_table")).match_id == seated.match_id
        assert one.chat.service.relations_of(me(alice))[0].match_id == seated.match_id

        # alice, on node 1, invites bob, on node 2
        assert alice.welcome is not None
        auth = {"Authorization": f"Bearer {alice.welcome.session_token}"}
        status, body = await http_get(one, "/private/new?bots=2&action_ms=60000", auth)
        code = json.loads(body)["code"]
        await alice.invite(me(bob), code)
        await next_of(alice, InviteSent)
        invited = await next_of(bob, Invited)
        assert (invited.account_id, invited.code) == (me(alice), code)

        # bob hides through node 2: alice sees him offline
        await two.chat.service.hide_presence(me(bob), True)
        assert (await presence_of(alice, me(bob), "offline")).match_id is None

        # a block made on node 1 is held on node 2: no invitation crosses any more
        await one.chat.service.block(me(alice), me(bob))
        await next_of(bob, FriendsChanged)
        assert not two.chat.service.friends_of(me(bob))
        rid = await bob.invite(me(alice), code)
        assert (await next_of(bob, ErrorMessage)).request_id == rid
        for client in (alice, bob):
            await client.close()


async def test_a_late_node_learns_presence_and_a_silent_node_is_forgotten(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(friends, "SNAPSHOT_PART", 1)  # a whole list in parts: one player each
    repo, (bus_one, bus_two) = InMemoryRepository(), local_nodes("n1", "n2")
    async with asyncio.timeout(60), node(repo, bus_one) as one:
        alice = await connect_client(one, "alice")
        carol = await connect_client(one, "carol")
        await one.chat.service.request(me(alice), me(carol))
        await one.chat.service.accept(me(carol), me(alice))
        async with node(repo, bus_two) as two:  # starts after alice said hello on node 1
            await asyncio.sleep(0)
            for _ in range(20):
                if two.friends.whereabouts(me(alice)).presence.value == "lobby":
                    break
                await asyncio.sleep(0.05)
            assert two.friends.whereabouts(me(alice)).presence.value == "lobby"
            assert two.friends.whereabouts(me(carol)).presence.value == "lobby"  # the second part
            # node 1 says nothing more for FORGET_AFTER_S: node 2 forgets its players
            monkeypatch.setattr(friends, "FORGET_AFTER_S", -1.0)
            two.friends._forget_silent()
            assert two.friends.whereabouts(me(alice)).presence.value == "offline"
        for client in (alice, carol):
            await client.close()


async def test_a_whole_list_in_parts_replaces_what_was_held_once_its_last_part_is_in() -> None:
    repo, (other, bus_two) = InMemoryRepository(), local_nodes("n1", "n2")
    async with asyncio.timeout(30), node(repo, bus_two) as two:

        def where(account_id: str) -> str:
            return two.friends.whereabouts(account_id).presence.value

        async def tell(**body: object) -> None:  # as node n1's desk would
            await other.publish("social.presence", {"node": "n1", **body})

        def entry(account_id: str) -> list[object]:
            return [account_id, account_id, "lobby", None, False]

        await tell(entries=[entry("x")])
        assert where("x") == "lobby"
        await tell(full=True, more=True, entries=[entry("y")])
        assert (where("x"), where("y")) == ("lobby", "offline")  # not whole yet: nothing replaced
        await tell(entries=[entry("z")])  # a change told between two parts holds
        await tell(full=True, entries=[])
        assert (where("x"), where("y"), where("z")) == ("offline", "lobby", "lobby")


async def test_an_event_notice_reaches_its_entrants_on_every_node_and_nobody_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The event service's ``notice_to`` on node 1: the entrants connected to node 1 and to node 2
    get ``event_notice`` once (the recipients cross in parts), a player not named gets nothing."""
    monkeypatch.setattr(friends, "NOTICE_PART", 2)
    repo, (bus_one, bus_two) = InMemoryRepository(), local_nodes("n1", "n2")
    async with asyncio.timeout(60), node(repo, bus_one) as one, node(repo, bus_two) as two:
        here = await connect_client(one, "alice")
        there = [await connect_client(two, name) for name in ("bob", "carol", "dave")]
        outsider = await connect_client(two, "erin")
        entrants = [me(here), *(me(c) for c in there), "a-not-connected"]
        # what node 2 cannot read is ignored (a warning), and it goes on: nobody is sent anything
        good = {"node": "n1", "to": [me(there[0])], "event_id": "ev-1", "name": "x", "text": "x", "at": 1.0}
        no_text = {k: v for k, v in good.items() if k != "text"}
        for bad in (good | {"to": me(there[0])}, good | {"at": "noon"}, no_text):
            await bus_one.publish("social.notice", bad)
        notice = PostedNotice("ev-0123456789ab", "Club night", "round 2 at 20:00 <b>", 1764950400.5)
        one.friends.event_notice(entrants, notice)
        for client in (here, *there):
            got = await next_of(client, EventNotice)
            assert (got.event_id, got.name, got.text, got.at) == (
                "ev-0123456789ab",
                "Club night",
                "round 2 at 20:00 <b>",
                1764950400.5,
            )
        await outsider.ping()  # a round trip: anything sent to erin before it has arrived
        assert not [m for m in outsider.received if isinstance(m, EventNotice)]
        for client in (here, *there):
            assert sum(isinstance(m, EventNotice) for m in client.received) == 1
        for client in (here, *there, outsider):
            await client.close()
