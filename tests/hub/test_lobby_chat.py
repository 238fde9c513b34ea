"""Lobby chat and reports over our protocol (server/hub/lobbychat.py, docs/social.md).

Protocol cores without I/O share one lobby desk on an in-memory store and the one-process social
bus; a second desk on the same bus and store stands for another node.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from client_protocol.messages import GuestAuth
from server.domain.socialbus import SocialBus
from server.hub.adapter import Authenticate
from server.hub.clock import ManualClock
from server.hub.lobbychat import LobbyDesk
from server.hub.session import ProtocolSession
from server.hub.settings import ConnectionLimits
from server.hub.socialbus import LocalBus
from server.hub.tablechat import TableChat
from server.services.lobbychat import LobbyChat
from server.services.reports import Reports
from server.services.social import SocialService
from server.social.lobby import MAX_CHANNELS, LobbySettings
from server.social.moderation import SanctionKind
from server.store.memory import InMemoryRepository
from tests.hub.corekit import Directory, Sink, Table
from tests.hub.helpers import account

pytestmark = pytest.mark.asyncio

LIMITS = ConnectionLimits(rate_per_s=1000.0, rate_burst=1000, chat_per_s=1000.0, chat_burst=1000)
HOSTILE = '<img src=x onerror="alert(1)"> & </script>'
T0 = 1_700_000_000.0


class Wall:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class Node:
    """One node's desk (table chat, lobby chat, reports) on a shared store and bus."""

    def __init__(
        self,
        store: InMemoryRepository,
        bus: SocialBus,
        wall: Wall,
        *,
        limits: ConnectionLimits = LIMITS,
        settings: LobbySettings | None = None,
    ) -> None:
        self.clock = ManualClock()
        self.directory = Directory()
        self.social = SocialService(wall, store=store)
        self.table_chat = TableChat(self.social, self.clock, limits)
        rooms = ("queue:tenhou",)
        chat = LobbyChat(self.social, store, bus, now=wall, settings=settings, rooms=lambda: rooms)
        self.desk = LobbyDesk(chat, Reports(self.social, store, now=wall), self.table_chat)
        self.limits = limits
        self._count = 0

    def connect(self, name: str, *, address: str | None = None) -> tuple[ProtocolSession, Sink]:
        sink = Sink()
        core = ProtocolSession(sink, self.directory, self.clock, self.limits)
        hello = {"type": "hello", "protocol": 1, "auth": {"type": "guest", "name": name}}
        assert core.receive_hello(json.dumps(hello)) == Authenticate(GuestAuth(name=name))
        core.authenticated(account(name))
        core.welcome("token")
        self._count += 1
        where = address or f"10.0.0.{self._count}"
        core.bind_chat(self.table_chat, where)
        core.bind_lobby(self.desk, where)
        sink.frames.clear()
        return core, sink


def send(core: ProtocolSession, **message: Any) -> None:
    core.receive(msgspec.json.encode(message).decode())


def got(sink: Sink) -> list[dict[str, Any]]:
    out = [json.loads(f) for f in sink.frames]
    sink.frames.clear()
    return out


async def join(node: Node, core: ProtocolSession, sink: Sink, channel: str = "general") -> dict[str, Any]:
    send(core, type="lobby_join", channel=channel, request_id=1)
    await node.desk.idle()
    answer = got(sink)
    assert answer[-1]["type"] == "lobby_history", answer
    return answer[-1]


async def say(node: Node, core: ProtocolSession, text: str, channel: str = "general", rid: int = 2) -> None:
    send(core, type="lobby_say", channel=channel, text=text, request_id=rid)
    await node.desk.idle()


@pytest.fixture
def world() -> tuple[InMemoryRepository, LocalBus, Wall]:
    return InMemoryRepository(), LocalBus(), Wall()


async def test_a_line_reaches_every_member_of_the_channel_as_text(world: Any) -> None:
    node = Node(*world)
    (a, sa), (b, sb), (c, sc) = node.connect("alice"), node.connect("bob"), node.connect("carol")
    for core, sink in ((a, sa), (b, sb)):
        assert (await join(node, core, sink))["lines"] == []
    await join(node, c, sc, "queue:tenhou")
    await say(node, a, f"  hi\u200b {HOSTILE} ")
    line_a, line_b = got(sa), got(sb)
    assert line_a == line_b and len(line_a) == 1
    line = line_a[0]
    assert line["type"] == "lobby_line" and line["channel"] == "general" and line["name"] == "alice"
    assert line["text"] == f"hi {HOSTILE}" and line["account_id"] == a.account.id and line["at"] == T0
    assert got(sc) == []  # another channel
    stored = await world[0].lobby_lines("general", limit=10, since=0)
    assert [r.text for r in stored] == [f"hi {HOSTILE}"]  # stored for moderation


async def test_the_last_lines_come_on_join_within_the_retention(world: Any) -> None:
    store, bus, wall = world
    node = Node(store, bus, wall, settings=LobbySettings(history=3, retention_s=3600))
    a, sa = node.connect("alice")
    await join(node, a, sa)
    for n in range(5):
        await say(node, a, f"line {n}")
        wall.now += 1000
    b, sb = node.connect("bob")
    history = await join(node, b, sb)
    assert [r["text"] for r in history["lines"]] == ["line 2", "line 3", "line 4"]
    wall.now += 1500  # line 2 is older than an hour now
    assert [r["text"] for r in (await join(node, b, sb))["lines"]] == ["line 3", "line 4"]


async def test_old_lines_are_pruned_after_the_retention(world: Any) -> None:
    store, bus, wall = world
    node = Node(store, bus, wall, settings=LobbySettings(history=10, retention_s=60))
    a, sa = node.connect("alice")
    await join(node, a, sa)
    await say(node, a, "old")
    wall.now += 2 * 3600  # past the retention, and past the prune interval
    await say(node, a, "new")
    assert [r.text for r in await store.lobby_lines("general", limit=10, since=0)] == ["new"]


async def test_blocks_and_mutes_hide_lines_live_and_in_the_history(world: Any) -> None:
    node = Node(*world)
    (a, sa), (b, sb), (c, sc) = node.connect("alice"), node.connect("bob"), node.connect("carol")
    for core, sink in ((a, sa), (b, sb), (c, sc)):
        await join(node, core, sink)
    await node.social.block(b.account.id, a.account.id)  # bob blocked alice
    await node.social.mute(c.account.id, a.account.id)  # carol muted alice
    await say(node, a, "can anyone hear me")
    assert len(got(sa)) == 1 and got(sb) == [] and got(sc) == []
    await say(node, b, "bob here")
    assert got(sa) == [] and len(got(sb)) == 1 and len(got(sc)) == 1  # a block hides both ways
    history = await join(node, b, sb)
    assert [r["text"] for r in history["lines"]] == ["bob here"]


async def test_lines_cross_to_another_node_through_the_bus(world: Any) -> None:
    store, bus, wall = world
    one, two = Node(store, bus, wall), Node(store, bus, wall)
    a, sa = one.connect("alice")
    b, sb = two.connect("bob")
    await join(one, a, sa)
    await join(two, b, sb)
    await say(one, a, "from node one")
    assert [m["text"] for m in got(sb)] == ["from node one"]
    await two.social.block(b.account.id, a.account.id)  # checked on the listener's node
    await say(one, a, "again")
    assert got(sb) == []


async def test_refusals_are_typed_and_deliver_nothing(world: Any) -> None:
    store, bus, wall = world
    node = Node(store, bus, wall)
    a, sa = node.connect("alice")
    send(a, type="lobby_join", channel="nowhere", request_id=9)
    assert got(sa)[0] | {"message": ""} == {
        "type": "error",
        "code": "unknown_channel",
        "message": "",
        "request_id": 9,
    }
    await say(node, a, "not joined")
    assert got(sa)[0]["code"] == "not_in_room"
    await join(node, a, sa)
    await say(node, a, "x" * 201)
    assert got(sa)[0]["code"] == "too_long"
    await say(node, a, " \u200b ")
    assert got(sa)[0]["code"] == "empty"
    send(a, type="lobby_say", channel="general", stamp="nope", request_id=3)
    assert got(sa)[0]["code"] == "unknown_stamp"
    send(a, type="lobby_say", channel="general", stamp="gg", request_id=3)
    await node.desk.idle()
    assert got(sa)[0]["stamp"] == "gg"
    await node.social.sanction(a.account.id, SanctionKind.CHAT_BAN, "spam", given_by="admin", minutes=10)
    await say(node, a, "banned")
    assert got(sa)[0]["code"] == "chat_banned"
    assert [r.text or r.stamp for r in await store.lobby_lines("general", limit=10, since=0)] == ["gg"]
    send(a, type="lobby_leave", channel="general", request_id=4)
    assert got(sa) == [{"type": "lobby_left", "channel": "general", "request_id": 4}]


async def test_a_connection_follows_a_few_channels_at_most(world: Any) -> None:
    store, bus, wall = world
    node = Node(store, bus, wall)
    rooms = tuple(f"queue:q{n}" for n in range(MAX_CHANNELS + 1))
    node.desk.chat._rooms = lambda: rooms
    a, sa = node.connect("alice")
    for channel in rooms[:MAX_CHANNELS]:
        await join(node, a, sa, channel)
    send(a, type="lobby_join", channel=rooms[-1], request_id=5)
    assert got(sa)[0]["code"] == "too_many_channels"
    a.connection_lost()
    assert all(node.desk.members(c) == 0 for c in rooms)


async def test_chat_is_rate_limited_per_connection_and_per_address(world: Any) -> None:
    store, bus, wall = world
    limits = ConnectionLimits(chat_per_s=1.0, chat_burst=2, chat_per_ip_per_s=1.0, chat_per_ip_burst=3)
    node = Node(store, bus, wall, limits=limits)
    a, sa = node.connect("alice", address="10.9.9.9")
    b, sb = node.connect("bob", address="10.9.9.9")
    await join(node, a, sa)
    await join(node, b, sb)
    for n in range(3):
        await say(node, a, f"a{n}")
    assert [m.get("code") for m in got(sa) if m["type"] == "error"] == ["rate_limited"]
    got(sb)
    await say(node, b, "b0")  # the address had 3: alice used 2
    await say(node, b, "b1")
    assert [m.get("code") or m["text"] for m in got(sb)] == ["b0", "rate_limited"]
    assert len(await store.lobby_lines("general", limit=10, since=0)) == 3


async def test_a_report_of_a_lobby_line_stores_the_lines_around_it(world: Any) -> None:
    store, bus, wall = world
    node = Node(store, bus, wall)
    (a, sa), (b, sb) = node.connect("alice"), node.connect("bob")
    await join(node, a, sa)
    await join(node, b, sb)
    for n in range(3):
        await say(node, a, f"spam {n}")
    await say(node, b, "please stop")
    lines = [m for m in got(sb) if m["type"] == "lobby_line"]
    reported = lines[1]
    send(
        b,
        type="report",
        account_id=a.account.id,
        reason="spam",
        line={"place": "lobby", "id": reported["id"]},
    )
    await node.desk.idle()
    answer = got(sb)
    assert answer[0]["type"] == "reported"
    [report] = await store.reports()
    assert (report.reporter_id, report.target_id, report.where, report.reason) == (
        b.account.id,
        a.account.id,
        "lobby",
        "spam",
    )
    context = json.loads(report.context)
    assert context["line_id"] == reported["id"] and context["channel"] == "general"
    assert [line["text"] for line in context["lines"]] == ["spam 0", "spam 1", "spam 2", "please stop"]
    # a line of somebody else, and oneself: refused, nothing stored
    send(b, type="report", account_id=b.account.id, reason="x", line={"place": "lobby", "id": reported["id"]})
    send(b, type="report", account_id=a.account.id, reason="x", line={"place": "lobby", "id": 999})
    send(a, type="report", account_id=a.account.id, reason="me")
    await node.desk.idle()
    assert [m["code"] for m in got(sb)] == ["not_found", "not_found"]
    assert got(sa)[-1]["code"] == "malformed"
    assert len(await store.reports()) == 1


async def test_a_report_of_a_table_line_stores_the_match_step_and_lines(world: Any) -> None:
    store, bus, wall = world
    node = Node(store, bus, wall)
    table = Table(source="private:ABCD")
    node.directory.tables["m-1"] = table
    (a, sa), (b, sb) = node.connect("alice"), node.connect("bob")
    for seat, core in enumerate((a, b)):
        assert core.attached("m-1", seat)
        table.seats[seat] = core
    got(sa), got(sb)
    send(a, type="chat", text="you are bad", request_id=1)
    [line] = [m for m in got(sb) if m["type"] == "chat"]
    assert isinstance(line["id"], int)
    send(b, type="report", account_id=a.account.id, reason="rude", line={"place": "table", "id": line["id"]})
    await node.desk.idle()
    assert got(sb)[-1]["type"] == "reported"
    [report] = await store.reports()
    context = json.loads(report.context)
    assert report.where == "table" and context["match_id"] == "m-1" and "step" in context
    assert [x["text"] for x in context["lines"]] == ["you are bad"] and context["lines"][0]["seat"] == 0
    send(b, type="report", account_id=b.account.id, reason="no", line={"place": "table", "id": line["id"]})
    await node.desk.idle()
    assert got(sb)[-1]["code"] == "not_found"  # not bob's line
    send(b, type="report", reason="again", line={"place": "table", "id": line["id"]})  # by the line alone
    send(b, type="report", reason="whom?")  # neither a player nor a line
    await node.desk.idle()
    assert [m.get("code") or m["type"] for m in got(sb)] == ["reported", "malformed"]
    assert [r.target_id for r in await store.reports()] == [a.account.id, a.account.id]
