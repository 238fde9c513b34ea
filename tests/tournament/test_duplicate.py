"""Duplicate walls: the tables of a set deal the same walls, the seats rotate across a set, and the
commitments published when a round starts hold when the seeds are revealed
(server/tournament/duplicate.py)."""

from __future__ import annotations

import pytest

from server.engine import new_match
from server.engine.events import RoundStarted
from server.engine.rules import PRESETS
from server.engine.wall import make_salt, make_wall, verify_wall
from server.tournament.duplicate import (
    check_reveal,
    group_sets,
    publish,
    rotations,
    wall_commitments,
    wall_set_seed,
)
from server.tournament.seating import RoundSeating, SeatingError

RULES = PRESETS["tenhou"]


def first_hand(seed: bytes) -> RoundStarted:
    started = [e for e in new_match(RULES, seed).events if isinstance(e, RoundStarted)]
    return started[0]


def test_tables_of_a_set_deal_the_same_walls() -> None:
    seed = wall_set_seed(b"event secret", 2, 0)
    a, b = first_hand(seed), first_hand(seed)
    assert a.hands == b.hands and a.wall_commitment == b.wall_commitment
    other = first_hand(wall_set_seed(b"event secret", 2, 1))
    assert other.wall_commitment != a.wall_commitment


def test_set_seeds_differ_by_event_round_and_set() -> None:
    seeds = {wall_set_seed(secret, r, s) for secret in (b"a", b"b") for r in (1, 2) for s in (0, 1)}
    assert len(seeds) == 8 and all(len(s) == 32 for s in seeds)


def test_rotations_put_every_entrant_in_every_seat() -> None:
    lineup = ["bot-a", "bot-b", "bot-c", "bot-d"]
    tables = rotations(lineup)
    assert len(tables) == 4
    for seat in range(4):
        assert sorted(t[seat] for t in tables) == sorted(lineup)
    assert rotations(["x", "y", "z"]) == (("x", "y", "z"), ("y", "z", "x"), ("z", "x", "y"))


def test_group_sets() -> None:
    seating = RoundSeating(tuple(tuple(f"e{t}{s}" for s in range(4)) for t in range(4)))
    assert group_sets(seating, None) == ((0, 1, 2, 3),)
    assert group_sets(seating, 2) == ((0, 1), (2, 3))
    with pytest.raises(SeatingError, match="4 tables cannot be grouped into wall sets of 3"):
        group_sets(seating, 3)


def test_published_commitments_are_what_the_tables_show_and_verify() -> None:
    seed = wall_set_seed(b"secret", 1, 0)
    published = publish("r1-s0", (0, 1), seed, RULES, hands=4)
    # the table publishes the same digest when the hand starts
    assert first_hand(seed).wall_commitment == published.wall_commitments[0]
    # the existing wall verifier checks each revealed wall against the round's commitment
    for k, digest in enumerate(published.wall_commitments):
        assert verify_wall(digest, make_salt(seed, k), make_wall(seed, k, RULES.red_fives))
    assert check_reveal(published, seed, RULES) == []


def test_a_wrong_reveal_is_caught() -> None:
    seed = wall_set_seed(b"secret", 1, 0)
    published = publish("r1-s0", (0,), seed, RULES, hands=3)
    problems = check_reveal(published, wall_set_seed(b"secret", 1, 1), RULES)
    assert problems[0] == "set r1-s0: the revealed seed does not hash to its commitment"
    assert "set r1-s0: hand 2's wall differs from its commitment" in problems
    assert wall_commitments(seed, RULES, 2) == published.wall_commitments[:2]
