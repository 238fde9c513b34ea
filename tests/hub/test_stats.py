"""The hub's own latency figures (server/hub/stats.py, ``JANTAKU_HUB_STATS=1``): what they keep per
action is bounded, and the percentiles they report stay close to the exact ones."""

from __future__ import annotations

import random
import tracemalloc

from server.hub.stats import LatencyStats


def test_the_latency_store_does_not_grow_with_the_number_of_actions() -> None:
    stats = LatencyStats()
    rng = random.Random(7)
    for _ in range(1_000):
        stats.record(rng.uniform(0.0005, 0.05))
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for _ in range(200_000):
            stats.record(rng.uniform(0.0005, 0.05))
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert stats.acks == 201_000
    assert after - before < 16 * 1024  # a list of samples would hold 200,000 floats (~6 MiB)


def test_percentiles_are_within_the_bucket_width_of_the_exact_ones() -> None:
    rng = random.Random(11)
    values = [rng.lognormvariate(-5.5, 1.0) for _ in range(50_000)]
    stats = LatencyStats()
    for v in values:
        stats.record(v)
    ordered = sorted(values)
    summary = stats.summary()
    for p, key in ((50, "p50_ms"), (90, "p90_ms"), (99, "p99_ms")):
        exact = ordered[int(p / 100 * len(ordered))] * 1000
        assert abs(summary[key] - exact) <= 0.03 * exact, (key, summary[key], exact)
    assert summary["max_ms"] == round(ordered[-1] * 1000, 3)
    assert summary["actions"] == 50_000


def test_reset_starts_an_empty_window() -> None:
    stats = LatencyStats()
    stats.record(0.004)
    stats.reset()
    summary = stats.summary()
    assert summary["actions"] == 0
    assert summary["p99_ms"] is None and summary["max_ms"] is None
    stats.record(0.002)
    assert stats.summary()["p50_ms"] is not None


def test_the_engine_cache_count_sees_the_caches_fill() -> None:
    from server.engine.hand import shanten
    from server.hub.stats import engine_cache_entries

    counts = [0] * 34
    for tile in (0, 1, 2, 3, 4, 5, 9, 10, 11, 27, 27, 31, 31):
        counts[tile] += 1
    shanten(counts)
    assert engine_cache_entries() > 0
    assert LatencyStats().summary()["engine_cache_entries"] > 0


def test_every_engine_cache_has_a_small_bound() -> None:
    """Issue 17 §4: the engine's process-wide caches fill quickly and stay small (a few MiB in all,
    docs/benchmarks.md "The engine's caches"), so every cache says its bound and together they hold
    at most 90,000 entries (~200 bytes an entry on average: ~17 MiB)."""
    import server.engine.hand
    import server.engine.options
    import server.engine.overlap  # noqa: F401
    from server.hub.stats import engine_cache_bound, engine_caches

    caches = engine_caches()
    assert {c["name"] for c in caches} >= {
        "options._COUNTS_CACHE",
        "options._WAITS_CACHE",
        "overlap._SUIT_CODE_BY_KEY",
        "overlap._JOINED",
        "overlap._cluster_vec",
    }
    assert all(c["bound"] for c in caches), caches
    assert engine_cache_bound() <= 90_000
