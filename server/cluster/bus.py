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
        self._pubsub: PubSub | None = None

    def channel(self, topic: str) -> str:
        return f"{self._prefix}:bus:{topic}"

    async def publish(self, topic: str, payload: bytes) -> None:
        try:
            await self._publisher.publish(self.channel(topic), payload)
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("could not publish on %s: %s", topic, exc)

    async def subscribe(self, topic: str, handler: Handler) -> None:
        """From the moment this returns, messages of ``topic`` reach ``handler``."""
        first = topic not in self._handlers
        self._handlers[topic].append(handler)
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="social-bus")
        elif first and self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError, TimeoutError):  # the listener resubscribes
                await self._pubsub.subscribe(self.channel(topic))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5.0):
                await self._subscribed.wait()

    async def _listen(self) -> None:
        """Follow every subscribed channel, reading only when Redis sends (no polling); after a
        lost connection, subscribe again to all of them."""
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            self._pubsub = pubsub
            try:
                await pubsub.subscribe(*(self.channel(t) for t in self._handlers))
                self._subscribed.set()
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self._dispatch(message["channel"], message["data"])
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, TimeoutError) as exc:
                log.warning("the social bus lost Redis (%s); subscribing again", exc)
                await asyncio.sleep(RETRY_S)
            finally:
                self._pubsub = None
                with contextlib.suppress(RedisError, OSError, TimeoutError, RuntimeError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _dispatch(self, channel: bytes | str, data: bytes | str) -> None:
        topic = (channel.decode() if isinstance(channel, bytes) else channel).rsplit(":bus:", 1)[-1]
        payload = data if isinstance(data, bytes) else data.encode()
        for handler in list(self._handlers.get(topic, ())):
            try:
                handler(payload)
            except Exception:
                log.exception("a handler of %s failed", topic)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await self._task
        await self._redis.aclose()
        await self._publisher.aclose()
