"""What a table is made of (:class:`~server.hub.table.TableActor`'s constructor): what it plays
(:class:`TableSetup`: the match, rules, seats, walls, clocks, spectators) and what it runs on
(:class:`TableDeps`: the store, the clocks, the metrics, the store's time limits; one value for
every table of a hub, made by the table factory, :mod:`server.hub.tables`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from server.domain.ports import Repository
from server.domain.records import JSON
from server.engine import HandStart
from server.engine.rules import Ruleset
from server.engine.tiles import Tile
from server.hub.clock import Clock
from server.hub.inbox import SeatSpec
from server.hub.metrics import HubMetrics
from server.hub.settings import SpectatePolicy, TableTimers
from server.hub.steplog import table_settings_json


@dataclass(frozen=True, slots=True)
class TableSetup:
    """What one table plays: its match, rules, seats, walls, clocks and spectators."""

    match_id: str
    ruleset: Ruleset
    seed: bytes
    seats: Sequence[SeatSpec]
    timers: TableTimers
    spectate: SpectatePolicy
    walls: Sequence[Sequence[Tile]] | None = None  # injected walls (None: dealt from the seed)
    source: str = ""  # how the table was made (stored with the match)
    hold_reveals: bool = False  # keep wall reveals and the seed from seats and spectators (TableSpec)
    start_scores: tuple[int, ...] | None = None  # per-seat start points (TableSpec.start_scores)
    chat: str | None = None  # the table's ``chat`` tag (its seated players' free text), kept on restart

    def stored_settings(self) -> JSON:
        """The settings kept with the match's recovery record (:func:`table_settings_json`)."""
        return table_settings_json(
            self.timers, self.spectate, hold=self.hold_reveals, start_scores=self.start_scores, chat=self.chat
        )

    def hand_start(self) -> HandStart | None:
        """Where the match starts: East 1 with the per-seat start points, if any."""
        return None if self.start_scores is None else HandStart(scores=self.start_scores)


@dataclass(frozen=True, slots=True)
class TableDeps:
    """What a table runs on: the store, the clocks, the metrics and the store's time limits; the
    same for every table of a hub."""

    repo: Repository
    clock: Clock
    wall_clock: Callable[[], float] = time.time  # wall-clock seconds, for what is stored
    metrics: HubMetrics | None = None
    commit_timeout_s: float = 5.0
    commit_retry_s: float = 1.0
    retention_s: float = 120.0  # a finished table stays this long (late resumes see the outcome)
