"""An event's games rated through the ranked standings when its ``ranked`` option is on (never
otherwise), rank and R limits on sign-up read from those standings, and the event's archive (every
game in tenhou.net/6 and mjai, the standings as CSV and JSON, the substitutes' moves marked)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from server.app.compose import event_service
from server.domain.ranked import Board
from server.domain.records import AccountKind
from server.domain.tournaments import DuplicateMode, EventSettings
from server.engine.rules import TENHOU_SANMA
from server.hub.server import Hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.hub.tables import LocalTable
from server.ranking import CURRENT, Length, Standing
from server.services.eventexport import event_archive
from server.services.eventrules import EventError, event_source
from server.services.ratings import RatingService
from server.services.tournaments import Actor
from server.store.db import sqlite_url
from server.store.repository import SqlRepository
from tests.events.kit import World, account
from tests.hub.helpers import EAST

pytestmark = pytest.mark.asyncio

PLAYERS = [account(n) for n in ("ann", "bob", "cat", "dan")]


class FastWorld(World):
    """Players who never connect are played for at once (no decision time): games end by themselves."""

    def __init__(self) -> None:
        super().__init__()
        timers = TableTimers(action_ms=0, bank_ms=0)
        self.hub = Hub(
            HubSettings(port=0, timers=timers, spectate=SpectatePolicy(delay_s=0.0)),
            self.repo,
            ratings=self.repo,
        )
        self.service = event_service(self.repo, self.hub.tables)


async def four_players(w: World, **kw: object) -> str:
    for a in PLAYERS:
        await w.repo.create_account(a)
    base: dict[str, object] = {"name": "League night", "ruleset_json": EAST.to_json(), "rounds": 1}
    event = await w.service.create(w.org, EventSettings(**(base | kw)))  # type: ignore[arg-type]
    for a in PLAYERS:
        await w.service.enter(Actor(a), event.id)
    return event.id


@pytest.mark.parametrize("ranked", [False, True])
async def test_event_games_count_for_ranked_stats_only_when_the_option_is_on(ranked: bool) -> None:
    w = FastWorld()
    await w.setup()
    event_id = await four_players(w, ranked=ranked)
    await w.play_round(event_id)
    rnd = await w.service.finish_round(w.org, event_id)
    match = await w.repo.get_match(rnd.tables[0].match_id or "")
    assert match is not None
    event = (await w.service.view(event_id)).event
    assert match.source == event_source(event, 1, 0)
    assert match.source.endswith(":ranked:open:east") is ranked
    standings = [await w.repo.standing(a.id, Board.RANKED, Length.EAST) for a in PLAYERS]
    assert [s.games for s in standings] == ([1, 1, 1, 1] if ranked else [0, 0, 0, 0])
    history = await w.repo.rating_history(PLAYERS[0].id, Board.RANKED, Length.EAST)
    assert [h.match_id for h in history] == ([match.id] if ranked else [])


async def test_ranked_events_are_four_player_games() -> None:
    w = World()
    await w.setup()
    with pytest.raises(EventError) as err:
        await w.service.create(w.org, EventSettings("x", TENHOU_SANMA.to_json(), 1, ranked=True))
    assert err.value.code == "malformed"


async def test_rank_and_rating_limits_on_open_sign_up() -> None:
    w = World()
    await w.setup()
    strong, weak, guest = account("strong"), account("weak"), account("guest", AccountKind.GUEST)
    for a in (strong, weak, guest):
        await w.repo.create_account(a)
    w.repo._standings[(strong.id, Board.RANKED.value, Length.EAST.value)] = Standing(
        rank=CURRENT.rank_index("2d"), rating=1850.0
    )
    settings = EventSettings("Dan night", EAST.to_json(), 1, min_dan=1, min_rating=1800.0, guests=True)
    event = await w.service.create(w.org, settings)
    assert (await w.service.enter(Actor(strong), event.id)).entrant_id == strong.id
    for who, code, words in ((weak, "forbidden", "1 dan or higher"), (guest, "forbidden", "registered")):
        with pytest.raises(EventError) as err:
            await w.service.enter(Actor(who), event.id)
        assert err.value.code == code and words in err.value.message
    assert [e.entrant_id for e in (await w.service.view(event.id)).entrants] == [strong.id]
    for bad in (
        EventSettings("x", EAST.to_json(), 1, min_dan=0),
        EventSettings("x", EAST.to_json(), 1, min_dan=11),
        EventSettings("x", EAST.to_json(), 1, min_rating=-1.0),
    ):
        with pytest.raises(EventError) as err:
            await w.service.create(w.org, bad)
        assert err.value.code == "malformed"


async def test_the_archive_holds_every_game_in_both_formats_and_the_standings() -> None:
    w = FastWorld()
    await w.setup()
    event_id = await w.bot_event(8, rounds=1, duplicate=DuplicateMode.ROUND)
    await w.service.seat(w.org, event_id)
    await w.service.substitute(
        w.org, event_id, table=1, seat=0, substitute="bot:tsumogiri", reason="swapped before the start"
    )
    rnd = await w.service.start(w.org, event_id)
    for t in rnd.tables:
        live = await w.hub.tables.find(t.match_id or "")
        assert isinstance(live, LocalTable)
        await live.actor.ended.wait()
    # before the round's reveal, a duplicate round's games are not in the archive (shared walls)
    early = zipfile.ZipFile(io.BytesIO(await event_archive(w.service, w.org, event_id)))
    manifest = json.loads(early.read("event.json"))
    assert not [n for n in early.namelist() if n.startswith("games/")]
    assert all(g["files"] == [] and "not_included" in g for g in manifest["games"])
    await w.service.finish_round(w.org, event_id)
    data = await event_archive(w.service, w.org, event_id)
    z = zipfile.ZipFile(io.BytesIO(data))
    names = set(z.namelist())
    for t in rnd.tables:
        base = f"games/r1-t{t.index}-{t.match_id}"
        assert {f"{base}.tenhou6.json", f"{base}.mjai.jsonl"} <= names
        tenhou6 = json.loads(z.read(f"{base}.tenhou6.json"))
        assert tenhou6["log"] and len(tenhou6["name"]) == 4
        lines = [json.loads(x) for x in z.read(f"{base}.mjai.jsonl").decode().splitlines()]
        assert lines[0]["type"] == "start_game" and lines[-1]["type"] == "end_game"
    sub_moves = json.loads(z.read(f"games/r1-t1-{rnd.tables[1].match_id}.moves.json"))
    assert sub_moves and all(m["substitute"] for m in sub_moves if m["seat"] == 0)
    assert {"standings.csv", "standings.json", "event.json"} <= names
    assert z.read("standings.csv").decode().startswith("rank,name,total,games,places,adjustments")
    rows = json.loads(z.read("standings.json"))
    assert {r["name"] for r in rows} == {f"bot:greedy:{n}" for n in range(1, 9)}
    assert data == await event_archive(w.service, w.org, event_id)  # the same stored event, the same bytes
    with pytest.raises(EventError) as err:
        await event_archive(w.service, Actor(PLAYERS[0]), event_id)
    assert err.value.code == "forbidden"


async def test_a_rated_event_game_on_sqlite(tmp_path: Path) -> None:
    """The SQL store rates an event's game as its ranked option says (and lists it as pending)."""
    async with await SqlRepository.open(sqlite_url(str(tmp_path / "jantaku.sqlite3"))) as repo:
        w = FastWorld()
        w.repo = repo  # type: ignore[assignment]
        timers = TableTimers(action_ms=0, bank_ms=0)
        w.hub = Hub(
            HubSettings(port=0, timers=timers, spectate=SpectatePolicy(delay_s=0.0)), repo, ratings=repo
        )
        w.service = event_service(repo, w.hub.tables)
        await w.setup()
        event_id = await four_players(w, ranked=True)
        await w.play_round(event_id)
        await w.service.finish_round(w.org, event_id)
        standings = [await repo.standing(a.id, Board.RANKED, Length.EAST) for a in PLAYERS]
        assert [s.games for s in standings] == [1, 1, 1, 1]
        assert await RatingService(repo).rate_pending() == 0  # rated once, with its result
