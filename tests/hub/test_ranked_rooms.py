"""Ranked rooms in the lobby (docs/ranking.md): entry requirements refused with a typed error, never
filled with built-in bots, leaving the queue, the match's source that makes the store rate it, a
player gone for good rated with their placement."""

from __future__ import annotations

import random

import pytest

from client_protocol.errors import ErrorCode
from server.domain.ranked import Board
from server.domain.records import AccountKind
from server.hub.clock import ManualClock
from server.hub.lobby import Lobby
from server.hub.outputs import QueuedOut, SeatedOut
from server.hub.settings import HubSettings, TableTimers
from server.ranking import CURRENT, Length, Standing
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST, FakeParticipant, account

pytestmark = pytest.mark.asyncio


def make_lobby(repo: InMemoryRepository) -> tuple[Lobby, ManualClock]:
    clock = ManualClock()
    lobby = Lobby(
        repo=repo,
        clock=clock,
        settings=HubSettings(timers=TableTimers(bot_delay_ms=60_000), bot_fill_after_s=1.0),
        rulesets={"tenhou": EAST},
        seed_source=lambda: b"ranked-seed",
        rng=random.Random(3),
        ratings=repo,
    )
    return lobby, clock


def player(name: str) -> FakeParticipant:
    return FakeParticipant(account(name, AccountKind.PLAYER))


async def test_entry_below_the_requirement_is_refused_with_a_typed_error() -> None:
    repo = InMemoryRepository()
    lobby, _ = make_lobby(repo)
    cases = [
        (FakeParticipant(account("guest")), "ranked:open:east", ErrorCode.FORBIDDEN, "registered players"),
        (player("novice"), "ranked:upper:east", ErrorCode.FORBIDDEN, "needs 1 kyu or higher; you are Novice"),
        (player("p"), "ranked:nowhere:east", ErrorCode.NOT_FOUND, "no ranked room"),
        (player("p"), "ranked:open:hanchan", ErrorCode.NOT_FOUND, "no ranked room"),
        (
            FakeParticipant(account("robo", AccountKind.BOT)),
            "ranked:open:east",
            ErrorCode.FORBIDDEN,
            "ladder",
        ),
        (player("human"), "ranked:ladder:east", ErrorCode.FORBIDDEN, "bot accounts only"),
    ]
    for p, queue, code, text in cases:
        await lobby.join_queue(p, queue, 9)
        [error] = p.errors()
        assert (error.code, error.request_id) == (code, 9), queue
        assert text in error.message, error.message
        assert not p.of(QueuedOut)
    # 4 dan with R 1799: not yet expert; with R 1800 it is.
    strong = player("strong")
    repo._standings[(strong.account.id, Board.RANKED.value, Length.EAST.value)] = Standing(
        rank=CURRENT.rank_index("4d"), rating=1799.0
    )
    await lobby.join_queue(strong, "ranked:expert:east", 1)
    assert "R 1800 or higher" in strong.errors()[0].message
    repo._standings[(strong.account.id, Board.RANKED.value, Length.EAST.value)] = Standing(
        rank=CURRENT.rank_index("4d"), rating=1800.0
    )
    await lobby.join_queue(strong, "ranked:expert:east", 2)
    assert strong.of(QueuedOut) == [QueuedOut("ranked:expert:east", 1)]


async def test_a_ranked_queue_waits_for_players_and_never_for_bots() -> None:
    repo = InMemoryRepository()
    lobby, clock = make_lobby(repo)
    players = [player(f"p{i}") for i in range(5)]
    for p in players[:3]:
        await lobby.join_queue(p, "ranked:open:east", 1)
    clock.advance(3600)  # an hour: the bots' fill-in (1 s) never comes
    await lobby.settle()
    assert all(not p.of(SeatedOut) for p in players)
    assert players[0].of(QueuedOut)[-1] == QueuedOut("ranked:open:east", 3)
    assert lobby.leave_queue(players[2])  # leaving works
    assert players[0].of(QueuedOut)[-1] == QueuedOut("ranked:open:east", 2)
    await lobby.join_queue(players[3], "ranked:open:east", 1)
    await lobby.join_queue(players[4], "ranked:open:east", 1)
    await lobby.settle()
    [seated] = players[0].of(SeatedOut)
    assert sorted(s.kind.value for s in seated.players) == ["player"] * 4
    match = await repo.get_match(seated.match_id)
    assert match is not None and match.source == "ranked:open:east"
    assert "east" in match.ruleset_json and '"game_length":"east"' in match.ruleset_json.replace(" ", "")
    assert not players[2].of(SeatedOut)


async def test_a_player_who_disconnects_for_good_still_takes_their_placement() -> None:
    """docs/ranking.md: a player who drops out of a ranked match keeps the seat; the table plays for
    it (here every seat's time runs out, the absent one's first), the match ends and is rated, the
    absent player with the placement the match ends with."""
    from server.domain.records import MatchStatus
    from server.hub.inbox import Detach

    repo = InMemoryRepository()
    clock = ManualClock()
    lobby = Lobby(
        repo=repo,
        clock=clock,
        settings=HubSettings(timers=TableTimers(action_ms=10, bank_ms=0)),
        rulesets={"tenhou": EAST},
        seed_source=lambda: b"ranked-seed",
        rng=random.Random(3),
        ratings=repo,
    )
    players = [player(f"d{i}") for i in range(4)]
    for p in players:
        await lobby.join_queue(p, "ranked:open:east", 1)
    await lobby.settle()
    [seated] = players[0].of(SeatedOut)
    table = lobby.table(seated.match_id)
    assert table is not None
    gone = next(p for p in players if p.of(SeatedOut)[0].seat == 2)
    table.submit(Detach(gone))  # seat 2's connection is lost and never comes back
    lobby.forget(gone)
    for _ in range(20_000):
        if await repo.get_result(seated.match_id) is not None:
            break
        clock.advance(0.01)
        await lobby.settle()
    result = await repo.get_result(seated.match_id)
    assert result is not None, "the match did not end"
    match = await repo.get_match(seated.match_id)
    assert match is not None and match.status is MatchStatus.COMPLETED
    standing = await repo.standing(gone.account.id, Board.RANKED, Length.EAST)
    placement = result.ranks[2]
    assert standing.games == 1
    assert standing.placements == tuple(int(i + 1 == placement) for i in range(4))
    history = await repo.rating_history(gone.account.id, Board.RANKED, Length.EAST)
    assert [(c.match_id, c.seat, c.placement) for c in history] == [(seated.match_id, 2, placement)]
    sources = {s.source for s in await repo.steps(seated.match_id) if s.seat == 2}
    assert "disconnected" in sources  # the table played for the absent seat
    assert len(await repo.steps(seated.match_id)) > 100, "a whole match was played"
