"""The engine's process-wide caches under self-play: fill, hit rate and bytes, cache by cache.

    python bench/engine_caches.py [--games 200] [--bots greedy|hub] [--every 50] [--bytes]
    JANTAKU_PURE=1 python bench/engine_caches.py ...   # the pure Python engine (hit rates of the dicts too)

Plays ``--games`` hanchan (TENHOU, seeds ``cache-0..``) in one process and prints, every
``--every`` hanchan, the entries of every cache (``server.hub.stats.engine_caches``), and at the
end each cache's bound, hit rate and bytes. ``--bots greedy`` is ``bench/engine.py``'s four
shanten-greedy bots (the bots' own hand analysis shares the engine's caches); ``--bots hub`` plays
what ``bench/hub.py``'s network bots answer (win when possible, else pass, else discard the drawn
tile), so only the engine's own calls fill the caches, as in a hub process.

Hit rates: ``functools.lru_cache``s count their own; the plain dicts are counted only under the
pure engine (they are swapped for a counting dict; the compiled engine reads them natively).
``--bytes`` traces the heap from the start (``tracemalloc``: slower) and weighs each cache at the
end by clearing it: what the Python heap gets back, allocator rounding not included.

Nothing here is asserted by the test suite; the figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from typing import Any

from server.bots.selfplay import play
from server.buildinfo import describe
from server.engine.actions import Discard, Pass, Ron, Tsumo
from server.engine.rules import TENHOU
from server.engine.state import Transition
from server.hub.stats import engine_caches


def hub_bot(view: Any, legal: frozenset[Any]) -> Any:
    """bench/hub.py's ``choose``: win when possible, else pass, else discard the drawn tile."""
    for a in legal:
        if isinstance(a, (Tsumo, Ron)):
            return a
    for a in legal:
        if isinstance(a, Pass):
            return a
    for a in legal:
        if isinstance(a, Discard) and a.tsumogiri:
            return a
    return sorted(legal, key=repr)[0]


class CountingDict(dict[Any, Any]):
    """A dict that counts its ``get`` hits and misses (pure engine only)."""

    hits = 0
    misses = 0

    def get(self, key: Any, default: Any = None) -> Any:
        got = dict.get(self, key, default)
        if got is default:
            self.misses += 1
        else:
            self.hits += 1
        return got


def count_dicts() -> dict[str, CountingDict]:
    swapped: dict[str, CountingDict] = {}
    for name, module, attr, value in _dict_caches():
        counting = CountingDict(value)
        setattr(module, attr, counting)
        swapped[name] = counting
    return swapped


def _dict_caches() -> list[tuple[str, Any, str, dict[Any, Any]]]:
    out = []
    for name in ("server.engine.hand", "server.engine.options", "server.engine.overlap"):
        module = sys.modules[name]
        for attr, value in vars(module).items():
            if isinstance(value, dict) and attr.startswith("_") and attr.isupper():
                out.append((f"{name.rsplit('.', 1)[1]}.{attr}", module, attr, value))
    return out


def weigh() -> dict[str, int]:
    """Bytes the traced heap gets back when each cache is cleared, one after the other."""
    out: dict[str, int] = {}
    for name, module, attr, _ in _dict_caches():
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        getattr(module, attr).clear()
        gc.collect()
        out[name] = before - tracemalloc.get_traced_memory()[0]
    seen: set[int] = set()
    for name in ("server.engine.hand", "server.engine.options", "server.engine.overlap"):
        for value in list(vars(sys.modules[name]).values()):
            if callable(getattr(value, "cache_clear", None)) and id(value) not in seen:
                seen.add(id(value))
                gc.collect()
                before = tracemalloc.get_traced_memory()[0]
                value.cache_clear()
                gc.collect()
                owner = value.__module__.rsplit(".", 1)[1]
                out[f"{owner}.{value.__name__}"] = before - tracemalloc.get_traced_memory()[0]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--bots", choices=["greedy", "hub"], default="greedy")
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--bytes", action="store_true")
    parser.add_argument("--seed", default="cache")
    args = parser.parse_args()
    if args.games > 5000:
        parser.error("bounded: at most 5000 hanchan")
    pure = "pure" in describe()
    print(describe(), f"bots {args.bots}, {args.games} hanchan")
    counting = count_dicts() if pure else {}
    if args.bytes:
        tracemalloc.start()
    bots: list[Any] = ["greedy"] * 4 if args.bots == "greedy" else [hub_bot] * 4
    start = time.process_time()
    steps = 0
    fills: list[tuple[int, dict[str, int]]] = []
    for g in range(args.games):
        for item in play(TENHOU, f"{args.seed}-{g}".encode(), bots):
            if not isinstance(item, Transition):
                steps += 1
        if (g + 1) % args.every == 0 or g + 1 == args.games:
            fills.append((g + 1, {c["name"]: c["entries"] for c in engine_caches()}))
            total = sum(fills[-1][1].values())
            print(f"  after {g + 1} hanchan: {total} entries", flush=True)
    secs = time.process_time() - start
    print(f"{steps} steps in {secs:.1f} CPU s")
    caches = {c["name"]: c for c in engine_caches()}
    weights = weigh() if args.bytes else {}
    header = f"{'cache':34} {'bound':>7} {'entries':>8} {'hit rate':>8} {'KiB':>8} {'B/entry':>7}"
    header += f"  fill every {args.every}"
    print(header)
    for name, c in sorted(caches.items()):
        hits, misses = c.get("hits"), c.get("misses")
        if name in counting:
            hits, misses = counting[name].hits, counting[name].misses
        rate = f"{hits / max(1, hits + misses):.3f}" if hits is not None and misses is not None else "-"
        size = weights.get(name)
        kib = f"{size / 1024:.0f}" if size is not None else "-"
        per = f"{size / max(1, c['entries']):.0f}" if size is not None else "-"
        trail = ", ".join(str(f[name]) for _, f in fills)
        bound = c["bound"] if c["bound"] is not None else "-"
        print(f"{name:34} {bound:>7} {c['entries']:>8} {rate:>8} {kib:>8} {per:>7}  {trail}")
    total = sum(c["entries"] for c in caches.values())
    line = f"total: {total} entries"
    if weights:
        line += f", {sum(weights.values()) / 1024 / 1024:.1f} MiB of traced heap"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
