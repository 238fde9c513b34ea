"""The cluster's :class:`~server.domain.socialbus.SocialBus` (docs/social.md; a single node uses
:class:`server.hub.socialbus.LocalBus`).

Every message is published to the Redis channel
  ``PREFIX:social:<topic>`` as ``{"o": <origin node>, "p": <payload>}``; every node listens to
  ``PREFIX:social:*`` (one ``PSUBSCRIBE`` on a connection of its own) and hands each message from
  another node to its handlers of the topic (a node's own messages were handed to its handlers when
  published, and are skipped when they come back). While Redis cannot be reached the bus keeps
  delivering on this node, logs the failure once, and listens again every ``retry_s``.

Every node receives every topic and drops the ones nobody on it follows: the bus is for the
low-volume traffic of players together, not for a table's events.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis

from server.cluster.node import redis_client
from server.cluster.settings import ClusterSettings
from server.domain.socialbus import Handler, Payload
from server.hub.socialbus import Handlers, encode

log = logging.getLogger(__name__)


class RedisBus:
    """The social bus of a cluster node, on Redis pub/sub."""

    def __init__(
        self,
        redis: Any,
        *,
        node_id: str,
        prefix: str = "jantaku",
        retry_s: float = 1.0,
        listen_redis: Any = None,
    ) -> None:
        """``redis``: a ``redis.asyncio.Redis`` client (``decode_responses=True``) to publish with;
        ``listen_redis``: the one to listen with (default ``redis``; one without a read timeout
        suits it, as listening waits for messages)."""
        self._redis = redis
        self._listen_redis = listen_redis if listen_redis is not None else redis
        self._node_id = node_id
        self._channel = f"{prefix}:social:"
        self._retry_s = retry_s
        self._handlers = Handlers()
        self._task: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self._failing = False
        self.received = 0  # messages from other nodes handed to handlers (for tests and metrics)

    @property
    def node_id(self) -> str:
        return self._node_id

    async def publish(self, topic: str, payload: Payload) -> None:
        text = encode(payload)
        self._handlers.call(topic, json.loads(text))
        envelope = f'{{"o":{json.dumps(self._node_id)},"p":{text}}}'
        try:
            await self._redis.publish(self._channel + topic, envelope)
        except Exception as exc:  # Redis down: this node's handlers had it; the others miss it
            if not self._failing:
                log.warning("social bus: cannot publish to Redis (%s); delivering on this node only", exc)
            self._failing = True
        else:
            self._failing = False

    def subscribe(self, topic: str, handler: Handler) -> Callable[[], None]:
        return self._handlers.add(topic, handler)

    async def start(self) -> None:
        """Listen in the background; returns once the first subscription is in place (or failed)."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="social-bus")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._listening.wait(), timeout=max(self._retry_s, 2.0))

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _listen(self) -> None:
        while True:
            pubsub = self._listen_redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(self._channel + "*")
                self._listening.set()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None:
                        self._receive(message)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("social bus: not listening to Redis (%s); retrying in %.1f s", exc, self._retry_s)
                self._listening.set()  # start() does not wait for a Redis that is down
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(self._retry_s)

    def _receive(self, message: dict[str, Any]) -> None:
        channel, data = message.get("channel"), message.get("data")
        if not isinstance(channel, str) or not isinstance(data, str) or not channel.startswith(self._channel):
            return
        try:
            envelope = json.loads(data)
        except ValueError:
            return
        if not isinstance(envelope, dict) or envelope.get("o") == self._node_id:
            return  # our own: handed to our handlers when published
        payload = envelope.get("p")
        if isinstance(payload, dict) and self._handlers.call(channel[len(self._channel) :], payload):
            self.received += 1


def social_bus(
    settings: ClusterSettings, publisher: Redis | None = None
) -> tuple[RedisBus, Callable[[], Awaitable[None]]]:
    """A node's Redis bus and how to close it: it publishes through ``publisher`` (the node's own
    client, whose calls give up after ``redis_timeout_s``; by default one of the bus's own, made
    so) and listens on a connection of its own. Closing it closes what it made, not ``publisher``."""
    own = publisher is None
    sender = redis_client(settings) if publisher is None else publisher
    listener: Redis = Redis.from_url(
        settings.redis_url, decode_responses=True, socket_connect_timeout=settings.redis_timeout_s
    )
    bus = RedisBus(sender, node_id=settings.node_id, prefix=settings.key_prefix, listen_redis=listener)

    async def close() -> None:
        await bus.close()
        if own:
            await sender.aclose()
        await listener.aclose()

    return bus, close
