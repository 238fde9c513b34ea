"""``jantaku play``: watch built-in bots play a match in the terminal (a quick engine smoke test)."""

from __future__ import annotations

import argparse

from server.bots import BOTS
from server.bots.selfplay import play_events
from server.engine.errors import RulesError
from server.engine.events import HandDrawn, HandWon, MatchEnded
from server.engine.rules import ALL_PRESETS, preset
from server.engine.tiles import format_tiles


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``jantaku play`` (``jantaku bot connect`` is :mod:`server.bots.connect_cli`)."""
    p = sub.add_parser("play", help="play one match of built-in bots in-process and print the results")
    p.add_argument("--ruleset", default="tenhou", choices=sorted(ALL_PRESETS))
    p.add_argument(
        "--players",
        default=None,
        help="one per seat (three for a three-player ruleset) of: " + ",".join(BOTS) + " (default: greedy)",
    )
    p.add_argument("--seed", default="jantaku", help="match seed (text)")
    p.set_defaults(handler=run_play)


def run_play(args: argparse.Namespace) -> int:
    ruleset = preset(args.ruleset)
    raw = args.players if args.players is not None else ",".join(["greedy"] * ruleset.seats)
    players = [s.strip() for s in str(raw).split(",")]
    if len(players) != ruleset.seats or any(p not in BOTS for p in players):
        print(f"error: --players needs {ruleset.seats} of {sorted(BOTS)}, got {raw!r}")
        return 2
    try:
        events = play_events(ruleset, str(args.seed).encode(), players)
    except RulesError as exc:
        print(f"error: {exc}")
        return 2
    for e in events:
        if isinstance(e, HandWon):
            yaku = ", ".join(f"{y.name} {y.han}" for y in e.yaku)
            how = "tsumo" if e.seat == e.from_seat else f"ron from seat {e.from_seat}"
            print(f"seat {e.seat} wins ({how}) {format_tiles(e.hand)}: {yaku}; {e.points} points")
        elif isinstance(e, HandDrawn):
            print(f"draw ({e.reason}); deltas {list(e.deltas)}")
        elif isinstance(e, MatchEnded):
            print(f"final scores {list(e.scores)}, ranks {list(e.ranks)}, points {list(e.final_points)}")
    return 0
