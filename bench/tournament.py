"""Tournaments: seating 1,000 entrants over 10 rounds, and the standings of 1,000 entrants.

    python bench/tournament.py [--entrants 1000] [--rounds 10] [--repeat 5] [--max-meetings 1]

* **seating**: every round of an event seated in turn (each round's seating depends on the rounds
  before it), by the random method and by standings (the standings order changing every round as
  results come in), with ``max_meetings`` (default 1: nobody meets anyone twice). The figure is the
  whole event's seating, the median of ``--repeat`` runs.
* **standings (computation)**: the standings of the whole event (``rounds x entrants / 4`` games)
  under each formula, the median of ``--repeat`` runs. This is the pure computation only; the
  standings *request* while tables play (the issue's ``standings p99 at 250 tables``) needs the event
  service, which this script does not run yet and so does not print.

Prints ``seating <N> entrants x <R> rounds: <ms> ms`` (the slower of the two methods).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.engine.rules import PRESETS
from server.tournament.draws import Draws
from server.tournament.seating import History, SeatingMethod, SeatingRules, seat_round
from server.tournament.standings import Formula, GameResult, ScoringRules, standings


def event(
    method: SeatingMethod, entrants: list[str], rounds: int, rules: SeatingRules, seed: int
) -> tuple[float, list[GameResult]]:
    """Seat every round; fake each table's result so standings move. Returns seating seconds."""
    history = History(rules.seats)
    order = list(entrants)
    games: list[GameResult] = []
    seconds = 0.0
    for r in range(rounds):
        start = time.perf_counter()
        seating = seat_round(method, order, history, rules, f"bench-{seed}-{r}".encode())
        seconds += time.perf_counter() - start
        history.add(seating)
        results = Draws(f"results-{seed}-{r}".encode(), "bench")
        for t, table in enumerate(seating.tables):
            places = [1, 2, 3, 4]
            results.shuffle(places)
            scores = tuple(50000 - 10000 * p + 1000 * results.below(5) for p in places)
            placed = tuple(sorted(range(4), key=lambda s: -scores[s]))
            placements = tuple(placed.index(s) + 1 for s in range(4))
            games.append(GameResult(f"m{r}-{t}", r, table, scores, placements))
        ranked = standings(games, [], entrants, ScoringRules.of(PRESETS["tenhou"], Formula.POINTS))
        order = [s.name for s in ranked]  # by standings: the next round seats close scores together
    return seconds, games


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--entrants", type=int, default=1000, help="entrants (a multiple of 4; default 1000)")
    parser.add_argument("--rounds", type=int, default=10, help="rounds in the event (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the median is printed")
    parser.add_argument("--max-meetings", type=int, default=1, help="max_meetings (0: no cap; default 1)")
    args = parser.parse_args()
    entrants = [f"e{i:05d}" for i in range(args.entrants)]
    rules = SeatingRules(seats=4, max_meetings=args.max_meetings or None)
    worst = 0.0
    games: list[GameResult] = []
    for method in (SeatingMethod.RANDOM, SeatingMethod.STANDINGS):
        runs = []
        for k in range(args.repeat):
            seconds, games = event(method, entrants, args.rounds, rules, k)
            runs.append(seconds)
        median = statistics.median(runs)
        worst = max(worst, median)
        print(
            f"  {method.value:9} seating: median {median * 1000:.0f} ms "
            f"(min {min(runs) * 1000:.0f}, max {max(runs) * 1000:.0f}) for the whole event"
        )
    print(f"seating {args.entrants} entrants x {args.rounds} rounds: {worst * 1000:.0f} ms")
    teams = {e: f"team-{i % 50}" for i, e in enumerate(entrants)}
    for formula in Formula:
        scoring = ScoringRules.of(
            PRESETS["tenhou"], formula, best_n=5 if formula is Formula.BEST_CONSECUTIVE else None, teams=teams
        )
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            standings(games, [], entrants, scoring)
            runs.append(time.perf_counter() - start)
        print(
            f"standings ({formula.value}) of {args.entrants} entrants, {len(games)} games: "
            f"{statistics.median(runs) * 1000:.1f} ms (computation only)"
        )


if __name__ == "__main__":
    main()
