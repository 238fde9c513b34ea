"""How a client reaches the node that serves it (``docs/scaling.md``, "the relay"): the hub's
connections ask the placement port (:class:`server.hub.placement.Placement`) and
:class:`server.cluster.node.ClusterNode` answers through :class:`Relays`.

A connection that lands on a node (the *edge*) whose request another node serves (the player's
running match, a resume or spectate, a private table waiting there, a queue's matcher) gets a
:class:`Link`: a websocket to that node, opened with the client's own hello (every field of it, on
the client's protocol path; the credentials are the player's session, in the shared database, or
its API token), through which the edge passes every frame both ways, untouched. When that node
closes, the client is told to reconnect (1012).

A request for a match *between owners* (its node died and its lease has not run out, or no node
has taken it over yet, or this node is rebuilding it) is held: the edge looks again every
:data:`SETTLE_STEP_S` until a node runs it, at most :data:`HELLO_SETTLE_S` for a hello (a client
waits about 10 s for its welcome) and :data:`SETTLE_S` for a resume or spectate; after that
:class:`~server.hub.placement.StillMovingError` (the hub closes the connection 1013, or answers
``busy_retry``). A node that is named but cannot be reached is looked at again the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.frames import CloseCode

from server.hub.placement import QueuedPlayer, RelayClient, StillMovingError, Upstream

log = logging.getLogger(__name__)

HELLO_SETTLE_S = 8.0
SETTLE_S = 15.0
SETTLE_STEP_S = 0.25


class Directory(Protocol):
    """Where things run (:class:`server.cluster.node.ClusterNode`): base URLs of other nodes."""

    async def locate(self, match_id: str) -> str | None: ...

    async def locate_player(self, account_id: str) -> str | None: ...

    async def locate_invite(self, code: str) -> str | None: ...

    async def moving(self, match_id: str) -> bool: ...

    async def player_moving(self, account_id: str) -> bool: ...

    def relay_headers(
        self, client_address: str | None, *, waited_s: float | None = None
    ) -> list[tuple[str, str]]: ...


class Link:
    """A client's websocket to another node (an :class:`~server.hub.placement.Upstream`)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    async def send(self, frame: str | bytes) -> None:
        await self.ws.send(frame)

    async def pipe(self, client: RelayClient, *, first: str | bytes | None, skip_welcome: bool) -> None:
        try:
            if skip_welcome:
                await self.ws.recv()  # the client has its welcome already
            if first is not None:
                await self.ws.send(first)
            down = asyncio.create_task(self.downstream(client), name=f"relay-{client.session_id}")
            try:
                async for frame in client.incoming():
                    if down.done():
                        break
                    await self.ws.send(frame)
            finally:
                down.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await down
        except ConnectionClosed:
            pass
        finally:
            await self.ws.close()
        client.close(CloseCode.SERVICE_RESTART, "the table's server node went away; reconnect")

    async def downstream(self, client: RelayClient) -> None:
        """The node's frames to the client, until either ends; then the client reconnects."""
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.ws:
                if not client.put(frame.encode() if isinstance(frame, str) else frame):
                    return
        client.close(CloseCode.SERVICE_RESTART, "the table's server node closed; reconnect")


async def _nowhere() -> bool:
    return False


class HandOffTask:
    """A queued player's hand-over to its queue's matcher node (a
    :class:`~server.hub.placement.HandOff`): opens the link, joins the queue there, then passes
    the node's frames to the client (the hub passes the client's to :attr:`ready`'s link)."""

    def __init__(
        self,
        relays: Relays,
        client: RelayClient,
        url: str,
        frames: list[str],
        queued: QueuedPlayer,
    ) -> None:
        loop = asyncio.get_running_loop()
        self._ready: asyncio.Future[Upstream | None] = loop.create_future()
        self._task = asyncio.create_task(
            self._run(relays, client, url, frames, queued), name=f"handoff-{client.session_id}"
        )

    @property
    def ready(self) -> asyncio.Future[Upstream | None]:
        return self._ready

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(
        self,
        relays: Relays,
        client: RelayClient,
        url: str,
        frames: list[str],
        queued: QueuedPlayer,
    ) -> None:
        ws: ClientConnection | None = None
        try:
            ws = await relays.connect(client, url, frames[0], waited_s=queued.waited_s)
            await ws.recv()  # its welcome: the client has its own
            for frame in frames[1:]:
                await ws.send(frame)
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ConnectionClosed) as exc:
            log.warning("%s: cannot hand over to the node at %s: %s", client.session_id, url, exc)
            if ws is not None:
                await ws.close()
            self._ready.set_result(None)
            client.handed_back(queued)  # it waits where it was, in its place
            return
        except asyncio.CancelledError:
            if ws is not None:
                await ws.close()
            if not self._ready.done():
                self._ready.set_result(None)
            raise
        link = Link(ws)
        self._ready.set_result(link)
        try:
            await link.downstream(client)
        finally:
            await ws.close()


class Relays:
    """The relay side of a cluster node (see the module docstring)."""

    def __init__(self, directory: Directory) -> None:
        self._directory = directory

    async def to_player(
        self, client: RelayClient, account_id: str, here: Callable[[], bool]
    ) -> Upstream | None:
        if client.relay_hello() is None:
            return None
        # The player's next connection (or an HTTP request) may reach another node, which knows
        # only what is in the shared database: a guest is stored at its hello.
        await client.store_session()
        directory = self._directory

        async def route() -> str | None:
            return None if here() else await directory.locate_player(account_id)

        async def moving() -> bool:
            return not here() and await directory.player_moving(account_id)

        return await self._hold(client, route, moving, HELLO_SETTLE_S)

    async def to_match(self, client: RelayClient, match_id: str, here: Callable[[], bool]) -> Upstream | None:
        if client.relay_hello() is None or here():
            return None
        directory = self._directory

        async def route() -> str | None:
            return None if here() else await directory.locate(match_id)

        async def moving() -> bool:
            return not here() and await directory.moving(match_id)

        return await self._hold(client, route, moving, SETTLE_S)

    async def to_invite(self, client: RelayClient, code: str) -> Upstream | None:
        if client.relay_hello() is None:
            return None
        directory = self._directory
        return await self._hold(client, lambda: directory.locate_invite(code), _nowhere, 0.0)

    def hand_off(self, client: RelayClient, base_url: str, queued: QueuedPlayer) -> HandOffTask | None:
        hello = client.relay_hello(queue=queued.queue)
        if hello is None:
            return None
        join = client.relay_join(queued.queue, queued.request_id)
        frames = [hello] if join is None else [hello, join]
        return HandOffTask(self, client, base_url, frames, queued)

    async def _hold(
        self,
        client: RelayClient,
        route: Callable[[], Awaitable[str | None]],
        moving: Callable[[], Awaitable[bool]],
        settle_s: float,
    ) -> Upstream | None:
        """Open the link to the node ``route`` names (None: serve it here); while what the client
        asks for is between nodes (``moving``), or the named node cannot be reached, look again
        every :data:`SETTLE_STEP_S` for at most ``settle_s``, then :class:`StillMovingError`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settle_s
        while True:
            try:
                base_url = await route()
                unplaced = base_url is None and await moving()
            except Exception:
                log.exception("cluster lookup failed")  # nothing is relayed, nothing waited for
                return None
            if base_url is not None:
                link = await self._open(client, base_url)
                if link is not None:
                    return link
            elif not unplaced:
                return None
            if loop.time() >= deadline:
                raise StillMovingError("the match is moving to another server node; ask again in a moment")
            await asyncio.sleep(SETTLE_STEP_S)

    async def _open(self, client: RelayClient, base_url: str) -> Link | None:
        hello = client.relay_hello()
        if hello is None:
            return None
        await client.store_session()  # a guest's session must be in the shared database there
        try:
            return Link(await self.connect(client, base_url, hello))
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ConnectionClosed) as exc:
            log.warning("%s: cannot reach the node at %s: %s", client.session_id, base_url, exc)
            return None

    async def connect(
        self, client: RelayClient, base_url: str, hello: str, *, waited_s: float | None = None
    ) -> ClientConnection:
        """A websocket to the node at ``base_url`` on the client's protocol path, vouching for the
        client's address (and, handed over, its wait), its hello said."""
        ws = await connect(
            base_url.rstrip("/") + client.path,
            open_timeout=client.open_timeout_s,
            compression=None,
            max_size=None,
            additional_headers=self._directory.relay_headers(client.address, waited_s=waited_s),
        )
        try:
            await ws.send(hello)
        except ConnectionClosed:
            await ws.close()
            raise
        return ws
