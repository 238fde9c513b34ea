"""Our protocol's core without I/O: frames in, frames, inbox messages and lobby requests out.

No socket, no event loop: a :class:`~server.hub.session.ProtocolSession` is fed frames and what it
sent is read back (``tests.hub.corekit``); the network tests (``test_network.py``) run the same core
behind :class:`~server.hub.connection.WebSocketConnection`.
"""

from __future__ import annotations

import msgspec
from websockets.frames import CloseCode

from client_protocol.messages import GuestAuth, MatchEndReason
from server.engine import legal_actions, new_match, redact_all
from server.engine.actions import Discard
from server.hub.adapter import Authenticate, JoinQueue, Resume, Spectate
from server.hub.clock import ManualClock
from server.hub.inbox import ActRequest, Detach
from server.hub.outputs import CatchupOut, EventsOut, LeftOut, MatchEndOut, PromptOut, SeatedOut
from server.hub.session import ProtocolSession
from server.hub.settings import ConnectionLimits
from server.hub.wire import action_to_wire
from tests.hub.corekit import Directory, Sink, Table
from tests.hub.helpers import EAST, account

LIMITS = ConnectionLimits(rate_per_s=1.0, rate_burst=20, max_violations=3, snapshot_after=5)
TIGHT = ConnectionLimits(rate_per_s=1.0, rate_burst=3, max_violations=3)
HELLO = '{"type": "hello", "protocol": 1, "auth": {"type": "guest", "name": "alice"}}'


def frame(message: dict[str, object]) -> str:
    """A text frame (binary frames are not part of the protocol)."""
    return msgspec.json.encode(message).decode()


def session(
    directory: Directory | None = None, limits: ConnectionLimits = LIMITS
) -> tuple[ProtocolSession, Sink, Directory, ManualClock]:
    sink, clock = Sink(), ManualClock()
    directory = directory if directory is not None else Directory()
    return ProtocolSession(sink, directory, clock, limits), sink, directory, clock


def welcomed(
    directory: Directory | None = None, limits: ConnectionLimits = LIMITS
) -> tuple[ProtocolSession, Sink, Directory, ManualClock]:
    core, sink, directory, clock = session(directory, limits)
    assert core.receive_hello(HELLO) == Authenticate(GuestAuth(name="alice"))
    core.authenticated(account("alice"))
    assert core.welcome("secret-token") is None
    (welcome,) = sink.json()
    assert welcome["type"] == "welcome" and welcome["session_token"] == "secret-token"
    return core, sink, directory, clock


def act(rid: int, step: int = 0) -> str:
    state = new_match(EAST, b"session").state
    discard = next(a for a in legal_actions(state, 0) if isinstance(a, Discard))
    wire = msgspec.to_builtins(action_to_wire(discard))
    return frame({"type": "act", "request_id": rid, "step": step, "action": wire})


def test_the_hello_asks_for_authentication_and_the_welcome_lists_live_seats() -> None:
    directory = Directory(seats={})
    core, sink, _, _ = session(directory)
    assert core.receive_hello(HELLO) == Authenticate(GuestAuth(name="alice"))
    player = account("alice")
    directory.seats[player.id] = [("m-1", 2)]
    core.authenticated(player)
    core.welcome("tok")
    (welcome,) = sink.json()
    # no table on this node to name the players: null (a client keeps the names it has)
    assert welcome["seats"] == [{"match_id": "m-1", "seat": 2, "last_request_id": None, "players": None}]
    assert welcome["player"]["id"] == player.id and welcome["session_id"] == core.session_id


def test_a_bad_hello_is_refused_and_anything_else_first_is_a_violation() -> None:
    core, sink, _, _ = session()
    assert core.receive_hello("{not json") is None
    assert sink.json()[0]["code"] == "malformed"
    assert sink.closed == (CloseCode.POLICY_VIOLATION, "bad hello")
    core, sink, _, _ = session()
    ping = frame({"type": "ping", "nonce": 1})
    for _ in range(LIMITS.max_violations - 1):
        assert core.receive_hello(ping) is None
        assert sink.open
    assert core.receive_hello(ping) is None
    assert [m["code"] for m in sink.json()] == ["unauthenticated"] * LIMITS.max_violations
    assert sink.closed is not None and sink.closed[0] == CloseCode.POLICY_VIOLATION
    core, sink, _, _ = session()
    core.hello_timeout()
    assert sink.json()[0]["message"] == "no hello in time" and sink.closed is not None


def test_an_act_goes_to_the_table_the_table_says_this_connection_follows() -> None:
    table = Table()
    core, sink, _, _ = welcomed(Directory(tables={"m-1": table}))
    assert core.receive(act(1)) is None
    assert sink.json()[0]["code"] == "not_your_turn"  # it follows no match: nowhere to send it
    assert core.attached("m-1", 0)
    core.receive(act(2, step=4))
    (item,) = table.items
    assert isinstance(item, ActRequest) and item.participant is core
    assert (item.request_id, item.step) == (2, 4)
    assert not sink.frames  # the table answers (ack or error)
    core.released("m-1")
    core.receive(act(3))
    assert sink.json()[0]["message"] == "this connection plays no match"


def test_an_act_for_a_table_a_drain_handed_over_is_told_to_resume_elsewhere() -> None:
    directory = Directory(tables={"m-1": Table()})
    core, sink, _, _ = welcomed(directory)
    assert core.attached("m-1", 0)
    del directory.tables["m-1"]  # the drain stopped it and handed it over: the match goes on
    directory.closing = True
    core.receive(act(1))
    (error,) = sink.json()
    assert error["code"] == "busy_retry" and "another server node" in error["message"]


def test_a_spectators_act_is_for_the_table_to_refuse() -> None:
    table = Table()
    core, sink, _, _ = welcomed(Directory(tables={"m-1": table}))
    core.attached("m-1", None)
    core.receive(act(1))
    assert len(table.items) == 1  # the one act check is the table's (Decisions.refusal)
    assert not sink.frames


def test_what_it_follows_comes_from_the_table_not_from_what_it_sends() -> None:
    table = Table()
    core, sink, _, _ = welcomed(Directory(tables={"m-1": table}))
    core.deliver(SeatedOut("m-1", 0, table.players))  # only rendered: it does not seat anyone
    core.receive(act(1))
    assert sink.json()[-1]["message"] == "this connection plays no match"
    core.attached("m-1", 0)
    core.deliver(MatchEndOut("m-1", MatchEndReason.COMPLETED, None))
    core.deliver(LeftOut("m-1"))
    core.receive(act(2))
    assert len(table.items) == 1  # still following: only released() ends it


def test_joining_while_seated_is_refused_and_joining_after_watching_leaves_the_table() -> None:
    table = Table()
    core, sink, _, _ = welcomed(Directory(tables={"m-1": table}))
    join = frame({"type": "join", "request_id": 5, "target": {"type": "queue", "preset": "tenhou"}})
    core.attached("m-1", 1)
    assert core.receive(join) is None
    assert sink.json()[0]["code"] == "forbidden"
    core.attached("m-1", None)
    assert core.receive(join) == JoinQueue("tenhou", 5)
    assert [type(i) for i in table.items] == [Detach]
    watch = frame({"type": "join", "request_id": 6, "target": {"type": "spectate", "match_id": "m-1"}})
    assert core.receive(watch) == Spectate("m-1", 6)
    resume = frame({"type": "resume", "request_id": 7, "match_id": "m-2", "since_version": 3})
    assert core.receive(resume) == Resume("m-2", 3, 7)


def test_leave_a_queue_or_the_table_it_follows() -> None:
    table = Table()
    directory = Directory(tables={"m-1": table})
    core, sink, _, _ = welcomed(directory)
    leave = frame({"type": "leave", "request_id": 8})
    assert core.receive(leave) is None
    assert sink.json()[0]["code"] == "not_found"
    directory.waiting.append(core)
    core.receive(leave)
    assert sink.json() == [{"type": "left", "match_id": None}]
    core.attached("m-1", 2)
    core.receive(leave)
    assert sink.json() == [{"type": "left", "match_id": "m-1"}]
    assert [type(i) for i in table.items] == [Detach]
    # a leave: the seat is played for at once (issue 29)
    assert isinstance(table.items[0], Detach) and table.items[0].on_purpose
    core.receive(act(9))
    assert sink.json()[0]["code"] == "not_your_turn"


def test_the_rate_limit_spares_acts_that_answer_prompts() -> None:
    table = Table()
    core, sink, _, clock = welcomed(Directory(tables={"m-1": table}), TIGHT)
    core.attached("m-1", 0)
    ping = frame({"type": "ping", "nonce": 1})
    for _ in range(TIGHT.rate_burst):
        core.receive(ping)
    core.receive(ping)
    assert [m["type"] for m in sink.json()] == ["pong"] * 3 + ["error"]
    state = new_match(EAST, b"session").state
    core.deliver(PromptOut("m-1", 0, 0, 3, legal_actions(state, 0), 5000, 10000))
    sink.json()
    core.receive(act(1))
    assert len(table.items) == 1 and not sink.frames  # answered a prompt: no token needed
    core.receive(act(2))
    assert sink.json()[0]["code"] == "rate_limited"
    clock.advance(1.0)
    core.receive(ping)
    assert sink.json()[0]["type"] == "pong"
    core.receive(ping)  # the third violation closes the connection
    assert sink.closed is not None and sink.closed[0] == CloseCode.POLICY_VIOLATION


def test_events_are_rendered_and_a_long_catch_up_becomes_a_snapshot() -> None:
    core, sink, _, _ = welcomed()
    events = redact_all(new_match(EAST, b"session").events, 0)
    core.deliver(EventsOut("m-1", 1, events))
    assert [m["version"] for m in sink.json()] == list(range(1, len(events) + 1))
    many = events * 3
    core.deliver(CatchupOut("m-1", 0, len(many) - 2, many))
    assert [m["version"] for m in sink.json()] == [len(many) - 1, len(many)]
    core.deliver(CatchupOut("m-1", 0, 0, many))
    (snapshot,) = sink.json()
    assert snapshot["type"] == "snapshot" and snapshot["version"] == len(many)


def test_a_connection_that_is_over_leaves_its_table_and_takes_no_seat() -> None:
    table = Table()
    directory = Directory(tables={"m-1": table})
    core, _, _, _ = welcomed(directory)
    core.attached("m-1", 3)
    core.connection_lost()
    assert directory.forgotten == [core]
    assert [type(i) for i in table.items] == [Detach]
    # a lost connection keeps its seat's clock
    assert isinstance(table.items[0], Detach) and not table.items[0].on_purpose
    assert not core.attached("m-1", 3)


def test_binary_frames_and_unknown_messages_are_answered_with_errors() -> None:
    core, sink, _, _ = welcomed()
    core.receive(b"\x00\x01")
    core.receive(frame({"type": "dance"}))
    assert [m["code"] for m in sink.json()] == ["malformed", "unknown_type"]
    core.receive(HELLO)
    assert sink.json()[0]["code"] == "forbidden"
