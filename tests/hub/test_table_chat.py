"""Chat and stamps at a table over our protocol (server/hub/tablechat.py, docs/social.md).

The protocol cores run without I/O in front of a fake table (``tests/hub/corekit.py``) whose chat
room the test sets: who sits, who watches, the table's source and whether a hand is live.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec
import pytest

from client_protocol.messages import GuestAuth
from server.domain.records import AccountKind
from server.hub.adapter import Authenticate
from server.hub.clock import ManualClock
from server.hub.session import ProtocolSession
from server.hub.settings import ConnectionLimits
from server.hub.tablechat import TableChat
from server.services.social import SocialService
from server.social.moderation import SanctionKind
from tests.hub.corekit import Directory, Sink, Table
from tests.hub.helpers import account

LIMITS = ConnectionLimits(rate_per_s=1000.0, rate_burst=1000, chat_per_s=1000.0, chat_burst=1000)
HOSTILE = '<img src=x onerror="alert(1)"> & </script>'


class Room:
    """Four seated connections and two spectators at one fake table, sharing one chat desk."""

    def __init__(self, source: str = "private:ABCD", *, limits: ConnectionLimits = LIMITS) -> None:
        self.clock = ManualClock()
        self.directory = Directory()
        self.table = Table(source=source)
        self.directory.tables["m-1"] = self.table
        self.desk = TableChat(SocialService(self.clock.now), self.clock, limits)
        self.limits = limits
        self._count = 0  # connections so far: each gets its own address unless told
        self.seats = [self.connect(f"p{s}", seat=s) for s in range(4)]
        self.watchers = [self.connect(name, seat=None) for name in ("w1", "w2")]

    def connect(
        self,
        name: str,
        *,
        seat: int | None,
        address: str | None = None,
        kind: AccountKind = AccountKind.GUEST,
    ) -> tuple[ProtocolSession, Sink]:
        sink = Sink()
        core = ProtocolSession(sink, self.directory, self.clock, self.limits)
        hello = {"type": "hello", "protocol": 1, "auth": {"type": "guest", "name": name}}
        assert core.receive_hello(json.dumps(hello)) == Authenticate(GuestAuth(name=name))
        core.authenticated(account(name, kind))
        core.welcome("token")
        self._count += 1
        core.bind_chat(self.desk, address or f"10.0.0.{self._count}")
        assert core.attached("m-1", seat)
        if seat is None:
            self.table.spectators.append(core)
        else:
            self.table.seats[seat] = core
        sink.frames.clear()
        return core, sink

    def everyone(self) -> list[tuple[ProtocolSession, Sink]]:
        return [*self.seats, *self.watchers]

    def received(self) -> list[list[dict[str, Any]]]:
        """What each connection got (seats 0..3, then the spectators), then forgotten."""
        return [sink.json() for _, sink in self.everyone()]


def say(core: ProtocolSession, text: str, rid: int | None = 1) -> None:
    core.receive(msgspec.json.encode({"type": "chat", "text": text, "request_id": rid}).decode())


def stamp(core: ProtocolSession, name: str, rid: int | None = 1) -> None:
    core.receive(msgspec.json.encode({"type": "stamp", "stamp": name, "request_id": rid}).decode())


def test_a_seated_players_line_reaches_the_table_and_its_spectators() -> None:
    room = Room()
    say(room.seats[2][0], "  good   luck\u200b all ")
    line = {
        "type": "chat",
        "match_id": "m-1",
        "role": "seated",
        "from": 2,
        "name": "p2",
        "text": "good luck all",
        "id": 1,  # the line's id (to report it)
    }
    assert room.received() == [[line]] * 6
    assert room.table.items == []  # never through the table's inbox


def test_spectators_talk_among_themselves_only() -> None:
    room = Room()
    say(room.watchers[0][0], "what a wait")
    got = room.received()
    assert got[:4] == [[], [], [], []]  # no seated player hears a spectator
    line = {
        "type": "chat",
        "match_id": "m-1",
        "role": "spectator",
        "from": "w1",
        "name": "w1",
        "text": "what a wait",
        "id": 1,
    }
    assert got[4:] == [[line], [line]]
    stamp(room.watchers[1][0], "wow")
    got = room.received()
    assert got[:4] == [[], [], [], []]
    assert [m["stamp"] for m in got[4] + got[5]] == ["wow", "wow"]


@pytest.mark.parametrize("source", ["ranked:open:east", "event:7:r1:t2", "queue:tenhou"])
def test_no_free_text_from_seated_players_while_a_hand_is_live(source: str) -> None:
    room = Room(source)
    room.table.hand_live = True
    say(room.seats[0][0], "push, I am tenpai", rid=5)
    got = room.received()
    assert got[0] == [
        {
            "type": "error",
            "code": "text_off",
            "message": "free text is off while a hand is live in this room; stamps are allowed",
            "request_id": 5,
        }
    ]
    assert got[1:] == [[], [], [], [], []]  # nobody heard anything
    stamp(room.seats[0][0], "good_luck")  # stamps are fine
    assert all(m[0]["stamp"] == "good_luck" for m in room.received())
    say(room.watchers[0][0], "spectators may talk")  # among themselves
    assert [len(m) for m in room.received()] == [0, 0, 0, 0, 1, 1]
    room.table.hand_live = False  # between hands
    say(room.seats[0][0], "gg")
    assert all(m[0]["text"] == "gg" for m in room.received())


def test_a_private_table_allows_free_text_during_a_hand() -> None:
    room = Room("private:ABCD")
    room.table.hand_live = True
    say(room.seats[1][0], "nice pon")
    assert all(m[0]["text"] == "nice pon" for m in room.received())


def test_a_block_or_a_mute_hides_the_sender_from_the_listener() -> None:
    room = Room()
    p0, p1, p3 = room.seats[0][0], room.seats[1][0], room.seats[3][0]
    asyncio.run(room.desk.service.block(p1.account.id, p0.account.id))  # p1 blocked p0
    room.desk.service.memory.mute(p3.account.id, p0.account.id)  # p3 muted p0
    say(p0, "hello")
    got = room.received()
    assert [len(m) for m in got] == [1, 0, 1, 0, 1, 1]  # the sender still sees its own line
    say(p1, "and the blocker is hidden from the blocked one")
    assert [len(m) for m in room.received()] == [0, 1, 1, 1, 1, 1]


def test_a_registered_senders_line_names_its_account_and_a_guests_does_not() -> None:
    """The ``account_id`` (to mute the sender) is sent for a registered player, seated or
    watching, and never for a guest: every listener gets the same line."""
    room = Room()
    seated, _ = room.connect("reg", seat=1, kind=AccountKind.PLAYER)  # takes the guest's seat 1
    room.seats[1] = (seated, room.seats[1][1])  # (the guest's sink hears nothing more)
    watcher, _ = room.connect("fan", seat=None, kind=AccountKind.PLAYER)

    def heard() -> list[dict[str, Any]]:
        return [m for got in room.received() for m in got]

    stamp(seated, "gg")
    lines = heard()
    assert len(lines) == 5 and all(m["account_id"] == seated.account.id for m in lines)
    say(watcher, "nice")
    lines = heard()
    assert len(lines) == 2 and all(m["account_id"] == watcher.account.id for m in lines)
    say(room.seats[0][0], "a guest")
    lines = heard()
    assert len(lines) == 5 and all("account_id" not in m for m in lines)
    assert not any(room.seats[0][0].account.id in json.dumps(m) for m in lines)  # nothing of its id


def test_the_text_is_passed_on_as_text_never_interpreted() -> None:
    room = Room()
    say(room.seats[0][0], HOSTILE)
    for got in room.received():
        assert got[0]["text"] == HOSTILE  # byte for byte: escaping is the client's job


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "chat", "text": " \u200b\n "}, "empty"),
        ({"type": "chat", "text": "x" * 201}, "too_long"),
        ({"type": "stamp", "stamp": "<script>"}, "unknown_stamp"),
    ],
)
def test_bad_lines_are_refused_with_a_typed_error(message: dict[str, Any], code: str) -> None:
    room = Room()
    room.seats[0][0].receive(msgspec.json.encode({**message, "request_id": 9}).decode())
    got = room.received()
    assert [(m["type"], m["code"], m["request_id"]) for m in got[0]] == [("error", code, 9)]
    assert got[1:] == [[]] * 5


def test_a_chat_ban_refuses_every_line() -> None:
    room = Room()
    p0 = room.seats[0][0]
    service = room.desk.service
    asyncio.run(service.sanction(p0.account.id, SanctionKind.CHAT_BAN, "spam", given_by="admin", minutes=10))
    stamp(p0, "gg")
    got = room.received()
    assert got[0][0]["code"] == "chat_banned" and "spam" in got[0][0]["message"]
    assert got[1:] == [[]] * 5
    room.clock.advance(601)  # the ban is over
    stamp(p0, "gg")
    assert all(m[0]["stamp"] == "gg" for m in room.received())


def test_a_connection_that_follows_no_table_cannot_chat() -> None:
    room = Room()
    lone, sink = room.connect("lone", seat=None)
    lone.released("m-1")
    say(lone, "anyone?", rid=3)
    assert [(m["code"], m["request_id"]) for m in sink.json()] == [("not_in_room", 3)]


def test_chat_is_rate_limited_per_connection_and_per_address() -> None:
    limits = ConnectionLimits(chat_per_s=1.0, chat_burst=3, chat_per_ip_per_s=1.0, chat_per_ip_burst=5)
    room = Room(limits=limits)
    a1, s1 = room.connect("a1", seat=None, address="192.0.2.1")
    a2, s2 = room.connect("a2", seat=None, address="192.0.2.1")
    room.received()
    for i in range(4):
        stamp(a1, "wow", rid=i)
    codes = [m.get("code") for m in s1.json() if m["type"] == "error"]
    assert codes == ["rate_limited"]  # the connection's burst of 3
    for i in range(3):
        stamp(a2, "wow", rid=i)
    errors = [m for m in s2.json() if m["type"] == "error"]
    assert [(m["code"], m["request_id"]) for m in errors] == [("rate_limited", 2)]  # the address's 5
    other, s3 = room.connect("other", seat=None, address="192.0.2.2")
    stamp(other, "wow")  # another address is not affected
    assert [m["type"] for m in s3.json()] == ["chat"]
    room.clock.advance(1.0)
    s1.frames.clear()
    stamp(a1, "wow")
    assert [m["type"] for m in s1.json()] == ["chat"]


def test_a_chat_flood_closes_the_connection_and_never_reaches_the_table() -> None:
    limits = ConnectionLimits(chat_per_s=1.0, chat_burst=2, max_violations=5)
    room = Room(limits=limits)
    core, sink = room.seats[0]
    for i in range(50):
        say(core, f"spam {i}", rid=i)
    assert sink.closed is not None and sink.closed[0] == 1008
    assert room.table.items == []


def test_a_suspension_refuses_a_seat_but_not_watching() -> None:
    room = Room()
    core, sink = room.connect("sus", seat=None)
    core.released("m-1")
    service = room.desk.service
    asyncio.run(
        service.sanction(core.account.id, SanctionKind.SUSPENSION, "abuse", given_by="admin", minutes=60)
    )
    join = {"type": "join", "target": {"type": "queue", "preset": "tenhou"}, "request_id": 4}
    assert core.receive(msgspec.json.encode(join).decode()) is None
    (error,) = sink.json()
    assert (error["code"], error["request_id"]) == ("suspended", 4) and "abuse" in error["message"]
    watch = {"type": "join", "target": {"type": "spectate", "match_id": "m-1"}, "request_id": 5}
    assert core.receive(msgspec.json.encode(watch).decode()) is not None  # handed to the lobby
    assert core.attached("m-1", None)  # the lobby let it watch
    say(core, "let me talk")  # a suspension also bans chat
    assert sink.json()[0]["code"] == "chat_banned"


@pytest.mark.asyncio
async def test_chat_reads_the_sanctions_again_when_they_are_old() -> None:
    """A ban given by ``jantaku admin moderation`` (another process, the same store) is applied
    within SANCTIONS_REFRESH_S: the desk reads the store again in the background."""
    from server.domain.social import SanctionRecord
    from server.hub.tablechat import SANCTIONS_REFRESH_S
    from server.store.memory import InMemoryRepository

    store = InMemoryRepository()
    room = Room()
    room.desk.service = SocialService(room.clock.now, store=store)
    await room.desk.service.load()
    p0, sink = room.seats[0]
    await store.add_sanction(
        SanctionRecord(0, p0.account.id, "chat_ban", "spam", "cli:x", room.clock.now(), None)
    )
    stamp(p0, "gg")
    assert sink.json()[0]["type"] == "chat"  # not read yet
    room.clock.advance(SANCTIONS_REFRESH_S)
    stamp(p0, "gg")  # starts the read; this line still goes out
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    room.received()
    stamp(p0, "gg")
    assert sink.json()[0]["code"] == "chat_banned"
