"""Records throughput: hands verified per second (read + replay through the engine + compare), and
export speed, on the shared corpus of real Tenhou games and on self-play matches.

    python bench/records.py [--corpus DIR] [--games N] [--repeat R]

Numbers go to docs/benchmarks.md ("Records"); nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from server.bots.selfplay import play_events
from server.engine.events import Event
from server.engine.rules import TENHOU
from server.records import read_record
from server.records.export import export_match
from server.records.replay import Outcome, record_ruleset, replay_record
from server.records.verify import find_records

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def bench_verify(texts: list[bytes | str]) -> tuple[int, float, float]:
    """(hands verified, seconds reading, seconds replaying) over the given record texts."""
    read_s = replay_s = 0.0
    verified = 0
    for text in texts:
        t0 = time.perf_counter()
        record = read_record(text)
        t1 = time.perf_counter()
        reports = replay_record(record, record_ruleset(record))
        t2 = time.perf_counter()
        read_s += t1 - t0
        replay_s += t2 - t1
        verified += sum(r.outcome is Outcome.VERIFIED for r in reports)
    return verified, read_s, replay_s


def line(label: str, hands: int, read_s: float, replay_s: float) -> str:
    total = read_s + replay_s
    return (
        f"{label}: {hands} hands verified in {total:.2f} s = {hands / total:.0f} hands/s "
        f"(read {read_s:.2f} s, replay {replay_s:.2f} s = {hands / replay_s:.0f} hands/s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--games", type=int, default=10, help="self-play matches to export and verify")
    parser.add_argument("--repeat", type=int, default=1, help="passes over the corpus (best one counts)")
    args = parser.parse_args()

    if args.corpus.is_dir():
        files, _ = find_records([args.corpus])
        texts: list[bytes | str] = [p.read_bytes() for p in files]
        best = min((bench_verify(texts) for _ in range(args.repeat)), key=lambda r: r[1] + r[2])
        print(line(f"corpus ({len(files)} files)", *best))
    else:
        print(f"corpus: not found at {args.corpus}")

    matches: list[list[Event]] = [
        play_events(TENHOU, f"bench-records-{g}".encode(), ["greedy"] * 4) for g in range(args.games)
    ]
    for fmt in ("tenhou6", "mjai"):
        t0 = time.perf_counter()
        exported: list[bytes | str] = [export_match(events, fmt) for events in matches]
        export_s = time.perf_counter() - t0
        hands, read_s, replay_s = bench_verify(exported)
        print(
            f"self-play {fmt}: exported {len(matches)} matches in {export_s:.2f} s; "
            + line("", hands, read_s, replay_s)[2:]
        )


if __name__ == "__main__":
    main()
