"""The social service: what the rules of :mod:`server.social` decide, applied to real rooms and
accounts (docs/social.md).

A table's **room kind** comes from the ``source`` it was made with (:func:`room_kind`): a private
table (``private:``), a quick match (``queue:``), a ranked room (``ranked:``) or an event's table
(``event:``); a table made any other way (the table factory's API, an administrator's tool) gets
the stricter quick-match rules. Its chat policy is that kind's (:data:`~server.social.chat.ROOM_POLICIES`,
overridable per kind here).

:meth:`SocialService.compose` checks one chat line or stamp (a chat ban, the room's policy, the
collusion rule while a hand is live, the size cap) and returns it normalised, or raises a
:class:`~server.social.chat.ChatError` / :class:`~server.social.moderation.ModerationError` with a
code; :meth:`SocialService.reaches` says whether a listener receives it (spectators never reach
the seated players; a listener who muted the sender, or a block either way, hides it).

The mutes, friendships, blocks and sanctions are held by a :class:`SocialMemory`; every question the
delivery path asks is a dictionary look-up, so a message to a thousand spectators never waits on a
database. Social traffic is not game state: nothing here touches a table's inbox or event log.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from server.domain.social import LinkRecord, SanctionRecord, SocialStore
from server.social import relations
from server.social.chat import (
    ROOM_POLICIES,
    TEXT_MODES,
    Audience,
    ChatPolicy,
    Role,
    audience,
    check_stamp,
    check_text,
    hears,
    may_send_text,
    with_text,
)
from server.social.moderation import (
    ModerationError,
    Sanction,
    SanctionKind,
    check_may_chat,
    check_may_play,
    new_sanction,
)
from server.social.presence import OFFLINE, Whereabouts, published, seen
from server.social.relations import LinkKind, RelationError

SOURCE_KINDS: tuple[tuple[str, str], ...] = (
    ("private:", "private"),
    ("queue:", "quick"),
    ("ranked:", "ranked"),
    ("event:", "tournament"),
    ("lobby:", "lobby"),  # a lobby channel (server.services.lobbychat)
)
"""A table's ``source`` prefix and the room kind it makes."""

DEFAULT_KIND = "quick"  # any other table: the stricter rules (no free text while a hand is live)


def room_kind(source: str) -> str:
    """The room kind of a table made with ``source``.

    >>> room_kind("private:ABCD"), room_kind("ranked:open:east"), room_kind("event:7:r1:t2"), room_kind("")
    ('private', 'ranked', 'tournament', 'quick')
    """
    return next((kind for prefix, kind in SOURCE_KINDS if source.startswith(prefix)), DEFAULT_KIND)


@dataclass(frozen=True, slots=True)
class Line:
    """One checked chat line or stamp, ready to deliver (``text`` or ``stamp`` is set)."""

    sender_id: str
    sender_name: str
    role: Role
    seat: int | None
    heard_by: Audience
    text: str | None = None
    stamp: str | None = None


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


class SocialMemory:
    """Mutes, links (requests, friendships, blocks) and sanctions, in memory: the delivery path's
    view (a store keeps them durably; this is what every message is checked against)."""

    def __init__(self) -> None:
        self._mutes: dict[str, set[str]] = {}  # account -> the accounts it muted
        self._links: dict[tuple[str, str], relations.Link] = {}
        self._pairs_of: dict[str, set[tuple[str, str]]] = {}  # account -> its links' keys
        self._sanctions: dict[str, list[Sanction]] = {}
        self._hidden: set[str] = set()  # the accounts that hide their presence

    def hides(self, account_id: str) -> bool:
        return account_id in self._hidden

    def set_hidden(self, account_id: str, hidden: bool) -> None:
        if hidden:
            self._hidden.add(account_id)
        else:
            self._hidden.discard(account_id)

    def mutes(self, account_id: str) -> frozenset[str]:
        return frozenset(self._mutes.get(account_id, ()))

    def mute(self, account_id: str, other: str) -> None:
        self._mutes.setdefault(account_id, set()).add(other)

    def unmute(self, account_id: str, other: str) -> None:
        self._mutes.get(account_id, set()).discard(other)

    def muted(self, listener: str, sender: str) -> bool:
        found = self._mutes.get(listener)
        return found is not None and sender in found

    def link(self, a: str, b: str) -> relations.Link | None:
        return self._links.get(_pair(a, b))

    def set_link(self, link: relations.Link | None, a: str, b: str) -> None:
        key = _pair(a, b)
        if link is None:
            self._links.pop(key, None)
            for x in key:
                self._pairs_of.get(x, set()).discard(key)
        else:
            self._links[key] = link
            for x in key:
                self._pairs_of.setdefault(x, set()).add(key)

    def sanctions(self, account_id: str) -> tuple[Sanction, ...]:
        return tuple(self._sanctions.get(account_id, ()))

    def sanctioned(self) -> list[str]:
        """The accounts with a sanction in memory (ended or lifted ones too)."""
        return list(self._sanctions)

    def replace_sanctions(self, account_id: str, sanctions: list[Sanction]) -> None:
        self._sanctions[account_id] = list(sanctions)

    def links_of(self, account_id: str) -> list[relations.Link]:
        """The links of ``account_id`` (a look-up: presence asks it at every move)."""
        links = self._links
        return [links[key] for key in self._pairs_of.get(account_id, ()) if key in links]

    def clear(self) -> None:
        self._mutes.clear()
        self._links.clear()
        self._pairs_of.clear()
        self._sanctions.clear()
        self._hidden.clear()


Change = tuple[str, str, str, str | None]
"""One change of the links or settings, as other nodes are told of it (:meth:`SocialService.apply`):
``("link", a, b, kind or None)``, ``("mute", account, other, "1" or None)``, ``("hidden", account,
"", "1" or None)``."""


class SocialService:
    """Chat and stamps checked against the rules and the accounts' mutes, blocks and sanctions."""

    def __init__(
        self,
        now: Callable[[], float],
        *,
        store: SocialStore | None = None,
        memory: SocialMemory | None = None,
        policies: Mapping[str, ChatPolicy] | None = None,
    ) -> None:
        self._now = now
        self._store = store
        self.memory = memory if memory is not None else SocialMemory()
        self._policies = dict(ROOM_POLICIES if policies is None else policies)
        self._sanctions: dict[int, SanctionRecord] = {}
        self._loaded = store is None
        self._lock = asyncio.Lock()
        # Where a player is now (online, in the lobby, at a table): the hub answers it.
        self.whereabouts: Callable[[str], Whereabouts] | None = None
        # Told of every change once it is stored (the hub: presence pushes, other cluster nodes).
        self.listeners: list[Callable[[Change], None]] = []

    def now(self) -> float:
        """The wall clock this service reads (seconds since the epoch)."""
        return self._now()

    def policy(self, source: str, tags: Mapping[str, str] | None = None) -> ChatPolicy:
        """The chat policy of a room: its kind's, with the table's ``chat`` tag (set by whoever made
        the table: an event's setting, an administrator's tool) applied."""
        base = self._policies.get(room_kind(source), self._policies[DEFAULT_KIND])
        return with_text(base, tags.get("chat")) if tags else base

    def set_room_text(self, kind: str, mode: str) -> None:
        """Seated players' free text in every room of ``kind`` (``jantaku serve --table-chat``);
        ``ValueError`` for an unknown kind or mode."""
        if kind not in self._policies:
            raise ValueError(f"no room kind {kind!r}: {', '.join(sorted(self._policies))}")
        if mode not in TEXT_MODES:
            raise ValueError(f"no chat mode {mode!r}: {', '.join(TEXT_MODES)}")
        self._policies[kind] = with_text(self._policies[kind], mode)

    def compose(
        self,
        sender_id: str,
        sender_name: str,
        role: Role,
        seat: int | None,
        *,
        source: str,
        hand_live: bool,
        text: str | None = None,
        stamp: str | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> Line:
        """The line as it will be delivered, or ``ChatError`` / ``ModerationError`` (nothing sent)."""
        check_may_chat(self.memory.sanctions(sender_id), self._now())
        policy = self.policy(source, tags)
        heard_by = audience(role)
        if stamp is not None:
            return Line(sender_id, sender_name, role, seat, heard_by, stamp=check_stamp(stamp, policy))
        may_send_text(role, policy, hand_live=hand_live)
        return Line(sender_id, sender_name, role, seat, heard_by, text=check_text(text, policy))

    def reaches(self, line: Line, listener_id: str, listener_role: Role) -> bool:
        """Whether ``line`` is delivered to this listener (the sender always hears itself)."""
        if listener_id == line.sender_id:
            return True
        if not hears(listener_role, line.heard_by):
            return False
        memory = self.memory
        return not memory.muted(listener_id, line.sender_id) and not relations.hidden(
            memory.link(listener_id, line.sender_id)
        )

    # -- what players and administrators change (stored first, then the memory) --------------------

    async def load(self) -> None:
        """Read every link, mute and sanction from the store into memory (once, at start)."""
        store = self._store
        if store is None:
            self._loaded = True
            return
        async with self._lock:
            if self._loaded:
                return
            links, mutes, sanctions = await store.links(), await store.mutes(), await store.sanctions()
            hidden = await store.hidden()
            memory = self.memory
            memory.clear()
            for record in links:
                memory.set_link(relations.Link(record.a, record.b, LinkKind(record.kind)), record.a, record.b)
            for account_id, muted in mutes:
                memory.mute(account_id, muted)
            for account_id in hidden:
                memory.set_hidden(account_id, True)
            self._sanctions = {r.id: r for r in sanctions}
            for account_id in {r.account_id for r in sanctions}:
                self._remember_sanctions(account_id)
            self._loaded = True

    async def _change_link(
        self, a: str, b: str, change: Callable[[relations.Link | None], relations.Link | None]
    ) -> None:
        await self.load()
        try:
            link = change(self.memory.link(a, b))
        except RelationError as exc:
            raise SocialError(exc.code, str(exc)) from None
        if self._store is not None:
            if link is None:
                await self._store.drop_link(a, b)
            else:
                await self._store.put_link(LinkRecord(link.a, link.b, link.kind.value, self._now()))
        self.memory.set_link(link, a, b)
        self._tell(("link", a, b, None) if link is None else ("link", link.a, link.b, link.kind.value))

    def _tell(self, change: Change) -> None:
        for listener in list(self.listeners):
            listener(change)

    def apply(self, change: Change) -> bool:
        """A change another node stored (its listeners told this node): held in memory here too,
        and this node's listeners told. False when the change is not understood (ignored)."""
        what, a, b, value = change
        memory = self.memory
        if what == "link" and value in (None, *LinkKind):
            if value is None:
                memory.set_link(None, a, b)
            else:
                memory.set_link(relations.Link(a, b, LinkKind(value)), a, b)
        elif what == "mute":
            (memory.mute if value else memory.unmute)(a, b)
        elif what == "hidden":
            memory.set_hidden(a, bool(value))
        else:
            return False
        for listener in list(self.listeners):
            listener(change)
        return True

    async def request(self, sender: str, to: str) -> str:
        """Ask ``to`` to be friends; returns the link's kind after it (``requested`` or ``friends``,
        when ``to`` had asked ``sender`` already)."""
        kinds: list[str] = []

        def change(link: relations.Link | None) -> relations.Link:
            new = relations.request(link, sender, to)
            kinds.append(new.kind.value)
            return new

        await self._change_link(sender, to, change)
        return kinds[0]

    async def accept(self, answering: str, sender: str) -> None:
        await self._change_link(answering, sender, lambda link: relations.accept(link, answering, sender))

    async def decline(self, answering: str, sender: str) -> None:
        def change(link: relations.Link | None) -> None:
            relations.decline(link, answering, sender)

        await self._change_link(answering, sender, change)

    async def remove(self, who: str, other: str) -> None:
        def change(link: relations.Link | None) -> None:
            relations.remove(link, who, other)

        await self._change_link(who, other, change)

    async def block(self, blocker: str, blocked: str) -> None:
        await self._change_link(blocker, blocked, lambda link: relations.block(link, blocker, blocked))

    async def unblock(self, blocker: str, blocked: str) -> None:
        def change(link: relations.Link | None) -> None:
            relations.unblock(link, blocker, blocked)

        await self._change_link(blocker, blocked, change)

    async def mute(self, account_id: str, other: str, *, on: bool = True) -> None:
        if account_id == other:
            raise SocialError("invalid", "you cannot mute yourself")
        await self.load()
        if self._store is not None:
            await self._store.put_mute(account_id, other, on=on)
        if on:
            self.memory.mute(account_id, other)
        else:
            self.memory.unmute(account_id, other)
        self._tell(("mute", account_id, other, "1" if on else None))

    async def hide_presence(self, account_id: str, hidden: bool) -> None:
        """The player's own setting: while ``hidden``, friends see them ``offline`` (stored first)."""
        await self.load()
        if self._store is not None:
            await self._store.put_hidden(account_id, hidden=hidden)
        self.memory.set_hidden(account_id, hidden)
        self._tell(("hidden", account_id, "", "1" if hidden else None))

    def hides(self, account_id: str) -> bool:
        return self.memory.hides(account_id)

    def may_invite(self, sender: str, to: str) -> None:
        """``SocialError`` ``unavailable`` unless the two are friends (a block, either way, ends a
        friendship, so a blocked player can never invite nor be invited; the refusal is the same
        whatever the reason, so it does not reveal a block)."""
        if sender == to or not relations.friends(self.memory.link(sender, to)):
            raise SocialError("unavailable", "you can invite only your friends")

    def friends_of(self, account_id: str) -> list[str]:
        """The accounts ``account_id`` is friends with (who see its presence)."""
        return [
            link.b if link.a == account_id else link.a
            for link in self.memory.links_of(account_id)
            if link.kind is LinkKind.FRIENDS
        ]

    def shown_to(self, viewer: str, account_id: str) -> Whereabouts | None:
        """What ``viewer`` is shown of ``account_id``'s whereabouts (None: nothing, not a friend)."""
        return seen(self.memory.link(viewer, account_id), self.public_whereabouts(account_id))

    def public_whereabouts(self, account_id: str) -> Whereabouts:
        """Where the player is, as it may leave its node: ``offline`` while it hides."""
        return published(self.whereabouts_of(account_id), hides=self.hides(account_id))

    def relations_of(self, account_id: str) -> list[Relation]:
        """Everything ``account_id`` may know of its links: friends (with their presence),
        requests both ways, and the players it blocked (never who blocked it)."""
        out = []
        for link in self.memory.links_of(account_id):
            other = link.b if link.a == account_id else link.a
            if link.kind is LinkKind.FRIENDS:
                shown = self.public_whereabouts(other)
                out.append(Relation(other, "friend", shown.presence.value, shown.match_id, shown.watching))
            elif link.kind is LinkKind.REQUESTED:
                out.append(
                    Relation(other, "request_sent" if link.a == account_id else "request_received", None)
                )
            elif link.a == account_id:
                out.append(Relation(other, "blocked", None))
        return sorted(out, key=lambda r: (r.state, r.account_id))

    def mutes_of(self, account_id: str) -> list[str]:
        return sorted(self.memory.mutes(account_id))

    def whereabouts_of(self, account_id: str) -> Whereabouts:
        """Where the player is (the hub tells: :attr:`whereabouts`); offline when nobody tells."""
        return self.whereabouts(account_id) if self.whereabouts is not None else OFFLINE

    # -- sanctions ------------------------------------------------------------------------------------

    def _remember_sanctions(self, account_id: str) -> None:
        found = [sanction_of(r) for r in self._sanctions.values() if r.account_id == account_id]
        self.memory.replace_sanctions(account_id, found)

    async def sanction(
        self, account_id: str, kind: SanctionKind, reason: str, *, given_by: str, minutes: float | None
    ) -> SanctionRecord:
        """Give a chat ban or a suspension (stored first: the audit); ``SocialError`` ``invalid``
        without a reason or with a non-positive length."""
        await self.load()
        try:
            s = new_sanction(account_id, kind, reason, given_by=given_by, now=self._now(), minutes=minutes)
        except ModerationError as exc:
            raise SocialError(exc.code, str(exc)) from None
        record = SanctionRecord(0, s.account_id, s.kind.value, s.reason, s.given_by, s.starts, s.ends)
        if self._store is not None:
            record = await self._store.add_sanction(record)
        else:
            record = SanctionRecord(len(self._sanctions) + 1, *_record_fields(record))
        self._sanctions[record.id] = record
        self._remember_sanctions(account_id)
        return record

    async def lift(self, sanction_id: int, *, by: str) -> SanctionRecord:
        await self.load()
        found = self._sanctions.get(sanction_id)
        if found is None:
            raise SocialError("not_found", f"no sanction {sanction_id}")
        if self._store is not None:
            lifted = await self._store.lift_sanction(sanction_id, by=by, at=self._now())
            assert lifted is not None
        else:
            lifted = found if found.lifted_at is not None else _lifted(found, by, self._now())
        self._sanctions[sanction_id] = lifted
        self._remember_sanctions(lifted.account_id)
        return lifted

    async def reload_sanctions(self) -> None:
        """Read the sanctions again: ``jantaku admin moderation`` stores them from another process."""
        if self._store is None:
            return
        records = await self._store.sanctions()
        self._sanctions = {r.id: r for r in records}
        for account_id in {r.account_id for r in records} | set(self.memory.sanctioned()):
            self._remember_sanctions(account_id)

    def sanctions(self, account_id: str | None = None, *, active_only: bool = False) -> list[SanctionRecord]:
        now = self._now()
        return [
            r
            for r in self._sanctions.values()
            if (account_id is None or r.account_id == account_id)
            and (not active_only or (r.lifted_at is None and (r.ends is None or now < r.ends)))
        ]

    def check_may_play(self, account_id: str) -> None:
        """``SocialError`` ``suspended`` while a suspension runs (the lobby asks before seating)."""
        try:
            check_may_play(self.memory.sanctions(account_id), self._now())
        except ModerationError as exc:
            raise SocialError(exc.code, str(exc)) from None


class SocialError(ValueError):
    """A refused change (``code``: ``invalid``, ``already``, ``not_found``, ``unavailable``, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Relation:
    """One account as another sees it: ``friend`` (with ``presence``), ``request_sent``,
    ``request_received`` or ``blocked``."""

    account_id: str
    state: str
    presence: str | None
    match_id: str | None = None  # a friend's watchable table
    watching: bool = False  # the friend watches that table (rather than plays)


def _record_fields(
    r: SanctionRecord,
) -> tuple[str, str, str, str, float, float | None, float | None, str | None]:
    return (r.account_id, r.kind, r.reason, r.given_by, r.starts, r.ends, r.lifted_at, r.lifted_by)


def _lifted(r: SanctionRecord, by: str, at: float) -> SanctionRecord:
    return SanctionRecord(r.id, r.account_id, r.kind, r.reason, r.given_by, r.starts, r.ends, at, by)


_SERVICES: weakref.WeakKeyDictionary[object, SocialService] = weakref.WeakKeyDictionary()


def social_service(store: SocialStore, now: Callable[[], float]) -> SocialService:
    """The one social service of ``store`` in this process: the hub (which delivers chat) and the
    HTTP API (where players change their links) share it, so a block is heard at once."""
    found = _SERVICES.get(store)
    if found is None:
        found = _SERVICES[store] = SocialService(now, store=store)
    return found


def sanction_of(record: SanctionRecord) -> Sanction:
    """A stored sanction as the moderation rules read it."""
    return Sanction(
        record.account_id,
        SanctionKind(record.kind),
        record.reason,
        record.given_by,
        record.starts,
        record.ends,
        record.lifted_at is not None,
    )
