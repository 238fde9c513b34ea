"""Links, mutes and sanctions on every store (memory, SQLite, PostgreSQL), and the social service on
top of them: what a player changes is stored, and a new service (a restart) reads it back."""

from __future__ import annotations

from typing import Any

import pytest

from server.domain.social import LinkRecord, SanctionRecord
from server.services.social import SocialError, SocialService
from server.social.chat import Role
from server.social.moderation import SanctionKind
from server.social.presence import Whereabouts
from server.social.relations import Presence
from server.store.memory import InMemoryRepository
from tests.store.conftest import BACKENDS, fresh_database, postgres  # noqa: F401  (postgres: a fixture)


@pytest.fixture
def store(any_repo: Any) -> Any:
    """Every store (memory, SQLite, PostgreSQL): ``any_repo`` of tests/store/conftest.py."""
    return any_repo


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.asyncio
async def test_links_mutes_and_sanctions_round_trip(store: Any) -> None:
    await store.put_link(LinkRecord("b", "a", "requested", 10.0))
    await store.put_link(LinkRecord("a", "b", "friends", 11.0))  # the pair has one link
    await store.put_link(LinkRecord("c", "a", "blocked", 12.0))
    assert sorted(await store.links(), key=lambda r: r.b) == [
        LinkRecord("c", "a", "blocked", 12.0),
        LinkRecord("a", "b", "friends", 11.0),
    ]
    await store.drop_link("b", "a")
    assert await store.links() == [LinkRecord("c", "a", "blocked", 12.0)]
    await store.put_mute("a", "x", on=True)
    await store.put_mute("a", "x", on=True)
    await store.put_mute("a", "y", on=True)
    await store.put_mute("a", "y", on=False)
    assert await store.mutes() == [("a", "x")]
    first = await store.add_sanction(SanctionRecord(0, "x", "chat_ban", "spam", "admin", 100.0, 700.0))
    second = await store.add_sanction(SanctionRecord(0, "x", "suspension", "abuse", "admin", 100.0, None))
    assert first.id != second.id and first.reason == "spam" and second.ends is None
    lifted = await store.lift_sanction(second.id, by="admin2", at=200.0)
    assert lifted is not None and lifted.lifted_at == 200.0 and lifted.lifted_by == "admin2"
    again = await store.lift_sanction(second.id, by="admin3", at=300.0)  # lifted once
    assert again == lifted
    assert await store.lift_sanction(999, by="admin", at=1.0) is None
    assert [s.id for s in await store.sanctions()] == [first.id, second.id]


@pytest.mark.asyncio
async def test_the_service_stores_what_players_change_and_reads_it_back(store: Any) -> None:
    clock = Clock()
    service = SocialService(clock, store=store)
    assert await service.request("alice", "bob") == "requested"
    assert await service.request("bob", "alice") == "friends"  # crossing requests
    await service.request("carol", "alice")
    await service.block("dave", "alice")
    await service.mute("alice", "erin")
    ban = await service.sanction("erin", SanctionKind.CHAT_BAN, "spam", given_by="admin", minutes=5)
    with pytest.raises(SocialError) as refused:
        await service.request("alice", "dave")  # the same answer whoever blocked whom
    assert refused.value.code == "unavailable"

    restarted = SocialService(clock, store=store)
    await restarted.load()
    states = {r.account_id: r.state for r in restarted.relations_of("alice")}
    assert states == {"bob": "friend", "carol": "request_received"}  # not who blocked alice
    assert {r.account_id: r.state for r in restarted.relations_of("dave")} == {"alice": "blocked"}
    assert restarted.mutes_of("alice") == ["erin"]
    assert [s.id for s in restarted.sanctions("erin", active_only=True)] == [ban.id]
    line = restarted.compose("bob", "bob", Role.SEATED, 0, source="private:X", hand_live=True, text="hi")
    assert restarted.reaches(line, "alice", Role.SEATED)
    line = restarted.compose("dave", "dave", Role.SEATED, 1, source="private:X", hand_live=True, text="hi")
    assert not restarted.reaches(line, "alice", Role.SEATED)  # blocked
    await restarted.lift(ban.id, by="admin")
    assert restarted.sanctions("erin", active_only=True) == []
    restarted.compose("erin", "erin", Role.SEATED, 2, source="private:X", hand_live=False, stamp="gg")


@pytest.mark.asyncio
async def test_presence_is_for_friends_only() -> None:
    service = SocialService(Clock(), store=InMemoryRepository())
    service.whereabouts = lambda account_id: Whereabouts(Presence.AT_TABLE)
    await service.request("alice", "bob")
    assert [(r.state, r.presence) for r in service.relations_of("alice")] == [("request_sent", None)]
    await service.accept("bob", "alice")
    assert [(r.state, r.presence) for r in service.relations_of("alice")] == [("friend", "at_table")]
    await service.remove("bob", "alice")
    assert service.relations_of("alice") == []
    with pytest.raises(SocialError) as refused:
        await service.accept("bob", "alice")
    assert refused.value.code == "not_found"


@pytest.mark.asyncio
async def test_a_sanction_needs_a_reason_and_a_positive_length() -> None:
    service = SocialService(Clock())
    for reason, minutes in (("  ", 5.0), ("spam", 0.0)):
        with pytest.raises(SocialError) as refused:
            await service.sanction("x", SanctionKind.SUSPENSION, reason, given_by="admin", minutes=minutes)
        assert refused.value.code == "invalid"
    record = await service.sanction("x", SanctionKind.SUSPENSION, "abuse", given_by="admin", minutes=None)
    with pytest.raises(SocialError) as refused:
        service.check_may_play("x")
    assert refused.value.code == "suspended"
    await service.lift(record.id, by="admin")
    service.check_may_play("x")


@pytest.mark.asyncio
async def test_the_presence_setting_round_trips_and_a_new_service_reads_it(store: Any) -> None:
    await store.put_hidden("b", hidden=True)
    await store.put_hidden("a", hidden=True)
    await store.put_hidden("a", hidden=True)
    await store.put_hidden("c", hidden=False)
    assert await store.hidden() == ["a", "b"]
    service = SocialService(Clock(), store=store)
    await service.hide_presence("a", False)
    assert await store.hidden() == ["b"]
    restarted = SocialService(Clock(), store=store)
    await restarted.load()
    assert (restarted.hides("a"), restarted.hides("b")) == (False, True)
