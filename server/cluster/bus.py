"""The :class:`~server.domain.bus.SocialBus` port's implementations (docs/social.md, "Across
nodes"): :class:`RedisBus`, Redis pub/sub on the cluster's Redis (channel ``PREFIX:bus:TOPIC``),
and :class:`InProcessBus`, several hubs of one process on one bus (tests).

Redis pub/sub keeps nothing: a node that is not subscribed when a message is published never sees
it. That is what presence and invitations need (soft, short-lived news; a node that starts asks
the others for their presence lists). A publish that fails (Redis unreachable) is logged and
dropped, never raised into the hub; the subscriber reconnects by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from server.domain.bus import Handler

log = logging.getLogger(__name__)

RETRY_S = 1.0  # the subscriber's wait before it subscribes again after losing Redis


class InProcessBus:
    """One bus for several hubs of one process: every subscriber of a topic gets each message,
    on the event loop, after the publisher's turn (as a network bus would deliver it)."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = defaultdict(list)
        self.published = 0

    async def publish(self, topic: str, payload: bytes) -> None:
        self.published += 1
        loop = asyncio.get_running_loop()
        for handler in list(self._handlers.get(topic, ())):
            loop.call_soon(handler, payload)

    async def subscribe(self, topic: str, handler: Handler) -> None:
        self._handlers[topic].append(handler)

    async def close(self) -> None:
        self._handlers.clear()


class RedisBus:
    """Redis pub/sub: one connection publishes, one listens to every subscribed channel."""

    def __init__(self, url: str, prefix: str, *, timeout_s: float = 1.0) -> None:
        self._prefix = prefix
        self._redis: Redis = Redis.from_url(
            url, socket_connect_timeout=timeout_s, socket_timeout=None, decode_responses=False
        )
        self._publisher: Redis = Redis.from_url(
            url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s, decode_responses=False
        )
        self._handlers: dict[str, list[Handler]] = defaultdict(list)
        self._task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._changed = asyncio.Event()

    def channel(self, topic: str) -> str:
        return f"{self._prefix}:bus:{topic}"

    async def publish(self, topic: str, payload: bytes) -> None:
        try:
            await self._publisher.publish(self.channel(topic), payload)
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("could not publish on %s: %s", topic, exc)

    async def subscribe(self, topic: str, handler: Handler) -> None:
        """From the moment this returns, messages of ``topic`` reach ``handler``."""
        self._handlers[topic].append(handler)
        self._subscribed.clear()
        self._changed.set()
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="social-bus")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5.0):
                await self._subscribed.wait()

    async def _listen(self) -> None:
        while True:
            try:
                async with self._redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await self._follow(pubsub)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, TimeoutError) as exc:
                log.warning("the social bus lost Redis (%s); subscribing again", exc)
                await asyncio.sleep(RETRY_S)

    async def _follow(self, pubsub: PubSub) -> None:
        subscribed: set[str] = set()
        while True:
            wanted = {self.channel(t) for t in self._handlers}
            if wanted - subscribed:
                await pubsub.subscribe(*(wanted - subscribed))
                subscribed |= wanted
            self._changed.clear()
            self._subscribed.set()
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
            if message is None or message.get("type") != "message":
                continue
            channel = message["channel"]
            topic = (channel.decode() if isinstance(channel, bytes) else str(channel)).rsplit(":bus:", 1)[-1]
            data = message["data"]
            for handler in list(self._handlers.get(topic, ())):
                try:
                    handler(data if isinstance(data, bytes) else str(data).encode())
                except Exception:
                    log.exception("a handler of %s failed", topic)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await self._task
        await self._redis.aclose()
        await self._publisher.aclose()
