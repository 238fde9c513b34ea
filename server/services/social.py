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

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from server.social import relations
from server.social.chat import (
    ROOM_POLICIES,
    Audience,
    ChatPolicy,
    Role,
    audience,
    check_stamp,
    check_text,
    hears,
    may_send_text,
)
from server.social.moderation import Sanction, SanctionKind, check_may_chat, new_sanction

SOURCE_KINDS: tuple[tuple[str, str], ...] = (
    ("private:", "private"),
    ("queue:", "quick"),
    ("ranked:", "ranked"),
    ("event:", "tournament"),
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
        self._sanctions: dict[str, list[Sanction]] = {}

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
        if link is None:
            self._links.pop(_pair(a, b), None)
        else:
            self._links[_pair(a, b)] = link

    def sanctions(self, account_id: str) -> tuple[Sanction, ...]:
        return tuple(self._sanctions.get(account_id, ()))

    def add_sanction(self, sanction: Sanction) -> None:
        self._sanctions.setdefault(sanction.account_id, []).append(sanction)


class SocialService:
    """Chat and stamps checked against the rules and the accounts' mutes, blocks and sanctions."""

    def __init__(
        self,
        now: Callable[[], float],
        *,
        memory: SocialMemory | None = None,
        policies: Mapping[str, ChatPolicy] | None = None,
    ) -> None:
        self._now = now
        self.memory = memory if memory is not None else SocialMemory()
        self._policies = dict(ROOM_POLICIES if policies is None else policies)

    def policy(self, source: str) -> ChatPolicy:
        return self._policies.get(room_kind(source), self._policies[DEFAULT_KIND])

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
    ) -> Line:
        """The line as it will be delivered, or ``ChatError`` / ``ModerationError`` (nothing sent)."""
        check_may_chat(self.memory.sanctions(sender_id), self._now())
        policy = self.policy(source)
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

    # -- what players and administrators change ----------------------------------------------------

    def block(self, blocker: str, blocked: str) -> None:
        link = relations.block(self.memory.link(blocker, blocked), blocker, blocked)
        self.memory.set_link(link, blocker, blocked)

    def sanction(
        self, account_id: str, kind: SanctionKind, reason: str, *, given_by: str, minutes: float | None
    ) -> Sanction:
        found = new_sanction(account_id, kind, reason, given_by=given_by, now=self._now(), minutes=minutes)
        self.memory.add_sanction(found)
        return found
