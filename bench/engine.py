"""Engine throughput: N hanchan of four ``greedy`` bots, in kyoku/s and games/s.

    python bench/engine.py [--games N] [--seed S]

When the ``riichienv`` package (a Rust riichi engine) is importable, the same number of hanchan is
played there by an equivalent shanten-greedy agent in the same run and the ratio is printed. Numbers
go to docs/benchmarks.md; nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from server.bots.selfplay import play_events
from server.engine.events import RoundStarted
from server.engine.rules import TENHOU


def bench_jantaku(games: int, seed: int) -> tuple[int, float]:
    kyoku = 0
    start = time.perf_counter()
    for g in range(games):
        events = play_events(TENHOU, f"bench-{seed}-{g}".encode(), ["greedy"] * 4)
        kyoku += sum(isinstance(e, RoundStarted) for e in events)
    return kyoku, time.perf_counter() - start


def _riichienv_greedy(obs: Any, rv: Any) -> Any:
    legal = obs.legal_actions()
    types = rv.ActionType
    for wanted in (types.TSUMO, types.RON, types.RIICHI):
        for a in legal:
            if a.action_type == wanted:
                return a
    discards = [a for a in legal if a.action_type == types.DISCARD]
    if not discards:
        for a in legal:
            if a.action_type == types.PASS:
                return a
        return legal[0]
    hand = list(obs.hand)
    best, choice = None, discards[0]
    for a in discards:
        rest = list(hand)
        rest.remove(a.tile)
        key = rv.calculate_shanten(rest)
        if best is None or key < best:
            best, choice = key, a
    return choice


def bench_riichienv(games: int, seed: int) -> tuple[int, float] | None:
    try:
        import riichienv as rv
    except ImportError:
        return None
    kyoku = 0
    start = time.perf_counter()
    for g in range(games):
        env = rv.RiichiEnv(game_mode=rv.GameType.YON_HANCHAN, seed=seed * 1000 + g)
        obs = env.reset()
        while not env.done():
            obs = env.step({pid: _riichienv_greedy(o, rv) for pid, o in obs.items()})
        kyoku += sum(1 for e in env.mjai_log if e.get("type") == "start_kyoku")
    return kyoku, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    kyoku, secs = bench_jantaku(args.games, args.seed)
    ours = kyoku / secs
    print(
        f"jantaku:   {args.games} hanchan, {kyoku} kyoku in {secs:.2f} s: {ours:.1f} kyoku/s, "
        f"{args.games / secs:.2f} games/s (one core, greedy x4)"
    )
    theirs = bench_riichienv(args.games, args.seed)
    if theirs is None:
        print("riichienv: not installed (pip install riichienv to compare)")
        return
    rk, rs = theirs
    print(f"riichienv: {args.games} hanchan, {rk} kyoku in {rs:.2f} s: {rk / rs:.1f} kyoku/s")
    print(f"ratio jantaku/riichienv: {ours / (rk / rs):.2f}")


if __name__ == "__main__":
    main()
