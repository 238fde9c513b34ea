"""The action API: typed errors for illegal actions with the state untouched, step numbers, and
``default_action`` (what a timeout means).

Rules (issue 2 "The engine", server/engine/errors.py): ``apply`` raises ``IllegalActionError`` for an
action outside the seat's legal set and ``NotYourTurnError`` (a subclass) for a seat with no
decision, leaving the state as it was; ``default_action`` is tsumogiri on a turn and pass in a call
or chankan window.
"""

from __future__ import annotations

import pytest

from server.engine import apply, default_action, legal_actions, new_match, pending_seats
from server.engine.actions import (
    Action,
    Chi,
    Discard,
    Kakan,
    KyuushuKyuuhai,
    Pass,
    Pon,
    Riichi,
    Ron,
    Tsumo,
)
from server.engine.errors import IllegalActionError, NotYourTurnError, RulesError
from server.engine.events import MatchEnded
from server.engine.rules import TENHOU
from server.engine.state import MatchState, Phase
from server.engine.tiles import parse_tile
from tests.engine.scenario import Game

T = parse_tile


def assert_refused(g: Game, seat: int, action: Action, error: type[IllegalActionError]) -> None:
    """``apply`` raises exactly ``error`` and the state (and its legal sets) are unchanged."""
    before: MatchState = g.state
    legal_before = {s: g.legal(s) for s in range(4)}
    with pytest.raises(error) as info:
        apply(before, seat, action)
    assert type(info.value) is error
    assert g.state is before and g.state == before
    assert g.state.step == before.step
    assert {s: legal_actions(before, s) for s in range(4)} == legal_before


# -- illegal actions ------------------------------------------------------------------------------


def test_discarding_a_tile_not_held_is_illegal() -> None:
    """A discard outside the legal set: IllegalActionError, nothing changes."""
    g = Game.start({0: "123m456p789s1122z"}, draws="9m", quiet=True)
    assert_refused(g, 0, Discard(T("7z"), False), IllegalActionError)
    assert_refused(g, 0, Discard(T("1m"), True), IllegalActionError)  # 1m is not the drawn tile


def test_acting_out_of_turn_is_not_your_turn() -> None:
    """A seat with no pending decision gets NotYourTurnError (an IllegalActionError)."""
    g = Game.start({}, quiet=True)
    drawn = g.state.hand.players[0].drawn
    assert drawn is not None
    for seat in (1, 2, 3):
        assert_refused(g, seat, Discard(drawn, True), NotYourTurnError)
    assert issubclass(NotYourTurnError, IllegalActionError)
    assert issubclass(IllegalActionError, RulesError)


@pytest.mark.parametrize("seat", [-1, 4, 99])
def test_a_seat_outside_0_to_3_is_refused(seat: int) -> None:
    """Only seats 0..3 exist."""
    g = Game.start({}, quiet=True)
    assert_refused(g, seat, Pass(), NotYourTurnError)


def test_win_and_riichi_that_are_not_offered_are_illegal() -> None:
    """Tsumo on an incomplete hand, riichi with a noten hand, kakan without a pon, kyuushu kyuuhai
    with few terminals: all refused."""
    g = Game.start({0: "147m258p369s1234z"}, draws="9m", quiet=True)
    for action in (Tsumo(), Riichi(T("9m"), True), Kakan(T("1m")), KyuushuKyuuhai(), Pass(), Ron()):
        assert_refused(g, 0, action, IllegalActionError)


def test_call_window_refuses_other_seats_and_second_answers() -> None:
    """In a call window only the seats with options answer, each once; a chi from a seat that is not
    the discarder's next seat is illegal."""
    g = Game.start({1: "12m258p369s12367z", 2: "339m147p258s4567z"}, draws="3m", quiet=True)
    g.tsumogiri(0)
    assert pending_seats(g.state) == (1, 2)
    assert_refused(g, 3, Pass(), NotYourTurnError)
    assert_refused(g, 0, Pass(), NotYourTurnError)
    assert_refused(g, 2, Chi((T("3m"), T("3m"))), IllegalActionError)
    assert_refused(g, 2, Ron(), IllegalActionError)
    assert_refused(g, 2, Discard(T("9m"), False), IllegalActionError)
    g.do(2, Pass())
    assert_refused(g, 2, Pon((T("3m"), T("3m"))), NotYourTurnError)


def test_a_refused_action_does_not_spoil_the_state() -> None:
    """After a refused action the same state plays on normally."""
    g = Game.start({}, quiet=True)
    assert_refused(g, 2, Pass(), NotYourTurnError)
    drawn = g.state.hand.players[0].drawn
    assert drawn is not None
    g.do(0, Discard(drawn, True))
    assert g.state.step == 1


def test_nothing_is_legal_once_the_match_is_over() -> None:
    """A finished match offers nothing and refuses every action."""
    g = Game.at(
        {1: "234m567p234s56s88p"}, "7s", round_wind=1, kyoku=3, scores=(35000, 25000, 20000, 20000), dora="9s"
    )
    g.tsumogiri(3)
    g.do(1, Ron())
    assert g.state.finished and g.state.hand.phase is Phase.FINISHED
    assert all(g.legal(s) == frozenset() for s in range(4))
    assert pending_seats(g.state) == ()
    assert_refused(g, 0, Pass(), NotYourTurnError)
    with pytest.raises(NotYourTurnError):
        default_action(g.state, 0)


def test_each_applied_step_has_the_next_step_number() -> None:
    """Every accepted action advances the step number by exactly one (Transition.step)."""
    t = new_match(TENHOU, b"steps")
    state = t.state
    assert t.step == 0 and state.step == 0
    for expected in range(1, 30):
        seat = pending_seats(state)[0]
        t = apply(state, seat, default_action(state, seat))
        assert t.step == expected and t.state.step == expected
        state = t.state


# -- default_action -------------------------------------------------------------------------------


def test_default_action_on_a_turn_is_tsumogiri() -> None:
    """A timeout on one's own turn discards the drawn tile."""
    g = Game.start({0: "123m456p789s1122z"}, draws="1z", quiet=True)  # even with a tsumo on offer
    assert Tsumo() in g.legal(0)
    assert default_action(g.state, 0) == Discard(T("1z"), True)


def test_default_action_in_a_call_window_is_pass() -> None:
    """A timeout in a call window passes (never a ron or a call)."""
    g = Game.start(
        {1: "12m258p369s12367z", 2: "339m147p258s4567z", 3: "12m456p789s11122z"}, draws="3m", quiet=True
    )
    g.tsumogiri(0)
    for seat in (1, 2, 3):
        assert default_action(g.state, seat) == Pass()


def test_default_action_in_a_chankan_window_is_pass() -> None:
    """A timeout on a robbable kan passes."""
    g = Game.start({1: "33m147p258s34567z", 2: "12m123456p789s11z"}, draws="3m", late={4: "3m"}, quiet=True)
    g.tsumogiri(0)
    g.do(1, Pon((T("3m"), T("3m"))))
    g.discard(1, "7z")
    g.pass_all()
    g.run_to(65)
    g.do(1, Kakan(T("3m")))
    assert g.state.hand.phase is Phase.CHANKAN
    assert default_action(g.state, 2) == Pass()


def test_default_action_after_a_call_is_a_legal_discard() -> None:
    """After a call there is no drawn tile: the timeout discards some legal tile (not a banned one)."""
    g = Game.start({1: "1234m258p369s147z"}, draws="1m", quiet=True)
    g.tsumogiri(0)
    g.do(1, Chi((T("2m"), T("3m"))))
    action = default_action(g.state, 1)
    assert isinstance(action, Discard) and action in g.legal(1)
    assert action.tile not in (T("1m"), T("4m"))


def test_default_action_for_a_riichi_hand_is_tsumogiri() -> None:
    """A locked riichi hand times out into tsumogiri as well."""
    g = Game.start({0: "123m456p789s1122z"}, draws="9m", late={4: "9p"}, quiet=True, dora="3p")
    g.do(0, Riichi(T("9m"), True))
    g.run_to(65)
    assert default_action(g.state, 0) == Discard(T("9p"), True)


def test_default_action_refuses_a_seat_without_a_decision() -> None:
    """No decision, no default: NotYourTurnError."""
    g = Game.start({}, quiet=True)
    with pytest.raises(NotYourTurnError):
        default_action(g.state, 1)


def test_a_match_of_timeouts_only_reaches_its_end() -> None:
    """Applying default_action for every pending seat plays a seeded match to MatchEnded."""
    t = new_match(TENHOU, b"timeouts only")
    state = t.state
    events = list(t.events)
    for _ in range(20000):
        if state.finished:
            break
        seat = pending_seats(state)[0]
        t = apply(state, seat, default_action(state, seat))
        state = t.state
        events.extend(t.events)
    assert state.finished
    assert isinstance(events[-1], MatchEnded)
