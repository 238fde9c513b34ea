"""Every knob of the hub, with its default, in one frozen value (``docs/hub.md`` documents each).

>>> TableTimers().action_ms, TableTimers().bank_ms
(5000, 10000)
>>> HubSettings().port
8765
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from client_protocol.messages import MAX_CLIENT_MESSAGE_BYTES

# A table's clocks and spectator policy are part of what the table factory is asked for
# (server.services.tables); re-exported here, where the hub's settings name them.
from server.services.tables import SettingsError, SpectatePolicy, TableTimers
from server.social.lobby import LobbySettings

__all__ = [
    "PACED_TIMERS",
    "ConnectionLimits",
    "GcPolicy",
    "HubSettings",
    "SettingsError",
    "SpectatePolicy",
    "TableTimers",
]

PACED_TIMERS = TableTimers(bot_delay_ms=600, hand_pause_ms=5000)
"""The hub's default timers: a built-in bot takes 0.6 s over its turn, and 5 s pass between two
hands at a table with people, about the pace of a table on Tenhou."""


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """Robustness limits of one websocket connection."""

    max_message_bytes: int = MAX_CLIENT_MESSAGE_BYTES  # a larger frame closes the connection (1009)
    hello_timeout_s: float = 5.0  # no hello by then: closed
    open_timeout_s: float = 10.0  # the HTTP/websocket opening handshake
    ping_interval_s: float = 6.0  # websocket pings; a dead peer is dropped after interval + timeout
    ping_timeout_s: float = 6.0
    close_timeout_s: float = 3.0
    outbound_queue: int = 512  # messages waiting for a slow reader; full: the connection is dropped
    write_limit: int = 32 * 1024  # bytes buffered by the transport before the writer waits
    send_buffer_bytes: int | None = None  # the socket's kernel send buffer (SO_SNDBUF); None: OS default
    rate_per_s: float = 20.0  # token bucket: sustained messages per second ...
    rate_burst: int = 40  # ... and burst
    max_violations: int = 10  # rate-limited or malformed messages tolerated, then closed (1008)
    snapshot_after: int = 64  # a resume missing more events than this gets a snapshot instead
    connect_per_ip_per_s: float = 20.0  # new websocket connections per client address: sustained ...
    connect_per_ip_burst: int = 100  # ... and burst (beyond: HTTP 429 before the handshake)
    guest_per_ip_per_s: float = 5.0  # guest hellos per client address: sustained ...
    guest_per_ip_burst: int = 60  # ... and burst (beyond: rate_limited, closed 1008)
    chat_per_s: float = 1.0  # chat lines and stamps per connection: sustained ...
    chat_burst: int = 5  # ... and burst (beyond: rate_limited, counted as a violation)
    chat_per_ip_per_s: float = 4.0  # chat lines and stamps per client address: sustained ...
    chat_per_ip_burst: int = 20  # ... and burst

    def __post_init__(self) -> None:
        if self.outbound_queue < 2 * self.snapshot_after + 16:
            raise SettingsError(
                f"outbound_queue ({self.outbound_queue}) must hold a whole catch-up: "
                f"at least 2 x snapshot_after ({self.snapshot_after}) + 16"
            )
        if self.rate_per_s <= 0 or self.rate_burst < 1 or self.max_violations < 1:
            raise SettingsError("rate_per_s, rate_burst and max_violations must be positive")
        if (
            min(self.connect_per_ip_per_s, self.guest_per_ip_per_s) <= 0
            or min(self.connect_per_ip_burst, self.guest_per_ip_burst) < 1
        ):
            raise SettingsError("the per-address connection and guest limits must be positive")
        if (
            min(self.chat_per_s, self.chat_per_ip_per_s) <= 0
            or min(self.chat_burst, self.chat_per_ip_burst) < 1
        ):
            raise SettingsError("the chat limits must be positive")


@dataclass(frozen=True, slots=True)
class GcPolicy:
    """How ``jantaku serve`` runs the garbage collector (``server/hub/gcpolicy.py`` explains it)."""

    freeze_every_s: float = 0.025  # collect the young objects, freeze the rest (0: Python's own settings)
    full_every_s: float = 3600.0  # a full collection this often (0: never)
    thresholds: tuple[int, int, int] = (50_000, 1_000, 1_000)  # automatic collections: a safety net

    def __post_init__(self) -> None:
        if self.freeze_every_s < 0 or self.full_every_s < 0:
            raise SettingsError(
                f"gc_freeze_every and gc_full_every must be >= 0 s, got {self.freeze_every_s}, "
                f"{self.full_every_s}"
            )
        if self.full_every_s and self.full_every_s < self.freeze_every_s:
            raise SettingsError(
                f"gc_full_every ({self.full_every_s} s) must be 0 or at least gc_freeze_every "
                f"({self.freeze_every_s} s)"
            )
        if len(self.thresholds) != 3 or min(self.thresholds) < 1:
            raise SettingsError(f"gc thresholds must be three positive integers, got {self.thresholds}")

    @property
    def active(self) -> bool:
        return self.freeze_every_s > 0


@dataclass(frozen=True, slots=True)
class HubSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    data_dir: Path = Path("data")
    database_url: str | None = None
    timers: TableTimers = PACED_TIMERS
    spectate: SpectatePolicy = field(default_factory=SpectatePolicy)
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    bot_fill_after_s: float = 10.0  # quick match: built-in bots take the empty seats after this wait
    fill_bot: str = "greedy"  # which built-in bot fills empty seats
    session_ttl_s: float = 24 * 3600.0  # a session token (welcome) resumes the player this long
    private_ttl_s: float = 3600.0  # an invite code that never filled its table expires
    max_private_per_account: int = 3  # open (unfilled) private tables per creator
    finished_retention_s: float = 120.0  # a finished table still answers resumes this long
    commit_timeout_s: float = 5.0  # a store write slower than this is answered busy_retry
    commit_retry_s: float = 1.0  # a timed-out or failed store write for a timer/bot step is retried
    shutdown_grace_s: float = 5.0  # SIGTERM: time for tables and outbound queues to flush
    drain_s: float = 5.0  # SIGTERM (jantaku serve): /readyz answers 503 this long first (0: off)
    allowed_origins: tuple[str, ...] = ()  # browser Origins allowed besides same-host ("*": any)
    gc: GcPolicy = field(default_factory=GcPolicy)  # applied by ``jantaku serve`` (serve_forever) only
    # sys.setswitchinterval while ``jantaku serve`` runs (0: Python's own 5 ms; gcpolicy.switching)
    gil_switch_interval_s: float = 0.001
    lobby: LobbySettings = field(default_factory=LobbySettings)  # lobby chat's history and retention
    # seated players' free text per room kind (private, quick, ranked, tournament): on, between_hands, off
    table_chat: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise SettingsError(f"port must be 0..65535, got {self.port}")
        if self.bot_fill_after_s < 0:
            raise SettingsError(f"bot_fill_after_s must be >= 0, got {self.bot_fill_after_s}")
        if self.drain_s < 0:
            raise SettingsError(f"drain_s must be >= 0, got {self.drain_s}")
        if not 0 <= self.gil_switch_interval_s <= 1:
            raise SettingsError(f"gil_switch_interval must be 0..1 s, got {self.gil_switch_interval_s}")
        if self.commit_timeout_s <= 0 or self.commit_retry_s <= 0:
            raise SettingsError("commit_timeout_s and commit_retry_s must be > 0")
