"""What a table's director asks of a table that another node runs (``docs/scaling.md``, "Table
control across nodes"): pausing, unpausing and ending it, locking and unlocking a seat, seating a
substitute. The table factory of any node finds a table by its match id; when it runs elsewhere,
the request goes to the node holding the table's lease, which does it on its own table and
answers. A tournament director (the event service) therefore works the same on any node.

Redis keys (``PREFIX`` as in :mod:`server.cluster.node`)::

    PREFIX:control:{node}     list of the requests for the tables of ``node``: JSON
                              ``{"id", "match", "command", "sent_ms"}`` (``command``:
                              ``TableCommand.to_wire``); expires after REQUEST_TTL_MS
    PREFIX:control-reply:{id} list holding the owner's answer: JSON ``{"status": "done", "step"}``,
                              ``{"status": "refused", "code", "message"}`` or ``{"status":
                              "absent"}`` (it does not run the table); expires after REQUEST_TTL_MS

Each node waits for its requests with a blocking pop on its own connection (its socket timeout
is longer than the pop's), so an idle node costs Redis one call every :data:`POLL_S`. An answer
not back within :data:`ANSWER_S` (the owner died or is stuck) counts as no answer: the caller
raises ``busy`` and the organizer tries again. Pausing, unpausing, ending and locking are
idempotent, so a request that reaches the owner after that is still applied; a substitute is not
(it would sit a player the organizer was told was not seated), so the owner drops one older than
:data:`FRESH_MS` on Redis's clock (``sent_ms``), the one clock every node shares.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from redis.asyncio import Redis

from server.cluster.settings import ClusterSettings
from server.services.tables import TableAnswer, TableCommand

log = logging.getLogger(__name__)

POLL_S = 1  # a node's blocking pop of its requests lasts this long (whole seconds: BLPOP's unit)
ANSWER_S = 5.0  # how long the asker waits for the owner's answer
REQUEST_TTL_MS = 30_000
RELAY_TRIES = 3  # owners asked in turn while a match moves between nodes
RELAY_PAUSE_S = 0.25
FRESH_MS = 4_000  # a substitute request older than this (less than ANSWER_S) is dropped unanswered
ABSENT = "absent"  # the asked node does not run the table


class ControlHost(Protocol):
    """The hub beside the node (``server.hub.server.Hub``)."""

    async def control_table(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        """Do ``command`` on the table of ``match_id`` if it runs here (a refusal is an answer);
        None when it does not run here."""
        ...


class ControlDesk:
    """This node's side of table control: asks other nodes, and serves their requests."""

    def __init__(self, settings: ClusterSettings, *, redis: Redis | None = None) -> None:
        self.settings = settings
        # its own connection: the blocking pops must outlive the node's per-call timeout
        wait = POLL_S + ANSWER_S + settings.redis_timeout_s
        self.redis: Redis = redis or Redis.from_url(
            settings.redis_url,
            socket_timeout=wait,
            socket_connect_timeout=settings.redis_timeout_s,
            decode_responses=True,
            retry_on_timeout=False,
        )
        self._loop: asyncio.Task[None] | None = None
        self._work: set[asyncio.Task[None]] = set()
        self.served = 0  # requests done on this node's tables (status, tests)

    def _queue(self, node_id: str) -> str:
        return self.settings.key("control", node_id)

    def _reply(self, request_id: str) -> str:
        return self.settings.key("control-reply", request_id)

    async def ask(self, node_id: str, match_id: str, command: TableCommand) -> TableAnswer | str | None:
        """Send ``command`` to ``node_id`` and wait for its answer: a :class:`TableAnswer`,
        :data:`ABSENT` (it does not run the table), or None (no answer in time, or Redis cannot be
        reached)."""
        request_id = secrets.token_hex(8)
        try:
            async with asyncio.timeout(ANSWER_S + self.settings.redis_timeout_s):
                sent_ms = await self._now_ms()
                body = {"id": request_id, "match": match_id, "command": command.to_wire(), "sent_ms": sent_ms}
                pipe = self.redis.pipeline(transaction=False)
                pipe.rpush(self._queue(node_id), json.dumps(body))
                pipe.pexpire(self._queue(node_id), REQUEST_TTL_MS)
                await pipe.execute()
                got = await self.redis.blpop([self._reply(request_id)], timeout=ANSWER_S)
        except Exception as exc:  # any failure (Redis away, a timeout) is no answer
            log.warning(
                "table control %s of %s on node %s: no answer (%s)", command.action, match_id, node_id, exc
            )
            return None
        if got is None:
            log.warning("table control %s of %s: node %s did not answer", command.action, match_id, node_id)
            return None
        return _answer_of(str(got[1]))

    async def _now_ms(self) -> int:
        seconds, micros = await self.redis.time()
        return int(seconds) * 1000 + int(micros) // 1000

    async def relay(
        self,
        match_id: str,
        command: TableCommand,
        *,
        owner: Callable[[], Awaitable[str | None]],
        running: Callable[[], Awaitable[bool]],
    ) -> TableAnswer | None:
        """Have the node holding the lease of ``match_id`` (``owner()``) do ``command``: its answer
        (done or refused there), or ``TableAnswer(over=True)`` once the match is over
        (``running()`` False: nothing left to do); None when no node could do it now (no answer,
        or the match stays between nodes for a moment)."""
        for _ in range(RELAY_TRIES):
            try:
                node = await owner()
                if node is not None and node != self.settings.node_id:
                    answer = await self.ask(node, match_id, command)
                    if answer is None or isinstance(answer, TableAnswer):
                        return answer
                if not await running():
                    return TableAnswer(over=True)
            except Exception:
                log.exception("table control %s of %s: lookup failed", command.action, match_id)
                return None
            await asyncio.sleep(RELAY_PAUSE_S)  # it moved (a takeover, a drain): ask its new node
        return None

    # -- serving -------------------------------------------------------------------------------------

    def start(self, host: ControlHost) -> None:
        self._loop = asyncio.create_task(self._serve(host), name="cluster-control")

    async def stop(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
            self._loop = None
        if self._work:
            await asyncio.gather(*list(self._work), return_exceptions=True)
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def _serve(self, host: ControlHost) -> None:
        queue = self._queue(self.settings.node_id)
        while True:
            try:
                got = await self.redis.blpop([queue], timeout=POLL_S)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: try again in a moment
                log.debug("table control: cannot read requests: %s", exc)
                await asyncio.sleep(POLL_S)
                continue
            if got is None:
                continue
            task = asyncio.create_task(self._handle(host, str(got[1])))
            self._work.add(task)
            task.add_done_callback(self._work.discard)

    async def _handle(self, host: ControlHost, raw: str) -> None:
        try:
            request: dict[str, Any] = json.loads(raw)
            request_id, match_id = str(request["id"]), str(request["match"])
            command = TableCommand.from_wire(request["command"])
            sent_ms = int(request.get("sent_ms") or 0)
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("table control: malformed request dropped: %.200s", raw)
            return
        if command.action == "substitute":
            with contextlib.suppress(Exception):
                if await self._now_ms() - sent_ms > FRESH_MS:
                    log.warning("table control: a substitute at %s came too late, dropped", match_id)
                    return
        try:
            answer = await host.control_table(match_id, command)
        except Exception:
            log.exception(
                "table control %s of %s failed", command.action, match_id, extra={"match_id": match_id}
            )
            return  # no answer: the asker reports busy, the organizer tries again
        if answer is not None and answer.code is None:
            self.served += 1
            log.info(
                "table %s: %s at another node's request",
                match_id,
                command.action,
                extra={"match_id": match_id},
            )
        with contextlib.suppress(Exception):
            pipe = self.redis.pipeline(transaction=False)
            pipe.rpush(self._reply(request_id), _reply_of(answer))
            pipe.pexpire(self._reply(request_id), REQUEST_TTL_MS)
            await pipe.execute()


def _reply_of(answer: TableAnswer | None) -> str:
    if answer is None:
        return json.dumps({"status": ABSENT})
    if answer.code is not None:
        return json.dumps({"status": "refused", "code": answer.code, "message": answer.message})
    return json.dumps({"status": "done", "step": answer.step})


def _answer_of(raw: str) -> TableAnswer | str | None:
    """The owner's reply read back (None: one this node cannot read, as no answer)."""
    try:
        reply = json.loads(raw)
        status = reply["status"]
        if status == ABSENT:
            return ABSENT
        if status == "refused":
            return TableAnswer(code=str(reply["code"]), message=str(reply.get("message", "")))
        step = reply.get("step")
        if status == "done" and (step is None or isinstance(step, int)):
            return TableAnswer(step=step)
    except (ValueError, KeyError, TypeError):
        pass
    log.warning("table control: unreadable answer %.200s", raw)
    return None
