"""Friends and blocks between two accounts, as one small state machine, and what a block hides.

Between two accounts there is at most one :class:`Link`: a pending request (one way), a friendship,
or a block (one way; a block ends any friendship or request between the two). The transitions are
:func:`request`, :func:`accept`, :func:`decline`, :func:`remove`, :func:`block` and :func:`unblock`;
each returns the new link or raises :class:`RelationError` with a code, changing nothing.

A block hides everything between the two, both ways: the blocked player's messages, invites and
presence never reach the one who blocked them, and the blocker's presence is not shown to the
blocked one either (:func:`hidden`). Presence is shown to friends only, and never while the player
hides it (:func:`presence_seen`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class LinkKind(StrEnum):
    REQUESTED = "requested"  # a asked b
    FRIENDS = "friends"
    BLOCKED = "blocked"  # a blocked b


@dataclass(frozen=True, slots=True)
class Link:
    a: str
    b: str
    kind: LinkKind


class RelationError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Presence(StrEnum):
    OFFLINE = "offline"
    ONLINE = "online"
    LOBBY = "lobby"
    AT_TABLE = "at_table"


def _between(link: Link | None, x: str, y: str) -> Link | None:
    if link is not None and {link.a, link.b} != {x, y}:
        raise ValueError(f"link {link} is not between {x!r} and {y!r}")
    return link


def request(link: Link | None, sender: str, to: str) -> Link:
    """``sender`` asks ``to`` to be friends; a request crossing one from ``to`` makes them friends."""
    if sender == to:
        raise RelationError("invalid", "you cannot befriend yourself")
    link = _between(link, sender, to)
    if link is None:
        return Link(sender, to, LinkKind.REQUESTED)
    if link.kind is LinkKind.BLOCKED:
        # the same answer whoever blocked whom, so a request does not reveal a block
        raise RelationError("unavailable", "this player cannot be asked")
    if link.kind is LinkKind.FRIENDS:
        raise RelationError("already", "you are already friends")
    if link.a == sender:
        raise RelationError("already", "your request is already waiting")
    return Link(link.a, link.b, LinkKind.FRIENDS)


def accept(link: Link | None, answering: str, sender: str) -> Link:
    link = _between(link, answering, sender)
    if link is None or link.kind is not LinkKind.REQUESTED or link.b != answering:
        raise RelationError("not_found", f"no request from {sender!r}")
    return Link(link.a, link.b, LinkKind.FRIENDS)


def decline(link: Link | None, answering: str, sender: str) -> None:
    """The request is dropped (the sender is not told it was declined)."""
    link = _between(link, answering, sender)
    if link is None or link.kind is not LinkKind.REQUESTED or link.b != answering:
        raise RelationError("not_found", f"no request from {sender!r}")


def remove(link: Link | None, who: str, other: str) -> None:
    """End a friendship, or withdraw one's own request."""
    link = _between(link, who, other)
    if link is None or link.kind is LinkKind.BLOCKED:
        raise RelationError("not_found", f"{other!r} is not your friend")
    if link.kind is LinkKind.REQUESTED and link.a != who:
        raise RelationError("not_found", f"no request of yours to {other!r}")


def block(link: Link | None, blocker: str, blocked: str) -> Link:
    if blocker == blocked:
        raise RelationError("invalid", "you cannot block yourself")
    link = _between(link, blocker, blocked)
    if link is not None and link.kind is LinkKind.BLOCKED and link.a == blocker:
        raise RelationError("already", f"{blocked!r} is already blocked")
    # a block by the other side stays theirs; both blocks hide the same, one link records the first
    if link is not None and link.kind is LinkKind.BLOCKED:
        return link
    return Link(blocker, blocked, LinkKind.BLOCKED)


def unblock(link: Link | None, blocker: str, blocked: str) -> None:
    link = _between(link, blocker, blocked)
    if link is None or link.kind is not LinkKind.BLOCKED or link.a != blocker:
        raise RelationError("not_found", f"{blocked!r} is not blocked")


def hidden(link: Link | None) -> bool:
    """Whether the two accounts of ``link`` are hidden from each other (a block, either way)."""
    return link is not None and link.kind is LinkKind.BLOCKED


def friends(link: Link | None) -> bool:
    return link is not None and link.kind is LinkKind.FRIENDS


def presence_seen(link: Link | None, actual: Presence, *, hides: bool) -> Presence | None:
    """What a viewer is shown of a player's presence: friends only, nothing through a block, and
    ``offline`` while the player hides it (so hiding looks like being away)."""
    if not friends(link):
        return None
    return Presence.OFFLINE if hides else actual
