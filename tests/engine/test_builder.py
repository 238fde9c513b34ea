"""The transition builder's typed field changes stay in step with the state dataclasses."""

from __future__ import annotations

import dataclasses

from server.engine.builder import HandChanges, PlayerChanges
from server.engine.state import HandState, Player


def test_hand_changes_name_every_hand_state_field() -> None:
    fields = {f.name for f in dataclasses.fields(HandState)}
    assert set(HandChanges.__annotations__) == fields


def test_player_changes_name_every_player_field() -> None:
    fields = {f.name for f in dataclasses.fields(Player)}
    assert set(PlayerChanges.__annotations__) == fields
