"""The transition builder's typed field changes stay in step with the state dataclasses."""

from __future__ import annotations

import dataclasses

from server.engine.builder import HandChanges, PlayerChanges
from server.engine.state import HandState, MatchState, Player, Window


def test_hand_changes_name_every_hand_state_field() -> None:
    fields = {f.name for f in dataclasses.fields(HandState)}
    assert set(HandChanges.__annotations__) == fields


def test_player_changes_name_every_player_field() -> None:
    fields = {f.name for f in dataclasses.fields(Player)}
    assert set(PlayerChanges.__annotations__) == fields


def test_the_spelled_out_copies_name_every_field() -> None:
    """Builder.finish builds MatchState and match.apply builds Window field by field (faster than
    dataclasses.replace): a new field must be added there too, then here."""
    assert [f.name for f in dataclasses.fields(MatchState)] == [
        "ruleset",
        "seed",
        "injected_walls",
        "scores",
        "riichi_sticks",
        "step",
        "hand",
        "finished",
    ]
    assert [f.name for f in dataclasses.fields(Window)] == [
        "options",
        "answers",
        "tile",
        "from_seat",
        "riichi",
        "kan",
        "kan_consumed",
    ]
