"""Tournament rules: seating, duplicate wall sets and standings (pure: no I/O, clock or randomness).

Like :mod:`server.ranking`, this package is data and functions only; the event service stores what
they produce and runs the rounds. Every function here is deterministic: what looks random (a random
seating, a wall set's seed) is drawn from a seed the caller passes in, so a published seating or
wall set can be recomputed and checked. ``docs/tournaments.md`` is the organizer's guide.

* :mod:`server.tournament.seating`: a round's tables by method (random, by standings, scripted),
  validated against the event's constraints, with an error that names the conflict;
* :mod:`server.tournament.duplicate`: wall sets (the same walls at every table of a set, the seats
  rotated across the set), the commitments published when a round starts and their check;
* :mod:`server.tournament.standings`: the formulas (points with uma and oka, placements, best N
  consecutive games, team totals), a pure function of the games and the adjustments.
"""
