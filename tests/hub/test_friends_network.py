"""Friends over the websocket (server/hub/friends.py, docs/social.md "Presence" and "Invitations"):
presence pushed live to friends only (the table's id only when it may be watched, nothing while a
player hides), watching a friend's table, and invitations to a private table (friends only, never
through a block, rate-limited, typed errors)."""

from __future__ import annotations

import json
from typing import Any, cast

import httpx
import pytest

from client_protocol.messages import (
    ErrorMessage,
    FriendPresence,
    FriendsChanged,
    Invited,
    InviteSent,
    Seated,
    ServerMessage,
    TokenAuth,
)
from server.domain.records import AccountKind
from server.hub.friends import INVITE_BURST
from server.hub.server import Hub
from server.hub.settings import PACED_TIMERS
from server.services.auth import Authenticator
from tests.hub.helpers import ScannedClient
from tests.hub.netkit import connect_client, http_get, next_of, serving

pytestmark = pytest.mark.asyncio


def me(client: ScannedClient) -> str:
    assert client.welcome is not None
    return client.welcome.player.id


async def befriend(hub: Hub, a: ScannedClient, b: ScannedClient) -> None:
    service = hub.chat.service
    await service.request(me(a), me(b))
    await service.accept(me(b), me(a))


async def private_code(hub: Hub, client: ScannedClient, query: str = "bots=2&action_ms=60000") -> str:
    assert client.welcome is not None
    auth = {"Authorization": f"Bearer {client.welcome.session_token}"}
    status, body = await http_get(hub, f"/private/new?{query}", auth)
    assert status == 200, body
    return str(json.loads(body)["code"])


async def presence_of(client: ScannedClient, account_id: str, state: str) -> FriendPresence:
    """The next presence of ``account_id`` in ``state`` that ``client`` is told."""
    while True:
        found = await next_of(client, FriendPresence)
        if found.account_id == account_id and found.presence.value == state:
            return found


def told(client: ScannedClient, kind: type[Any]) -> list[ServerMessage]:
    return [m for m in client.received if isinstance(m, kind)]


async def test_presence_reaches_friends_only_and_a_friend_watches() -> None:
    async with serving(timers=PACED_TIMERS) as hub:
        alice = await connect_client(hub, "alice")
        bob = await connect_client(hub, "bob")
        carol = await connect_client(hub, "carol")  # not a friend of bob
        await befriend(hub, alice, bob)
        assert isinstance(await next_of(alice, FriendsChanged), FriendsChanged)
        seen = await presence_of(alice, me(bob), "lobby")  # told at once on becoming friends
        assert seen.name == "bob" and seen.match_id is None

        code = await private_code(hub, bob, "bots=3&action_ms=60000")
        await bob.join_private(code)
        seated = await next_of(bob, Seated)
        at_table = await presence_of(alice, me(bob), "at_table")
        assert (at_table.match_id, at_table.watching) == (seated.match_id, False)
        # watch the friend's table from its presence: a spectator's seat, the table's delay applies
        await alice.spectate(at_table.match_id or "")
        watching = await next_of(alice, Seated)
        assert watching.seat is None and watching.match_id == seated.match_id
        shown = await presence_of(bob, me(alice), "at_table")
        assert (shown.match_id, shown.watching) == (seated.match_id, True)

        # hiding: friends see offline, and nothing of the table
        await hub.chat.service.hide_presence(me(bob), True)
        hidden = await presence_of(alice, me(bob), "offline")
        assert hidden.match_id is None
        assert hub.chat.service.relations_of(me(alice))[0].presence == "offline"
        assert hub.chat.service.relations_of(me(alice))[0].match_id is None
        await hub.chat.service.hide_presence(me(bob), False)
        await presence_of(alice, me(bob), "at_table")

        # a block ends the friendship: nothing more of either reaches the other
        await hub.chat.service.block(me(alice), me(bob))
        await next_of(bob, FriendsChanged)
        await bob.leave()
        await alice.leave()
        await alice.ping()
        await bob.ping()
        for client in (alice, bob, carol):
            await client.close()
        assert not told(carol, FriendPresence)
        last_change = max(i for i, m in enumerate(alice.received) if isinstance(m, FriendsChanged))
        after_block = alice.received[last_change:]
        assert not [m for m in after_block if isinstance(m, FriendPresence) and m.account_id == me(bob)]


async def test_a_table_without_spectators_shows_no_id() -> None:
    async with serving(timers=PACED_TIMERS) as hub:
        alice = await connect_client(hub, "alice")
        bob = await connect_client(hub, "bob")
        await befriend(hub, alice, bob)
        code = await private_code(hub, bob, "bots=3&action_ms=60000&spectators=false")
        await bob.join_private(code)
        seated = await next_of(bob, Seated)
        at_table = await presence_of(alice, me(bob), "at_table")
        assert at_table.match_id is None and not at_table.watching
        await alice.spectate(seated.match_id)  # guessing the id does not help either
        refused = await next_of(alice, ErrorMessage)
        assert refused.code.value == "forbidden"
        for client in (alice, bob):
            await client.close()


async def test_invite_a_friend_to_a_private_table() -> None:
    async with serving(timers=PACED_TIMERS) as hub:
        alice = await connect_client(hub, "alice")
        bob = await connect_client(hub, "bob")
        carol = await connect_client(hub, "carol")
        await befriend(hub, alice, bob)
        code = await private_code(hub, alice)

        # a stranger cannot be invited; a code the sender never opened nor joined is not found
        rid = await alice.invite(me(carol), code)
        error = await next_of(alice, ErrorMessage)
        assert (error.code.value, error.request_id) == ("forbidden", rid)
        other = await private_code(hub, carol)
        rid = await alice.invite(me(bob), other)
        error = await next_of(alice, ErrorMessage)
        assert (error.code.value, error.request_id) == ("not_found", rid)

        rid = await alice.invite(me(bob), code)
        sent = await next_of(alice, InviteSent)
        assert (sent.to, sent.code, sent.request_id) == (me(bob), code, rid)
        invited = await next_of(bob, Invited)
        assert (invited.account_id, invited.name, invited.code, invited.preset) == (
            me(alice),
            "alice",
            code,
            "tenhou",
        )
        await alice.join_private(code)
        await bob.join_private(invited.code)  # the invitee's Join
        assert (await next_of(bob, Seated)).seat is not None
        assert (await next_of(alice, Seated)).seat is not None
        assert not told(carol, Invited)
        for client in (alice, bob, carol):
            await client.close()


async def test_blocked_players_cannot_invite_and_invitations_are_rate_limited() -> None:
    async with serving(timers=PACED_TIMERS) as hub:
        alice = await connect_client(hub, "alice")
        bob = await connect_client(hub, "bob")
        await befriend(hub, alice, bob)
        code = await private_code(hub, alice)
        for _ in range(INVITE_BURST):
            await alice.invite(me(bob), code)
            await next_of(alice, InviteSent)
        rid = await alice.invite(me(bob), code)
        error = await next_of(alice, ErrorMessage)
        assert (error.code.value, error.request_id) == ("rate_limited", rid)
        assert len(told(bob, Invited)) <= INVITE_BURST

        await hub.chat.service.block(me(bob), me(alice))
        bob_code = await private_code(hub, bob)
        for sender, to, at in ((bob, alice, bob_code),):
            rid = await sender.invite(me(to), at)
            error = await next_of(sender, ErrorMessage)
            assert (error.code.value, error.request_id) == ("forbidden", rid)
        await alice.ping()
        for client in (alice, bob):
            await client.close()
        assert not told(alice, Invited)


async def test_invite_over_http() -> None:
    async with serving(timers=PACED_TIMERS) as hub:
        auth = Authenticator(hub.repo, session_ttl_s=3600)
        tokens = {n: (await auth.create_account(n, AccountKind.PLAYER))[1] for n in ("alice", "bob", "carol")}
        clients = {n: await connect_client(hub, n, TokenAuth(token=t)) for n, t in tokens.items()}
        alice, bob, carol = clients["alice"], clients["bob"], clients["carol"]
        await befriend(hub, alice, bob)
        code = await private_code(hub, alice)
        assert hub.http_app is not None
        transport = httpx.ASGITransport(app=cast(Any, hub.http_app))
        async with httpx.AsyncClient(transport=transport, base_url="http://api") as http:
            who = {"Authorization": f"Bearer {tokens['alice']}"}
            r = await http.post("/api/me/invites", json={"to": me(bob), "code": code}, headers=who)
            assert r.status_code == 200 and r.json() == {"to": me(bob), "code": code}, r.text
            invited = await next_of(bob, Invited)
            assert (invited.account_id, invited.code) == (me(alice), code)
            r = await http.post("/api/me/invites", json={"to": me(carol), "code": code}, headers=who)
            assert (r.status_code, r.json()["error"]["code"]) == (403, "forbidden")
            r = await http.post("/api/me/invites", json={"to": me(bob), "code": "NOPE"}, headers=who)
            assert (r.status_code, r.json()["error"]["code"]) == (404, "not_found")
            r = await http.post("/api/me/invites", json={"to": me(bob)}, headers=who)
            assert r.status_code == 422
            r = await http.post("/api/me/invites", json={"to": me(bob), "code": code})
            assert r.status_code == 401
        await carol.ping()
        assert not told(carol, Invited)
        for client in clients.values():
            await client.close()
