"""``jantaku simulate``: play matches of built-in bots in-process and write their records
(``docs/records.md``). It joins two packages (``server.bots`` plays, ``server.records`` writes), so
it lives in the composition root."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from server.bots import BOTS
from server.bots.selfplay import play_events
from server.engine.rules import ALL_PRESETS, Ruleset, preset
from server.records.cli import EXIT_OK, EXIT_USAGE
from server.records.export import FILE_SUFFIX, ExportFormat, export_match
from server.records.progress import Progress


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``jantaku simulate``."""
    s = sub.add_parser(
        "simulate",
        help="play matches of built-in bots in-process and write one record file per match",
        description=(
            "Play matches of built-in bots in-process (no server, no database) and write one record "
            "file per match into --out. The built-in bots: tsumogiri always discards the drawn tile "
            "and never wins; random picks a random legal action (calls included); greedy takes every "
            "win, declares riichi when it can and discards toward the lowest shanten, but never calls "
            "(no chi, pon or kan), so a table of greedy bots plays closed hands only; with three "
            "players it sets a spare north aside."
        ),
    )
    s.add_argument(
        "--players",
        default=None,
        metavar="BOT,BOT,BOT,BOT",
        help="the seats' bots, seat 0 first (four, or three for a three-player ruleset), each one of "
        + ", ".join(sorted(BOTS))
        + " (default: greedy at every seat)",
    )
    s.add_argument(
        "--ruleset",
        default="tenhou",
        choices=sorted(ALL_PRESETS),
        help="the rules preset, tenhou-sanma and mahjongsoul-sanma for three players (default: %(default)s)",
    )
    s.add_argument("--games", type=int, default=1, help="number of matches (default: %(default)s)")
    s.add_argument(
        "--seed",
        default="jantaku",
        help="seed text: the same seed gives the same files (default: %(default)s)",
    )
    s.add_argument("--out", required=True, type=Path, metavar="DIR", help="directory for the record files")
    s.add_argument(
        "--format",
        default="tenhou6",
        choices=[str(f) for f in ExportFormat],
        help="record format: tenhou.net/6 JSON or mjai JSON lines (default: %(default)s)",
    )
    s.set_defaults(handler=run_simulate)


def run_simulate(args: argparse.Namespace) -> int:
    ruleset: Ruleset = preset(args.ruleset)
    n = ruleset.seats
    raw = args.players if args.players is not None else ",".join(["greedy"] * n)
    players = [p.strip() for p in str(raw).split(",")]
    if len(players) != n or any(p not in BOTS for p in players):
        print(f"error: --players needs {n} of {sorted(BOTS)}, got {raw!r}", file=sys.stderr)
        return EXIT_USAGE
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    fmt = ExportFormat(args.format)
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"error: cannot create {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    names = [f"{bot} {seat}" for seat, bot in enumerate(players)]
    width = max(4, len(str(args.games - 1)))
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", str(args.seed)) or "match"
    with Progress(args.games, "matches") as bar:
        for game in range(args.games):
            seed = f"{args.seed}/{game}".encode()
            events = play_events(ruleset, seed, players)
            name = f"{stem}-{game:0{width}d}{FILE_SUFFIX[fmt]}"
            text = export_match(events, fmt, names=names)
            (out / name).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
            bar.advance(name)
    print(f"wrote {args.games} {fmt} records to {out}")
    return EXIT_OK
