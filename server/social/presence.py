"""Where a player is, as the player's friends may see it (docs/social.md, "Presence").

A player's :class:`Whereabouts` is its :class:`~server.social.relations.Presence` and, at a table,
that table's match id, but only when the table may be watched (its spectator policy allows it):
a table that refuses spectators, a private one included, is shown as ``at_table`` with no id. Hand
state is never part of it.

:func:`published` is what leaves the player's own node (and what its friends' connections are
told): a player who hides their presence is ``offline`` there already, so no other node and no
friend ever learns more. :func:`merged` folds what several nodes say of one account (a player's
connection relayed from one node to another, or two tabs) into one answer: the most present wins.
:func:`seen` is what one viewer is shown: friends only, nothing through a block.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from server.social.relations import Link, Presence, friends

_RANK = {Presence.OFFLINE: 0, Presence.ONLINE: 1, Presence.LOBBY: 2, Presence.AT_TABLE: 3}


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """``presence``, and at a watchable table its ``match_id`` (None otherwise); ``watching``: the
    player watches that table rather than plays at it."""

    presence: Presence
    match_id: str | None = None
    watching: bool = False


OFFLINE = Whereabouts(Presence.OFFLINE)


def at_table(match_id: str, *, watchable: bool, watching: bool = False) -> Whereabouts:
    """A player at a table: its id only when the table may be watched.

    >>> at_table("m1", watchable=False)
    Whereabouts(presence=<Presence.AT_TABLE: 'at_table'>, match_id=None, watching=False)
    """
    return Whereabouts(Presence.AT_TABLE, match_id if watchable else None, watching)


def published(actual: Whereabouts, *, hides: bool) -> Whereabouts:
    """What may leave the player's node: ``offline`` while the player hides their presence.

    >>> published(at_table("m1", watchable=True), hides=True) == OFFLINE
    True
    """
    return OFFLINE if hides else actual


def merged(found: Iterable[Whereabouts]) -> Whereabouts:
    """One account's whereabouts from what several nodes say: the most present wins (a table
    over the lobby, the lobby over offline).

    >>> merged([Whereabouts(Presence.LOBBY), at_table("m1", watchable=True)]).match_id
    'm1'
    >>> merged([]) == OFFLINE
    True
    """
    best = OFFLINE
    for w in found:
        if _RANK[w.presence] > _RANK[best.presence] or (
            w.presence is best.presence and best.match_id is None and w.match_id is not None
        ):
            best = w
    return best


def seen(link: Link | None, where: Whereabouts) -> Whereabouts | None:
    """What a viewer linked to the player by ``link`` is shown: friends only (None for anyone
    else, so nothing reaches a stranger or through a block)."""
    return where if friends(link) else None
