"""An event run by the event service on a real hub (as ``jantaku serve`` wires it): bots as
entrants, tables made by the hub's factory, results read from the stored games."""

from __future__ import annotations

import pytest

from server.domain.tournaments import RoundStatus
from server.hub.tables import LocalTable
from server.tournament.duplicate import PublishedSet, check_reveal
from tests.events.kit import DUPLICATE, World
from tests.hub.helpers import EAST

pytestmark = pytest.mark.asyncio


async def test_a_round_plays_to_the_end_and_standings_agree_with_the_stored_games() -> None:
    w = World()
    await w.setup()
    event_id = await w.bot_event(8, **DUPLICATE)
    await w.play_round(event_id)
    rnd = await w.service.finish_round(w.org, event_id)
    assert rnd.status is RoundStatus.FINISHED and len(rnd.tables) == 2
    # standings are the stored results under the points formula (tenhou: 30,000 return, uma, oka)
    totals: dict[str, int] = {}
    for t in rnd.tables:
        assert t.match_id is not None
        result = await w.repo.get_result(t.match_id)
        assert result is not None
        for entrant, points in zip(t.entrants, result.final_points, strict=True):
            totals[entrant] = round(points * 10)
    rows = await w.service.standings(event_id)
    assert {r.name: r.total for r in rows} == totals
    assert [r.total for r in rows] == sorted(totals.values(), reverse=True)
    # duplicate walls: both tables were dealt from the set's seed, revealed now and checkable
    (published,) = rnd.sets
    assert published.seed_hex is not None
    matches = [await w.repo.get_match(t.match_id or "") for t in rnd.tables]
    assert {m.seed_hex for m in matches if m is not None} == {published.seed_hex}
    reveal = PublishedSet(
        published.set_id, published.tables, published.seed_commitment, published.wall_commitments
    )
    assert check_reveal(reveal, bytes.fromhex(published.seed_hex), EAST) == []
    for t in rnd.tables:  # the tables held their reveals (a set's other table shares the walls)
        live = await w.hub.tables.find(t.match_id or "")
        assert isinstance(live, LocalTable) and live.actor.setup.hold_reveals


async def test_a_table_ended_early_counts_its_scores_so_far() -> None:
    w = World()
    await w.setup()
    event_id = await w.bot_event(4)
    await w.service.seat(w.org, event_id)
    rnd = await w.service.start(w.org, event_id)
    match_id = rnd.tables[0].match_id
    assert match_id is not None
    live = await w.hub.tables.find(match_id)
    assert isinstance(live, LocalTable) and not live.actor.setup.hold_reveals  # no shared walls
    await w.service.end_table(w.org, event_id, 0, "the hall closes")
    stored = await w.repo.get_match(match_id)
    assert stored is not None and stored.ended_at is not None
    await w.service.finish_round(w.org, event_id)  # an aborted table has a result: the round ends
    rows = await w.service.standings(event_id)
    assert sorted(r.name for r in rows) == sorted(rnd.tables[0].entrants)
    scores, ranks = await w.service_results().final(match_id) or ((), ())
    assert len(scores) == 4 and sorted(ranks) == [1, 2, 3, 4]
