"""The port through which the nodes of a cluster tell each other soft, short-lived news (presence,
invitations, changes of friendships and blocks): :class:`SocialBus` (docs/social.md, "Across
nodes").

It is deliberately generic: a message is bytes on a named topic, delivered to every node
subscribed to that topic, the sender's own included, at most once and in the order it was
published by one node; nothing is kept (a node that is down misses it). Two implementations live
in ``server.cluster.bus``: Redis pub/sub for a cluster, and one in-process bus for tests. One
process needs none (the hub then delivers to its own connections only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

Handler = Callable[[bytes], None]
"""Called on the subscriber's event loop for each message of the topic; it must not block."""


class SocialBus(Protocol):
    async def publish(self, topic: str, payload: bytes) -> None:
        """Send ``payload`` to every subscriber of ``topic`` (never raises for a lost message:
        a bus that cannot reach its broker logs and drops it)."""
        ...

    async def subscribe(self, topic: str, handler: Handler) -> None:
        """Call ``handler`` with every message of ``topic`` from now on."""
        ...

    async def close(self) -> None: ...
