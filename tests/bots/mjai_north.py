"""A tiny three-player mjai bot for the tests (batch mode, as mjai.app runs bots): at its own draw it
sets a north aside (``nukidora``) whenever it holds one, else discards what it drew; it never calls
and never wins.

    python mjai_north.py [--log FILE]

``--log`` appends every event it reads (one JSON object per line).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", default=None)
    args = parser.parse_args()
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115
    seat, norths, drawn = -1, 0, ""
    for raw in sys.stdin:
        if not raw.strip():
            continue
        events: list[dict[str, Any]] = json.loads(raw)
        for event in events:
            if log is not None:
                log.write(json.dumps(event) + "\n")
                log.flush()
            kind_, actor = event["type"], event.get("actor")
            if kind_ == "start_game":
                seat = int(event["id"])
            elif kind_ == "start_kyoku":
                norths = event["tehais"][seat].count("N")
            elif kind_ == "tsumo" and actor == seat:
                drawn = event["pai"]
                norths += drawn == "N"
            elif kind_ == "nukidora" and actor == seat:
                norths -= 1
        last = events[-1] if events else {}
        answer: dict[str, Any] = {"type": "none"}
        if last.get("type") == "tsumo" and last.get("actor") == seat:
            if norths:
                answer = {"type": "nukidora", "actor": seat, "pai": "N"}
            else:
                answer = {"type": "dahai", "actor": seat, "pai": drawn, "tsumogiri": True}
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
