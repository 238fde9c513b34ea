"""Three real ``jantaku serve`` nodes on one PostgreSQL database and one Redis, behind a round-robin
TCP proxy that knows nothing about tables: a reconnect that lands on another node resumes the same
match (relayed to its owner), a spectator on a third node watches it, and after ``kill -9`` of the
owner the match is taken over, finished, exported and verified."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from client_protocol.client import ConnectionLostError
from client_protocol.errors import ErrorCode, RequestRejectedError
from client_protocol.events import RoundEnded
from client_protocol.messages import (
    EventMessage,
    GuestAuth,
    LobbyHistory,
    LobbyLine,
    MatchEnd,
    Prompt,
    Seated,
    ServerMessage,
    TokenAuth,
)
from server.app.cli import main
from server.domain.records import AccountKind, MatchStatus
from server.services.auth import Authenticator
from server.store.repository import SqlRepository
from tests.cluster.conftest import RUN_ID, drop_keys
from tests.cluster.procs import (
    Cluster,
    export_and_verify,
    fresh_pg_database,
    http_json,
    lease_owner,
    running_cluster,
)
from tests.hub.helpers import ScannedClient
from tests.hub.netkit import after_prompts, next_of, play


@pytest_asyncio.fixture
async def cluster(
    postgres: str, redis_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Cluster]:
    """One cluster for the one test below (starting three nodes is the slow part)."""
    prefix = f"{RUN_ID}-procs"
    try:
        async with (
            fresh_pg_database(postgres) as database_url,
            running_cluster(
                database_url, redis_server, prefix, tmp_path_factory.mktemp("cluster")
            ) as running,
        ):
            yield running
    finally:
        await drop_keys(redis_server, prefix)


async def _store(cluster: Cluster) -> SqlRepository:
    return await SqlRepository.open(cluster.database_url, migrate=False)


async def a_reconnect_elsewhere_resumes_and_a_third_node_spectates(cluster: Cluster) -> None:
    alice = ScannedClient(cluster.url, GuestAuth(name="alice"), timeout=15.0)
    await alice._open(alice.auth)  # the proxy's first connection: node n0
    await alice.join_queue("tenhou+bots")
    await play(alice, stop=after_prompts(4))
    match_id = alice.match_id
    assert match_id is not None and await lease_owner(cluster, match_id) == "n0"
    welcome = await alice.reconnect()  # the second connection lands on n1, which relays it to n0
    assert [s.match_id for s in welcome.seats] == [match_id]
    await play(alice, stop=after_prompts(3))  # playing on, through n1
    bob = ScannedClient(cluster.url, GuestAuth(name="bob"), timeout=15.0)
    await bob._open(bob.auth)  # the third connection: n2
    await bob.spectate(match_id)
    seated = await next_of(bob, Seated)
    assert seated.match_id == match_id and seated.seat is None
    assert cluster.proxy is not None and len(set(cluster.proxy.chosen)) == 3  # three nodes served
    await play(alice, stop=after_prompts(2))
    repo = await _store(cluster)
    try:
        assert await alice.verify(repo) > 20  # every event alice got, on any node, is the stored log
    finally:
        await repo.close()
        await alice.close()
        await bob.close()


async def a_private_table_opened_on_one_node_is_joined_through_others(cluster: Cluster) -> None:
    dave = ScannedClient(cluster.url, GuestAuth(name="dave"), timeout=15.0)
    welcome = await dave._open(dave.auth)
    status, invite = await http_json(cluster.proxy_port, "/private/new?bots=2", welcome.session_token)
    assert status == 200, invite  # the invitation waits on the node that answered the HTTP request
    erin = ScannedClient(cluster.url, GuestAuth(name="erin"), timeout=15.0)
    await erin._open(erin.auth)
    assert cluster.proxy is not None and len(set(cluster.proxy.chosen[-3:])) == 3  # three nodes
    await dave.join_private(invite["code"])
    await erin.join_private(invite["code"])
    seated = [await next_of(dave, Seated), await next_of(erin, Seated)]
    assert seated[0].match_id == seated[1].match_id and {s.seat for s in seated} != {None}
    await dave.close()
    await erin.close()


async def lobby_chat_reaches_players_on_every_node(cluster: Cluster) -> None:
    """Lobby chat across nodes (docs/social.md): three players land on the three nodes, follow the
    general channel; a line said on one node reaches the others once, through Redis, as text."""
    people = [ScannedClient(cluster.url, GuestAuth(name=f"talker{i}"), timeout=15.0) for i in range(3)]
    for p in people:
        await p._open(p.auth)
    assert cluster.proxy is not None and len(set(cluster.proxy.chosen[-3:])) == 3  # three nodes
    for p in people:
        await p.lobby_join("general")
        await next_of(p, LobbyHistory)
    hostile = "<b>hi</b> from one node"
    await people[0].lobby_say("general", hostile)
    lines = [await next_of(p, LobbyLine) for p in people]
    assert {line.text for line in lines} == {hostile} and len({line.id for line in lines}) == 1
    await people[2].lobby_say("general", stamp="gg")
    assert {(await next_of(p, LobbyLine)).stamp for p in people} == {"gg"}
    for p in people:
        await p.close()


def _round_ended(message: ServerMessage) -> bool:
    return isinstance(message, EventMessage) and isinstance(message.event, RoundEnded)


async def four_players_on_three_nodes_meet_at_one_quick_match_table(cluster: Cluster) -> None:
    """Quick match across nodes: the four land on all three nodes (round robin), queue, and are
    seated at one table (no bots: the nodes fill after 60 s), which plays to the end of a hand."""
    players = [ScannedClient(cluster.url, GuestAuth(name=f"quick{i}"), timeout=15.0) for i in range(4)]
    for p in players:
        await p._open(p.auth)
    assert cluster.proxy is not None and len(set(cluster.proxy.chosen[-4:])) == 3
    for p in players:
        await p.join_queue("tenhou")
    seated = [await next_of(p, Seated) for p in players]
    assert len({s.match_id for s in seated}) == 1
    assert sorted(s.seat for s in seated if s.seat is not None) == [0, 1, 2, 3]  # four humans, no bot
    match_id = seated[0].match_id
    ends = await asyncio.gather(*(play(p, stop=_round_ended) for p in players))
    assert all(_round_ended(e) or isinstance(e, MatchEnd) for e in ends)
    await _nothing_played_for_players(cluster, match_id)
    for p in players:
        await p.close()


async def four_registered_players_on_three_nodes_meet_at_one_ranked_table(cluster: Cluster) -> None:
    """Ranked queues pair across nodes as quick match does: one matcher node per queue."""
    repo = await _store(cluster)
    try:
        auth = Authenticator(repo, session_ttl_s=3600)
        tokens = [(await auth.create_account(f"ranked{i}", AccountKind.PLAYER))[1] for i in range(4)]
    finally:
        await repo.close()
    players = [ScannedClient(cluster.url, TokenAuth(token=t), timeout=15.0) for t in tokens]
    for p in players:
        await p._open(p.auth)
    assert cluster.proxy is not None and len(set(cluster.proxy.chosen[-4:])) == 3
    for p in players:
        await p.join_queue("ranked:open:east")
    seated = [await next_of(p, Seated) for p in players]
    assert len({s.match_id for s in seated}) == 1
    assert sorted(s.seat for s in seated if s.seat is not None) == [0, 1, 2, 3]
    repo = await _store(cluster)
    try:
        match = await repo.get_match(seated[0].match_id)
    finally:
        await repo.close()
    assert match is not None and match.source == "ranked:open:east"  # rated as a ranked match
    for p in players:
        await p.close()


async def admin_cluster_lists_the_nodes_and_who_owns_each_table(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    base = ["admin", "cluster", "--redis-url", cluster.redis_url, "--cluster-prefix", cluster.prefix]
    base += ["--database-url", cluster.database_url]
    code = await asyncio.to_thread(main, [*base, "--json"])
    assert code == 0
    status = json.loads(capsys.readouterr().out)
    assert {n["node_id"] for n in status["nodes"] if n["live"] and not n["draining"]} == {"n0", "n1", "n2"}
    assert status["running_matches"] >= 2 and not status["unowned"]
    assert sum(n["leases"] for n in status["nodes"]) == status["running_matches"]
    for match in status["matches"]:  # each running match with the node that owns it
        assert match["owner"] == await lease_owner(cluster, match["match_id"]) and match["owner"] is not None
    assert len(status["matches"]) == status["running_matches"]
    assert await asyncio.to_thread(main, base) == 0  # the text table
    text = capsys.readouterr().out
    assert "running matches:" in text
    assert all(f"{m['match_id']}" in text and m["owner"] in text for m in status["matches"])


async def _back_in(alice: ScannedClient, match_id: str, within: float = 30.0) -> None:
    """Reconnect (through the proxy) until the welcome lists the match again."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        try:
            welcome = await alice.reconnect()
            if match_id in [s.match_id for s in welcome.seats]:
                return
        except (ConnectionLostError, OSError):
            pass
        assert loop.time() < deadline, f"the match was not back within {within} s"
        await asyncio.sleep(0.5)


async def _moved(cluster: Cluster, match_id: str, old_owner: str | None, within: float = 60.0) -> None:
    """Wait until another node holds the lease of ``match_id`` (a drain hands its tables over:
    the drain window, then the takeover scan; ``within`` is generous because CI runs this beside
    the rest of the suite on two cores, and the nodes' logs say what happened when it fails)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while await lease_owner(cluster, match_id) in (None, old_owner):
        if loop.time() >= deadline:
            logs = "\n".join(f"--- {n.node_id}\n{n.logged()[-3000:]}" for n in cluster.nodes)
            raise AssertionError(f"{match_id} did not move off {old_owner} within {within} s\n{logs}")
        await asyncio.sleep(0.2)


async def _nothing_played_for_players(cluster: Cluster, match_id: str) -> None:
    repo = await _store(cluster)
    try:
        steps = await repo.steps(match_id)
        assert len(steps) > 10
        assert not [s for s in steps if s.source in ("timeout", "disconnected")]
    finally:
        await repo.close()


async def _play_on(alice: ScannedClient, match_id: str, prompts: int, pace: float = 0.0) -> None:
    """Answer ``prompts`` prompts, reconnecting through the proxy (as a client does) whenever a
    drained node closes the connection (1012) or says the match moved (``busy_retry``)."""
    seen = 0
    while seen <= prompts:
        try:
            async for message in alice:
                if isinstance(message, Prompt):
                    seen += 1
                    if seen > prompts:
                        return
                    await asyncio.sleep(pace)  # a human's pace: the match outlasts the restarts
                    try:
                        await alice.act(message.legal_actions[0], step=message.step)
                    except RequestRejectedError as exc:
                        if exc.code is ErrorCode.BUSY_RETRY:
                            raise ConnectionLostError(str(exc), code=1012) from exc
                        assert exc.code is ErrorCode.STALE_STEP, exc
                elif isinstance(message, MatchEnd):
                    return
            raise ConnectionLostError("the connection ended")
        except (ConnectionLostError, OSError):
            await _back_in(alice, match_id)


async def a_rolling_restart_drains_every_node_with_nothing_played(cluster: Cluster) -> None:
    """SIGTERM each node in turn and start it again: the table moves off its owner when that one
    drains, the player reconnects whenever the node relaying her goes, and nothing is played for
    her."""
    alice = ScannedClient(cluster.url, GuestAuth(name="carol"), timeout=15.0)
    await alice._open(alice.auth)
    await alice.join_queue("tenhou+bots")
    fifth = await play(alice, stop=after_prompts(4))
    assert isinstance(fifth, Prompt)
    await alice.act(fifth.legal_actions[0], step=fifth.step)  # the prompt the stop took
    match_id = alice.match_id
    assert match_id is not None
    player = asyncio.create_task(_play_on(alice, match_id, 100_000, pace=0.4))  # she plays all along
    moves = 0
    # its owner first: the young match surely runs then (a hanchan against bots may end early)
    first = await lease_owner(cluster, match_id)
    for node in sorted(cluster.nodes, key=lambda n: n.node_id != first):
        owned = await lease_owner(cluster, match_id) == node.node_id
        cluster.kill(node, signal.SIGTERM)
        if owned:
            await _moved(cluster, match_id, node.node_id)
            moves += 1
        assert node.process is not None and await asyncio.to_thread(node.process.wait, 60) == 0
        if owned:
            assert re.search(r"drain: [1-9]\d* tables handed over", node.logged()), node.logged()[-2000:]
        cluster.start_node(node)
        await cluster.wait_ready(node)
        assert not player.done() or player.exception() is None
    await asyncio.sleep(2)  # a few more moves on the last owner
    if player.done():
        player.result()  # it may have reached the end of the match
    player.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await player
    assert moves >= 1  # its owner was drained at least once: the table moved
    await _nothing_played_for_players(cluster, match_id)
    await alice.close()


async def kill_9_of_the_owner_the_match_is_taken_over_and_finishes(cluster: Cluster, tmp_path: Path) -> None:
    alice = ScannedClient(cluster.url, GuestAuth(name="alice"), timeout=15.0)
    await alice._open(alice.auth)
    await alice.join_queue("tenhou+bots")
    await play(alice, stop=after_prompts(6))
    match_id = alice.match_id
    assert match_id is not None
    owner_id = await lease_owner(cluster, match_id)
    owner = next(n for n in cluster.nodes if n.node_id == owner_id)
    cluster.kill(owner)  # mid-hand, without a word
    await _back_in(alice, match_id)
    new_owner = await lease_owner(cluster, match_id)
    assert new_owner is not None and new_owner != owner.node_id
    end = await play(alice)
    assert isinstance(end, MatchEnd) and end.result is not None
    repo = await _store(cluster)
    try:
        assert await alice.verify(repo) > 100
        stored = await repo.get_match(match_id)
        assert stored is not None and stored.status is MatchStatus.COMPLETED
        steps = await repo.steps(match_id)
        assert not [s for s in steps if s.source in ("timeout", "disconnected")]  # nothing played for her
    finally:
        await repo.close()
        await alice.close()
    taker = next(n for n in cluster.nodes if n.node_id == new_owner)
    assert f"taking match {match_id} over" in taker.logged()
    export_and_verify(cluster.database_url, match_id, tmp_path / "match.json")


@pytest.mark.asyncio
async def test_three_nodes_behind_one_address(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The scenarios in order on one cluster (one test, so that a parallel run keeps them on one
    worker): the ones that take a node down come last."""
    await a_reconnect_elsewhere_resumes_and_a_third_node_spectates(cluster)
    await a_private_table_opened_on_one_node_is_joined_through_others(cluster)
    await lobby_chat_reaches_players_on_every_node(cluster)
    await four_players_on_three_nodes_meet_at_one_quick_match_table(cluster)
    await four_registered_players_on_three_nodes_meet_at_one_ranked_table(cluster)
    await admin_cluster_lists_the_nodes_and_who_owns_each_table(cluster, capsys)
    await a_rolling_restart_drains_every_node_with_nothing_played(cluster)
    await kill_9_of_the_owner_the_match_is_taken_over_and_finishes(cluster, tmp_path)
