"""Friends on the websocket: presence pushed live, invitations to a private table, and the same
across the nodes of a cluster (docs/social.md, "Presence", "Invitations", "Across nodes").

**Presence.** Where a player connected here is (:meth:`FriendsDesk.local`) is read from its
connection: the table it follows (playing or watching; the table's id only when the table may be
watched) or the lobby. Each time that changes (a hello, a table seats it or it leaves, its
connection ends: :meth:`FriendsDesk.moved`) the player's *published* whereabouts (``offline`` while
the player hides them: :func:`server.social.presence.published`) are pushed to its friends
connected here and, in a cluster, told to the other nodes; what a friend is shown is the most
present of what the nodes say (:func:`server.social.presence.merged`). A block ends a friendship,
so nothing of either player reaches the other. A connection relayed to another node (the edge of
a relay) is not counted and receives nothing here: the node it is relayed to serves it.

**Invitations.** :meth:`FriendsDesk.invite`: a friend (never a stranger, never through a block) to
a private table the sender opened or waits at, rate-limited per account; the invitee's
connections, on any node, get ``invited``; the sender gets ``invite_sent``.

**Event notices.** :meth:`FriendsDesk.event_notice`: an organizer's notice (the event service's
``notice_to``) goes to the connections of the event's entrants, on any node, as ``event_notice``.

**Across nodes** (the hub's :class:`~server.domain.socialbus.SocialBus`, the one lobby chat uses
too): topic ``social.presence`` carries a node's changes, and every :data:`SNAPSHOT_S` (and when a
node asks, at its start) its whole list, in parts of at most :data:`SNAPSHOT_PART` players (a bus
payload is small), so a node that died is forgotten after :data:`FORGET_AFTER_S`;
``social.invite`` an invitation; ``social.notice`` an event's notice and its recipients (in parts
of at most :data:`NOTICE_PART` accounts); ``social.change`` a change of links, mutes or the presence setting
made through this node's HTTP API, applied to every node's social memory. Each message names its
node (the bus's ``node_id``); a node skips its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Coroutine, Mapping
from typing import Any, Protocol

from client_protocol.errors import ErrorCode
from client_protocol.messages import (
    EventNotice,
    FriendPresence,
    FriendsChanged,
    Invited,
    InviteSent,
    PresenceState,
)
from server.domain.records import Account
from server.domain.socialbus import Payload, SocialBus
from server.hub.adapter import SeatConnection, TokenBucket
from server.hub.clock import Clock
from server.hub.lobby import Lobby
from server.hub.outputs import ErrorOut, Participant, SocialOut
from server.services.eventbase import PostedNotice
from server.services.social import Change, SocialError, SocialService
from server.social.presence import OFFLINE, Whereabouts, at_table, merged, published
from server.social.relations import Presence

log = logging.getLogger(__name__)

SNAPSHOT_S = 15.0  # each node tells its whole presence list this often
FORGET_AFTER_S = 3 * SNAPSHOT_S  # a node not heard of for this long is gone: its players offline
INVITE_BURST, INVITE_PER_S = 5, 0.2  # invitations per account: 5 at once, then one every 5 s
SNAPSHOT_PART = 40  # players per part of a whole list (well under the bus's payload limit)
NOTICE_PART = 200  # recipients per bus message of an event's notice (a bus payload is small)
TOPICS = ("social.presence", "social.invite", "social.change", "social.notice")


class Connected(Protocol):
    """A connection as the desk reads it (:class:`server.hub.connection.WebSocketConnection`)."""

    @property
    def core(self) -> SeatConnection: ...

    @property
    def relaying(self) -> bool:
        """Its frames go to another node (a relay): that node serves it."""
        ...


class FriendsDesk:
    """One per hub: presence and invitations for the connections of this node."""

    def __init__(
        self,
        service: SocialService,
        lobby: Lobby,
        connections: Mapping[str, Connected],
        clock: Clock,
    ) -> None:
        self.service = service
        self._lobby = lobby
        self._connections = connections
        self._clock = clock
        self._names: dict[str, str] = {}
        self._sent: dict[str, Whereabouts] = {}  # published whereabouts of the players here, as told
        self._pushed: dict[str, Whereabouts] = {}  # what friends here were last shown
        self._remote: dict[str, dict[str, Whereabouts]] = {}  # node -> account -> whereabouts
        self._heard: dict[str, float] = {}  # node -> when it last sent its whole list
        self._parts: dict[str, dict[str, Whereabouts]] = {}  # node -> its whole list, being received
        self._invites: dict[str, TokenBucket] = {}
        self._bus: SocialBus | None = None
        self._unsubscribe: list[Callable[[], None]] = []
        self._applying = False  # a change from another node is being applied: not sent back
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loop_task: asyncio.Task[None] | None = None
        service.whereabouts = self.whereabouts
        service.listeners.append(self._changed)

    # -- where players are ----------------------------------------------------------------------------

    def local(self, account_id: str) -> Whereabouts:
        """Where the player is on this node (offline: no connection here, or one relayed away)."""
        conn = self._connections.get(account_id)
        if conn is None or conn.relaying:
            return OFFLINE
        match_id = conn.core.following
        table = None if match_id is None else self._lobby.table(match_id)
        if match_id is None or table is None:
            return Whereabouts(Presence.LOBBY)
        watchable = table.spectate.allowed and not table.finished
        return at_table(match_id, watchable=watchable, watching=table.seat_of_account(account_id) is None)

    def whereabouts(self, account_id: str) -> Whereabouts:
        """Where the player is in the whole cluster (what this node knows of it)."""
        here = self.local(account_id)
        if not self._remote:
            return here
        return merged([here, *(found[account_id] for found in self._remote.values() if account_id in found)])

    def moved(self, account_id: str, name: str | None = None) -> None:
        """The player's connection here came, went, or follows another table now."""
        if name is not None:
            self._names[account_id] = name
        now = published(self.local(account_id), hides=self.service.hides(account_id))
        if now != self._sent.get(account_id, OFFLINE):
            if now == OFFLINE:
                self._sent.pop(account_id, None)
            else:
                self._sent[account_id] = now
            self._publish("social.presence", {"entries": [self._entry(account_id, now)]})
        self._refresh(account_id)

    def welcomed(self, account_id: str, name: str) -> None:
        """A player said hello here: its friends are told, and, once its ``welcome`` is sent (the
        hub sends it in this same turn), it is told where they are."""
        self.moved(account_id, name)
        conn = self._connections.get(account_id)
        if conn is None:
            return
        try:
            asyncio.get_running_loop().call_soon(self._tell_where_friends_are, account_id, conn)
        except RuntimeError:  # no loop (a protocol core's own tests): nothing to tell
            return

    def _tell_where_friends_are(self, account_id: str, conn: Connected) -> None:
        if self._connections.get(account_id) is not conn:
            return
        for friend in self.service.friends_of(account_id):
            where = self.service.public_whereabouts(friend)
            if where != OFFLINE:
                conn.core.deliver(SocialOut(self._presence(friend, where)))

    def _refresh(self, account_id: str) -> None:
        """Push the player's whereabouts to its friends here, if they changed since last pushed."""
        now = self.service.public_whereabouts(account_id)
        if now == self._pushed.get(account_id, OFFLINE):
            return
        if now == OFFLINE:
            self._pushed.pop(account_id, None)
        else:
            self._pushed[account_id] = now
        out = SocialOut(self._presence(account_id, now))
        for friend in self.service.friends_of(account_id):
            self._deliver(friend, out)

    def _presence(self, account_id: str, where: Whereabouts) -> FriendPresence:
        return FriendPresence(
            account_id=account_id,
            name=self._names.get(account_id, account_id),
            presence=PresenceState(where.presence.value),
            match_id=where.match_id,
            watching=where.watching and where.match_id is not None,
        )

    def _deliver(self, account_id: str, out: SocialOut) -> int:
        conn = self._connections.get(account_id)
        if conn is None or conn.relaying:
            return 0
        conn.core.deliver(out)
        return 1

    # -- invitations ------------------------------------------------------------------------------------

    def invite(self, sender: Participant, to: str, code: str, request_id: int | None) -> ErrorOut | None:
        """Invite the friend ``to`` to the private table ``code`` (opened by ``sender`` or waited
        at); the refusal to send back, if any (nothing was sent then)."""
        refused = self.send_invite(sender.account, to, code)
        if isinstance(refused, tuple):
            return ErrorOut(ErrorCode(refused[0]), refused[1], request_id)
        sender.deliver(SocialOut(InviteSent(to=to, code=refused, request_id=request_id)))
        return None

    def send_invite(self, account: Account, to: str, code: str) -> str | tuple[str, str]:
        """Invite ``to`` for ``account`` (the websocket's ``invite``, and ``POST /api/me/invites``):
        the table's code once sent, or the refusal's ``(code, message)`` (nothing was sent):
        ``rate_limited``, ``forbidden`` (not a friend, whatever the reason), ``not_found``."""
        bucket = self._invites.get(account.id)
        if bucket is None:
            bucket = self._invites[account.id] = TokenBucket(INVITE_PER_S, INVITE_BURST, self._clock.now)
        if not bucket.take():
            return (ErrorCode.RATE_LIMITED.value, "too many invitations; wait a little")
        try:
            self.service.may_invite(account.id, to)
        except SocialError as exc:
            return (ErrorCode.FORBIDDEN.value, str(exc))
        table = self._lobby.open_private(code)
        if table is None or (
            table.creator_id != account.id
            and all(w.participant.account.id != account.id for w in table.waiting)
        ):
            return (ErrorCode.NOT_FOUND.value, f"you opened or wait at no private table {code!r}")
        message = Invited(account_id=account.id, name=account.name, code=table.code, preset=table.preset)
        self._deliver(to, SocialOut(message))
        invitation = {"to": to, "account_id": account.id, "name": account.name}
        self._publish("social.invite", {**invitation, "code": table.code, "preset": table.preset})
        return table.code

    def event_notice(self, account_ids: Collection[str], notice: PostedNotice) -> None:
        """An organizer's notice for the connections of ``account_ids`` here and on every node."""
        message = EventNotice(
            event_id=notice.event_id, name=notice.event_name, text=notice.text, at=notice.at
        )
        to = sorted(set(account_ids))
        for account_id in to:
            self._deliver(account_id, SocialOut(message))
        body = {"event_id": message.event_id, "name": message.name, "text": message.text, "at": message.at}
        for i in range(0, len(to), NOTICE_PART):
            self._publish("social.notice", {"to": to[i : i + NOTICE_PART], **body})

    def _on_notice(self, body: Payload) -> None:
        to = body["to"]
        if not isinstance(to, list):
            raise TypeError("to: a list of account ids")
        message = EventNotice(
            event_id=str(body["event_id"]),
            name=str(body["name"]),
            text=str(body["text"]),
            at=float(body["at"]),
        )
        for account_id in to:
            self._deliver(str(account_id), SocialOut(message))

    # -- changes of links and settings ------------------------------------------------------------------

    def _changed(self, change: Change) -> None:
        what, a, b, value = change
        if not self._applying and self._bus is not None:
            self._publish("social.change", {"change": list(change)})
        if what == "hidden":
            self.moved(a)
        elif what == "link":
            for x, y in ((a, b), (b, a)):
                self._deliver(x, SocialOut(FriendsChanged()))
                if value == "friends":  # a new friend is told at once where the other is
                    where = self.service.public_whereabouts(y)
                    if where != OFFLINE:
                        self._deliver(x, SocialOut(self._presence(y, where)))

    # -- the bus ----------------------------------------------------------------------------------------

    @property
    def _node(self) -> str:
        return "" if self._bus is None else self._bus.node_id

    async def connect(self, bus: SocialBus) -> None:
        """Cluster mode: tell and hear the other nodes through ``bus`` (this node is its ``node_id``)."""
        self._bus = bus
        self._unsubscribe = [bus.subscribe(topic, self._heard_from(topic)) for topic in TOPICS]
        self._spawn(self._tell_all(sync=True))
        self._loop_task = asyncio.create_task(self._snapshots(), name="presence-snapshots")

    async def close(self) -> None:
        """The hub stops: no more pushes or messages from this desk (the service may outlive it)."""
        if self._changed in self.service.listeners:
            self.service.listeners.remove(self._changed)
        if self.service.whereabouts == self.whereabouts:
            self.service.whereabouts = None
        for stop in self._unsubscribe:
            stop()
        self._unsubscribe = []
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
        for task in list(self._tasks):
            with contextlib.suppress(Exception):
                await task

    async def _snapshots(self) -> None:
        while True:
            await asyncio.sleep(SNAPSHOT_S)
            await self._tell_all()
            self._forget_silent()

    async def _tell_all(self, *, sync: bool = False) -> None:
        """Publish this node's whole list, part by part, in order (``more``: parts follow; ``sync``,
        on the last: every node answers with its own list)."""
        bus, players = self._bus, list(self._sent)
        if bus is None:
            return
        parts = [players[i : i + SNAPSHOT_PART] for i in range(0, len(players), SNAPSHOT_PART)] or [[]]
        for i, part in enumerate(parts):  # each part as it is now: a change told meanwhile holds
            entries = [self._entry(a, self._sent[a]) for a in part if a in self._sent]
            body: dict[str, Any] = {"node": bus.node_id, "full": True, "entries": entries}
            if i < len(parts) - 1:
                body["more"] = True
            elif sync:
                body["sync"] = True
            await bus.publish("social.presence", body)

    def _forget_silent(self) -> None:
        now = self._clock.now()
        for node, when in list(self._heard.items()):
            if now - when > FORGET_AFTER_S:
                del self._heard[node]
                for account_id in self._remote.pop(node, {}):
                    self._refresh(account_id)

    def _entry(self, account_id: str, where: Whereabouts) -> list[Any]:
        name = self._names.get(account_id, account_id)
        return [account_id, name, where.presence.value, where.match_id, where.watching]

    def _publish(self, topic: str, body: dict[str, Any]) -> None:
        bus = self._bus
        if bus is not None:
            self._spawn(bus.publish(topic, {"node": bus.node_id, **body}))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _heard_from(self, topic: str) -> Callable[[str, Payload], None]:
        def handle(_topic: str, body: Payload) -> None:
            try:
                if body.get("node") in (None, self._node):
                    return
                handlers = {
                    "social.presence": self._on_presence,
                    "social.invite": self._on_invite,
                    "social.notice": self._on_notice,
                }
                handlers.get(topic, self._on_change)(body)
            except (ValueError, TypeError, KeyError, IndexError):
                log.warning("ignored a bad %s message from the bus", topic)

        return handle

    def _on_presence(self, body: Payload) -> None:
        node = str(body["node"])
        if body.get("full"):  # a part of the node's whole list: held until its last part
            self._add_entries(self._parts.setdefault(node, {}), body["entries"])
            if body.get("more"):
                return
            received = self._parts.pop(node)
            touched = set(self._remote.get(node, {})) | set(received)
            self._remote[node] = received
            self._heard[node] = self._clock.now()
        else:
            self._heard.setdefault(node, self._clock.now())
            touched = set()
            for found in (self._remote.setdefault(node, {}), self._parts.get(node)):
                if found is not None:
                    touched |= self._add_entries(found, body["entries"])
        for account_id in touched:
            self._refresh(account_id)
        if body.get("sync"):  # a node that just started: tell it everything at once
            self._spawn(self._tell_all())

    def _add_entries(self, found: dict[str, Whereabouts], entries: list[list[Any]]) -> set[str]:
        touched = set()
        for entry in entries:
            account_id, name, presence, match_id, watching = (
                str(entry[0]),
                entry[1],
                entry[2],
                entry[3],
                entry[4],
            )
            self._names.setdefault(account_id, str(name))
            state = Presence(presence)
            if state is Presence.OFFLINE:
                found.pop(account_id, None)
            else:
                found[account_id] = Whereabouts(
                    state, None if match_id is None else str(match_id), bool(watching)
                )
            touched.add(account_id)
        return touched

    def _on_invite(self, body: Payload) -> None:
        to, sender = str(body["to"]), str(body["account_id"])
        try:
            self.service.may_invite(sender, to)  # checked again here: a block may have come since
        except SocialError:
            return
        message = Invited(
            account_id=sender, name=str(body["name"]), code=str(body["code"]), preset=str(body["preset"])
        )
        self._deliver(to, SocialOut(message))

    def _on_change(self, body: Payload) -> None:
        what, a, b, value = body["change"]
        self._applying = True
        try:
            self.service.apply((str(what), str(a), str(b), None if value is None else str(value)))
        finally:
            self._applying = False
