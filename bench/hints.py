"""The cost of a prompt's hints (server/engine/hints.py) next to the prompt's own legal actions.

    python bench/hints.py [--games N] [--seed S]

Plays N hanchan of four ``greedy`` bots and, at every decision, times ``legal_actions`` (what every
prompt costs) and ``seat_hints`` (what a prompt costs in addition for a connection whose hello asked
for hints), and prints both per prompt and their ratio. Nothing here is asserted by the tests; the
figures are in docs/benchmarks.md ("Hints").
"""

from __future__ import annotations

import argparse
import time

from server.bots.selfplay import Step, play
from server.engine import legal_actions, pending_seats
from server.engine.hints import seat_hints
from server.engine.rules import TENHOU


def bench(games: int, seed: int) -> tuple[int, float, float]:
    prompts, legal_s, hints_s = 0, 0.0, 0.0
    for g in range(games):
        for item in play(TENHOU, f"hints-{seed}-{g}".encode(), ["greedy"] * 4):
            state = item.transition.state if isinstance(item, Step) else item.state
            if state.finished:
                continue
            for seat in pending_seats(state):
                t0 = time.perf_counter()
                legal = legal_actions(state, seat)
                t1 = time.perf_counter()
                seat_hints(state, seat, legal)
                t2 = time.perf_counter()
                prompts += 1
                legal_s += t1 - t0
                hints_s += t2 - t1
    return prompts, legal_s, hints_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    prompts, legal_s, hints_s = bench(args.games, args.seed)
    print(f"{prompts} prompts in {args.games} hanchan")
    print(f"legal_actions: {legal_s / prompts * 1e6:.1f} us per prompt")
    print(f"seat_hints:    {hints_s / prompts * 1e6:.1f} us per prompt")
    print(f"ratio hints / legal_actions: {hints_s / legal_s:.2f}")


if __name__ == "__main__":
    main()
