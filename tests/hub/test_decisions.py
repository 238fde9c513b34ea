"""Decision tracking on the manual clock: prompts, answers remembered by request id, time, refusals."""

from __future__ import annotations

import doctest

import server.hub.decisions
from client_protocol.errors import ErrorCode
from server.engine import Transition, apply, legal_actions, new_match, pending_seats
from server.engine.actions import Chi, Discard, Pass, Pon
from server.hub.clock import ManualClock
from server.hub.decisions import Decisions
from server.hub.seating import Seating
from server.hub.settings import SpectatePolicy, TableTimers
from server.hub.spectators import SpectatorFeed
from tests.hub.helpers import EAST, FakeParticipant, account, wall_with

# The dealer draws a third 3m and discards it: seat 1 may chi it, seat 2 may pon it (a call window
# with two seats in it).
WINDOW_WALL = wall_with({1: "1m2m5p6p7p1s2s3s7s8s9s1z1z", 2: "3m3m5m6m7m2p3p4p4s5s6s2z2z"}, draws="3m")
TIMERS = TableTimers(action_ms=5000, bank_ms=10000, disconnect_grace_ms=2000, bot_delay_ms=600)


def deal() -> Transition:
    return new_match(EAST, b"decisions", walls_=[WINDOW_WALL] * 2)


def tsumogiri(t: Transition, seat: int) -> Transition:
    discard = next(a for a in legal_actions(t.state, seat) if isinstance(a, Discard) and a.tsumogiri)
    return apply(t.state, seat, discard)


def test_doctests() -> None:
    result = doctest.testmod(server.hub.decisions)
    assert result.failed == 0 and result.attempted > 0


def test_a_decision_is_prompted_once_and_its_answer_remembered() -> None:
    clock = ManualClock(100.0)
    decisions = Decisions(TIMERS, Seating(SpectatorFeed("m", SpectatePolicy())), bots=frozenset())
    t = deal()
    assert decisions.advance(t, actor=None, request_id=None, now=clock.now(), version=3) is None
    assert decisions.prompts == {}  # open, not prompted: the seats may not have seen the deal yet
    clock.advance(1.0)
    prompt = decisions.prompt(t.state, 0, clock.now())
    # A decision is numbered by the events before it (a public count), not by the engine's step.
    assert prompt is not None and (prompt.step, prompt.sent_at) == (3, 101.0)
    assert prompt.legal == legal_actions(t.state, 0)
    assert decisions.prompt(t.state, 0, clock.now()) is None
    clock.advance(2.0)
    after = tsumogiri(t, 0)
    assert decisions.advance(after, actor=0, request_id=7, now=clock.now(), version=5) == 3
    assert decisions.answered(0, 7) == 3 and decisions.answered(0, 8) is None
    assert decisions.answered(1, 7) is None  # request ids are per seat
    assert decisions.prompts == {}


def test_an_answer_in_a_call_window_leaves_the_other_prompt_open() -> None:
    clock = ManualClock()
    decisions = Decisions(TIMERS, Seating(SpectatorFeed("m", SpectatePolicy())), bots=frozenset())
    t = tsumogiri(deal(), 0)
    decisions.advance(t, actor=0, request_id=None, now=clock.now(), version=4)
    assert pending_seats(t.state) == (1, 2)
    chi = decisions.prompt(t.state, 1, clock.now())
    pon = decisions.prompt(t.state, 2, clock.now())
    assert chi is not None and pon is not None and chi.step == pon.step == 4
    assert Pon((2, 2)) in pon.legal and Chi((0, 1)) in chi.legal
    passed = apply(t.state, 2, Pass())
    assert passed.events == ()
    clock.advance(3.0)
    assert decisions.advance(passed, actor=2, request_id=5, now=clock.now(), version=4) == 4
    assert decisions.prompts == {1: chi}  # seat 1 is still asked, with its time running since then
    assert decisions.prompt(passed.state, 1, clock.now()) is None


def test_time_beyond_the_action_time_comes_out_of_the_bank() -> None:
    clock = ManualClock()
    decisions = Decisions(TIMERS, Seating(SpectatorFeed("m", SpectatePolicy())), bots=frozenset())
    t = deal()
    decisions.advance(t, actor=None, request_id=None, now=clock.now(), version=3)
    prompt = decisions.prompt(t.state, 0, clock.now())
    assert prompt is not None
    clock.advance(7.5)
    out = decisions.prompt_out("m", 0, version=3, now=clock.now())
    assert (out.deadline_ms, out.bank_ms, out.version, out.step) == (0, 7500, 3, 3)
    decisions.advance(tsumogiri(t, 0), actor=0, request_id=None, now=clock.now(), version=5)
    assert decisions.time.banks[0] == 7500.0


def test_deadlines_for_a_player_a_gone_player_and_a_bot() -> None:
    clock = ManualClock(10.0)
    seating = Seating(SpectatorFeed("m", SpectatePolicy()))
    p1, p2 = FakeParticipant(account("p1")), FakeParticipant(account("p2"))
    seating.take(1, p1)
    seating.take(2, p2)
    decisions = Decisions(TIMERS, seating, bots=frozenset({0}))
    t = tsumogiri(deal(), 0)
    decisions.advance(t, actor=0, request_id=None, now=clock.now(), version=4)
    chi = decisions.prompt(t.state, 1, clock.now())
    pon = decisions.prompt(t.state, 2, clock.now())
    assert chi is not None and pon is not None
    assert decisions.deadline(1, chi) == 10.0 + 15.0  # action time + bank
    assert decisions.next_deadline() == 25.0
    clock.advance(1.0)
    seating.leave(2, clock.now())
    assert decisions.deadline(2, pon) == 11.0 + 2.0  # gone: the grace, from when it left
    assert decisions.next_deadline() == 13.0
    assert decisions.due(12.999) is None and decisions.due(13.0) == 2
    assert decisions.due(25.0) == 1  # the first seat whose time is up, in seat order
    turn = deal()
    decisions.advance(turn, actor=None, request_id=None, now=clock.now(), version=3)
    own = decisions.prompt(turn.state, 0, clock.now())
    assert own is not None
    assert decisions.deadline(0, own) == 11.0 + 0.6  # a bot thinks over its own turn


def test_the_one_act_check_names_what_is_wrong() -> None:
    decisions = Decisions(TIMERS, Seating(SpectatorFeed("m", SpectatePolicy())), bots=frozenset())
    t = deal()
    decisions.advance(t, actor=None, request_id=None, now=0.0, version=3)
    discard = next(iter(a for a in legal_actions(t.state, 0) if isinstance(a, Discard)))
    # Not prompted yet (or no decision at all): no text names the table's position.
    assert decisions.refusal(0, 3, discard) == (ErrorCode.NOT_YOUR_TURN, "you have no decision to make now")
    assert decisions.refusal(1, 0, discard) == (ErrorCode.NOT_YOUR_TURN, "you have no decision to make now")
    decisions.prompt(t.state, 0, 0.0)
    assert decisions.refusal(0, 3, discard) is None
    stale = decisions.refusal(0, 4, discard)
    assert stale == (ErrorCode.STALE_STEP, "step 4 is not your pending decision's step 3")
    illegal = decisions.refusal(0, 3, Pass())
    assert illegal == (ErrorCode.ILLEGAL_ACTION, "{'type': 'pass'} is not a legal action at step 3")
    decisions.close_all()
    # The decision is over: its step (or an earlier one) is stale, a later one not the seat's.
    assert decisions.refusal(0, 3, discard) == (
        ErrorCode.STALE_STEP,
        "step 3 is over; you have no decision to make now",
    )
    assert decisions.refusal(0, 9, discard) == (ErrorCode.NOT_YOUR_TURN, "you have no decision to make now")
