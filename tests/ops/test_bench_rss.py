"""bench/hub.py's verdict on memory (issue 17 §4): growth after warm-up, over the window and its
second half, against 1 KiB per table per minute."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.modload import load_module

BENCH = Path(__file__).resolve().parents[2] / "bench" / "hub.py"


@pytest.fixture(scope="module")
def hub() -> ModuleType:
    return load_module("bench_hub_under_test", BENCH)


def readings(per_minute_kib: list[float]) -> list[tuple[float, int]]:
    """RSS readings a minute apart, starting at 300 MiB, growing by the given KiB each minute."""
    out = [(0.0, 300 * 1024)]
    for i, step in enumerate(per_minute_kib, start=1):
        out.append((60.0 * i, round(out[-1][1] + step)))
    return out


def test_a_cache_filling_early_then_flat_is_flat(hub: ModuleType) -> None:
    # 1,000 tables: +8, +4 MiB in the first minutes, then +0.2 MiB a minute.
    got = hub.rss_growth(readings([8192, 4096, 205, 205, 205, 205, 205, 205, 205, 205]), 1000)
    assert got["rss_growth_mib_per_min"] > 0.8  # the whole window still sees the early fill
    assert got["rss_growth_second_half_mib_per_min"] == pytest.approx(0.2, abs=0.01)
    assert got["rss_flat"] is True
    assert got["rss_flat_threshold_mib_per_min"] == pytest.approx(1000 / 1024, abs=0.01)


def test_steady_growth_is_not_flat(hub: ModuleType) -> None:
    # 400 tables growing 1.5 KiB per table per minute to the end.
    got = hub.rss_growth(readings([600.0] * 10), 400)
    assert got["rss_growth_second_half_kib_per_table_per_min"] == pytest.approx(1.5, abs=0.01)
    assert got["rss_flat"] is False


def test_growth_per_action_for_both_spans(hub: ModuleType) -> None:
    got = hub.per_action(hub.rss_growth(readings([1024.0] * 4), 100), actions_per_s=100.0)
    # 1 MiB a minute at 100 actions/s: 1,048,576 / 6,000 bytes per action.
    assert got["rss_growth_bytes_per_action"] == 175
    assert got["rss_growth_second_half_bytes_per_action"] == 175


def test_the_summary_prints_the_verdict(hub: ModuleType) -> None:
    growth = hub.per_action(hub.rss_growth(readings([100.0] * 6), 500), actions_per_s=500.0)
    t = {
        **growth,
        "rss_before_tables_kib": 100 * 1024,
        "kib_per_live_table": 150.0,
        "engine_cache_entries": 5000,
        "engine_cache_bound": 84224,
        "engine_cache_entries_samples": [1000, 2000, 3000],
    }
    lines = hub.memory_lines(t, 500, 120.0)
    assert lines[-1].startswith("RSS flat after warm-up: yes (growth 0.1 MiB/min")
    assert "threshold 1 KiB per table per minute = 0.49 MiB/min at 500 tables" in lines[-1]
    assert any("5000 entries at the end of 84224 at most" in line for line in lines)
