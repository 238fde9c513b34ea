"""Unmodified bots through one address: three real ``jantaku serve`` nodes behind a round-robin TCP
proxy, four mjai bots (``jantaku bot connect`` around ``tests/bots/mjai_tsumogiri.py``) and four
protocol bots (``examples/random_bot.py`` on the client library), each group queued on one East-only
ranked queue from whichever node the proxy gives it. Both tables are made; the owner of each is
SIGKILLed mid-hand and started again; then every node in turn is drained (SIGTERM) and started
again. The bots reconnect through the proxy and resume their seats (an mjai bot cannot send
``resume``: its hello puts it back), every match completes with no move played for any seat (the
stored log names each move the server played for an absent or slow seat), and each record exports
and verifies."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from server.domain.records import AccountKind, MatchStatus
from server.services.auth import Authenticator
from server.store.repository import SqlRepository
from tests.cluster.conftest import RUN_ID, drop_keys, eventually
from tests.cluster.procs import (
    ROOT,
    Cluster,
    Node,
    export_and_verify,
    fresh_pg_database,
    lease_owner,
    running_cluster,
)

TSUMOGIRI_BOT = ROOT / "tests" / "bots" / "mjai_tsumogiri.py"
RANDOM_BOT = ROOT / "examples" / "random_bot.py"
# Every discard's call window lasts at least this long: the East-only games outlast a kill and
# three drains without any bot having to dawdle.
OPTIONS = ("--min-call-ms=80", "--hand-pause-ms=500")
PLAYED_FOR = ("timeout", "disconnected")


@pytest_asyncio.fixture
async def cluster(
    postgres: str, redis_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Cluster]:
    prefix = f"{RUN_ID}-bots"
    try:
        async with (
            fresh_pg_database(postgres) as database_url,
            running_cluster(
                database_url, redis_server, prefix, tmp_path_factory.mktemp("bots"), options=OPTIONS
            ) as running,
        ):
            yield running
    finally:
        await drop_keys(redis_server, prefix)


async def _tokens(cluster: Cluster, name: str, kind: AccountKind) -> list[str]:
    repo = await SqlRepository.open(cluster.database_url, migrate=False)
    try:
        auth = Authenticator(repo, session_ttl_s=3600)
        return [(await auth.create_account(f"{name}{i}", kind))[1] for i in range(4)]
    finally:
        await repo.close()


def _spawn(args: list[str], out: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JANTAKU_")}
    env["PYTHONPATH"] = str(ROOT)
    with out.open("ab") as log:
        return subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env
        )


def _mjai_bot(cluster: Cluster, token: str, out: Path) -> subprocess.Popen[bytes]:
    server = f"ws://127.0.0.1:{cluster.proxy_port}"
    command = ["-m", "server.app", "bot", "connect", "--server", server, "--token", token]
    return _spawn(
        [*command, "--queue", "ladder", "--games", "1", "--", sys.executable, str(TSUMOGIRI_BOT)], out
    )


def _example_bot(cluster: Cluster, token: str, out: Path) -> subprocess.Popen[bytes]:
    args = [str(RANDOM_BOT), "--server", cluster.url, "--token", token, "--preset", "ranked:open:east"]
    return _spawn([*args, "--seed", "7"], out)


async def _running(cluster: Cluster) -> dict[str, str]:
    """The running matches: source -> match id."""
    repo = await SqlRepository.open(cluster.database_url, migrate=False)
    try:
        return {m.source: m.id for m in await repo.unfinished_matches()}
    finally:
        await repo.close()


async def _steps(cluster: Cluster, match_id: str) -> int:
    repo = await SqlRepository.open(cluster.database_url, migrate=False)
    try:
        return len(await repo.steps(match_id))
    finally:
        await repo.close()


async def _restart(cluster: Cluster, node: Node, sig: int) -> None:
    cluster.kill(node, sig)
    assert node.process is not None
    code = await asyncio.to_thread(node.process.wait, 30)
    assert sig == signal.SIGKILL or code == 0, node.logged()[-3000:]
    cluster.start_node(node)
    await cluster.wait_ready(node)


async def _kill_the_owner_mid_hand(cluster: Cluster, match_id: str, rng: random.Random) -> None:
    target = await _steps(cluster, match_id) + rng.randint(5, 40)  # a random moment of a hand
    await eventually(lambda: _steps_beyond(cluster, match_id, target), 120, every=0.3)
    owner_id = await lease_owner(cluster, match_id)
    if owner_id is None or match_id not in (await _running(cluster)).values():
        return  # it moved or ended meanwhile (the other table's owner was the same node)
    owner = next(n for n in cluster.nodes if n.node_id == owner_id)
    await _restart(cluster, owner, signal.SIGKILL)
    await eventually(lambda: _taken_over(cluster, match_id, owner_id), 60, every=0.3)


async def _steps_beyond(cluster: Cluster, match_id: str, n: int) -> bool:
    return await _steps(cluster, match_id) >= n or match_id not in (await _running(cluster)).values()


async def _taken_over(cluster: Cluster, match_id: str, old: str) -> bool:
    if match_id not in (await _running(cluster)).values():
        return True
    return await lease_owner(cluster, match_id) not in (None, old)


@pytest.mark.asyncio
@pytest.mark.timeout(600)  # about 2-3 minutes; a loaded machine restarts nodes slowly
async def test_mjai_and_protocol_bots_through_one_address_survive_a_kill_and_drains(
    cluster: Cluster, tmp_path: Path
) -> None:
    rng = random.Random()
    bots = await _tokens(cluster, "mjai", AccountKind.BOT)
    players = await _tokens(cluster, "rand", AccountKind.PLAYER)
    outs = [tmp_path / f"mjai{i}.log" for i in range(4)] + [tmp_path / f"rand{i}.log" for i in range(4)]
    procs = []
    try:
        for i, token in enumerate(bots):  # a few at a time, as people start them: they land on every node
            procs.append(_mjai_bot(cluster, token, outs[i]))
            procs.append(_example_bot(cluster, players[i], outs[4 + i]))
            await asyncio.sleep(0.3)
        await eventually(lambda: _both(cluster), 120, every=0.3)  # every bot seated
        running = await _running(cluster)
        matches = [running["ranked:ladder:east"], running["ranked:open:east"]]
        for match_id in matches:
            await _kill_the_owner_mid_hand(cluster, match_id, rng)
        for node in cluster.nodes:
            if not await _running(cluster):
                break
            await _restart(cluster, node, signal.SIGTERM)
        for proc, out in zip(procs, outs, strict=True):
            code = await asyncio.to_thread(proc.wait, 240)
            assert code == 0, out.read_text()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for out in outs:
        text = out.read_text()
        assert "ended while disconnected" not in text and "ended: aborted" not in text, text
    repo = await SqlRepository.open(cluster.database_url, migrate=False)
    try:
        for match_id in matches:
            stored = await repo.get_match(match_id)
            assert stored is not None and stored.status is MatchStatus.COMPLETED, stored
            steps = await repo.steps(match_id)
            assert [s for s in steps if s.source in PLAYED_FOR] == []  # nothing played for a bot
    finally:
        await repo.close()
    for match_id in matches:
        export_and_verify(cluster.database_url, match_id, tmp_path / f"{match_id}.json")


async def _both(cluster: Cluster) -> bool:
    return {"ranked:ladder:east", "ranked:open:east"} <= set(await _running(cluster))
