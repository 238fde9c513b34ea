"""Duplicate walls: every table of a set plays the same walls, so the luck of the deal cancels out.

A round's tables are grouped into **wall sets** (all of the round's tables, or sets of a given size).
Every table of a set gets the same match seed, so hand ``k`` deals the same wall at each of them
(the walls are a function of the seed and the hand's index: ``server/engine/wall.py``). For a bot
comparison, one line-up plays a set of ``seats`` tables with the seats rotated
(:func:`rotations`): each entrant plays every seat position of the same deals.

A set's seed is derived from the event's secret, the round and the set (:func:`wall_set_seed`), so
the organizer cannot pick deals after seeing them. When the round starts, the event publishes for
each set the seed's commitment and the commitment of each of the first ``hands`` walls
(:func:`publish`); the walls themselves stay secret (a table of the set reveals nothing to anyone
before the round ends). When the round ends the seeds are revealed, and :func:`check_reveal` (or the
wall verifier, ``docs/rules.md``) confirms that every wall played is the one committed to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.engine.rules import Ruleset
from server.engine.wall import seal, seed_commitment
from server.tournament.draws import derive
from server.tournament.seating import RoundSeating, SeatingError, Table

PUBLISHED_HANDS = 32  # walls committed to per set: more than an east-south match plays in practice


@dataclass(frozen=True, slots=True)
class PublishedSet:
    """What the event shows when a round starts: which tables share walls, and the commitments."""

    set_id: str
    tables: tuple[int, ...]  # indices into the round's seating
    seed_commitment: str
    wall_commitments: tuple[str, ...]  # hand 0, 1, ...


def wall_set_seed(event_secret: bytes, round_no: int, set_no: int) -> bytes:
    """The 32-byte match seed shared by the tables of one set."""
    return derive(event_secret, f"walls/round-{round_no}/set-{set_no}")


def rotations(lineup: Sequence[str]) -> tuple[Table, ...]:
    """The line-up with its seats rotated once per seat: each entrant sits in every seat once.

    >>> rotations(["a", "b", "c"])
    (('a', 'b', 'c'), ('b', 'c', 'a'), ('c', 'a', 'b'))
    """
    n = len(lineup)
    return tuple(tuple(lineup[(k + i) % n] for i in range(n)) for k in range(n))


def group_sets(seating: RoundSeating, set_size: int | None) -> tuple[tuple[int, ...], ...]:
    """The round's table indices grouped into wall sets: all in one set, or ``set_size`` each."""
    n = len(seating.tables)
    if set_size is None:
        return (tuple(range(n)),)
    if set_size < 1 or n % set_size:
        raise SeatingError(f"{n} tables cannot be grouped into wall sets of {set_size}")
    return tuple(tuple(range(k, k + set_size)) for k in range(0, n, set_size))


def wall_commitments(seed: bytes, ruleset: Ruleset, hands: int = PUBLISHED_HANDS) -> tuple[str, ...]:
    """The commitment of each of the first ``hands`` walls of a match seeded with ``seed``: the very
    digests the tables publish when each hand starts."""
    return tuple(seal(seed, k, ruleset.red_fives).commitment for k in range(hands))


def publish(
    set_id: str, tables: Sequence[int], seed: bytes, ruleset: Ruleset, hands: int = PUBLISHED_HANDS
) -> PublishedSet:
    return PublishedSet(set_id, tuple(tables), seed_commitment(seed), wall_commitments(seed, ruleset, hands))


def check_reveal(published: PublishedSet, seed: bytes, ruleset: Ruleset) -> list[str]:
    """Every way a revealed ``seed`` fails the commitments published for its set (empty: it holds)."""
    problems = []
    if seed_commitment(seed) != published.seed_commitment:
        problems.append(f"set {published.set_id}: the revealed seed does not hash to its commitment")
    walls = wall_commitments(seed, ruleset, len(published.wall_commitments))
    for k, (made, shown) in enumerate(zip(walls, published.wall_commitments, strict=True)):
        if made != shown:
            problems.append(f"set {published.set_id}: hand {k}'s wall differs from its commitment")
    return problems
