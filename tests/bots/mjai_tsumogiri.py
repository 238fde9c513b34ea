"""A tiny mjai bot for the tests: tsumogiri (discards what it draws), never calls, never wins.

    python mjai_tsumogiri.py [--line-mode] [--log FILE] [--garbage N] [--crash-after N]

Batch mode (default, mjai.app): each input line is a JSON array of events; it answers every line
with one action: ``dahai`` of its own tsumo when that is the last event, ``none`` otherwise.
Line mode (Mortal-style): each input line is one event; it answers only where it can act: after its
own tsumo (``dahai``) and after a discard it could chi, pon or kan (``none``), counted from its hand.
It does not look for ron: the server asks, gets no answer, and passes for it.

``--log`` appends every event it reads (one JSON object per line); ``--garbage N`` makes every N-th
answer a line that is not JSON; ``--crash-after N`` exits with code 7 after N answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

LIVE_DRAWS = 70  # tsumo events in a hand (rinshan draws included) before the last discard


def kind(pai: str) -> int:
    if len(pai) == 1:
        return 27 + "ESWNPFC".index(pai)
    return "mps".index(pai[1]) * 9 + int(pai[0]) - 1


class Bot:
    def __init__(self, *, line_mode: bool, log: TextIO | None) -> None:
        self.line_mode = line_mode
        self.log = log
        self.seat = -1
        self.counts = [0] * 34
        self.draws = 0
        self.kans = 0
        self.last_tsumo: str | None = None

    def see(self, event: dict[str, Any]) -> str | None:
        """Update from one event; in line mode, the answer when it can act."""
        if self.log is not None:
            self.log.write(json.dumps(event) + "\n")
            self.log.flush()
        kind_ = event["type"]
        actor = event.get("actor")
        if kind_ == "start_game":
            self.seat = int(event["id"])
        elif kind_ == "start_kyoku":
            self.counts = [0] * 34
            for pai in event["tehais"][self.seat]:
                self.counts[kind(pai)] += 1
            self.draws = self.kans = 0
        elif kind_ == "tsumo":
            self.draws += 1
            if actor == self.seat:
                self.last_tsumo = event["pai"]
                self.counts[kind(event["pai"])] += 1
                return self.discard()
        elif kind_ == "dahai" and actor == self.seat:
            self.counts[kind(event["pai"])] -= 1
        elif kind_ in ("ankan", "daiminkan", "kakan"):
            self.kans += 1
        elif kind_ == "dahai" and self.could_call(event["pai"], int(event["actor"])):
            return json.dumps({"type": "none"})
        return None

    def discard(self) -> str:
        return json.dumps({"type": "dahai", "actor": self.seat, "pai": self.last_tsumo, "tsumogiri": True})

    def could_call(self, pai: str, actor: int) -> bool:
        if self.draws >= LIVE_DRAWS:
            return False
        k = kind(pai)
        if self.counts[k] >= 2:
            return True
        if actor != (self.seat + 3) % 4 or k >= 27:
            return False
        n, base = k % 9, k - k % 9
        have = [0 <= n + d < 9 and self.counts[base + n + d] > 0 for d in (-2, -1, 1, 2)]
        return (have[0] and have[1]) or (have[1] and have[2]) or (have[2] and have[3])

    def batch(self, events: list[dict[str, Any]]) -> str:
        answer = None
        for event in events:
            answer = self.see(event)
        last = events[-1] if events else {}
        if last.get("type") == "tsumo" and last.get("actor") == self.seat and answer is not None:
            return answer
        return json.dumps({"type": "none"})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--line-mode", action="store_true")
    parser.add_argument("--log", default=None)
    parser.add_argument("--garbage", type=int, default=0)
    parser.add_argument("--crash-after", type=int, default=0)
    args = parser.parse_args()
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115
    bot = Bot(line_mode=args.line_mode, log=log)
    answers = 0
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        data = json.loads(line)
        answer = bot.see(data) if args.line_mode else bot.batch(data)
        if answer is None:
            continue
        answers += 1
        if args.garbage and answers % args.garbage == 0:
            answer = "this is not json"
        print(answer, flush=True)
        if args.crash_after and answers >= args.crash_after:
            return 7
    return 0


if __name__ == "__main__":
    sys.exit(main())
