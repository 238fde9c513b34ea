"""Prometheus metrics of one hub (``GET /metrics`` on the hub port; ``docs/operations.md``).

Each :class:`HubMetrics` has its own ``CollectorRegistry`` (no process-global state), so several
hubs in one process (tests) never mix their numbers.

>>> m = HubMetrics()
>>> m.timeouts.inc()
>>> b"jantaku_timeouts_total 1.0" in m.expose()[0]
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

ACTION_SOURCES = ("player", "bot", "timeout", "disconnected", "left")
"""Who chose an applied action: a connected player, a built-in bot, the default of a connected seat
whose time and bank ran out (``timeout``), or the default played for a seat without a connection
(``disconnected``: its time and bank ran out while it was gone, or it was already absent)."""

_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

METRIC_NAMES = (
    "jantaku_tables",
    "jantaku_connections",
    "jantaku_actions_total",
    "jantaku_action_latency_seconds",
    "jantaku_commit_latency_seconds",
    "jantaku_timeouts_total",
    "jantaku_disconnects_total",
    "jantaku_gc_pause_seconds",
)

_GC_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class HubMetrics:
    """The series of one hub. Gauges read live values through callbacks (:meth:`watch`)."""

    def __init__(self) -> None:
        self._hooks: list[Callable[[], None]] = []
        self.commit_hook: Callable[[float], None] | None = None  # benchmarks: also sees each commit
        self._exposed: CollectorRegistry | None = None  # cluster mode: the series with a node label
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.tables = Gauge("jantaku_tables", "Tables whose match is running", registry=r)
        self.connections = Gauge("jantaku_connections", "Open websocket connections", registry=r)
        self.actions = Counter(
            "jantaku_actions",
            "Actions applied and committed, by who chose them (rate(): actions/s)",
            ["source"],
            registry=r,
        )
        # The labelled children, looked up once (``labels()`` takes a lock and builds a key per call).
        self._actions_by_source = {source: self.actions.labels(source) for source in ACTION_SOURCES}
        self.action_latency = Histogram(
            "jantaku_action_latency_seconds",
            "A player's action: from its handling by the table to its broadcast being queued",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.commit_latency = Histogram(
            "jantaku_commit_latency_seconds",
            "Duration of a step commit (repository append_step)",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.timeouts = Counter(
            "jantaku_timeouts",
            "Human seats' decisions the table played by default (time and bank spent, connected or not)",
            registry=r,
        )
        self.disconnects = Counter(
            "jantaku_disconnects",
            "Websocket connections that ended (not counting server shutdown)",
            registry=r,
        )

        self.gc_pause = Histogram(
            "jantaku_gc_pause_seconds",
            "Garbage-collector pauses (the event loop stops for each), by generation (2: full)",
            ["generation"],
            buckets=_GC_BUCKETS,
            registry=r,
        )
        self._gc_by_generation = [self.gc_pause.labels(str(g)) for g in range(3)]

    def count_action(self, source: str) -> None:
        """One more applied action chosen by ``source`` (one of :data:`ACTION_SOURCES`)."""
        child = self._actions_by_source.get(source)
        if child is None:
            child = self._actions_by_source[source] = self.actions.labels(source)
        child.inc()

    def observe_commit(self, seconds: float) -> None:
        """One step commit took ``seconds`` (the histogram, and :attr:`commit_hook` if set)."""
        self.commit_latency.observe(seconds)
        if self.commit_hook is not None:
            self.commit_hook(seconds)

    def observe_gc_pause(self, generation: int, seconds: float) -> None:
        self._gc_by_generation[generation].observe(seconds)

    def watch(self, *, tables: Callable[[], float], connections: Callable[[], float]) -> None:
        self.tables.set_function(tables)
        self.connections.set_function(connections)

    def before_expose(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` before every scrape (series fed in batches, such as the GC pauses)."""
        self._hooks.append(hook)

    def label_node(self, node_id: str) -> None:
        """Cluster mode: every series gains the label ``node="<node_id>"`` (docs/scaling.md)."""
        self._exposed = CollectorRegistry(auto_describe=False)
        self._exposed.register(_NodeLabelled(self.registry, node_id))

    def expose(self) -> tuple[bytes, str]:
        """The text exposition format and its content type."""
        for hook in self._hooks:
            hook()
        return generate_latest(self._exposed or self.registry), CONTENT_TYPE_LATEST


class _NodeLabelled(Collector):
    """The series of a registry, each with a ``node`` label added."""

    def __init__(self, registry: CollectorRegistry, node_id: str) -> None:
        self._registry = registry
        self._node = node_id

    def collect(self) -> Iterator[Metric]:
        for family in self._registry.collect():
            labelled = Metric(family.name, family.documentation, family.type, family.unit)
            labelled.samples = [s._replace(labels={**s.labels, "node": self._node}) for s in family.samples]
            yield labelled
