"""The transition builder's typed field changes stay in step with the state dataclasses."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from server.bots.selfplay import Step, play
from server.engine import new_match
from server.engine.builder import HandChanges, PlayerChanges, _clone_hand, _clone_player
from server.engine.events import TileDiscarded, TileDrawn
from server.engine.melds import Meld, MeldType
from server.engine.rules import TENHOU, Pao
from server.engine.state import HandState, MatchState, Player, RiverTile, Transition, Window
from server.engine.views import PublicSeat, SeatView, seat_view


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


def _instances() -> dict[type[Any], Any]:
    """One instance of each value that spells out its ``__init__``, taken from a real match."""
    found: dict[type[Any], Any] = {}
    for item in play(TENHOU, b"spelled-out", ["greedy"] * 4):
        t = item.transition if isinstance(item, Step) else item
        found.setdefault(Transition, t)
        found.setdefault(MatchState, t.state)
        found.setdefault(HandState, t.state.hand)
        for e in t.events:
            found.setdefault(type(e), e)
        w = t.state.hand.window
        if w is not None and w.answers:
            found.setdefault(Window, w)
        for player in t.state.hand.players:
            if player.river:
                found.setdefault(Player, player)
                found.setdefault(RiverTile, player.river[-1])
        view = seat_view(t.state, 0)
        found.setdefault(SeatView, view)
        found.setdefault(PublicSeat, view.seats[0])
    return found


SPELLED_OUT = [RiverTile, Player, Window, HandState, MatchState, Transition, TileDrawn, TileDiscarded]
SPELLED_OUT += [PublicSeat, SeatView]


@pytest.mark.parametrize("cls", SPELLED_OUT, ids=lambda c: c.__name__)
def test_spelled_out_inits_take_the_fields_in_order_with_their_defaults(cls: type[Any]) -> None:
    """The hot values write their own ``__init__`` (compiled in the mypyc build): its parameters
    are the fields, in order, with the fields' defaults, like the one ``dataclass`` would make."""
    sample = _instances()[cls]
    fields = dataclasses.fields(cls)
    values = [getattr(sample, f.name) for f in fields]
    assert cls(*values) == sample
    assert cls(**{f.name: v for f, v in zip(fields, values, strict=True)}) == sample
    required = {f.name: getattr(sample, f.name) for f in fields if f.default is dataclasses.MISSING}
    bare = cls(**required)
    for f in fields:
        if f.default is not dataclasses.MISSING:
            assert getattr(bare, f.name) == f.default, f.name


def test_builder_copies_keep_every_field() -> None:
    """_clone_hand and _clone_player copy field by field: every field survives the copy."""
    h = new_match(TENHOU, b"clone").state.hand
    copy = _clone_hand(h)
    assert copy == h and copy is not h
    p = dataclasses.replace(
        h.players[0],
        drawn=5,
        melds=(Meld(MeldType.PON, (1, 1, 1), 1, 2),),
        river=(RiverTile(1, False),),
        discarded_kinds=frozenset({1}),
        riichi=True,
        double_riichi=True,
        ippatsu=True,
        furiten_temp=True,
        furiten_riichi=True,
        kuikae=frozenset({2}),
        sideways_pending=True,
        pao_seat=2,
        pao_yakuman=Pao.DAISANGEN,
        norths=2,
    )
    defaults = Player()
    assert all(getattr(p, f.name) != getattr(defaults, f.name) for f in dataclasses.fields(Player))
    assert _clone_player(p) == p


def test_insert_sorted_equals_sorting_the_whole_hand() -> None:
    """insert_sorted slots a tile into a sorted hand; any input gives what sorting would."""
    import random

    from server.engine.options import insert_sorted
    from server.engine.tiles import sort_key

    rng = random.Random(17)
    for _ in range(3000):
        tiles = tuple(rng.randrange(37) for _ in range(rng.randrange(14)))
        if rng.random() < 0.7:
            tiles = tuple(sorted(tiles, key=sort_key))
        tile = rng.randrange(37)
        assert insert_sorted(tiles, tile) == tuple(sorted((*tiles, tile), key=sort_key)), (tiles, tile)


@pytest.mark.parametrize("cls", SPELLED_OUT, ids=lambda c: c.__name__)
def test_spelled_out_values_stay_frozen(cls: type[Any]) -> None:
    """The compiled __init__ stores fields directly; assigning one afterwards still raises."""
    sample = _instances()[cls]
    name = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(sample, name, getattr(sample, name))


def test_players_built_whole_name_every_field() -> None:
    """turns.discard and builder._with_hand build a Player field by field (faster than a copy and
    stores by name): a new Player field must be added there too, then here."""
    assert [f.name for f in dataclasses.fields(Player)] == [
        "hand",
        "drawn",
        "melds",
        "river",
        "discarded_kinds",
        "riichi",
        "double_riichi",
        "ippatsu",
        "furiten_temp",
        "furiten_riichi",
        "kuikae",
        "sideways_pending",
        "pao_seat",
        "pao_yakuman",
        "norths",
    ]
