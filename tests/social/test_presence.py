"""Presence as friends see it (server/social/presence.py) and the social service's side of it:
what may leave a player's node, folding several nodes' answers, friends only, the invitation check,
and changes told by another node (docs/social.md, "Presence", "Invitations", "Across nodes")."""

from __future__ import annotations

import pytest

from server.services.social import SocialError, SocialService
from server.social.presence import OFFLINE, Whereabouts, at_table, merged, published, seen
from server.social.relations import Link, LinkKind, Presence

LOBBY = Whereabouts(Presence.LOBBY)


def test_a_table_that_refuses_spectators_has_no_id_and_hiding_hides_everything() -> None:
    assert at_table("m-1", watchable=False).match_id is None
    assert at_table("m-1", watchable=True, watching=True) == Whereabouts(Presence.AT_TABLE, "m-1", True)
    assert published(at_table("m-1", watchable=True), hides=True) == OFFLINE
    assert published(LOBBY, hides=False) == LOBBY


def test_the_most_present_answer_wins() -> None:
    assert merged([OFFLINE, LOBBY]) == LOBBY
    assert merged([at_table("m", watchable=False), at_table("m", watchable=True)]).match_id == "m"
    assert merged([LOBBY, OFFLINE, at_table("m", watchable=True)]).presence is Presence.AT_TABLE


def test_friends_only() -> None:
    where = at_table("m", watchable=True)
    assert seen(Link("a", "b", LinkKind.FRIENDS), where) == where
    for link in (None, Link("a", "b", LinkKind.REQUESTED), Link("a", "b", LinkKind.BLOCKED)):
        assert seen(link, where) is None


@pytest.mark.asyncio
async def test_the_service_shows_friends_hides_and_checks_invitations() -> None:
    service = SocialService(lambda: 0.0)
    places = {"bob": at_table("m-2", watchable=True)}
    service.whereabouts = lambda account_id: places.get(account_id, OFFLINE)
    told: list[tuple[str, str, str, str | None]] = []
    service.listeners.append(told.append)
    await service.request("alice", "bob")
    with pytest.raises(SocialError) as refused:
        service.may_invite("alice", "bob")  # a request is not a friendship
    assert refused.value.code == "unavailable"
    assert service.shown_to("alice", "bob") is None
    await service.accept("bob", "alice")
    service.may_invite("alice", "bob")
    service.may_invite("bob", "alice")
    assert service.shown_to("alice", "bob") == places["bob"]
    assert service.friends_of("alice") == ["bob"]
    await service.hide_presence("bob", True)
    assert service.shown_to("alice", "bob") == OFFLINE
    assert [r.presence for r in service.relations_of("alice")] == ["offline"]
    await service.block("bob", "alice")
    for sender, to in (("alice", "bob"), ("bob", "alice"), ("carol", "bob"), ("bob", "bob")):
        with pytest.raises(SocialError):
            service.may_invite(sender, to)
    assert told == [
        ("link", "alice", "bob", "requested"),
        ("link", "alice", "bob", "friends"),
        ("hidden", "bob", "", "1"),
        ("link", "bob", "alice", "blocked"),
    ]


def test_changes_from_another_node_are_held_in_memory() -> None:
    service = SocialService(lambda: 0.0)
    heard: list[tuple[str, str, str, str | None]] = []
    service.listeners.append(heard.append)
    assert service.apply(("link", "bob", "alice", "blocked"))
    link = service.memory.link("alice", "bob")
    assert link is not None and (link.a, link.kind) == ("bob", LinkKind.BLOCKED)  # its direction kept
    assert service.apply(("mute", "alice", "carol", "1")) and service.memory.muted("alice", "carol")
    assert service.apply(("hidden", "dave", "", "1")) and service.hides("dave")
    assert service.apply(("hidden", "dave", "", None)) and not service.hides("dave")
    assert service.apply(("link", "bob", "alice", None)) and service.memory.link("alice", "bob") is None
    assert not service.apply(("sanction", "x", "y", None))  # not understood: ignored
    assert not service.apply(("link", "a", "b", "married"))
    assert len(heard) == 5
