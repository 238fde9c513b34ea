"""Publication pacing on the manual clock: the minimum call window, the hand pause, spectators."""

from __future__ import annotations

from server.engine import Transition, apply, default_action, legal_actions, new_match, pending_seats
from server.engine.actions import Discard, Pass
from server.engine.events import RoundEnded, RoundStarted, TileDiscarded
from server.hub.clock import ManualClock
from server.hub.outputs import EventsOut
from server.hub.pacing import Pacing, callable_cut, next_hand_cut
from server.hub.settings import SpectatePolicy, TableTimers
from tests.hub.helpers import EAST, FakeParticipant, account, wall_with

# The dealer draws a third 3m: after its tsumogiri discard seat 1 may chi and seat 2 may pon.
WINDOW_WALL = wall_with({1: "1m2m5p6p7p1s2s3s7s8s9s1z1z", 2: "3m3m5m6m7m2p3p4p4s5s6s2z2z"}, draws="3m")
SPECTATE = SpectatePolicy(delay_steps=0, delay_s=0.0)


def deal() -> Transition:
    return new_match(EAST, b"pacing", walls_=[WINDOW_WALL] * 2)


def tsumogiri(t: Transition, seat: int) -> Transition:
    discard = next(a for a in legal_actions(t.state, seat) if isinstance(a, Discard) and a.tsumogiri)
    return apply(t.state, seat, discard)


def until_the_next_hand(t: Transition) -> list[Transition]:
    """Default actions from ``t`` on, up to the step that ends a hand and deals the next."""
    steps = []
    while True:
        seat = pending_seats(t.state)[0]
        t = apply(t.state, seat, default_action(t.state, seat))
        steps.append(t)
        if next_hand_cut(t.events, 0) is not None:
            return steps


def publish(pacing: Pacing, upto: int, now: float, t: Transition) -> None:
    pacing.stream.publish(upto, now)


def test_without_pacing_everything_is_shown_at_once() -> None:
    pacing = Pacing("m", TableTimers(min_call_ms=0, hand_pause_ms=5000), SPECTATE, paced=False)
    t = deal()
    assert pacing.committed(t, 0.0) == len(t.events)
    t2 = tsumogiri(t, 0)
    assert pacing.committed(t2, 0.0) == len(t.events) + len(t2.events)
    assert pacing.hold_until is None and pacing.next_deadline() is None


def test_the_minimum_call_window_shows_the_discard_and_holds_the_rest() -> None:
    clock = ManualClock()
    pacing = Pacing("m", TableTimers(min_call_ms=1000), SPECTATE, paced=False)
    t = deal()
    publish(pacing, pacing.committed(t, clock.now()), clock.now(), t)
    base = len(pacing.stream)
    window = tsumogiri(t, 0)
    cut = callable_cut(window.events)
    assert cut is not None and isinstance(window.events[cut], TileDiscarded)
    # The window is open: its own events (the discard) are shown, the hold starts.
    assert pacing.committed(window, clock.now()) == base + len(window.events)
    assert pacing.hold_until == 1.0 and pacing.next_deadline() == 1.0
    publish(pacing, base + len(window.events), clock.now(), window)
    after_chi_pass = apply(window.state, 1, Pass())
    closed = apply(after_chi_pass.state, 2, Pass())  # the window closes: seat 1 draws
    pacing.committed(after_chi_pass, clock.now())
    held = pacing.committed(closed, clock.now())
    assert held == pacing.stream.published  # nothing new while the hold is on
    clock.advance(0.999)
    assert not pacing.hold_due(clock.now())
    clock.advance(0.001)
    assert pacing.hold_due(clock.now())
    assert pacing.release(clock.now()) == len(pacing.stream)
    assert pacing.hold_until is None


def test_a_replayed_step_is_never_held() -> None:
    pacing = Pacing("m", TableTimers(min_call_ms=1000, hand_pause_ms=5000), SPECTATE, paced=True)
    t = deal()
    assert pacing.committed(t, 0.0, replaying=True) == len(t.events)
    window = tsumogiri(t, 0)
    assert pacing.committed(window, 0.0, replaying=True) == len(pacing.stream)
    assert pacing.hold_until is None


def test_the_hand_pause_holds_the_next_hand_at_a_table_with_people() -> None:
    timers = TableTimers(hand_pause_ms=5000)
    clock = ManualClock(50.0)
    for paced in (True, False):
        pacing = Pacing("m", timers, SPECTATE, paced=paced)
        t = deal()
        publish(pacing, pacing.committed(t, clock.now()), clock.now(), t)
        paused = False
        for step in until_the_next_hand(t):
            upto = pacing.committed(step, clock.now())
            if not paced:
                assert upto == len(pacing.stream)
                continue
            cut = next_hand_cut(pacing.stream.events, pacing.stream.published)
            if cut is None:
                assert upto == len(pacing.stream)
            else:
                assert isinstance(pacing.stream.events[upto - 1], RoundEnded)
                assert isinstance(pacing.stream.events[upto], RoundStarted)
                assert pacing.hold_until == 55.0
                paused = True
            publish(pacing, upto, clock.now(), step)
        assert paused == paced
        if paced:
            clock.advance(5.0)
            assert pacing.hold_due(clock.now())
            assert pacing.release(clock.now()) == len(pacing.stream)


def test_spectators_get_published_events_after_their_delay() -> None:
    clock = ManualClock()
    pacing = Pacing("m", TableTimers(), SpectatePolicy(delay_steps=0, delay_s=5.0), paced=False)
    watcher = FakeParticipant(account("watcher"))
    pacing.feed.add(watcher)
    t = deal()
    publish(pacing, pacing.committed(t, clock.now()), clock.now(), t)
    assert pacing.next_deadline() == 5.0
    clock.advance(4.0)
    assert not pacing.release_to_spectators(clock.now())
    clock.advance(1.0)
    assert pacing.release_to_spectators(clock.now())
    (batch,) = watcher.of(EventsOut)
    assert batch.first_version == 1 and len(batch.events) == len(t.events)
    assert pacing.next_deadline() is None
    later = tsumogiri(t, 0)
    publish(pacing, pacing.committed(later, clock.now()), clock.now(), later)
    pacing.reveal_to_spectators(clock.now())  # the match completed: no more delay
    assert sum(len(b.events) for b in watcher.of(EventsOut)) == len(pacing.stream)
