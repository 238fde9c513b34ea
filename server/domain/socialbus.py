"""The social bus port: how chat, presence and invites reach the players of every node.

A **topic** is a short string (``lobby:general``, ``lobby:queue:east``, ``account:<id>``...); a
**payload** is a JSON object (a ``dict`` of JSON values, at most :data:`MAX_PAYLOAD_BYTES` once
encoded). :meth:`SocialBus.publish` hands one payload to every handler subscribed to its topic, on
every node of the cluster, exactly once per handler and in publishing order per node; the
publishing node's own handlers are called at once (before ``publish`` returns), so a single node
never waits on the network, and the other nodes' handlers when the message reaches them.

Delivery is best effort, like the soft state it carries: a node that cannot reach Redis delivers
to its own handlers only, and a message published while a node was cut off is not replayed to it
(what must survive, such as lobby history, is stored, not carried by the bus).

Two implementations: :class:`server.hub.socialbus.LocalBus` (one process) and
:class:`server.cluster.socialbus.RedisBus` (Redis pub/sub, cluster mode).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

Payload = Mapping[str, Any]
"""A JSON object."""

Handler = Callable[[str, Payload], None]
"""Called with ``(topic, payload)`` on the event loop; must not block (hand slow work to a task)."""

MAX_PAYLOAD_BYTES = 16 * 1024
"""A larger payload is refused by :meth:`SocialBus.publish` with ``ValueError``."""


class SocialBus(Protocol):
    """Publish to a topic; subscribe a handler to a topic (docs/social.md, "Across nodes")."""

    @property
    def node_id(self) -> str:
        """This node's id (``local`` for a single node)."""
        ...

    async def publish(self, topic: str, payload: Payload) -> None:
        """Deliver ``payload`` to every handler of ``topic`` on every node (this node's at once).
        Never raises for an unreachable Redis (logged, and this node's handlers still get it);
        ``ValueError`` for a payload that is not a JSON object or is too large."""
        ...

    def subscribe(self, topic: str, handler: Handler) -> Callable[[], None]:
        """Call ``handler`` for every message of ``topic`` from now on; returns the unsubscribe."""
        ...

    async def start(self) -> None:
        """Begin receiving the other nodes' messages (a no-op for a single node)."""
        ...

    async def close(self) -> None: ...
