"""The social bus of one process (:class:`LocalBus`) and what every
:class:`~server.domain.socialbus.SocialBus` shares: the payload check and the handlers of each topic
(the cluster's Redis bus, :mod:`server.cluster.socialbus`, builds on them)."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable

from server.domain.socialbus import MAX_PAYLOAD_BYTES, Handler, Payload

log = logging.getLogger(__name__)


def encode(payload: Payload) -> str:
    """The payload as compact JSON; ``ValueError`` if it is not a JSON object or is too large."""
    if not isinstance(payload, dict):
        raise ValueError("a social bus payload is a JSON object")
    try:
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a social bus payload must be JSON: {exc}") from None
    if len(text.encode()) > MAX_PAYLOAD_BYTES:
        raise ValueError(f"a social bus payload holds at most {MAX_PAYLOAD_BYTES} bytes")
    return text


class Handlers:
    """The handlers of each topic on this node."""

    def __init__(self) -> None:
        self._by_topic: dict[str, list[Handler]] = {}

    def add(self, topic: str, handler: Handler) -> Callable[[], None]:
        handlers = self._by_topic.setdefault(topic, [])
        handlers.append(handler)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                handlers.remove(handler)
            if not handlers and self._by_topic.get(topic) is handlers:
                del self._by_topic[topic]

        return unsubscribe

    def call(self, topic: str, payload: Payload) -> int:
        handlers = self._by_topic.get(topic)
        if not handlers:
            return 0
        for handler in tuple(handlers):
            try:
                handler(topic, payload)
            except Exception:  # one broken handler must not stop the others
                log.exception("social bus handler of %s failed", topic)
        return len(handlers)


class LocalBus:
    """The social bus of a single node; or, sharing :class:`Handlers` with others
    (:func:`local_nodes`), of one of several nodes in one process (tests and benches)."""

    def __init__(self, node_id: str = "local", handlers: Handlers | None = None) -> None:
        self._node_id = node_id
        self._handlers = handlers if handlers is not None else Handlers()

    @property
    def node_id(self) -> str:
        return self._node_id

    async def publish(self, topic: str, payload: Payload) -> None:
        self._handlers.call(topic, json.loads(encode(payload)))

    def subscribe(self, topic: str, handler: Handler) -> Callable[[], None]:
        return self._handlers.add(topic, handler)

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None


def local_nodes(*node_ids: str) -> list[LocalBus]:
    """One bus per node id, all on the same handlers: what one publishes, every node's handlers of
    the topic get at once (a cluster in one process, for tests and benches)."""
    handlers = Handlers()
    return [LocalBus(node_id, handlers) for node_id in node_ids]
