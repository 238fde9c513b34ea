"""``GET /tables/live``: the tables a spectator may watch, public information only, cached."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from client_protocol.messages import Seated
from server.domain.records import AccountKind
from server.engine.events import RoundStarted
from server.engine.rules import TENHOU, Ruleset
from server.hub.livetables import LiveTables, table_entry
from server.hub.outputs import TablePlayerInfo
from server.hub.settings import SpectatePolicy
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


@pytest.mark.asyncio
async def test_a_live_table_is_listed_with_its_round_and_spectators_and_a_private_one_is_not() -> None:
    async with serving() as hub:
        hub.live_tables.ttl_s = 0.0
        assert json.loads((await http_get(hub, "/tables/live"))[1]) == {"tables": []}
        alice = await connect_client(hub, "alice")
        await alice.join_queue("tenhou+bots")
        seated = await next_of(alice, Seated)
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
        table = hub.lobby.table(seated.match_id)
        assert table is not None
        await table.settle()
        status, body = await http_get(hub, "/tables/live")
        assert status == 200
        (entry,) = json.loads(body)["tables"]  # bob's private table is not listed
        assert entry["match_id"] == seated.match_id and entry["spectators"] == 1
        assert "alice" in [p["name"] for p in entry["players"]]
        assert entry["round"] == {"round_wind": 0, "kyoku": 0, "honba": 0}
        for client in (alice, bob, carol):
            await client.close()
