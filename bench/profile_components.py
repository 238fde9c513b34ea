"""Where the hub's CPU goes, by component: a py-spy profile (collapsed stacks) summed per part.

    py-spy record --pid SERVER_PID --duration 10 --rate 250 --format raw --output hub.txt
    python bench/profile_components.py hub.txt [more.txt ...]

Each sample is charged to the innermost frame of the stack that belongs to one of the components
below (the rules are tried in order, on ``function (path:line)`` frames), so a C function (msgspec,
the socket) counts for the Python code that called it. Several profiles give one column each
(before / after). Nothing here is asserted by the test suite; the tables go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

COMPONENTS: list[tuple[str, tuple[str, ...]]] = [
    ("redaction (engine/views)", ("server/engine/views.py",)),
    ("engine (apply, options)", ("server/engine/",)),
    ("step log record (codec)", ("server/hub/steplog.py", "server/eventlog/codec.py")),
    (
        "rendering + encoding (events, prompts)",
        ("server/eventlog/convert.py", "server/hub/session.py", "server/hub/wire.py", "client_protocol/"),
    ),
    ("store (memory / SQL, writer)", ("server/store/", "sqlalchemy/", "aiosqlite/", "asyncpg/")),
    # The socket writes: under uvloop, transport.write is C code, charged to the line that calls it.
    ("event loop + socket I/O", ("asyncio/", "selectors.py", "uvloop/", "connection.py Outbox._write")),
    ("outbox + websockets (framing, reading)", ("server/hub/connection.py", "websockets/")),
    ("garbage collector (gcpolicy)", ("server/hub/gcpolicy.py",)),
    ("metrics (prometheus_client)", ("prometheus_client/",)),
    ("table actor + hub glue", ("server/hub/", "server/bots/")),
]
FRAME = re.compile(r"^(?P<func>.*?) \((?P<path>[^()]*?)(?::\d+)?\)$")


def component(stack: list[str]) -> str:
    for frame in reversed(stack):
        m = FRAME.match(frame)
        where = f"{m.group('path')} {m.group('func')}" if m else frame
        for name, needles in COMPONENTS:
            if any(n in where for n in needles):
                return name
    return "other"


def summarize(path: Path) -> tuple[Counter[str], int]:
    counts: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack_text, _, n = line.rpartition(" ")
        if not stack_text or not n.isdigit():
            continue
        stack = [f for f in stack_text.split(";") if f]
        if stack and stack[0].startswith("process "):
            stack = stack[1:]
        if stack and stack[0].startswith("thread "):
            stack = stack[1:]
        if not stack:
            continue
        counts[component(stack)] += int(n)
        total += int(n)
    return counts, total


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("profiles", nargs="+", type=Path, help="py-spy raw (collapsed) profiles")
    args = parser.parse_args()
    tables = [summarize(p) for p in args.profiles]
    names = [n for n, _ in COMPONENTS] + ["other"]
    header = "| component | " + " | ".join(p.name for p in args.profiles) + " |"
    print(header)
    print("|---|" + "---:|" * len(args.profiles))
    for name in names:
        cells = [f"{100 * c[name] / max(1, t):.1f} %" for c, t in tables]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| samples | " + " | ".join(str(t) for _, t in tables) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
