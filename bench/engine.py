"""Engine throughput: N hanchan of four ``greedy`` bots, in kyoku/s and games/s.

    python bench/engine.py [--games N] [--seed S] [--seats 3]
    JANTAKU_PURE=1 python bench/engine.py ...      # the pure Python engine instead of the compiled one
    python bench/engine.py --split                 # also: where a step's time goes, part by part

``--seats 3`` plays three-player hanchan (``tenhou-sanma``, three greedy bots, which set every
spare north aside) and, with riichienv, its three-player hanchan (``SAN_HANCHAN``) with the same
agent declaring north (kita) whenever it may.

When the ``riichienv`` package (a Rust riichi engine) is importable, the same number of hanchan is
played there by an equivalent shanten-greedy agent in the same run and the ratio is printed. The
two engines take turns game by game and each is timed in CPU seconds of this process
(``time.process_time``), so other work on a shared machine shifts both alike and hardly moves the
ratio. The first line says which engine build runs (server/buildinfo.py). Numbers go to
docs/benchmarks.md; nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from server.bots.selfplay import play_events
from server.buildinfo import describe
from server.engine.events import RoundStarted
from server.engine.rules import TENHOU, TENHOU_SANMA


def jantaku_game(seed: int, g: int, seats: int = 4) -> tuple[int, float]:
    """One hanchan: (kyoku played, CPU seconds)."""
    ruleset = TENHOU if seats == 4 else TENHOU_SANMA
    start = time.process_time()
    events = play_events(ruleset, f"bench-{seed}-{g}".encode(), ["greedy"] * seats)
    secs = time.process_time() - start
    return sum(isinstance(e, RoundStarted) for e in events), secs


def bench_jantaku(games: int, seed: int) -> tuple[int, float]:
    kyoku, secs = 0, 0.0
    for g in range(games):
        k, s = jantaku_game(seed, g)
        kyoku, secs = kyoku + k, secs + s
    return kyoku, secs


def _riichienv_greedy(obs: Any, rv: Any, seats: int = 4) -> Any:
    legal = obs.legal_actions()
    types = rv.ActionType
    wins = (
        (types.TSUMO, types.RON, types.RIICHI)
        if seats == 4
        else (types.TSUMO, types.RON, types.KITA, types.RIICHI)
    )
    shanten = rv.calculate_shanten if seats == 4 else rv.calculate_shanten_3p
    for wanted in wins:
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
        key = shanten(rest)
        if best is None or key < best:
            best, choice = key, a
    return choice


def riichienv_game(rv: Any, seed: int, g: int, seats: int = 4) -> tuple[int, float]:
    start = time.process_time()
    mode = rv.GameType.YON_HANCHAN if seats == 4 else rv.GameType.SAN_HANCHAN
    env = rv.RiichiEnv(game_mode=mode, seed=seed * 1000 + g)
    obs = env.reset()
    while not env.done():
        obs = env.step({pid: _riichienv_greedy(o, rv, seats) for pid, o in obs.items()})
    secs = time.process_time() - start
    return sum(1 for e in env.mjai_log if e.get("type") == "start_kyoku"), secs


def split_steps(games: int, seed: int) -> None:
    """Where a step's CPU time goes: the selfplay loop with each part timed (``--split``).

    The timer's own cost inflates every part alike; the parts, not the total, are the figure."""
    from server.bots import get_bot
    from server.engine import apply, legal_actions, new_match, pending_seats
    from server.engine.views import seat_view

    bot = get_bot("greedy")
    parts = dict.fromkeys(("pending_seats", "seat_view", "legal_actions", "bot", "apply"), 0.0)
    steps = 0
    clock = time.process_time
    for g in range(games):
        state = new_match(TENHOU, f"bench-{seed}-{g}".encode()).state
        while not state.finished:
            t0 = clock()
            seat = pending_seats(state)[0]
            t1 = clock()
            view = seat_view(state, seat)
            t2 = clock()
            legal = legal_actions(state, seat)
            t3 = clock()
            action = bot(view, legal)
            t4 = clock()
            state = apply(state, seat, action).state
            t5 = clock()
            for name, dt in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
                parts[name] += dt
            steps += 1
    total = sum(parts.values())
    shares = ", ".join(
        f"{name} {secs / steps * 1e6:.1f} us ({secs / total:.0%})" for name, secs in parts.items()
    )
    print(f"split: {steps} steps, {total / steps * 1e6:.1f} us/step: {shares}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--split", action="store_true", help="also time each part of a step (a separate pass)")
    ap.add_argument("--seats", type=int, choices=(3, 4), default=4, help="3: three-player hanchan")
    args = ap.parse_args()
    try:
        import riichienv as rv
    except ImportError:
        rv = None
    print(describe())
    ours_k, ours_s, theirs_k, theirs_s = 0, 0.0, 0, 0.0
    for g in range(args.games):
        k, s = jantaku_game(args.seed, g, args.seats)
        ours_k, ours_s = ours_k + k, ours_s + s
        if rv is not None:
            k, s = riichienv_game(rv, args.seed, g, args.seats)
            theirs_k, theirs_s = theirs_k + k, theirs_s + s
    ours = ours_k / ours_s
    print(
        f"jantaku:   {args.games} hanchan, {ours_k} kyoku in {ours_s:.2f} CPU s: {ours:.1f} kyoku/s, "
        f"{args.games / ours_s:.2f} games/s (one core, greedy x{args.seats})"
    )
    if rv is None:
        print("riichienv: not installed (pip install riichienv to compare)")
        if args.split:
            split_steps(args.games, args.seed)
        return
    theirs = theirs_k / theirs_s
    print(f"riichienv: {args.games} hanchan, {theirs_k} kyoku in {theirs_s:.2f} CPU s: {theirs:.1f} kyoku/s")
    print(f"ratio jantaku/riichienv: {ours / theirs:.2f}")
    if args.split:
        split_steps(args.games, args.seed)


if __name__ == "__main__":
    main()
