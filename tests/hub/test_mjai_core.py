"""The mjai core without I/O: its hello, seating, requests and answers, on frames and fake tables.

The network tests (``test_mjai.py``, ``tests/bots``) run the same core behind the websocket layer.
"""

from __future__ import annotations

import json
from typing import Any

from websockets.frames import CloseCode

from client_protocol.errors import ErrorCode
from client_protocol.messages import MAX_SERVER_MESSAGE_BYTES, MatchEndReason
from server.engine import apply, default_action, legal_actions, new_match, pending_seats, redact_all
from server.engine.actions import Discard
from server.engine.rules import TENHOU
from server.hub.adapter import AuthenticateBearer, JoinPrivate, JoinQueue, Resume
from server.hub.clock import ManualClock
from server.hub.inbox import ActRequest
from server.hub.mjai import MjaiSession
from server.hub.outputs import (
    AckOut,
    CatchupOut,
    ErrorOut,
    MatchEndOut,
    PromptOut,
    ResultOut,
    SeatedOut,
)
from server.hub.settings import ConnectionLimits
from server.records.export_mjai import MjaiStream
from tests.hub.corekit import Directory, Sink, Table
from tests.hub.helpers import EAST, account

LIMITS = ConnectionLimits()


def hello(**fields: object) -> str:
    return json.dumps({"type": "hello", "token": "t0k", **fields})


def core(directory: Directory | None = None) -> tuple[MjaiSession, Sink, Directory, ManualClock]:
    sink, clock = Sink(), ManualClock()
    directory = directory if directory is not None else Directory()
    return MjaiSession(sink, directory, clock, LIMITS), sink, directory, clock


def test_the_hello_names_a_token_and_where_to_play() -> None:
    bot = account("bot")
    for fields, request in [
        ({}, JoinQueue("tenhou", None)),
        ({"queue": "ema"}, JoinQueue("ema", None)),
        ({"private": "ABCD-EFGH"}, JoinPrivate("ABCD-EFGH", None)),
    ]:
        mjai, sink, _, _ = core()
        assert mjai.receive_hello(hello(**fields)) == AuthenticateBearer("t0k")
        mjai.authenticated(bot)
        assert mjai.welcome(None) == request
        (welcome,) = sink.json()
        assert welcome["type"] == "welcome" and welcome["player"]["id"] == bot.id


def test_a_bot_with_a_running_match_is_put_back_in_it() -> None:
    bot = account("bot")
    directory = Directory(tables={"m-1": Table(), "m-0": Table(finished=True)})
    directory.seats[bot.id] = [("m-0", 1), ("m-1", 2)]
    mjai, _, _, _ = core(directory)
    mjai.receive_hello(hello(queue="tenhou"))
    mjai.authenticated(bot)
    assert mjai.welcome(None) == Resume("m-1", 0, None)


def test_a_bad_hello_is_refused_and_closes() -> None:
    for frame, code in [
        ("nope", "malformed"),
        ('{"type": "join"}', "unauthenticated"),
        ('{"type": "hello"}', "unauthenticated"),
        ('{"type": "hello", "token": "x", "queue": 3}', "malformed"),
    ]:
        mjai, sink, _, _ = core()
        assert mjai.receive_hello(frame) is None
        assert sink.json()[0]["code"] == code
        assert sink.closed == (CloseCode.POLICY_VIOLATION, "hello refused")


def seated(table: Table) -> tuple[MjaiSession, Sink, Table, PromptOut]:
    """A bot seated as the dealer of a fresh match, its first request asked."""
    mjai, sink, _, _ = core(Directory(tables={"m-1": table}))
    mjai.receive_hello(hello())
    mjai.authenticated(account("bot"))
    mjai.welcome(None)
    t = new_match(EAST, b"mjai-core")
    assert mjai.attached("m-1", 0)
    mjai.deliver(SeatedOut("m-1", 0, table.players))
    mjai.deliver(CatchupOut("m-1", 0, 0, redact_all(t.events, 0)))
    prompt = PromptOut("m-1", 0, 0, len(t.events), legal_actions(t.state, 0), 5000, 10000)
    mjai.deliver(prompt)
    return mjai, sink, table, prompt


def test_seated_then_the_game_as_mjai_events_then_a_request() -> None:
    mjai, sink, table, prompt = seated(Table())
    lines = sink.json()
    assert [line["type"] for line in lines[:5]] == ["welcome", "seated", "start_game", "start_kyoku", "tsumo"]
    assert lines[1] == {
        "type": "seated",
        "match_id": "m-1",
        "seat": 0,
        "names": ["p0", "p1", "p2", "p3"],
        "resumed": False,
    }
    request = lines[-1]
    assert request["type"] == "request" and request["request_id"] == 1
    dahai = next(a for a in request["possible_actions"] if a["type"] == "dahai")
    mjai.receive(json.dumps(dahai))
    (item,) = table.items
    assert isinstance(item, ActRequest) and item.participant is mjai and item.step == prompt.step
    assert isinstance(item.action, Discard) and item.action in prompt.legal
    mjai.deliver(AckOut(prompt.step, prompt.step, False))
    mjai.receive(json.dumps(dahai))  # nothing is asked now
    assert sink.json()[-1]["code"] == ErrorCode.NOT_YOUR_TURN.value


def test_an_invalid_answer_is_reported_and_the_default_played() -> None:
    mjai, sink, table, prompt = seated(Table())
    sink.json()
    mjai.receive("this is not json")
    (error,) = sink.json()
    assert error["code"] == "illegal_action" and error["applied"]["type"] == "dahai"
    (item,) = table.items
    assert isinstance(item, ActRequest) and item.action in prompt.legal


def test_a_resume_sends_seated_from_the_catch_up() -> None:
    mjai, sink, _, _ = core(Directory(tables={"m-1": Table()}))
    mjai.authenticated(account("bot"))
    t = new_match(EAST, b"mjai-core")
    assert mjai.attached("m-1", 2)
    mjai.deliver(CatchupOut("m-1", 2, 0, redact_all(t.events, 2)))
    lines = sink.json()
    assert lines[0]["type"] == "seated" and lines[0]["resumed"] and lines[0]["seat"] == 2
    assert lines[1]["type"] == "events" and lines[1]["events"][0]["type"] == "start_game"
    assert lines[1]["events"][0]["id"] == 2


class BoundedSink(Sink):
    """A sink that drops the connection when more than ``capacity`` frames wait (the outbound queue)."""

    def __init__(self, capacity: int) -> None:
        super().__init__()
        self.capacity = capacity

    def put(self, frame: bytes) -> bool:
        if self.open and len(self.frames) >= self.capacity:
            self.drop("outbound queue full (the client is not reading)")
        return super().put(frame)


def whole_hanchan() -> list[Any]:
    """Every event of an east-south match played by default actions (tsumogiri, pass)."""
    t = new_match(TENHOU, b"mjai-late-resume")
    events = list(t.events)
    state = t.state
    while not state.finished:
        seat = pending_seats(state)[0]
        t = apply(state, seat, default_action(state, seat))
        events.extend(t.events)
        state = t.state
    return events


def test_a_resume_late_in_a_hanchan_fits_the_outbound_queue() -> None:
    events = whole_hanchan()
    assert len(events) > 600  # one frame per mjai line would overflow a 512-frame queue
    queue = ConnectionLimits().outbound_queue
    for upto in (len(events) // 2, len(events) - 1):
        sink = BoundedSink(queue)
        mjai = MjaiSession(sink, Directory(tables={"m-1": Table()}), ManualClock(), LIMITS)
        mjai.authenticated(account("bot"))
        assert mjai.attached("m-1", 1)
        mjai.deliver(CatchupOut("m-1", 1, 0, redact_all(tuple(events[:upto]), 1)))
        assert sink.open, sink.dropped
        frames = sink.json()
        assert len(frames) <= 16
        seated, *batches = frames
        assert seated["type"] == "seated" and seated["resumed"]
        lines = [line for batch in batches for line in batch["events"]]
        assert {batch["type"] for batch in batches} == {"events"}
        expected = MjaiStream(seat=1, names=("p0", "p1", "p2", "p3")).feed(
            redact_all(tuple(events[:upto]), 1)
        )
        assert lines == json.loads(json.dumps(expected))
        assert all(len(f) < MAX_SERVER_MESSAGE_BYTES for f in (json.dumps(b) for b in batches))


def test_deeply_nested_json_is_refused_cleanly_before_and_after_the_hello() -> None:
    deep = "[" * 1500 + "]" * 1500
    mjai, sink, _, _ = core()
    assert mjai.receive_hello('{"type": "hello", "token": ' + deep + "}") is None
    (error,) = sink.json()
    assert error["code"] == "malformed" and sink.closed == (CloseCode.POLICY_VIOLATION, "hello refused")
    mjai, sink, _, _ = seated(Table())
    sink.json()
    mjai.receive('{"type": "dahai", "pai": ' + deep + "}")
    error = sink.json()[0]
    assert error["type"] == "error" and "nested" in error["message"]


def test_the_match_end_closes_the_connection_and_the_table_releases_it() -> None:
    mjai, sink, _, _ = seated(Table())
    sink.json()
    mjai.deliver(
        MatchEndOut("m-1", MatchEndReason.COMPLETED, ResultOut((25000,) * 4, (1, 2, 3, 4), (0.0,) * 4))
    )
    (end,) = sink.json()
    assert end["type"] == "match_end" and end["result"]["ranks"] == [1, 2, 3, 4]
    assert sink.closed == (CloseCode.NORMAL_CLOSURE, "game over")


def test_what_it_follows_is_what_the_table_says() -> None:
    mjai, sink, _, prompt = seated(Table())
    sink.json()
    mjai.deliver(ErrorOut(ErrorCode.BUSY_RETRY, "later"))  # seated: an error about a move, no more
    assert sink.json()[0]["code"] == "busy_retry" and sink.open
    mjai.released("m-1")
    mjai.deliver(prompt)
    assert not sink.frames  # a prompt of a match it no longer follows is not asked
    mjai.deliver(ErrorOut(ErrorCode.BUSY_RETRY, "no table"))  # following nothing: a refused join
    assert sink.json()[0]["code"] == "busy_retry"
    assert sink.closed == (CloseCode.POLICY_VIOLATION, "could not join")


def test_a_connection_that_is_over_takes_no_seat() -> None:
    mjai, _, directory, _ = core()
    mjai.authenticated(account("bot"))
    mjai.connection_lost()
    assert directory.forgotten == [mjai]
    assert not mjai.attached("m-1", 0)


def test_an_answer_that_repeats_a_key_is_invalid_and_the_default_played() -> None:
    """docs/mjai.md#invalid-answers: two "pai" in one dahai: neither is played."""
    mjai, sink, table, prompt = seated(Table())
    request = sink.json()[-1]
    dahai = next(a for a in request["possible_actions"] if a["type"] == "dahai")
    text = json.dumps(dahai)
    mjai.receive(text[:-1] + ', "pai": "9z"}')
    (error,) = sink.json()
    assert error["code"] == "illegal_action" and "repeats a key" in error["message"]
    (item,) = table.items
    assert isinstance(item, ActRequest) and item.action in prompt.legal


def test_a_bot_is_not_told_the_tables_chat_and_keeps_its_connection() -> None:
    from server.hub.outputs import ChatOut

    mjai, sink, _, _ = core()
    assert mjai.receive_hello(hello()) == AuthenticateBearer("t0k")
    mjai.authenticated(account("bot"))
    mjai.welcome(None)
    sink.json()
    mjai.deliver(ChatOut("m-1", 2, "alice", "gg", None))
    assert sink.json() == [] and sink.open
