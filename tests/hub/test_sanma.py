"""Three-player tables on a real hub (memory store, fast timers): the factory seats three for a
three-player ruleset and refuses a spec whose seat count is not the ruleset's; quick match (three
players, and ``+bots`` with two bots), a private three-player table, spectating, reconnecting and
crash recovery, as for four."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from client_protocol.messages import MatchEnd, MatchEndReason, Prompt, Queued, Seated, Snapshot
from server.domain.records import MatchStatus
from server.engine import redact_all
from server.engine.rules import TENHOU_SANMA, GameLength
from server.hub.clock import ManualClock
from server.hub.lobby import QUEUE_PRESETS, Lobby
from server.hub.outputs import CatchupOut, MatchEndOut
from server.hub.settings import HubSettings, TableTimers
from server.services.tables import SeatRequest, TableSpec, TableSpecError
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST, FakeParticipant, account
from tests.hub.netkit import connect_client, http_get, next_of, play, serving
from tests.hub.test_network import assert_view_matches_engine
from tests.hub.test_recovery import BOT_DELAY_MS, SEED, Player
from tests.hub.test_recovery import play as play_fake
from tests.hub.test_table_factory import factory

SANMA_EAST = TENHOU_SANMA.with_options(game_length=GameLength.EAST)
RULESETS = {"tenhou-sanma": SANMA_EAST}


def test_the_hub_offers_the_three_player_presets_in_both_lengths() -> None:
    for name in ("tenhou-sanma", "mahjongsoul-sanma"):
        assert QUEUE_PRESETS[name].seats == 3 and QUEUE_PRESETS[name].game_length is GameLength.EAST_SOUTH
        east = QUEUE_PRESETS[f"{name}-east"]
        assert east.seats == 3 and east.game_length is GameLength.EAST and east.name == name
    assert all(QUEUE_PRESETS[name].seats == 4 for name in ("tenhou", "mahjongsoul", "ema"))


@pytest.mark.asyncio
async def test_the_factory_makes_three_seats_for_a_three_player_ruleset_and_refuses_a_mismatch() -> None:
    repo = InMemoryRepository()
    tables = factory(ManualClock(), repo)
    alice = FakeParticipant(account("alice"))
    three = (SeatRequest.player(alice.account), SeatRequest.built_in(), SeatRequest.empty())
    with pytest.raises(TableSpecError, match="3 seats, got 4"):
        tables.reserve(TableSpec(seats=(*three, SeatRequest.empty()), ruleset=SANMA_EAST, source="t"))
    with pytest.raises(TableSpecError, match="4 seats, got 3"):
        tables.reserve(TableSpec(seats=three, ruleset=EAST, source="t"))
    assert not tables.tables  # nothing was made
    made = TableSpec(seats=three, ruleset=SANMA_EAST, source="t")
    table = await tables.start(tables.reserve(made, {0: alice}))
    await table.settle()
    assert len(table.seats) == 3 and table.state is not None and len(table.state.scores) == 3
    stored = await repo.get_match(table.match_id)
    assert stored is not None and len(stored.seats) == 3
    await table.stop()


@pytest.mark.asyncio
async def test_three_network_clients_play_a_three_player_match() -> None:
    async with serving(rulesets=RULESETS) as hub:
        clients = [await connect_client(hub, f"p{i}") for i in range(3)]
        for client in clients:
            await client.join_queue("tenhou-sanma")

        def chooser(seed: int) -> object:
            rng = random.Random(seed)
            return lambda p: rng.choice(p.legal_actions)

        ends = await asyncio.gather(*(play(c, chooser(i)) for i, c in enumerate(clients)))  # type: ignore[arg-type]
        assert sorted(c.seat for c in clients) == [0, 1, 2]  # type: ignore[type-var]
        match_id = clients[0].match_id
        assert match_id is not None and {c.match_id for c in clients} == {match_id}
        result = await hub.repo.get_result(match_id)
        assert result is not None and len(result.ranks) == 3
        for end in ends:
            assert isinstance(end, MatchEnd) and end.reason is MatchEndReason.COMPLETED
        for client in clients:
            assert await client.verify(hub.repo) > 0  # every event it saw, as stored, redacted for it
        # My games: the finished three-player game, its replay and its exports, for a player of it.
        assert clients[0].welcome is not None
        auth = {"Authorization": f"Bearer {clients[0].welcome.session_token}"}
        status, body = await http_get(hub, "/api/me/games", auth)
        assert status == 200, body
        (game,) = json.loads(body)["games"]
        assert game["id"] == match_id and len(game["seats"]) == 3 and len(game["standings"]) == 3
        status, body = await http_get(hub, f"/api/me/games/{match_id}/replay", auth)
        assert status == 200, body
        for fmt in ("tenhou6", "mjai"):
            status, body = await http_get(hub, f"/api/me/games/{match_id}/export?format={fmt}", auth)
            assert status == 200, (fmt, body[:300])
        status, body = await http_get(hub, "/api/me/games/" + match_id + "/export?format=tenhou6", auth)
        assert sorted(json.loads(body)["name"][:3]) == ["p0", "p1", "p2"]  # the three players' names
        for client in clients:
            await client.close()


@pytest.mark.asyncio
async def test_play_now_seats_two_bots_and_a_spectator_and_a_reconnect_follow_it() -> None:
    timers = TableTimers(action_ms=60_000, bank_ms=0, disconnect_grace_ms=60_000)
    async with serving(rulesets=RULESETS, timers=timers) as hub:
        alice = await connect_client(hub, "alice")
        watcher = await connect_client(hub, "watcher")
        turns = 0

        def some_turns_in(message: object) -> bool:  # deep enough that a resume from 0 is a snapshot
            nonlocal turns
            turns += isinstance(message, Prompt)
            deep = alice.tracker is not None and alice.tracker.version > 70
            return isinstance(message, Prompt) and turns >= 5 and deep

        for _ in range(3):  # a random deal may end the match (a bust) before that: play another
            await alice.join_queue("tenhou-sanma+bots")
            seated = await next_of(alice, Seated)
            assert len(seated.players) == 3 and [p.kind.value for p in seated.players].count("bot") == 2
            await watcher.spectate(seated.match_id)
            watched = await next_of(watcher, Seated)
            assert watched.seat is None and len(watched.players) == 3 and watched.match_id == seated.match_id
            turns = 0
            prompt = await play(alice, stop=some_turns_in)
            if isinstance(prompt, Prompt):
                break
        assert isinstance(prompt, Prompt)
        before = alice.tracker.view()  # type: ignore[union-attr]
        await alice.reconnect()
        again = await next_of(alice, Prompt)
        assert again.step == prompt.step and alice.tracker is not None and alice.tracker.view() == before
        await alice.resume(seated.match_id, since_version=0)
        assert (await next_of(alice, Snapshot)).view == before
        table = hub.lobby.table(seated.match_id)
        assert table is not None and seated.seat is not None
        assert_view_matches_engine(alice.tracker.view(), table, seated.seat)  # norths included
        end = await play(alice)
        assert isinstance(end, MatchEnd) and end.result is not None and len(end.result.ranks) == 3
        assert await alice.verify(hub.repo) > 0
        await alice.close()
        await watcher.close()


@pytest.mark.asyncio
async def test_a_private_three_player_table_with_one_bot() -> None:
    async with serving(rulesets=RULESETS) as hub:
        alice, bob = await connect_client(hub, "alice"), await connect_client(hub, "bob")
        assert alice.welcome is not None
        auth = {"Authorization": f"Bearer {alice.welcome.session_token}"}
        status, body = await http_get(hub, "/private/new?preset=tenhou-sanma&bots=3", auth)
        assert status == 422 and "bots must be 0 to 2" in body  # a three-seat table has no room for 3
        status, body = await http_get(hub, "/private/new?preset=tenhou-sanma&bots=1", auth)
        assert status == 200, body
        invite = json.loads(body)
        assert invite["players_needed"] == 2
        await alice.join_private(invite["code"])
        assert (await next_of(alice, Queued)).players_waiting == 1
        await bob.join_private(invite["code"])
        seated = await next_of(bob, Seated)
        assert len(seated.players) == 3
        ends = await asyncio.gather(play(alice), play(bob))
        assert all(isinstance(e, MatchEnd) and e.result is not None for e in ends)
        await alice.close()
        await bob.close()


def _lobby(repo: InMemoryRepository) -> tuple[Lobby, ManualClock]:
    clock = ManualClock()
    lobby = Lobby(
        repo=repo,
        clock=clock,
        settings=HubSettings(timers=TableTimers(bot_delay_ms=BOT_DELAY_MS), bot_fill_after_s=60.0),
        rulesets=RULESETS,
        seed_source=lambda: SEED,
        rng=random.Random(7),
        wall=lambda: 1_700_000_000.0,
    )
    return lobby, clock


@pytest.mark.asyncio
async def test_a_three_player_match_is_recovered_after_a_restart_and_ends_as_uninterrupted() -> None:
    reference = InMemoryRepository()
    lobby, clock = _lobby(reference)
    alice = Player(FakeParticipant(account("alice")), random.Random(3))
    await lobby.join_queue(alice.p, "tenhou-sanma+bots", 1)
    await lobby.settle()
    (table,) = lobby.tables.values()
    await play_fake(table, clock, alice)
    ref_log = [(s.step, s.seat, s.action, list(s.events)) for s in await reference.steps(table.match_id)]
    await lobby.shutdown()

    repo = InMemoryRepository()
    lobby, clock = _lobby(repo)
    alice = Player(FakeParticipant(account("alice")), random.Random(3))
    await lobby.join_queue(alice.p, "tenhou-sanma+bots", 1)
    await lobby.settle()
    (table,) = lobby.tables.values()
    await play_fake(table, clock, alice, answers=7)
    before = await table.history()
    await lobby.shutdown()  # the process goes away; the match stays running in the store

    lobby, clock = _lobby(repo)
    report = await lobby.recover()
    assert report.resumed == [table.match_id] and not report.diverged
    table = lobby.tables[table.match_id]
    assert len(table.seats) == 3 and await table.history() == before
    alice = Player(FakeParticipant(alice.p.account), alice.rng, alice.rids)
    await lobby.resume(alice.p, table.match_id, len(before), 2)
    await table.settle()
    (catchup,) = alice.p.of(CatchupOut)
    assert catchup.events == redact_all(before, table.seat_of_account(alice.p.account.id))
    await play_fake(table, clock, alice)
    assert [(s.step, s.seat, s.action, list(s.events)) for s in await repo.steps(table.match_id)] == ref_log
    done = await repo.get_match(table.match_id)
    assert done is not None and done.status is MatchStatus.COMPLETED
    assert alice.p.of(MatchEndOut)[-1].result is not None
    await lobby.shutdown()
