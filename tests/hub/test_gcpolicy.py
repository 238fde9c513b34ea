"""The garbage-collector policy of ``jantaku serve`` (server/hub/gcpolicy.py): young collections
and freezes on a tick, a rare full collection, everything given back afterwards; pause timing."""

from __future__ import annotations

import asyncio
import gc

import pytest

from server.hub.gcpolicy import GcPauses, applied, run_policy
from server.hub.metrics import HubMetrics
from server.hub.settings import GcPolicy, SettingsError


class FakeGc:
    """Records what the policy asks of the collector."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.threshold = (700, 10, 10)

    def get_threshold(self) -> tuple[int, int, int]:
        return self.threshold

    def set_threshold(self, threshold0: int, threshold1: int = 10, threshold2: int = 10, /) -> None:
        self.threshold = (threshold0, threshold1, threshold2)
        self.calls.append(f"threshold {threshold0},{threshold1},{threshold2}")

    def freeze(self) -> None:
        self.calls.append("freeze")

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def collect(self, generation: int = 2) -> int:
        self.calls.append(f"collect {generation}")
        return 0


class Ticks:
    """An injected sleep: lets the policy run ``n`` ticks, then cancels it."""

    def __init__(self, n: int) -> None:
        self.left = n
        self.slept: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.slept.append(seconds)
        if self.left == 0:
            raise asyncio.CancelledError
        self.left -= 1


@pytest.mark.asyncio
async def test_each_tick_collects_the_young_and_freezes_and_every_nth_collects_everything() -> None:
    fake, ticks = FakeGc(), Ticks(6)
    with pytest.raises(asyncio.CancelledError):
        await run_policy(GcPolicy(freeze_every_s=0.5, full_every_s=1.5), collector=fake, sleep=ticks)
    young = ["collect 0", "freeze"]
    full = ["unfreeze", "collect 2", "freeze"]
    assert fake.calls == young + young + full + young + young + full
    assert set(ticks.slept) == {0.5}


@pytest.mark.asyncio
async def test_no_full_collection_when_it_is_off() -> None:
    fake = FakeGc()
    with pytest.raises(asyncio.CancelledError):
        await run_policy(GcPolicy(freeze_every_s=1.0, full_every_s=0), collector=fake, sleep=Ticks(50))
    assert "collect 2" not in fake.calls and fake.calls.count("freeze") == 50


@pytest.mark.asyncio
async def test_applied_sets_the_thresholds_and_gives_the_collector_back() -> None:
    fake = FakeGc()
    policy = GcPolicy(freeze_every_s=3600.0, full_every_s=0, thresholds=(50_000, 1_000, 1_000))
    async with applied(policy, collector=fake):
        assert fake.threshold == (50_000, 1_000, 1_000)
        assert fake.calls[:2] == ["collect 2", "freeze"]  # what survives startup is frozen at once
    assert fake.threshold == (700, 10, 10)
    assert fake.calls[-1] == "unfreeze"


@pytest.mark.asyncio
async def test_freeze_every_zero_leaves_python_defaults_alone() -> None:
    fake = FakeGc()
    async with applied(GcPolicy(freeze_every_s=0), collector=fake):
        pass
    assert fake.calls == []


@pytest.mark.asyncio
async def test_the_real_collector_is_frozen_while_applied_and_unfrozen_after() -> None:
    before = gc.get_threshold()
    async with applied(GcPolicy(freeze_every_s=0.01, full_every_s=0)):
        assert gc.get_freeze_count() > 0  # what survived startup is frozen at once
        assert gc.get_threshold() == GcPolicy().thresholds
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


def test_policy_values_are_checked() -> None:
    with pytest.raises(SettingsError):
        GcPolicy(freeze_every_s=-1)
    with pytest.raises(SettingsError):
        GcPolicy(freeze_every_s=10, full_every_s=5)
    with pytest.raises(SettingsError):
        GcPolicy(thresholds=(0, 10, 10))
    assert not GcPolicy(freeze_every_s=0).active and GcPolicy().active


def test_pauses_are_counted_per_generation_and_fed_to_metrics_on_scrape() -> None:
    metrics = HubMetrics()
    pauses = GcPauses(metrics.observe_gc_pause)
    metrics.before_expose(pauses.flush)
    pauses.record(0, 0.002, collected=5)
    pauses.record(2, 0.4)
    pauses.record(2, 0.1)
    summary = pauses.summary()
    assert summary["gen0"] == {"collections": 1, "total_ms": 2.0, "max_ms": 2.0, "collected": 5}
    assert summary["gen2"]["collections"] == 2 and summary["gen2"]["max_ms"] == 400.0
    body = metrics.expose()[0].decode()
    assert 'jantaku_gc_pause_seconds_count{generation="2"} 2.0' in body
    assert 'jantaku_gc_pause_seconds_bucket{generation="2",le="0.25"} 1.0' in body
    assert 'jantaku_gc_pause_seconds_count{generation="0"} 1.0' in body
    pauses.reset()
    assert pauses.summary()["gen2"]["collections"] == 0
    assert 'jantaku_gc_pause_seconds_count{generation="2"} 2.0' in metrics.expose()[0].decode()


def test_pending_pauses_are_bounded_between_scrapes() -> None:
    seen: list[int] = []
    pauses = GcPauses(lambda generation, seconds: seen.append(generation))
    for _ in range(GcPauses.MAX_PENDING + 50):
        pauses.record(0, 0.001)
    pauses.flush()
    assert len(seen) == GcPauses.MAX_PENDING
    assert pauses.summary()["gen0"]["collections"] == GcPauses.MAX_PENDING + 50


def test_registered_pauses_time_real_collections_until_unregistered() -> None:
    pauses = GcPauses()
    pauses.register()
    try:
        gc.collect()
        assert pauses.summary()["gen2"]["collections"] >= 1
    finally:
        pauses.unregister()
    assert pauses.callback not in gc.callbacks
    count = pauses.summary()["gen2"]["collections"]
    gc.collect()
    assert pauses.summary()["gen2"]["collections"] == count


def test_switching_sets_the_gil_switch_interval_for_the_block_and_restores_it() -> None:
    import sys

    from server.hub.gcpolicy import switching

    before = sys.getswitchinterval()
    with switching(0.001):
        assert sys.getswitchinterval() == pytest.approx(0.001)
    assert sys.getswitchinterval() == before
    with switching(0):  # 0: Python's own
        assert sys.getswitchinterval() == before


def test_the_gil_switch_interval_setting_is_checked() -> None:
    from server.hub.settings import HubSettings

    assert HubSettings().gil_switch_interval_s == 0.001
    with pytest.raises(SettingsError):
        HubSettings(gil_switch_interval_s=-1)


def test_the_pause_summary_walks_the_frozen_heap_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    # gc.get_freeze_count() walks the whole permanent generation (about 1,000,000 objects at 1,400
    # tables: 115 ms with the event loop stopped); /stats is read by the benchmarks at each end of
    # their window, so the walk landed inside the window it measured and became its p99.
    def walk() -> int:
        raise AssertionError("walked the frozen heap")

    monkeypatch.setattr(gc, "get_freeze_count", walk)
    pauses = GcPauses()
    pauses.record(0, 0.001)
    assert "frozen" not in pauses.summary()
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 7)
    assert pauses.summary(heap=True)["frozen"] == 7
