"""Friends and blocks (server/social/relations.py): every transition, what a block hides, presence."""

from __future__ import annotations

import pytest

from server.social.relations import (
    Link,
    LinkKind,
    Presence,
    RelationError,
    accept,
    block,
    decline,
    friends,
    hidden,
    presence_seen,
    remove,
    request,
    unblock,
)


def fails(code: str, fn: object, *args: object) -> None:
    with pytest.raises(RelationError) as err:
        fn(*args)  # type: ignore[operator]
    assert err.value.code == code


def test_request_accept() -> None:
    link = request(None, "ann", "bob")
    assert link == Link("ann", "bob", LinkKind.REQUESTED)
    fails("already", request, link, "ann", "bob")
    fails("not_found", accept, link, "ann", "bob")  # only the one asked accepts
    assert friends(accept(link, "bob", "ann"))
    # a request crossing the other's makes them friends at once
    assert friends(request(link, "bob", "ann"))
    fails("already", request, Link("ann", "bob", LinkKind.FRIENDS), "bob", "ann")
    fails("invalid", request, None, "ann", "ann")


def test_decline_and_remove() -> None:
    link = request(None, "ann", "bob")
    decline(link, "bob", "ann")
    fails("not_found", decline, link, "ann", "bob")
    remove(link, "ann", "bob")  # withdraw one's own request
    fails("not_found", remove, link, "bob", "ann")
    remove(Link("ann", "bob", LinkKind.FRIENDS), "bob", "ann")
    fails("not_found", remove, None, "ann", "bob")


def test_block_hides_both_ways_and_ends_friendship() -> None:
    link = block(Link("ann", "bob", LinkKind.FRIENDS), "ann", "bob")
    assert link == Link("ann", "bob", LinkKind.BLOCKED) and hidden(link) and not friends(link)
    # the blocked player cannot tell a block from any other refusal
    fails("unavailable", request, link, "bob", "ann")
    fails("unavailable", request, link, "ann", "bob")
    fails("already", block, link, "ann", "bob")
    assert block(link, "bob", "ann") == link  # a block from the other side keeps the first
    fails("not_found", unblock, link, "bob", "ann")  # only the blocker lifts it
    unblock(link, "ann", "bob")
    fails("invalid", block, None, "ann", "ann")


def test_presence_friends_only_and_hidden_looks_offline() -> None:
    friendship = Link("ann", "bob", LinkKind.FRIENDS)
    assert presence_seen(friendship, Presence.AT_TABLE, hides=False) is Presence.AT_TABLE
    assert presence_seen(friendship, Presence.AT_TABLE, hides=True) is Presence.OFFLINE
    assert presence_seen(None, Presence.LOBBY, hides=False) is None
    assert presence_seen(Link("ann", "bob", LinkKind.BLOCKED), Presence.LOBBY, hides=False) is None
    assert presence_seen(Link("ann", "bob", LinkKind.REQUESTED), Presence.LOBBY, hides=False) is None


def test_a_link_between_others_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="not between"):
        request(Link("x", "y", LinkKind.REQUESTED), "ann", "bob")
