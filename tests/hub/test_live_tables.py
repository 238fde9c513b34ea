"""``GET /tables/live``: the tables a spectator may watch, public information only, cached."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from client_protocol.messages import Seated
from server.domain.records import AccountKind
from server.engine import new_match
from server.engine.events import RoundStarted
from server.engine.rules import TENHOU, Ruleset
from server.hub.livetables import LiveTables, table_entry
from server.hub.outputs import TablePlayerInfo
from server.hub.settings import SpectatePolicy
from server.hub.spectators import EventStream, SpectatorFeed
from tests.hub.netkit import connect_client, http_get, next_of, serving


@dataclass
class _Table:
    match_id: str
    source: str = "queue:tenhou"
    finished: bool = False
    spectate: SpectatePolicy = field(default_factory=SpectatePolicy)
    ruleset: Ruleset = TENHOU
    players: tuple[TablePlayerInfo, ...] = tuple(
        TablePlayerInfo(f"p{i}", AccountKind.GUEST) for i in range(4)
    )
    watching: int = 0
    hand: RoundStarted | None = None

    def shown_to_spectators(self) -> tuple[int, RoundStarted | None]:
        return self.watching, self.hand

    def overlay(self) -> dict[str, Any]:
        return {"match_id": self.match_id}


def test_private_finished_and_unwatchable_tables_are_not_listed() -> None:
    assert table_entry(_Table("m-1", source="private:ABCD-EFGH")) is None
    assert table_entry(_Table("m-1", finished=True)) is None
    assert table_entry(_Table("m-1", spectate=SpectatePolicy(allowed=False))) is None
    entry = table_entry(_Table("m-1", watching=2))
    assert entry == {
        "match_id": "m-1",
        "ruleset": "tenhou",
        "game_length": "east_south",
        "players": [{"name": f"p{i}", "kind": "guest"} for i in range(4)],
        "round": None,
        "spectators": 2,
    }
    assert "ABCD" not in json.dumps(table_entry(_Table("m-2")))


def test_a_private_table_of_one_player_and_three_bots_is_listed() -> None:
    """The page's east-only game against bots is a private table nobody was invited to (issue 29)."""
    bots = tuple(TablePlayerInfo(f"bot-{i}", AccountKind.BOT) for i in range(3))
    alone = (TablePlayerInfo("alice", AccountKind.GUEST), *bots)
    entry = table_entry(_Table("m-1", source="private:ABCD-EFGH", players=alone))
    assert entry is not None and "ABCD" not in json.dumps(entry)
    two = (TablePlayerInfo("alice", AccountKind.GUEST), TablePlayerInfo("bob", AccountKind.PLAYER), *bots[:2])
    assert table_entry(_Table("m-1", source="private:ABCD-EFGH", players=two)) is None


def test_between_two_hands_the_hand_just_played_is_listed() -> None:
    """The next hand waits for the hand pause while the last one is forgotten already: the list
    shows the last hand, not "starting" (issue 29)."""
    first = new_match(TENHOU, b"live")
    stream = EventStream()
    stream.append(first.events, 10.0)
    stream.publish(len(first.events), 10.0)
    feed = SpectatorFeed("m-1", SpectatePolicy(delay_s=0.0))
    feed.release(11.0, stream)
    shown = feed.latest_round(stream, 11.0)
    assert isinstance(shown, RoundStarted)
    deal = new_match(TENHOU, b"next").events
    assert isinstance(deal[1], RoundStarted)
    stream.append(deal[1:], 12.0)  # the next hand's deal, held back for the hand pause
    stream.forget(feed.released)  # what the table does once the seats saw the hand's end
    assert stream.base > 0
    assert feed.latest_round(stream, 12.0) == shown


def test_the_listing_is_rebuilt_at_most_once_per_ttl() -> None:
    tables = [_Table("m-2"), _Table("m-1")]
    now = [0.0]
    live = LiveTables(lambda: tables, now=lambda: now[0], ttl_s=2.0)
    assert [t["match_id"] for t in live.listing()["tables"]] == ["m-1", "m-2"]  # by id, not by age
    tables.append(_Table("m-3"))
    now[0] = 1.0
    assert len(live.listing()["tables"]) == 2  # the cached copy
    now[0] = 2.0
    assert len(live.listing()["tables"]) == 3


def test_the_round_listed_is_the_one_a_spectator_may_see_after_the_delay() -> None:
    """With nobody watching, the listed hand is the one a spectator joining now would be shown:
    a hand started less than the delay ago is not listed yet (the last hand's end is not told)."""
    t = new_match(TENHOU, b"live")
    stream = EventStream()
    stream.append(t.events, 10.0)
    stream.publish(len(t.events), 10.0)
    feed = SpectatorFeed("m-1", SpectatePolicy(delay_s=5.0))
    assert feed.latest_round(stream, 12.0) is None
    shown = feed.latest_round(stream, 15.0)
    assert isinstance(shown, RoundStarted) and (shown.round_wind, shown.kyoku, shown.honba) == (0, 0, 0)
    behind = SpectatorFeed("m-1", SpectatePolicy(delay_steps=len(t.events), delay_s=0.0))
    assert behind.latest_round(stream, 99.0) is None  # that many more events must be shown first


@pytest.mark.asyncio
async def test_a_live_table_is_listed_with_its_round_and_spectators_and_a_private_one_is_not() -> None:
    async with serving() as hub:
        hub.live_tables.ttl_s = 0.0
        assert json.loads((await http_get(hub, "/tables/live"))[1]) == {"tables": []}
        alice = await connect_client(hub, "alice")
        await alice.join_queue("tenhou+bots")
        seated = await next_of(alice, Seated)
        table = hub.lobby.table(seated.match_id)
        assert table is not None
        await table.settle()
        (entry,) = json.loads((await http_get(hub, "/tables/live"))[1])["tables"]
        assert entry["round"] == {"round_wind": 0, "kyoku": 0, "honba": 0} and entry["spectators"] == 0
        bob = await connect_client(hub, "bob")
        assert bob.welcome is not None
        auth = {"Authorization": f"Bearer {bob.welcome.session_token}"}
        status, body = await http_get(hub, "/private/new?bots=3", auth)
        assert status == 200, body
        await bob.join_private(json.loads(body)["code"])
        await next_of(bob, Seated)
        carol = await connect_client(hub, "carol")
        await carol.spectate(seated.match_id)
        await next_of(carol, Seated)
        await table.settle()
        status, body = await http_get(hub, "/tables/live")
        assert status == 200
        # bob's private table against 3 bots is listed (nobody was invited to it)
        entries = {e["match_id"]: e for e in json.loads(body)["tables"]}
        assert len(entries) == 2
        entry = entries[seated.match_id]
        assert entry["spectators"] == 1
        assert "alice" in [p["name"] for p in entry["players"]]
        assert entry["round"] == {"round_wind": 0, "kyoku": 0, "honba": 0}
        for client in (alice, bob, carol):
            await client.close()
