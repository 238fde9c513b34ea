"""Events on a cluster of three real ``jantaku serve`` nodes behind one round-robin address:

* an organizer pauses, resumes and ends a table from nodes that do not run it (the request goes
  to the node that does, ``server.cluster.control``), exactly as on one node; and locks a seat
  (its player's resume is refused on the node running it), unlocks it and seats a substitute
  there, from other nodes, with a refusal of that node's table answered as on one node; a notice
  posted on one node reaches the entrant's connection;
* a bot event: four unmodified mjai bots (``jantaku bot connect --event ID`` around
  ``tests/bots/mjai_tsumogiri.py``) play one duplicate-rotation cycle (four rounds, one table each,
  the same walls with the seats rotated), each round started from another node; the node running
  the second round's table is SIGKILLed mid-hand and started again. Every game completes with no
  move played for any bot, exports and verifies, and the four games were dealt the same walls."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from client_protocol.client import Client
from client_protocol.errors import ErrorCode
from client_protocol.messages import ErrorMessage, EventMessage, EventNotice, Prompt, Snapshot, TokenAuth
from server.app.compose import event_store
from server.domain.records import AccountKind, MatchStatus
from server.services.auth import Authenticator
from server.services.review import Review
from server.store.repository import SqlRepository
from server.tournament.duplicate import rotations
from tests.cluster.conftest import RUN_ID, drop_keys, eventually
from tests.cluster.procs import (
    Cluster,
    Node,
    export_and_verify,
    fresh_pg_database,
    lease_owner,
    running_cluster,
)
from tests.cluster.test_bots_cluster import PLAYED_FOR, TSUMOGIRI_BOT, _restart, _spawn, _steps
from tests.hub.helpers import EAST
from tests.hub.netkit import next_of

OPTIONS: tuple[str, ...] = ()  # an East-only game of bots: some 300 steps, the kill comes at step 40


@pytest_asyncio.fixture
async def cluster(
    postgres: str, redis_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Cluster]:
    prefix = f"{RUN_ID}-events"
    try:
        async with (
            fresh_pg_database(postgres) as database_url,
            running_cluster(
                database_url,
                redis_server,
                prefix,
                tmp_path_factory.mktemp("events"),
                options=OPTIONS,
                http=True,
            ) as running,
        ):
            yield running
    finally:
        await drop_keys(redis_server, prefix)


async def _accounts(cluster: Cluster, kind: AccountKind, *names: str) -> list[tuple[str, str]]:
    """(account id, API token) of new accounts; an organizer's role is granted by the test."""
    repo = await SqlRepository.open(cluster.database_url, migrate=False)
    try:
        auth = Authenticator(repo, session_ttl_s=3600)
        out = []
        for name in names:
            account, token = await auth.create_account(name, kind)
            out.append((account.id, token))
        return out
    finally:
        await repo.close()


async def _organizer(cluster: Cluster) -> str:
    ((account_id, token),) = await _accounts(cluster, AccountKind.PLAYER, "org")
    repo = await SqlRepository.open(cluster.database_url, migrate=False)
    try:
        await event_store(repo).set_organizer_role(account_id, True, time.time())
    finally:
        await repo.close()
    return token


async def _call(node: Node, token: str, method: str, path: str, body: Any = None) -> Any:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{node.http_port}", timeout=30) as http:
        headers = {"Authorization": f"Bearer {token}"}
        answer = await http.request(method, path, headers=headers, json=body)
    assert answer.status_code in (200, 201), (method, path, answer.status_code, answer.text)
    return answer.json()


async def _match(cluster: Cluster, match_id: str) -> MatchStatus | None:
    repo = await SqlRepository.open(cluster.database_url, migrate=False)
    try:
        match = await repo.get_match(match_id)
        return None if match is None else match.status
    finally:
        await repo.close()


async def _ended(cluster: Cluster, match_id: str) -> bool:
    return await _match(cluster, match_id) not in (None, MatchStatus.RUNNING)


def _event(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "ruleset_json": json.loads(EAST.to_json()), "rounds": 4} | extra


@pytest.mark.asyncio
@pytest.mark.timeout(300)
async def test_a_table_is_paused_resumed_and_ended_from_nodes_that_do_not_run_it(cluster: Cluster) -> None:
    org = await _organizer(cluster)
    a, b, c = cluster.nodes
    # built-in bots pace their turns (600 ms) once the event sets its clocks: the game lasts
    event = await _call(a, org, "POST", "/api/events", _event("Club night", rounds=1, action_ms=5000))
    path = f"/api/events/{event['id']}"
    await _call(b, org, "POST", f"{path}/bots", {"count": 4})
    await _call(c, org, "POST", f"{path}/seat", {"key": "r1"})
    rnd = await _call(a, org, "POST", f"{path}/start", {"key": "r1"})  # the table runs on node a
    match_id = rnd["tables"][0]["match_id"]
    assert await lease_owner(cluster, match_id) == a.node_id
    await eventually(lambda: _steps_at_least(cluster, match_id, 3), 30, every=0.2)

    await _call(b, org, "POST", f"{path}/pause", {"table": 0, "reason": "a dispute"})
    frozen = await _steps(cluster, match_id)
    await asyncio.sleep(2.0)  # bots acting every 600 ms would have moved on by now
    assert await _steps(cluster, match_id) == frozen
    await _call(c, org, "POST", f"{path}/resume", {"table": 0})
    await eventually(lambda: _steps_at_least(cluster, match_id, frozen + 2), 30, every=0.2)

    await _call(c, org, "POST", f"{path}/tables/0/end", {"reason": "the venue closes"})
    await eventually(lambda: _ended(cluster, match_id), 30, every=0.2)
    assert await _match(cluster, match_id) is MatchStatus.ABORTED
    log = await _call(b, org, "GET", f"{path}/log")
    assert [e["action"] for e in log if e["action"] in ("pause", "unpause", "end_table")] == [
        "pause",
        "unpause",
        "end_table",
    ]


@pytest.mark.asyncio
@pytest.mark.timeout(300)
async def test_a_seat_is_locked_and_substituted_from_nodes_that_do_not_run_its_table(
    cluster: Cluster,
) -> None:
    org = await _organizer(cluster)
    ((pat_id, pat_token),) = await _accounts(cluster, AccountKind.PLAYER, "pat")
    a, b, c = cluster.nodes
    event = await _call(a, org, "POST", "/api/events", _event("Late arrivals", rounds=1, action_ms=5000))
    path = f"/api/events/{event['id']}"
    await _call(b, pat_token, "POST", f"{path}/entry", {})
    await _call(b, org, "POST", f"{path}/bots", {"count": 3})
    await _call(c, org, "POST", f"{path}/seat", {"key": "r1"})
    rnd = await _call(a, org, "POST", f"{path}/start", {"key": "r1"})  # the table runs on node a
    match_id = rnd["tables"][0]["match_id"]
    seat = rnd["tables"][0]["entrants"].index(pat_id)
    assert await lease_owner(cluster, match_id) == a.node_id

    locked = await _call(b, org, "POST", f"{path}/lock", {"table": 0, "seat": seat, "reason": "id check"})
    assert locked["tables"][0]["locked"] == [seat]
    pat = await Client.connect(cluster.url, TokenAuth(token=pat_token), timeout=15.0)
    try:
        await pat.resume(match_id)
        async with asyncio.timeout(30):
            refused = await next_of(pat, ErrorMessage)  # node a's table keeps the seat locked
        assert refused.code is ErrorCode.FORBIDDEN and "locked" in refused.message
        await _call(c, org, "POST", f"{path}/unlock", {"table": 0, "seat": seat})
        await pat.resume(match_id)  # unlocked there: she takes her seat
        async with asyncio.timeout(30):
            async for message in pat:  # her seat's view comes: a snapshot, or the events since
                if isinstance(message, Snapshot | EventMessage | Prompt):
                    break
        # a notice posted through node c reaches her connection (on whichever node serves it)
        await _call(c, org, "POST", f"{path}/notice", {"text": "the final starts at 21:00"})
        async with asyncio.timeout(30):
            notice = await next_of(pat, EventNotice)
        assert (notice.event_id, notice.name, notice.text) == (
            event["id"],
            "Late arrivals",
            "the final starts at 21:00",
        )
    finally:
        await pat.close()

    changed = await _call(
        c,
        org,
        "POST",
        f"{path}/substitute",
        {"table": 0, "seat": seat, "substitute": "bot:tsumogiri", "reason": "left"},
    )
    from_step = changed["tables"][0]["stand_ins"][0]["from_step"]
    assert isinstance(from_step, int) and from_step >= 0  # the step node a answered
    await eventually(lambda: _steps_at_least(cluster, match_id, from_step + 8), 60, every=0.2)
    bot_seat = (seat + 1) % 4  # a built-in bot's seat: node a's table refuses, as one node does
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{b.http_port}", timeout=30) as http:
        answer = await http.post(
            f"{path}/substitute",
            headers={"Authorization": f"Bearer {org}"},
            json={"table": 0, "seat": bot_seat, "substitute": "bot:tsumogiri", "reason": "x"},
        )
    assert answer.status_code == 422 and "needs no substitute" in answer.json()["error"]["message"], (
        answer.text
    )
    log = await _call(a, org, "GET", f"{path}/log")
    assert [e["action"] for e in log if e["action"] in ("lock_seat", "unlock_seat", "substitute")] == [
        "lock_seat",
        "unlock_seat",
        "substitute",
    ]
    await _call(b, org, "POST", f"{path}/tables/0/end", {"reason": "done"})
    await eventually(lambda: _ended(cluster, match_id), 30, every=0.2)


async def _steps_at_least(cluster: Cluster, match_id: str, n: int) -> bool:
    return await _steps(cluster, match_id) >= n


def _mjai_bot(cluster: Cluster, token: str, event_id: str, out: Path) -> Any:
    server = f"ws://127.0.0.1:{cluster.proxy_port}"
    command = ["-m", "server.app", "bot", "connect", "--server", server, "--token", token]
    args = [*command, "--event", event_id, "--games", "4", "--", sys.executable, str(TSUMOGIRI_BOT)]
    return _spawn(args, out)


async def _all_waiting(outs: list[Path]) -> bool:
    return all(out.exists() and "waiting for a seat" in out.read_text() for out in outs)


async def _play_round(cluster: Cluster, org: str, path: str, number: int, *, kill: bool) -> str:
    """Seat and start round ``number`` from one node, wait for its game to end (``kill``: SIGKILL
    the node running it mid-hand, and start it again), finish the round from another node."""
    node = cluster.nodes[number % 3]
    await _call(node, org, "POST", f"{path}/seat", {"key": f"r{number}"})
    rnd = await _call(node, org, "POST", f"{path}/start", {"key": f"r{number}"})
    match_id: str = rnd["tables"][0]["match_id"]
    if kill:
        await eventually(lambda: _steps_at_least(cluster, match_id, 40), 120, every=0.2)
        owner = await lease_owner(cluster, match_id)
        if owner is not None and not await _ended(cluster, match_id):
            await _restart(cluster, next(n for n in cluster.nodes if n.node_id == owner), signal.SIGKILL)
    await eventually(lambda: _ended(cluster, match_id), 240, every=0.3)
    await _call(cluster.nodes[(number + 1) % 3], org, "POST", f"{path}/finish-round", {"reason": "done"})
    return match_id


@pytest.mark.asyncio
@pytest.mark.timeout(900)  # 3-8 minutes: four games one after another, a node restarted
async def test_a_bot_event_of_four_mjai_bots_survives_a_node_kill(cluster: Cluster, tmp_path: Path) -> None:
    org = await _organizer(cluster)
    bots = await _accounts(cluster, AccountKind.BOT, *(f"mjai{i}" for i in range(4)))
    settings = _event("Bot league", duplicate="rotations")
    event = await _call(cluster.nodes[0], org, "POST", "/api/events", settings)
    event_id = event["id"]
    path = f"/api/events/{event_id}"
    for i, (account_id, _) in enumerate(bots):
        await _call(cluster.nodes[i % 3], org, "POST", f"{path}/bot-entrants", {"account": account_id})
    outs = [tmp_path / f"mjai{i}.log" for i in range(4)]
    procs = [_mjai_bot(cluster, token, event_id, out) for (_, token), out in zip(bots, outs, strict=True)]
    matches: list[str] = []
    try:
        # the organizer starts once every bot waits for its table (as an event's start time says)
        await eventually(lambda: _all_waiting(outs), 120, every=0.3)
        for number in range(1, 5):
            matches.append(await _play_round(cluster, org, path, number, kill=number == 2))
        for proc, out in zip(procs, outs, strict=True):
            code = await asyncio.to_thread(proc.wait, 120)
            assert code == 0, out.read_text()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for out in outs:
        text = out.read_text()
        assert "ended while disconnected" not in text and "ended: aborted" not in text, text

    shown = await _call(cluster.nodes[0], org, "GET", path)
    rounds = shown["rounds"]
    lineup = tuple(rounds[0]["tables"][0]["entrants"])
    assert [tuple(r["tables"][0]["entrants"]) for r in rounds] == list(rotations(lineup))
    seeds = {r["sets"][0]["seed_hex"] for r in rounds}
    assert len(seeds) == 1 and None not in seeds  # one set: the same walls, revealed at the end
    repo = await SqlRepository.open(cluster.database_url, migrate=False)
    try:
        review = Review(repo)
        for match_id in matches:
            stored = await repo.get_match(match_id)
            assert stored is not None and stored.status is MatchStatus.COMPLETED, stored
            assert [s for s in await repo.steps(match_id) if s.source in PLAYED_FOR] == []
            walls = await review.walls(match_id)
            assert walls.all_ok and walls.seed in seeds  # every hand's wall verifies, the same seed
    finally:
        await repo.close()
    for match_id in matches:
        export_and_verify(cluster.database_url, match_id, tmp_path / f"{match_id}.json")
    comparison = await _call(cluster.nodes[2], org, "GET", f"{path}/comparison")
    assert [s["complete"] for s in comparison["sets"]] == [True]
    assert sorted(e["entrant"] for e in comparison["entrants"]) == sorted(a for a, _ in bots)
    assert all(e["games"] == 4 for e in comparison["entrants"])
