"""The lobby with fake participants on a manual clock: queues, bot fill-in, private tables, spectating."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Coroutine
from typing import Any

import pytest

from client_protocol.errors import ErrorCode
from server.domain.records import AccountKind, MatchRecord, RecoveryRecord, Scope
from server.hub.clock import ManualClock
from server.hub.lobby import Lobby
from server.hub.outputs import CatchupOut, ErrorOut, LeftOut, QueuedOut, SeatedOut
from server.hub.settings import HubSettings, TableTimers
from server.services.errors import LobbyError
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST, FakeParticipant, account


class SlowStore(InMemoryRepository):
    """``create_match`` waits until ``release`` is set (``entered`` says one is waiting); with
    ``fail`` it then raises instead of storing."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.fail = False

    async def create_match(self, match: MatchRecord, recovery: RecoveryRecord | None = None) -> None:
        self.entered.set()
        await self.release.wait()
        if self.fail:
            raise ConnectionError("the database went away")
        await super().create_match(match, recovery)


def finishes_without_waiting(coro: Coroutine[Any, Any, None]) -> None:
    """Run ``coro`` to its end in one step: it must not wait on anything (a lock another task holds,
    a store call). Fails, rather than hanging, when it would wait."""
    try:
        coro.send(None)
    except StopIteration:
        return
    coro.close()
    raise AssertionError("it waited (for a lock or the store)")


def make_lobby(repo: InMemoryRepository | None = None, **settings: object) -> tuple[Lobby, ManualClock]:
    clock = ManualClock()
    options: dict[str, object] = {"timers": TableTimers(bot_delay_ms=60_000), "bot_fill_after_s": 10.0}
    options.update(settings)
    lobby = Lobby(
        repo=repo if repo is not None else InMemoryRepository(),
        clock=clock,
        settings=HubSettings(**options),  # type: ignore[arg-type]
        rulesets={"tenhou": EAST},
        seed_source=lambda: b"lobby-seed",
        rng=random.Random(1),
    )
    return lobby, clock


def seated(p: FakeParticipant) -> SeatedOut | None:
    items = p.of(SeatedOut)
    return items[-1] if items else None


@pytest.mark.asyncio
async def test_four_waiting_players_make_a_table() -> None:
    lobby, _ = make_lobby()
    players = [FakeParticipant(account(f"p{i}")) for i in range(4)]
    for i, p in enumerate(players[:3]):
        await lobby.join_queue(p, "tenhou", 1)
        assert p.of(QueuedOut)[-1] == QueuedOut("tenhou", i + 1)
    await lobby.join_queue(players[3], "tenhou", 1)
    await lobby.settle()
    seats = [seated(p) for p in players]
    assert all(s is not None for s in seats)
    assert sorted(s.seat for s in seats if s is not None and s.seat is not None) == [0, 1, 2, 3]
    assert len({s.match_id for s in seats if s is not None}) == 1
    match_id = seats[0].match_id  # type: ignore[union-attr]
    assert lobby.live_seats(players[0].account.id) == [(match_id, seats[0].seat)]  # type: ignore[union-attr]
    assert lobby.waiting("tenhou") == 0


@pytest.mark.asyncio
async def test_bots_fill_the_empty_seats_after_the_wait() -> None:
    lobby, clock = make_lobby()
    alice, bob = FakeParticipant(account("alice")), FakeParticipant(account("bob"))
    await lobby.join_queue(alice, "tenhou", 1)
    clock.advance(5)
    await lobby.join_queue(bob, "tenhou", 2)
    clock.advance(4.75)
    await lobby.settle()
    assert seated(alice) is None
    clock.advance(0.25)  # alice has waited 10 s: bots take the two empty seats
    await lobby.settle()
    a, b = seated(alice), seated(bob)
    assert a is not None and b is not None and a.match_id == b.match_id
    assert sorted(p.kind.value for p in a.players) == ["bot", "bot", "guest", "guest"]


@pytest.mark.asyncio
async def test_play_now_against_bots_and_unknown_queues() -> None:
    lobby, _ = make_lobby()
    alice = FakeParticipant(account("alice"))
    await lobby.join_queue(alice, "tenhou+bots", 3)
    assert seated(alice) is not None and not alice.of(QueuedOut)
    bob = FakeParticipant(account("bob"))
    await lobby.join_queue(bob, "chess", 4)
    assert bob.errors() == [bob.errors()[0]] and bob.errors()[0].code is ErrorCode.NOT_FOUND
    assert bob.errors()[0].request_id == 4


@pytest.mark.asyncio
async def test_a_player_waits_in_one_queue_and_leaves_it() -> None:
    lobby, clock = make_lobby()
    alice = FakeParticipant(account("alice"))
    await lobby.join_queue(alice, "tenhou", 1)
    await lobby.join_queue(alice, "tenhou", 2)
    assert lobby.waiting("tenhou") == 1
    assert lobby.leave_queue(alice) and lobby.waiting("tenhou") == 0
    assert not lobby.leave_queue(alice)
    clock.advance(60)
    await lobby.settle()
    assert seated(alice) is None and not lobby.tables


@pytest.mark.asyncio
async def test_a_closed_connection_leaves_the_queue() -> None:
    lobby, _ = make_lobby()
    alice = FakeParticipant(account("alice"))
    await lobby.join_queue(alice, "tenhou", 1)
    lobby.forget(alice)
    assert lobby.waiting("tenhou") == 0


@pytest.mark.asyncio
async def test_bots_cannot_open_private_tables_and_scopes_are_checked() -> None:
    lobby, _ = make_lobby()
    with pytest.raises(LobbyError) as err:
        await lobby.create_private(account("robot", AccountKind.BOT))
    assert err.value.code is ErrorCode.FORBIDDEN
    watcher = FakeParticipant(account("robot", AccountKind.BOT))
    assert Scope.SPECTATE not in watcher.account.scopes
    alice = FakeParticipant(account("alice"))
    await lobby.join_queue(alice, "tenhou+bots", 1)
    match_id = seated(alice).match_id  # type: ignore[union-attr]
    await lobby.spectate(watcher, match_id, 9)
    assert watcher.errors()[0].code is ErrorCode.FORBIDDEN


@pytest.mark.asyncio
async def test_private_table_with_invite_code_rules_and_bots() -> None:
    lobby, clock = make_lobby()
    alice, bob = FakeParticipant(account("alice")), FakeParticipant(account("bob"))
    invite = await lobby.create_private(
        alice.account,
        rules={"start_points": 30000, "return_points": 30000},
        bots=2,
        timers={"action_ms": 3000},
    )
    assert invite.humans == 2 and len(invite.code) == 9
    await lobby.join_private(alice, invite.code.lower(), 1)  # codes are case-insensitive
    assert alice.of(QueuedOut)[-1].players_waiting == 1
    clock.advance(3600 - 1)
    await lobby.join_private(bob, invite.code, 2)
    a, b = seated(alice), seated(bob)
    assert a is not None and b is not None and a.match_id == b.match_id
    table = lobby.table(a.match_id)
    assert table is not None and table.ruleset.start_points == 30000 and table.timers.action_ms == 3000
    assert sum(1 for p in a.players if p.kind is AccountKind.BOT) == 2
    carol = FakeParticipant(account("carol"))
    await lobby.join_private(carol, invite.code, 3)  # the table is full: the code is spent
    assert carol.errors()[0].code is ErrorCode.NOT_FOUND


@pytest.mark.asyncio
async def test_private_invitations_expire_and_options_are_validated() -> None:
    lobby, clock = make_lobby()
    alice = FakeParticipant(account("alice"))
    invite = await lobby.create_private(alice.account, bots=1)
    await lobby.join_private(alice, invite.code, 1)
    clock.advance(3600)
    await lobby.join_private(FakeParticipant(account("bob")), invite.code, 2)
    assert [type(i) for i in alice.items[-2:]] == [ErrorOut, LeftOut]
    for bad in (
        {"rules": {"no_such_rule": 1}},
        {"bots": 4},
        {"bot": "alphago"},
        {"timers": {"action_ms": -1}},
    ):
        with pytest.raises(LobbyError) as err:
            await lobby.create_private(alice.account, **bad)
        assert err.value.code is ErrorCode.MALFORMED
    for _ in range(3):
        await lobby.create_private(alice.account)
    with pytest.raises(LobbyError):
        await lobby.create_private(alice.account)


@pytest.mark.asyncio
async def test_spectate_and_resume() -> None:
    lobby, _ = make_lobby()
    alice, watcher = FakeParticipant(account("alice")), FakeParticipant(account("watcher"))
    await lobby.join_queue(alice, "tenhou+bots", 1)
    s = seated(alice)
    assert s is not None and s.seat is not None
    await lobby.spectate(watcher, "m-nope", 5)
    assert watcher.errors()[0].code is ErrorCode.NOT_FOUND
    await lobby.spectate(watcher, s.match_id, 6)
    await lobby.settle()
    assert seated(watcher) is not None and seated(watcher).seat is None  # type: ignore[union-attr]
    await lobby.spectate(alice, s.match_id, 7)
    assert alice.errors()[-1].code is ErrorCode.FORBIDDEN  # a player resumes, she does not spectate
    again = FakeParticipant(alice.account)
    await lobby.resume(again, s.match_id, 0, 8)
    await lobby.settle()
    catchup = again.of(CatchupOut)
    assert catchup and catchup[0].seat == s.seat


@pytest.mark.asyncio
async def test_shutdown_refuses_new_joins() -> None:
    lobby, _ = make_lobby()
    alice = FakeParticipant(account("alice"))
    await lobby.join_queue(alice, "tenhou+bots", 1)
    await lobby.shutdown()
    assert all(not t.running for t in lobby.tables.values())
    bob = FakeParticipant(account("bob"))
    await lobby.join_queue(bob, "tenhou", 2)
    assert bob.errors()[0].code is ErrorCode.BUSY_RETRY


@pytest.mark.asyncio
async def test_a_slow_store_does_not_block_another_players_queue_join() -> None:
    store = SlowStore()
    lobby, _ = make_lobby(store)
    alice, bob = FakeParticipant(account("alice")), FakeParticipant(account("bob"))
    starting = asyncio.create_task(lobby.join_queue(alice, "tenhou+bots", 1))
    await store.entered.wait()  # alice's table is being stored, and the store hangs
    finishes_without_waiting(lobby.join_queue(bob, "tenhou", 2))
    assert bob.of(QueuedOut) == [QueuedOut("tenhou", 1)]
    assert lobby.waiting("tenhou") == 1
    (table,) = lobby.tables.values()  # alice's seat is reserved meanwhile
    assert [m for m, _ in lobby.live_seats(alice.account.id)] == [table.match_id]
    assert not alice.items
    store.release.set()
    await starting
    await lobby.settle()
    assert seated(alice) is not None and seated(alice).match_id == table.match_id  # type: ignore[union-attr]
    assert table.running


@pytest.mark.asyncio
async def test_a_table_that_cannot_be_stored_gives_its_seats_back() -> None:
    store = SlowStore()
    lobby, _ = make_lobby(store)
    players = [FakeParticipant(account(f"p{i}")) for i in range(4)]
    for p in players[:3]:
        await lobby.join_queue(p, "tenhou", 1)
    starting = asyncio.create_task(lobby.join_queue(players[3], "tenhou", 1))
    await store.entered.wait()
    carol = FakeParticipant(account("carol"))
    finishes_without_waiting(lobby.join_queue(carol, "tenhou", 2))  # a new queue forms meanwhile
    assert carol.of(QueuedOut) == [QueuedOut("tenhou", 1)]
    store.fail = True
    store.release.set()
    await starting
    for p in players:
        assert [e.code for e in p.errors()] == [ErrorCode.BUSY_RETRY]
        assert seated(p) is None
        assert lobby.live_seats(p.account.id) == []
    assert lobby.tables == {}
    assert lobby.waiting("tenhou") == 1  # carol still waits
    await lobby.join_queue(players[0], "tenhou", 3)  # joining again works
    assert players[0].of(QueuedOut)[-1] == QueuedOut("tenhou", 2)
