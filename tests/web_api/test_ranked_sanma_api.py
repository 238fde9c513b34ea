"""Three-player ranked play over HTTP (docs/ranking.md, "Three-player rooms"): the sanma rooms are
listed with their seat count, the sanma leaderboard is its own, and a profile shows a player's
three-player rank, R and placements apart from the four-player ones (``sanma``)."""

from __future__ import annotations

import pytest

from server.domain.ranked import Board
from server.domain.records import AccountKind, MatchRecord, MatchStatus, ResultRecord, SeatRecord
from server.ranking import Length
from server.services.ratings import RatingService
from tests.web_api.test_ranked_api import Env, env  # noqa: F401 (the fixture)

pytestmark = pytest.mark.asyncio


async def _ranked(e: Env, match_id: str, ids: list[str], source: str, ranks: tuple[int, ...]) -> None:
    n = len(ids)
    await e.repo.create_match(
        MatchRecord(
            id=match_id,
            ruleset_json="{}",
            ruleset_hash="0" * 64,
            seed_commitment="0" * 64,
            engine_version="1",
            wall_algorithm="t",
            seats=tuple(SeatRecord(i, f"p{i + 1}", AccountKind.PLAYER, a) for i, a in enumerate(ids)),
            status=MatchStatus.RUNNING,
            created_at=1.0,
            source=source,
        )
    )
    await RatingService(e.repo).record_result(ResultRecord(match_id, (35000,) * n, ranks, (0.0,) * n))


async def test_sanma_rooms_leaderboard_and_profile(env: Env) -> None:  # noqa: F811
    c = env.client
    ids = []
    for name in ("p1", "p2", "p3", "p4"):
        r = await c.post("/api/accounts/register", json={"name": name, "password": "password!"})
        ids.append(r.json()["account"]["id"])
    await _ranked(env, "m-4", ids, "ranked:open:east", (1, 2, 3, 4))
    await _ranked(env, "m-3", ids[1:], "ranked:sanma-open:east", (3, 2, 1))  # p4 first, p2 last
    assert (await env.repo.standing(ids[3], Board.SANMA, Length.EAST)).games == 1

    rooms = {r["queue"]: r for r in (await c.get("/api/rooms")).json()}
    assert rooms["ranked:sanma-open:east"]["seats"] == 3 and rooms["ranked:open:east"]["seats"] == 4
    assert rooms["ranked:sanma-ladder:east_south"]["bots_only"] is True
    assert rooms["ranked:sanma-expert:east"]["requirement"] == "4 dan or higher and R 1800 or higher"

    sanma = (await c.get("/api/leaderboard", params={"room": "sanma-open", "length": "east"})).json()
    assert (sanma["seats"], sanma["total"]) == (3, 3)
    assert [e["name"] for e in sanma["entries"]] == ["p4", "p3", "p2"]
    assert sanma["entries"][0]["standing"]["placements"] == [1, 0, 0]
    four = (await c.get("/api/leaderboard", params={"room": "open", "length": "east"})).json()
    assert (four["seats"], four["total"], four["entries"][0]["name"]) == (4, 4, "p1")
    assert (await c.get("/api/leaderboard", params={"room": "sanma-nope"})).status_code == 404

    prof = (await c.get("/api/players/p4")).json()
    east4 = next(s for s in prof["standings"] if s["length"] == "east")
    east3 = next(s for s in prof["sanma"]["standings"] if s["length"] == "east")
    assert (east4["placements"], east4["rank"]) == ([0, 0, 0, 1], "new")
    assert (east3["placements"], east3["rank"], east3["average_placement"]) == ([1, 0, 0], "9k", 1.0)
    assert east3["rating"] == pytest.approx(1530) and east4["rating"] == pytest.approx(1470)
    assert [h["match_id"] for h in prof["sanma"]["history"]["east"]] == ["m-3"]
    assert [h["match_id"] for h in prof["history"]["east"]] == ["m-4"]
    assert prof["sanma"]["stats"]["east"]["matches"] == 1

    token = (await c.post("/api/accounts/signin", json={"name": "p2", "password": "password!"})).json()[
        "session_token"
    ]
    me = (await c.get("/api/accounts/me", headers={"Authorization": f"Bearer {token}"})).json()
    assert next(s for s in me["sanma_standings"] if s["length"] == "east")["placements"] == [0, 0, 1]
    entry = {r["queue"]: r["may_enter"] for r in me["rooms"]}
    assert entry["ranked:sanma-open:east"] is True and entry["ranked:sanma-upper:east"] is False
