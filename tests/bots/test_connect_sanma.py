"""Three-player mjai through ``/mjai`` and ``jantaku bot connect``: three bot processes
(``tests/bots/mjai_north.py``) set every north they hold aside with ``nukidora`` and see exactly
their seat's view of the match (the offline per-seat export of its log), leak-scanned; and the
same bots rated on the three-player bot ladder."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from server.bots.connect import EXIT_OK, ConnectOptions, Connector
from server.domain.ranked import Board
from server.domain.records import AccountKind
from server.engine.rules import TENHOU_SANMA, GameLength
from server.ranking import Length
from server.services.ratings import RatingService
from server.store.memory import InMemoryRepository
from tests.bots.mjai_kit import bot_token, expected_lines, mjai_hub, scan

NORTH_BOT = Path(__file__).with_name("mjai_north.py")
SANMA_EAST = TENHOU_SANMA.with_options(game_length=GameLength.EAST)


@pytest.mark.asyncio
async def test_three_mjai_bots_play_a_three_player_match_declaring_north(tmp_path: Path) -> None:
    async with mjai_hub(rulesets={"tenhou-sanma": SANMA_EAST}, seed=b"sanma-mjai-seed") as hub:
        connectors = []
        for i in range(3):
            log = tmp_path / f"bot{i}.jsonl"
            command = (sys.executable, str(NORTH_BOT), "--log", str(log))
            options = ConnectOptions(
                server=f"127.0.0.1:{hub.port}",
                token=await bot_token(hub, f"north{i}"),
                command=command,
                answer_grace_s=0.2,
                queue="tenhou-sanma",
            )
            connectors.append((Connector(options), log))
        codes = await asyncio.gather(*(c.run() for c, _ in connectors))
        assert codes == [EXIT_OK] * 3
        declared = 0
        for c, log in connectors:
            (result,) = c.results
            assert result["result"] is not None
            table = hub.lobby.table(result["match_id"])
            assert table is not None and table.finished and len(table.seats) == 3
            lines = [json.loads(line) for line in log.read_text().splitlines()]
            assert lines == await expected_lines(table, result["seat"])
            assert len(lines[0]["names"]) == 3 and all(
                len(s["tehais"]) == 3 for s in lines if s["type"] == "start_kyoku"
            )
            for line in lines:
                scan(line, result["seat"])
            declared += sum(
                1 for line in lines if line["type"] == "nukidora" and line["actor"] == result["seat"]
            )
        assert declared > 0  # the bots' nukidora answers were played


@pytest.mark.asyncio
async def test_a_sanma_bot_ladder_match_of_three_mjai_bots_is_rated(tmp_path: Path) -> None:
    """``jantaku bot connect --queue sanma-ladder``: three mjai bots of the three-player dialect, one
    match rated on the sanma bot ladder's board (docs/ranking.md, "Three-player rooms"), none on the
    four-player ladder's."""
    repo = InMemoryRepository()
    async with mjai_hub(repo=repo, fill_after_s=0.0, rulesets={"tenhou-sanma": SANMA_EAST}) as hub:
        bots = []
        for i in range(3):
            command = (sys.executable, str(NORTH_BOT), "--log", str(tmp_path / f"b{i}.jsonl"))
            options = ConnectOptions(
                server=f"127.0.0.1:{hub.port}",
                token=await bot_token(hub, f"sanmabot{i}"),
                command=command,
                answer_grace_s=0.2,
                queue="sanma-ladder",
                games=1,
            )
            bots.append(Connector(options))
        assert await asyncio.gather(*(c.run() for c in bots)) == [EXIT_OK] * 3
        match_id = bots[0].results[0]["match_id"]
    match = await repo.get_match(match_id)
    assert match is not None and match.source == "ranked:sanma-ladder:east"
    assert len(match.seats) == 3 and {s.kind for s in match.seats} == {AccountKind.BOT}
    result = await repo.get_result(match_id)
    assert result is not None and sorted(result.ranks) == [1, 2, 3]
    standings = [
        await repo.standing(s.account_id or "", Board.SANMA_LADDER, Length.EAST)
        for s in sorted(match.seats, key=lambda s: s.seat)
    ]
    assert [s.games for s in standings] == [1, 1, 1]
    assert [s.placements.index(1) + 1 for s in standings] == list(result.ranks)
    assert sum(s.rating for s in standings) == pytest.approx(3 * 1500)
    assert await RatingService(repo, clock=lambda: 0.0).rebuild(check=True) == []
    board, total = await repo.leaderboard(Board.SANMA_LADDER, Length.EAST)
    assert total == 3 and {e.name for e in board} == {f"sanmabot{i}" for i in range(3)}
    assert (await repo.leaderboard(Board.LADDER, Length.EAST))[1] == 0
