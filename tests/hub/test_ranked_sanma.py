"""Three-player ranked rooms in the lobby (docs/ranking.md, "Three-player rooms"): a sanma room seats
three players of the ``tenhou-sanma`` ruleset at the queue's length and never fills with bots; its
entry requirement reads the player's three-player standing, not the four-player one; the sanma bot
ladder takes bot accounts only; a played match is rated on the sanma board."""

from __future__ import annotations

import json
import random

import pytest

from client_protocol.errors import ErrorCode
from server.domain.ranked import Board
from server.domain.records import AccountKind, MatchStatus
from server.hub.clock import ManualClock
from server.hub.lobby import Lobby
from server.hub.outputs import QueuedOut, SeatedOut
from server.hub.settings import HubSettings, TableTimers
from server.ranking import CURRENT, Length, Standing
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST, FakeParticipant, account

pytestmark = pytest.mark.asyncio


def make_lobby(repo: InMemoryRepository, timers: TableTimers) -> tuple[Lobby, ManualClock]:
    clock = ManualClock()
    lobby = Lobby(
        repo=repo,
        clock=clock,
        settings=HubSettings(timers=timers, bot_fill_after_s=1.0),
        rulesets={"tenhou": EAST},
        seed_source=lambda: b"sanma-ranked-seed",
        rng=random.Random(5),
        ratings=repo,
    )
    return lobby, clock


def player(name: str, kind: AccountKind = AccountKind.PLAYER) -> FakeParticipant:
    return FakeParticipant(account(name, kind))


async def test_sanma_entry_reads_the_sanma_standing() -> None:
    repo = InMemoryRepository()
    lobby, _ = make_lobby(repo, TableTimers(bot_delay_ms=60_000))
    strong = player("strong")
    # 4 dan, R 1900 in four-player; a novice in three-player: not yet a sanma expert.
    repo._standings[(strong.account.id, Board.RANKED.value, Length.EAST.value)] = Standing(
        rank=CURRENT.rank_index("4d"), rating=1900.0
    )
    await lobby.join_queue(strong, "ranked:sanma-expert:east", 1)
    [error] = strong.errors()
    assert error.code is ErrorCode.FORBIDDEN and "you are Novice" in error.message
    repo._standings[(strong.account.id, Board.SANMA.value, Length.EAST.value)] = Standing(
        rank=CURRENT.rank_index("4d"), rating=1800.0
    )
    await lobby.join_queue(strong, "ranked:sanma-expert:east", 2)
    assert strong.of(QueuedOut) == [QueuedOut("ranked:sanma-expert:east", 1)]
    human, robo = player("human"), player("robo", AccountKind.BOT)
    await lobby.join_queue(human, "sanma-ladder", 3)
    await lobby.join_queue(robo, "ranked:sanma-open:east", 4)
    assert "bot accounts only" in human.errors()[0].message
    assert "ladder" in robo.errors()[0].message


async def test_the_sanma_bot_ladder_seats_three_bots() -> None:
    repo = InMemoryRepository()
    lobby, clock = make_lobby(repo, TableTimers(bot_delay_ms=60_000))
    bots = [player(f"b{i}", AccountKind.BOT) for i in range(3)]
    for b in bots[:2]:
        await lobby.join_queue(b, "sanma-ladder:east_south", 1)
    clock.advance(3600)  # never filled with built-in bots
    await lobby.settle()
    assert not bots[0].of(SeatedOut)
    await lobby.join_queue(bots[2], "sanma-ladder:east_south", 1)
    await lobby.settle()
    [seated] = bots[0].of(SeatedOut)
    assert sorted(s.kind.value for s in seated.players) == ["bot"] * 3
    match = await repo.get_match(seated.match_id)
    assert match is not None and match.source == "ranked:sanma-ladder:east_south"
    rules = json.loads(match.ruleset_json)
    assert (rules["seats"], rules["game_length"]) == (3, "east_south")


async def test_a_sanma_ranked_match_is_played_and_rated_on_the_sanma_board() -> None:
    repo = InMemoryRepository()
    lobby, clock = make_lobby(repo, TableTimers(action_ms=10, bank_ms=0))
    players = [player(f"s{i}") for i in range(3)]
    for p in players:
        await lobby.join_queue(p, "ranked:sanma-open:east", 1)
    await lobby.settle()
    [seated] = players[0].of(SeatedOut)
    assert len(seated.players) == 3
    for _ in range(20_000):
        if await repo.get_result(seated.match_id) is not None:
            break
        clock.advance(0.01)
        await lobby.settle()
    result = await repo.get_result(seated.match_id)
    assert result is not None, "the match did not end"
    match = await repo.get_match(seated.match_id)
    assert match is not None and match.status is MatchStatus.COMPLETED
    assert sorted(result.ranks) == [1, 2, 3]
    by_seat = {s.seat: str(s.account_id) for s in match.seats}
    for seat, placement in enumerate(result.ranks):
        standing = await repo.standing(by_seat[seat], Board.SANMA, Length.EAST)
        assert standing.games == 1
        assert standing.placements == tuple(int(i + 1 == placement) for i in range(4))
        assert (await repo.standing(by_seat[seat], Board.RANKED, Length.EAST)).games == 0
        [change] = await repo.rating_history(by_seat[seat], Board.SANMA, Length.EAST)
        assert (change.placement, change.table_version) == (placement, "tenhou-3p-2")
