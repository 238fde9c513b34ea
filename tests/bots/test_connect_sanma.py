"""Three-player mjai through ``/mjai`` and ``jantaku bot connect``: three bot processes
(``tests/bots/mjai_north.py``) set every north they hold aside with ``nukidora`` and see exactly
their seat's view of the match (the offline per-seat export of its log), leak-scanned."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from server.bots.connect import EXIT_OK, ConnectOptions, Connector
from server.engine.rules import TENHOU_SANMA, GameLength
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
