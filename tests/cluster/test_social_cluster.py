"""Friends across three real ``jantaku serve`` nodes behind one address (a round-robin TCP proxy),
on one PostgreSQL database and one Redis (docs/social.md, "Across nodes"): three friends connect,
one to each node. A presence crosses nodes over the Redis bus; an invitation sent through the node
that holds the private table reaches the invitee on another node, who joins through the relay; a
friend on the third node watches the table from its presence (relayed to the table's node) and
hears a chat line said at it (the relay carries chat like every frame)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from client_protocol.messages import ChatLine, FriendPresence, Invited, InviteSent, Seated, TokenAuth
from server.domain.records import AccountKind
from server.domain.social import LinkRecord
from server.services.auth import Authenticator
from server.store.repository import SqlRepository
from tests.cluster.conftest import RUN_ID, drop_keys
from tests.cluster.procs import Cluster, fresh_pg_database, http_json, running_cluster
from tests.hub.helpers import ScannedClient
from tests.hub.netkit import next_of

NAMES = ("alice", "bob", "carol")


@pytest_asyncio.fixture
async def friends_cluster(
    postgres: str, redis_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[Cluster, dict[str, tuple[str, str]]]]:
    """Three nodes on a database where alice, bob and carol are all friends (stored before the
    nodes start: each reads the links at its start)."""
    prefix = f"{RUN_ID}-social"
    try:
        async with fresh_pg_database(postgres) as database_url:
            repo = await SqlRepository.open(database_url, migrate=False)
            try:
                auth = Authenticator(repo, session_ttl_s=3600)
                made = {n: await auth.create_account(n, AccountKind.PLAYER) for n in NAMES}
                people = {n: (a.id, token) for n, (a, token) in made.items()}
                for i, a in enumerate(NAMES):
                    for b in NAMES[i + 1 :]:
                        await repo.put_link(LinkRecord(people[a][0], people[b][0], "friends", 0.0))
            finally:
                await repo.close()
            async with running_cluster(
                database_url, redis_server, prefix, tmp_path_factory.mktemp("social")
            ) as running:
                yield running, people
    finally:
        await drop_keys(redis_server, prefix)


async def presence_of(client: ScannedClient, account_id: str, state: str) -> FriendPresence:
    while True:
        found = await next_of(client, FriendPresence)
        if found.account_id == account_id and found.presence.value == state:
            return found


@pytest.mark.asyncio
async def test_presence_an_invitation_and_a_chat_line_cross_nodes(
    friends_cluster: tuple[Cluster, dict[str, tuple[str, str]]],
) -> None:
    cluster, people = friends_cluster
    assert cluster.proxy is not None
    async with asyncio.timeout(120):
        clients = {}
        for name in NAMES:  # round robin: one per node
            client = ScannedClient(cluster.url, TokenAuth(token=people[name][1]), timeout=20.0)
            await client._open(client.auth)
            clients[name] = client
        alice, bob, carol = clients["alice"], clients["bob"], clients["carol"]
        assert len(set(cluster.proxy.chosen[-3:])) == 3  # three nodes
        alice_id, bob_id = people["alice"][0], people["bob"][0]

        # bob, on another node, is in the lobby: alice is told through the bus
        assert (await presence_of(alice, bob_id, "lobby")).name == "bob"

        # bob opens a private table (on whichever node answers the HTTP request), joins it (relayed
        # there if it is another node) and invites alice through that node
        assert bob.welcome is not None
        status, table = await http_json(cluster.proxy_port, "/private/new?bots=2", bob.welcome.session_token)
        assert status == 200, table
        await bob.join_private(table["code"])
        await asyncio.sleep(0)
        rid = await bob.invite(alice_id, table["code"])
        sent = await next_of(bob, InviteSent)
        assert (sent.request_id, sent.to) == (rid, alice_id)
        invited = await next_of(alice, Invited)
        assert (invited.account_id, invited.name, invited.code) == (bob_id, "bob", table["code"])
        await alice.join_private(invited.code)
        seated = await next_of(alice, Seated)
        assert seated.seat is not None

        # carol, on the third node, sees bob at that table and watches it from there
        at_table = await presence_of(carol, bob_id, "at_table")
        assert at_table.match_id == seated.match_id
        await carol.spectate(at_table.match_id)
        watching = await next_of(carol, Seated)
        assert watching.seat is None and watching.match_id == seated.match_id

        # a chat line at the table reaches the spectator on another node (through the relay)
        await alice.chat("hello from the table")
        line = await next_of(carol, ChatLine)
        assert (line.name, line.text, line.role.value) == ("alice", "hello from the table", "seated")
        assert line.account_id == alice_id  # to mute her from the line, on any node
        for client in clients.values():
            await client.close()
