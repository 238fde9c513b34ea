"""The settings of a cluster node (``jantaku serve --redis-url ... --node-id ...``).

>>> s = ClusterSettings(redis_url="redis://127.0.0.1:6379/0", node_id="a")
>>> s.key("node", "a")
'jantaku:node:a'
>>> cluster_store_error("sqlite+aiosqlite:///data/jantaku.sqlite3") is not None
True
>>> cluster_store_error("postgresql+asyncpg://u@db/jantaku") is None
True
"""

from __future__ import annotations

import os
import re
import socket
from dataclasses import dataclass

_NODE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
_PREFIX = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


class ClusterSettingsError(ValueError):
    """A cluster setting that cannot be used (the message names it)."""


def default_node_id() -> str:
    """``HOSTNAME-PID``: unique on one machine and across containers."""
    return f"{socket.gethostname()}-{os.getpid()}"


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    """Where the cluster's Redis is, who this node is and its timings (``docs/scaling.md``).

    Every Redis call waits at most ``redis_timeout_s``; a node's registry entry lives
    ``node_ttl_ms`` and is refreshed every ``heartbeat_s``; a table's lease lives ``lease_ms`` and
    is renewed every ``heartbeat_s``; every ``takeover_every_s`` a node looks for the matches whose
    lease deadline passed and whose lease is gone (their owner died) and takes them over; every
    ``backstop_every_s`` (and once Redis answers again) it checks every running match's lease
    instead, in case Redis lost the deadlines.
    """

    redis_url: str
    node_id: str
    advertise_url: str | None = None  # how the other nodes reach this node's game port
    secret: str | None = None  # the node link's shared secret
    key_prefix: str = "jantaku"  # every Redis key starts with "PREFIX:" (several clusters, tests)
    redis_timeout_s: float = 1.0
    heartbeat_s: float = 1.0
    node_ttl_ms: int = 3000
    lease_ms: int = 5000
    takeover_every_s: float = 1.0
    backstop_every_s: float = 30.0  # the takeover scan also reads every running match's id (rare)
    scan_limit: int = 1000  # a takeover scan looks at most at this many due deadlines
    handover_s: float = 10.0  # a drain waits at most this long for other nodes to take its tables
    # a queued player not paired on its own node within this wait goes to its queue's matcher node
    # with the others waiting there (0: at once); docs/scaling.md, "Quick match across nodes"
    queue_local_wait_s: float = 1.0

    def __post_init__(self) -> None:
        if not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise ClusterSettingsError(
                f"redis_url must be redis://HOST:PORT/DB (or rediss://, unix://), got {self.redis_url!r}"
            )
        if not _NODE_ID.match(self.node_id):
            raise ClusterSettingsError(
                f"node_id must be 1-64 letters, digits, '_', '.', ':' or '-', got {self.node_id!r}"
            )
        if not _PREFIX.match(self.key_prefix):
            raise ClusterSettingsError(
                f"cluster key prefix must be 1-64 plain characters, got {self.key_prefix!r}"
            )
        if min(self.redis_timeout_s, self.heartbeat_s, self.takeover_every_s, self.backstop_every_s) <= 0:
            raise ClusterSettingsError(
                "redis_timeout_s, heartbeat_s, takeover_every_s and backstop_every_s must be > 0"
            )
        if not 0 <= self.queue_local_wait_s <= 600:
            raise ClusterSettingsError(
                f"queue_local_wait_s must be 0-600 seconds, got {self.queue_local_wait_s}"
            )
        if self.node_ttl_ms < 2000 * self.heartbeat_s or self.lease_ms < 2000 * self.heartbeat_s:
            raise ClusterSettingsError("node_ttl_ms and lease_ms must be at least two heartbeats")

    def key(self, *parts: str) -> str:
        return ":".join((self.key_prefix, *parts))


def cluster_store_error(database_url: str) -> str | None:
    """Why cluster mode cannot run on this store (None: it can). Only PostgreSQL is shared by many
    processes and checks the fencing token under a row lock; SQLite and ``memory:`` belong to one
    process."""
    if database_url.startswith("postgresql"):
        return None
    kind = "memory:" if database_url == "memory:" else "SQLite"
    return (
        f"cluster mode (--redis-url) needs PostgreSQL (--database-url postgresql://USER@HOST/DB or "
        f"DATABASE_URL): {kind} is the store of one process, and the nodes of a cluster share one database"
    )
