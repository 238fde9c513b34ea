"""CPU per action of the hub's codec path alone, in-process: no engine, no table, no socket.

    python bench/codec_path.py [--rounds 5] [--server-repo PATH] [--against PATH]

Greedy bots play three fixed matches first (not measured). Then, for each of their steps, what the
hub does around the engine: the client's ``act`` frame decoded and its action turned into the
engine's (``server.hub.wire.action_from_wire``), the step record made (``server.hub.steplog.step_record``)
and its row encoded as the SQLite store writes it (``server.store.batch.encoded_step``: the events'
JSON text among its columns), and the step's events published to four
connected seats of our protocol (redacted, rendered, encoded: ``Seating.publish``, the sessions'
frames). The figure is the process CPU time (``time.process_time``) per step: the least and the
median of ``--rounds`` passes over every step.

``--server-repo`` measures the code of another checkout; ``--against PATH`` runs this checkout and
PATH alternately, each in its own process, ``--rounds`` times, and prints the ratio of each pair
and their median (this checkout over PATH; below 1 is faster). A checkout from before the step's
events were rendered once (no ``render_events`` in ``server.hub.steplog``) is measured on its own
path (encoding the events for the log, then again for the seats).

Nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--server-repo", type=Path, default=HERE)
    parser.add_argument("--against", type=Path, default=None)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    return parser.parse_args()


def measure(repo: Path, rounds: int) -> dict[str, Any]:
    sys.path.insert(0, str(repo.resolve()))
    from client_protocol.codec import decode_client, encode
    from client_protocol.messages import Act
    from server.bots.selfplay import Step, play
    from server.engine.rules import preset
    from server.hub import steplog
    from server.hub import wire as hubwire
    from server.hub.clock import ManualClock
    from server.hub.seating import Seating
    from server.hub.session import ProtocolSession
    from server.hub.settings import ConnectionLimits, SpectatePolicy
    from server.hub.spectators import SpectatorFeed
    from server.store.batch import encoded_step, sqlite_datetime

    steps = []
    for seed in (b"codecs-0", b"codecs-1", b"codecs-2"):
        for item in play(preset("tenhou"), seed, ["greedy"] * 4):
            if isinstance(item, Step):
                frame = encode(Act(request_id=1, step=1, action=hubwire.action_to_wire(item.action)))
                steps.append((frame, item.transition, item.seat))

    class Sink:
        def __init__(self) -> None:
            self.frames: list[bytes] = []

        def put(self, frame: bytes) -> bool:
            self.frames.append(frame)
            return True

        def close(self, code: int, reason: str) -> None: ...

        def drop(self, why: str) -> None: ...

    sinks = [Sink() for _ in range(4)]
    seating = Seating(SpectatorFeed("m", SpectatePolicy()))
    for seat, sink in enumerate(sinks):
        core = ProtocolSession(sink, None, ManualClock(), ConnectionLimits())  # type: ignore[arg-type]
        seating.take(seat, core)
    render = getattr(steplog, "render_events", None)

    def one_pass() -> None:
        version = 1
        for frame, t, seat in steps:
            action = hubwire.action_from_wire(decode_client(frame).action)  # type: ignore[union-attr]
            if render is not None:
                rendered = render(t.events)
                record = steplog.step_record(
                    "m", t, seat=seat, action=action, request_id=1, applied_at=0.0, rendered=rendered
                )
                encoded_step(record, sqlite_datetime)
                seating.publish("m", version, t.events, rendered)
            else:
                record = steplog.step_record("m", t, seat=seat, action=action, request_id=1, applied_at=0.0)
                encoded_step(record, sqlite_datetime)
                seating.publish("m", version, t.events)
            version += len(t.events)
            for sink in sinks:
                sink.frames.clear()

    per_step = []
    for _ in range(rounds):
        start = time.process_time()
        one_pass()
        per_step.append((time.process_time() - start) / len(steps) * 1e6)
    return {
        "server_repo": str(repo),
        "steps": len(steps),
        "cpu_us_per_step_min": round(min(per_step), 2),
        "cpu_us_per_step_median": round(statistics.median(per_step), 2),
    }


def against(args: argparse.Namespace) -> dict[str, Any]:
    assert args.against is not None
    pairs = []
    for _ in range(args.rounds):
        pair = []
        for repo in (args.server_repo, args.against):
            argv = [sys.executable, __file__, "--server-repo", str(repo), "--rounds", "3", "--json"]
            out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
            pair.append(json.loads(out)["cpu_us_per_step_min"])
        pairs.append(pair)
    ratios = [round(a / b, 3) for a, b in pairs]
    return {
        "this": str(args.server_repo),
        "against": str(args.against),
        "pairs": pairs,
        "ratios": ratios,
        "median_ratio": statistics.median(ratios),
    }


def main() -> int:
    args = parse()
    result = against(args) if args.against is not None else measure(args.server_repo, args.rounds)
    if args.json:
        print(json.dumps(result))
    elif args.against is not None:
        for (a, b), r in zip(result["pairs"], result["ratios"], strict=True):
            print(f"{a:8.2f} us  vs {b:8.2f} us  ratio {r}")
        print(f"median ratio ({result['this']} / {result['against']}): {result['median_ratio']}")
    else:
        print(
            f"{result['steps']} steps, codec path CPU per step: {result['cpu_us_per_step_min']} us (least), "
            f"{result['cpu_us_per_step_median']} us (median) ({result['server_repo']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
