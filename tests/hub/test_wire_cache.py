"""A prompt's ``legal_actions`` come from a cache of wire forms (issue 17): the same as converting
each action afresh, in the same order, whatever order the actions come in."""

from __future__ import annotations

import random

from server.engine.actions import Action, Ankan, Chi, Discard, Pass, Pon, Riichi, Ron, Tsumo
from server.hub.wire import _action_sort_key, _to_wire, legal_actions_to_wire

ACTIONS: list[Action] = [
    Discard(35),
    Discard(35, tsumogiri=True),
    Discard(36),
    Riichi(35),
    Riichi(0, tsumogiri=True),
    Chi((1, 2)),
    Chi((5, 6)),
    Pon((31, 31)),
    Ankan((0, 1, 2, 3)),
    Tsumo(),
    Ron(),
    Pass(),
]


def test_cached_wire_forms_are_the_fresh_ones_in_the_same_order() -> None:
    fresh = tuple(_to_wire(a) for a in sorted(ACTIONS, key=_action_sort_key))
    rng = random.Random(17)
    for _ in range(20):
        shuffled = ACTIONS[:]
        rng.shuffle(shuffled)
        assert legal_actions_to_wire(frozenset(shuffled)) == fresh
        assert legal_actions_to_wire(shuffled) == fresh


def test_equal_actions_share_one_entry_and_different_ones_do_not() -> None:
    (a,) = legal_actions_to_wire([Discard(35)])
    (b,) = legal_actions_to_wire([Discard(35)])
    (c,) = legal_actions_to_wire([Riichi(35)])
    assert a is b
    assert a != c and c.type.value == "riichi"
