"""Review without HTTP: stored events decode back to the engine's, the wall verification catches
tampering (a swapped tile, a wrong salt, a wrong seed, a deal that is not the wall's), viewer links."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

import msgspec
import pytest
import pytest_asyncio
from sqlalchemy import update

from server.bots.selfplay import play_events
from server.domain.records import AccountKind, SeatRecord
from server.engine.rules import PRESETS, preset
from server.eventlog.codec import FORMAT_VERSION, StoredEventError, decode_event, decode_events
from server.eventlog.convert import event_to_wire
from server.records.export import export_match
from server.services.review import GameFilters, hand_label
from server.store.db import sqlite_url
from server.store.models import HandResultRow, MatchRow, StepRow
from server.store.repository import SqlRepository
from server.web.api import models as m
from server.web.api.review import Review, viewer_links
from tests.web_api.seed import T0, Seeded, play_match, store_game


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_stored_events_decode_to_the_engine_events(name: str) -> None:
    events = play_events(PRESETS[name], f"decode-{name}".encode(), ["greedy"] * 4)
    stored = [json.loads(msgspec.json.encode(event_to_wire(e))) for e in events]
    assert decode_events(stored, FORMAT_VERSION) == events


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "tile_discarded", "seat": 1, "tile": "8z", "tsumogiri": False, "riichi": False},
        {"type": "tile_discarded", "seat": 9, "tile": "1m", "tsumogiri": False, "riichi": False},
        {"type": "no_such_event"},
        {"seat": 1},
        ["not", "an", "object"],
        None,
    ],
)
def test_malformed_stored_events_are_refused(bad: object) -> None:
    with pytest.raises(StoredEventError):
        decode_event(bad, FORMAT_VERSION)


def test_hand_labels() -> None:
    assert hand_label(0, 0, 0) == "East 1"
    assert hand_label(1, 3, 2) == "South 4, 2 honba"


def test_viewer_links_split_the_document_by_hand() -> None:
    events = play_events(preset("tenhou").with_options(game_length="east"), b"links", ["greedy"] * 4)
    doc = export_match(events, "tenhou6", names=["a", "b", "c", "d"])
    links = viewer_links("m-x", doc, "https://viewer.example/6/").links
    hands = json.loads(doc)["log"]
    assert [link.hand_index for link in links] == list(range(len(hands)))
    for link, hand in zip(links, hands, strict=True):
        head, _, fragment = link.url.partition("#json=")
        assert head == "https://viewer.example/6/"
        assert json.loads(urllib.parse.unquote(fragment))["log"] == [hand]
        assert link.label == hand_label(hand[0][0] // 4, hand[0][0] % 4, hand[0][1])


def test_filters_describe_only_what_is_set() -> None:
    assert GameFilters().describe() == {"limit": 50, "offset": 0}
    f = GameFilters(status=m.StatusFilter.RUNNING, q="x", lineup=m.Lineup.BOTS, limit=5)
    assert f.describe() == {"status": "running", "q": "x", "lineup": "bots", "limit": 5, "offset": 0}


@pytest_asyncio.fixture
async def one_game(tmp_path: Path) -> SqlRepository:
    repo = await SqlRepository.open(sqlite_url(tmp_path / "jantaku.sqlite3"))
    played = play_match("m-t", preset("tenhou").with_options(game_length="east"), b"tamper", created_at=T0)
    seats = [SeatRecord(i, f"b{i}", AccountKind.BOT, None, "greedy") for i in range(4)]
    await store_game(repo, Seeded(), "t", played, seats, created_at=T0)
    return repo


@pytest.mark.asyncio
async def test_an_untouched_game_verifies(one_game: SqlRepository) -> None:
    try:
        report = await Review(one_game).walls("m-t")
        assert report.all_ok and report.seed_ok
        assert all(h.ok and h.commitment_ok and h.from_seed and h.deal_ok for h in report.hands)
    finally:
        await one_game.close()


@pytest.mark.asyncio
async def test_tampering_is_detected(one_game: SqlRepository) -> None:
    repo = one_game
    try:
        hands = await repo.hand_results("m-t")
        first = hands[0]
        assert first.wall is not None and first.wall_salt is not None
        i = next(k for k in range(1, 136) if first.wall[k] != first.wall[0])
        swapped = [first.wall[i], *first.wall[1:i], first.wall[0], *first.wall[i + 1 :]]
        async with repo.engine.begin() as conn:
            await conn.execute(
                update(HandResultRow)
                .where(HandResultRow.match_id == "m-t", HandResultRow.hand_index == 0)
                .values(wall=swapped)
            )
            await conn.execute(
                update(HandResultRow)
                .where(HandResultRow.match_id == "m-t", HandResultRow.hand_index == 1)
                .values(wall_salt="00" * 32)
            )
        report = await Review(repo).walls("m-t")
        h0, h1 = report.hands[0], report.hands[1]
        assert h0.revealed and h0.commitment_ok is False and h0.from_seed is False and not h0.ok
        assert h1.commitment_ok is False and h1.from_seed is False and not h1.ok
        assert all(h.ok for h in report.hands[2:])
        assert not report.all_ok

        # A seed that is not the committed one
        async with repo.engine.begin() as conn:
            await conn.execute(update(MatchRow).where(MatchRow.id == "m-t").values(seed_hex="ab" * 16))
        report = await Review(repo).walls("m-t")
        assert report.seed_ok is False and not report.all_ok
        assert all(h.from_seed is False for h in report.hands)

        # A salt that is not hex, a tile that is not a tile
        async with repo.engine.begin() as conn:
            await conn.execute(
                update(HandResultRow)
                .where(HandResultRow.match_id == "m-t", HandResultRow.hand_index == 2)
                .values(wall_salt="zz", wall=["9z"] * 136)
            )
        report = await Review(repo).walls("m-t")
        assert report.hands[2].commitment_ok is False and not report.hands[2].ok
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_a_deal_that_is_not_the_walls_is_detected(one_game: SqlRepository) -> None:
    repo = one_game
    try:
        deal = (await repo.steps("m-t"))[0]
        events = [dict(e) for e in deal.events]
        start = events[1]
        assert start["type"] == "round_started"
        hands = [list(h) for h in start["hands"]]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
        if sorted(hands[0]) == sorted(start["hands"][0]):  # same tile kind swapped: pick others
            hands[0][0], hands[2][5] = hands[2][5], hands[0][0]
        events[1] = {**start, "hands": hands}
        async with repo.engine.begin() as conn:
            await conn.execute(
                update(StepRow).where(StepRow.match_id == "m-t", StepRow.step == 0).values(events=events)
            )
        report = await Review(repo).walls("m-t")
        assert report.hands[0].commitment_ok and report.hands[0].deal_ok is False and not report.hands[0].ok
        assert not report.all_ok
        # and the export refuses a log whose events do not decode
        async with repo.engine.begin() as conn:
            bad = [*events, {"type": "tile_drawn", "seat": 7, "tile": "1m", "rinshan": False}]
            await conn.execute(
                update(StepRow).where(StepRow.match_id == "m-t", StepRow.step == 0).values(events=bad)
            )
        with pytest.raises(Exception, match="not a valid wire event"):
            await Review(repo).export("m-t", m.ExportFormat.MJAI)
    finally:
        await repo.close()


def test_the_documented_commitment_check_works() -> None:
    """docs/admin.md shows how to check a wall with nothing but Python: that code, on real walls."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "admin.md").read_text(encoding="utf-8")
    section = doc.split("## Verifying the walls", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/admin.md", "exec"), namespace)
    commitment_ok = namespace["commitment_ok"]
    events = play_events(preset("tenhou").with_options(game_length="east"), b"doc", ["greedy"] * 4)
    stored = [json.loads(msgspec.json.encode(event_to_wire(e))) for e in events]
    checked = 0
    commitment = ""
    for e in stored:
        if e["type"] == "round_started":
            commitment = e["wall_commitment"]
        elif e["type"] == "wall_revealed":
            assert commitment_ok(commitment, e["salt"], e["wall"])
            assert not commitment_ok(commitment, e["salt"], e["wall"][::-1])
            checked += 1
    assert checked >= 4
