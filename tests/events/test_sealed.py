"""A finished table of a duplicate round is sealed in the game review (as a live game is) until its
round finishes: another table of the set may still be playing the same walls."""

from __future__ import annotations

import pytest

from server.app.compose import event_store
from server.services.eventrules import sealed_games
from server.services.review import GameLiveError, Review
from tests.events.kit import DUPLICATE, World

pytestmark = pytest.mark.asyncio


async def test_a_duplicate_round_s_games_are_sealed_until_it_finishes() -> None:
    w = World()
    await w.setup()
    review = Review(w.repo, sealed=sealed_games(event_store(w.repo)))
    event_id = await w.bot_event(8, **DUPLICATE)
    await w.play_round(event_id)
    (round_,) = await event_store(w.repo).rounds(event_id)
    match_id = round_.tables[0].match_id
    assert match_id is not None
    with pytest.raises(GameLiveError, match="sealed until the round ends"):
        await review.walls(match_id)
    detail = await review.detail(match_id)
    assert detail.seed is None and detail.hands == []
    await w.service.finish_round(w.org, event_id)
    report = await review.walls(match_id)
    assert report.all_ok and report.seed is not None
    assert (await review.detail(match_id)).hands


async def test_games_without_duplicate_walls_are_not_sealed() -> None:
    w = World()
    await w.setup()
    review = Review(w.repo, sealed=sealed_games(event_store(w.repo)))
    event_id = await w.bot_event(4)
    await w.play_round(event_id)
    (round_,) = await event_store(w.repo).rounds(event_id)
    assert (await review.walls(round_.tables[0].match_id or "")).all_ok
