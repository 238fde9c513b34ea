"""The table actor with fake participants on a manual clock: timers, steps, commits, redaction."""

from __future__ import annotations

import random

import pytest

from client_protocol.errors import ErrorCode
from client_protocol.messages import MatchEndReason
from server.engine import default_action, legal_actions, pending_seats
from server.engine.actions import Discard, Pass, Pon, Tsumo, action_to_dict
from server.engine.events import RoundStarted, TileDiscarded, TileDrawn
from server.engine.tiles import parse_tile
from server.hub.inbox import ActRequest, Attach, Detach
from server.hub.outputs import (
    AckOut,
    CatchupOut,
    EventsOut,
    LeftOut,
    MatchEndOut,
    Outbound,
    PromptOut,
    SeatedOut,
)
from server.hub.settings import SpectatePolicy, TableTimers
from tests.hub.helpers import (
    FakeParticipant,
    FlakyRepository,
    RecordingRepository,
    account,
    make_table,
    wall_with,
)

# Seat 1 holds two east winds; the dealer (a tsumogiri bot) draws the third and discards it at once,
# so seat 1's first decision is a call window: pass or pon.
PON_WALL = wall_with({1: "1z1z2m5m8m3p6p9p2s5s8s4z6z"}, draws="1z")
PON_SEATS = ("tsumogiri", "human", "tsumogiri", "tsumogiri")


def _events_seen(p: FakeParticipant) -> int:
    return max(p.versions(), default=0)


# -- the start --------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_start_seats_the_players_and_prompts_the_dealer() -> None:
    kit = await make_table()
    p = kit.humans[0]
    seated, catchup, prompt = p.items[0], p.items[1], p.items[2]
    assert isinstance(seated, SeatedOut) and seated.seat == 0 and len(seated.players) == 4
    assert isinstance(catchup, CatchupOut) and catchup.since_version == 0 and len(catchup.events) == 3
    assert isinstance(prompt, PromptOut)
    assert prompt.step == 3 and prompt.version == 3 and prompt.deadline_ms == 5000 and prompt.bank_ms == 10000
    assert kit.table.state is not None
    assert prompt.legal == legal_actions(kit.table.state, 0)
    assert await kit.repo.step_count("m-test") == 1  # the deal is stored before anything is sent


@pytest.mark.asyncio
async def test_a_seat_sees_only_its_own_concealed_tiles() -> None:
    kit = await make_table(("human", "human", "tsumogiri", "tsumogiri"))
    for seat, p in kit.humans.items():
        catchup = p.of(CatchupOut)[0]
        deal = next(e for e in catchup.events if isinstance(e, RoundStarted))
        assert [h is not None for h in deal.hands] == [s == seat for s in range(4)]
        for e in catchup.events:
            if isinstance(e, TileDrawn) and e.seat != seat:
                assert e.tile is None


# -- timers -----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_timeout_applies_the_default_action_after_action_time_and_bank() -> None:
    kit = await make_table(timers=TableTimers(action_ms=5000, bank_ms=10000))
    state = kit.table.state
    assert state is not None
    expected = default_action(state, 0)
    await kit.advance(14.999)
    assert kit.table.state is state  # still waiting: 5 s of action time + 10 s of bank
    await kit.advance(0.001)
    steps = await kit.repo.steps("m-test")
    assert steps[1].seat == 0 and steps[1].action == action_to_dict(expected) and steps[1].request_id is None
    # The bank is spent: the next prompt has action time only.
    while kit.humans[0].last_prompt() is None or kit.humans[0].last_prompt().step == 3:  # type: ignore[union-attr]
        await kit.advance(0)
    prompt = kit.humans[0].last_prompt()
    assert prompt is not None and prompt.deadline_ms == 5000 and prompt.bank_ms == 0


@pytest.mark.asyncio
async def test_the_time_bank_pays_for_a_slow_answer() -> None:
    kit = await make_table(timers=TableTimers(action_ms=5000, bank_ms=10000))
    await kit.advance(7.0)  # 2 s into the bank
    prompt = kit.humans[0].last_prompt()
    assert prompt is not None
    await kit.act(0, sorted(prompt.legal, key=repr)[0])
    assert kit.humans[0].acks()[-1].duplicate is False
    nxt = kit.humans[0].last_prompt()
    assert nxt is not None and nxt.step > prompt.step
    assert nxt.deadline_ms == 5000 and nxt.bank_ms == 8000


@pytest.mark.asyncio
async def test_a_resumed_prompt_carries_the_time_left() -> None:
    kit = await make_table(timers=TableTimers(action_ms=5000, bank_ms=10000))
    await kit.advance(6.5)
    again = FakeParticipant(kit.humans[0].account)
    kit.table.submit(Attach(again, 0, since_version=3))
    await kit.table.settle()
    prompt = again.last_prompt()
    assert prompt is not None and prompt.deadline_ms == 0 and prompt.bank_ms == 8500


@pytest.mark.asyncio
async def test_minimum_call_window_hides_how_fast_the_answers_came() -> None:
    kit = await make_table(PON_SEATS, walls=[PON_WALL] * 2, timers=TableTimers(min_call_ms=1000))
    p = kit.humans[1]
    prompt = p.last_prompt()
    assert prompt is not None and prompt.legal == {Pass(), Pon((27, 27))}
    seen = _events_seen(p)
    await kit.act(1, Pass())
    assert p.acks()[-1].step == prompt.step
    assert _events_seen(p) == seen  # answered at once, yet nothing follows before the window is over
    await kit.advance(0.999)
    assert _events_seen(p) == seen
    await kit.advance(0.001)
    assert _events_seen(p) > seen
    turn = p.last_prompt()
    assert turn is not None and turn.step > prompt.step  # seat 1 draws and must discard
    # A discard nobody can call is held just as long: the next draw shows only after the window.
    await kit.act(1, next(a for a in turn.legal if isinstance(a, Discard) and a.tsumogiri))
    after_discard = _events_seen(p)
    await kit.advance(0.5)
    assert _events_seen(p) == after_discard
    await kit.advance(0.5)
    assert _events_seen(p) > after_discard


@pytest.mark.asyncio
async def test_without_a_minimum_window_the_table_moves_on_at_once() -> None:
    kit = await make_table(PON_SEATS, walls=[PON_WALL] * 2)
    p = kit.humans[1]
    seen = _events_seen(p)
    await kit.act(1, Pass())
    assert _events_seen(p) > seen


@pytest.mark.asyncio
async def test_each_step_stores_who_decided_it() -> None:
    kit = await make_table(timers=TableTimers(action_ms=5000, bank_ms=10000))
    prompt = kit.humans[0].last_prompt()
    assert prompt is not None
    await kit.act(0, next(a for a in prompt.legal if isinstance(a, Discard)), request_id=1)
    while kit.humans[0].last_prompt() is prompt:  # the bots play until seat 0 draws again
        await kit.advance(0)
    await kit.advance(15.0)  # seat 0 stays connected but lets its action time and bank run out
    steps = await kit.repo.steps("m-test")
    assert steps[0].seat is None and steps[0].source is None  # the deal: nobody decided
    assert steps[1].seat == 0 and steps[1].request_id == 1 and steps[1].source == "player"
    bots = [s for s in steps[2:] if s.seat != 0]
    assert bots and all(s.source == "bot" for s in bots)
    timed_out = [s for s in steps if s.seat == 0 and s.request_id is None]
    assert timed_out and all(s.source == "timeout" for s in timed_out)


@pytest.mark.asyncio
async def test_a_disconnected_seats_default_is_stored_as_disconnected() -> None:
    kit = await make_table(timers=TableTimers(disconnect_grace_ms=2000))
    kit.table.submit(Detach(kit.humans[0]))
    await kit.table.settle()
    await kit.advance(17.0)  # its own clock (5 s + 10 s of bank) and the extra grace
    steps = await kit.repo.steps("m-test")
    assert steps[1].seat == 0 and steps[1].request_id is None and steps[1].source == "disconnected"
    assert all(s.source == "disconnected" for s in steps[1:] if s.seat == 0)


@pytest.mark.asyncio
async def test_a_match_whose_players_all_leave_still_finishes() -> None:
    kit = await make_table(("human", "human", "human", "human"))
    for p in kit.humans.values():
        kit.table.submit(Detach(p, notify=True))
    await kit.table.settle()
    for _ in range(8):  # each seat's clock runs out once (15 s); then it is played at once
        if kit.table.finished:
            break
        await kit.advance(15.0)
    assert kit.table.finished and kit.table.outcome is not None
    assert kit.table.outcome.reason is MatchEndReason.COMPLETED
    assert all(p.of(LeftOut) for p in kit.humans.values())
    result = await kit.repo.get_result("m-test")
    assert result is not None and sorted(result.ranks) == [1, 2, 3, 4]


# -- steps, duplicates, stale and illegal acts ------------------------------------------------------


@pytest.mark.asyncio
async def test_duplicate_request_is_acknowledged_and_applied_once() -> None:
    kit = await make_table(timers=TableTimers(bot_delay_ms=60_000))
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None
    action = next(a for a in prompt.legal if isinstance(a, Discard))
    await kit.act(0, action, request_id=7)
    count = await kit.repo.step_count("m-test")
    await kit.act(0, action, step=prompt.step, request_id=7)
    acks = p.acks()
    assert [(a.request_id, a.step, a.duplicate) for a in acks] == [(7, 3, False), (7, 3, True)]
    assert await kit.repo.step_count("m-test") == count


@pytest.mark.asyncio
async def test_stale_out_of_turn_and_illegal_acts_change_nothing() -> None:
    kit = await make_table(timers=TableTimers(bot_delay_ms=60_000))
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None and kit.table.state is not None
    hand = kit.table.state.hand.players[0].hand
    not_held = next(t for t in range(34) if t not in hand)
    before = kit.table.state
    await kit.act(0, Discard(not_held), request_id=1)
    await kit.act(0, Discard(hand[0]), step=prompt.step + 5, request_id=2)
    assert [e.code for e in p.errors()] == [ErrorCode.ILLEGAL_ACTION, ErrorCode.STALE_STEP]
    assert [e.request_id for e in p.errors()] == [1, 2]
    assert kit.table.state is before
    await kit.act(0, Discard(hand[0]), request_id=3)  # the prompt is still open: this one is good
    assert p.acks()[-1].request_id == 3
    await kit.act(0, Discard(hand[1]), step=prompt.step, request_id=4)  # that decision is over
    await kit.act(0, Discard(hand[1]), step=prompt.step + 1, request_id=5)  # a bot must decide now
    assert [e.code for e in p.errors()[2:]] == [ErrorCode.STALE_STEP, ErrorCode.NOT_YOUR_TURN]
    assert await kit.repo.step_count("m-test") == 2


@pytest.mark.asyncio
async def test_a_spectator_or_a_stranger_cannot_act() -> None:
    kit = await make_table(timers=TableTimers(bot_delay_ms=60_000))
    prompt = kit.humans[0].last_prompt()
    assert prompt is not None
    watcher, stranger = FakeParticipant(), FakeParticipant(kit.humans[0].account)  # same account!
    kit.table.submit(Attach(watcher, None, announce=True))
    action = next(iter(prompt.legal))
    kit.table.submit(ActRequest(watcher, 1, prompt.step, action))
    kit.table.submit(ActRequest(stranger, 2, prompt.step, action))  # not this seat's live connection
    await kit.table.settle()
    assert [e.code for e in watcher.errors() + stranger.errors()] == [ErrorCode.FORBIDDEN] * 2
    assert await kit.repo.step_count("m-test") == 1


@pytest.mark.asyncio
async def test_a_new_connection_replaces_the_old_one_for_the_seat() -> None:
    kit = await make_table(timers=TableTimers(bot_delay_ms=60_000))
    old = kit.humans[0]
    new = FakeParticipant(old.account)
    kit.table.submit(Attach(new, 0, since_version=0))
    kit.table.submit(Detach(old))  # the old connection's late goodbye must not unseat the new one
    await kit.table.settle()
    prompt = new.last_prompt()
    assert prompt is not None
    kit.table.submit(ActRequest(new, 1, prompt.step, next(iter(prompt.legal))))
    kit.table.submit(ActRequest(old, 2, prompt.step, next(iter(prompt.legal))))
    await kit.table.settle()
    assert new.acks() and [e.code for e in old.errors()] == [ErrorCode.FORBIDDEN]


@pytest.mark.asyncio
async def test_random_garbage_acts_never_break_the_table() -> None:
    rng = random.Random(4)
    kit = await make_table(
        ("human", "human", "human", "human"), timers=TableTimers(action_ms=1000, bank_ms=0)
    )
    stored = 1
    for i in range(600):
        seat = rng.randrange(4)
        p = kit.humans[seat]
        prompt = p.last_prompt()
        step = prompt.step if prompt is not None and rng.random() < 0.7 else rng.randrange(0, 50)
        if prompt is not None and rng.random() < 0.5:
            action = rng.choice(sorted(prompt.legal, key=repr))
        else:
            action = Discard(rng.randrange(37), tsumogiri=rng.random() < 0.5)
        kit.table.submit(ActRequest(p, rng.randrange(20), step, action))
        if i % 25 == 0:
            await kit.advance(1.0)
        await kit.table.settle()
        count = await kit.repo.step_count("m-test")
        assert count >= stored
        stored = count
        if kit.table.finished:
            break
    assert kit.table.running
    assert len(await kit.table.history()) == sum(len(s.events) for s in await kit.repo.steps("m-test"))


# -- commit before broadcast ------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_every_step_is_committed_before_anything_is_sent() -> None:
    log: list[tuple[str, object]] = []
    repo = RecordingRepository(log)
    kit = await make_table(("human", "human", "greedy", "random"), repo=repo, log=log)
    while not kit.table.finished:
        for seat, p in kit.humans.items():
            prompt = p.last_prompt()
            if prompt is not None and kit.table.state is not None and seat in pending_seats(kit.table.state):
                await kit.act(seat, sorted(prompt.legal, key=repr)[-1], step=prompt.step)
        await kit.advance(5.0)
    committed_events = 0
    committed_requests: set[int | None] = set()
    sends = 0
    for kind, item in log:
        if kind == "commit":
            committed_events += len(item.events)  # type: ignore[attr-defined]
            committed_requests.add(item.request_id)  # type: ignore[attr-defined]
        elif isinstance(item, EventsOut):
            sends += 1
            assert item.first_version - 1 + len(item.events) <= committed_events
        elif isinstance(item, AckOut):
            assert item.request_id in committed_requests and item.step <= committed_events
    assert sends > 50 and kit.table.outcome is not None


@pytest.mark.asyncio
async def test_a_failed_commit_answers_busy_retry_and_changes_nothing() -> None:
    repo = FlakyRepository()
    kit = await make_table(repo=repo, timers=TableTimers(bot_delay_ms=60_000))
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None
    action = next(a for a in prompt.legal if isinstance(a, Discard))
    state, seen = kit.table.state, _events_seen(p)
    repo.fail_next = True
    await kit.act(0, action, request_id=11)
    assert [e.code for e in p.errors()] == [ErrorCode.BUSY_RETRY]
    assert kit.table.state is state and _events_seen(p) == seen and not p.acks()
    assert await repo.step_count("m-test") == 1
    await kit.act(0, action, step=prompt.step, request_id=11)  # the same request, retried: applied
    assert [(a.request_id, a.duplicate) for a in p.acks()] == [(11, False)]
    # applied (a bot's answer to a call window on that discard may follow at once)
    assert await repo.step_count("m-test") >= 2 and _events_seen(p) > seen


@pytest.mark.asyncio
async def test_a_stalled_store_times_out_on_the_table_clock() -> None:
    repo = FlakyRepository()
    kit = await make_table(repo=repo, timers=TableTimers(bot_delay_ms=60_000), commit_timeout_s=2.0)
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None
    repo.stall = True
    kit.table.submit(ActRequest(p, 5, prompt.step, next(iter(prompt.legal))))
    await repo.stalled.wait()
    kit.clock.advance(2.0)
    await kit.table.settle()
    assert [e.code for e in p.errors()] == [ErrorCode.BUSY_RETRY]
    assert await repo.step_count("m-test") == 1 and kit.table.state is not None and kit.table.state.step == 0


@pytest.mark.asyncio
async def test_a_write_that_landed_despite_an_error_is_adopted_not_repeated() -> None:
    repo = FlakyRepository()
    kit = await make_table(repo=repo, timers=TableTimers(bot_delay_ms=60_000))
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None
    action = next(a for a in prompt.legal if isinstance(a, Discard))
    repo.land_then_fail = True
    await kit.act(0, action, request_id=21)
    assert [e.code for e in p.errors()] == [ErrorCode.BUSY_RETRY]
    await kit.act(0, action, step=prompt.step, request_id=21)
    assert [(a.request_id, a.duplicate) for a in p.acks()] == [(21, True)]
    stored = [e for s in await repo.steps("m-test") for e in s.events]
    assert len(stored) == len(await kit.table.history())
    assert isinstance((await kit.table.history())[3], TileDiscarded)


# -- spectators and resumes -------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_spectators_see_public_information_late() -> None:
    kit = await make_table(
        ("human", "tsumogiri", "tsumogiri", "tsumogiri"),
        timers=TableTimers(bot_delay_ms=60_000),
        spectate=SpectatePolicy(delay_steps=2, delay_s=3.0),
    )
    watcher = FakeParticipant()
    kit.table.submit(Attach(watcher, None, announce=True))
    await kit.table.settle()
    assert watcher.of(SeatedOut)[0].seat is None and watcher.of(CatchupOut)[0].events == ()
    await kit.act(0, Discard(kit.table.state.hand.players[0].hand[0]))  # type: ignore[union-attr]
    await kit.advance(60.0)  # seat 1 (a slow bot) discards, seat 2 draws: 7 events
    assert _events_seen(watcher) == 5  # all but the last 2 events (the delay counts events)
    await kit.advance(60.0)
    assert _events_seen(watcher) > 3
    for item in watcher.of(EventsOut):
        for e in item.events:
            if isinstance(e, RoundStarted):
                assert all(h is None for h in e.hands)
            if isinstance(e, TileDrawn):
                assert e.tile is None


@pytest.mark.asyncio
async def test_spectators_get_everything_when_the_match_ends() -> None:
    kit = await make_table(("tsumogiri",) * 4, spectate=SpectatePolicy(delay_steps=1000, delay_s=1e6))
    watcher = FakeParticipant()
    kit.table.submit(Attach(watcher, None, announce=True))
    await kit.table.settle()
    assert kit.table.finished
    assert _events_seen(watcher) == len(await kit.table.history())
    assert watcher.of(MatchEndOut)[0].reason is MatchEndReason.COMPLETED


@pytest.mark.asyncio
async def test_resume_sends_the_stream_then_the_pending_prompt() -> None:
    kit = await make_table(timers=TableTimers(bot_delay_ms=60_000))
    again = FakeParticipant(kit.humans[0].account)
    kit.table.submit(Attach(again, 0, since_version=2))
    await kit.table.settle()
    catchup, prompt = again.items
    assert isinstance(catchup, CatchupOut) and catchup.since_version == 2 and len(catchup.events) == 3
    assert isinstance(prompt, PromptOut) and prompt.step == 3


@pytest.mark.asyncio
async def test_a_finished_table_still_answers_a_resume_then_retires() -> None:
    kit = await make_table(("human", "tsumogiri", "tsumogiri", "tsumogiri"))
    kit.table.submit(Detach(kit.humans[0]))
    await kit.table.settle()
    await kit.advance(15.0)  # its own clock runs out once; then it is played at once to the end
    assert kit.table.finished
    again = FakeParticipant(kit.humans[0].account)
    kit.table.submit(Attach(again, 0, since_version=0))
    await kit.table.settle()
    assert isinstance(again.items[-1], MatchEndOut)
    kit.clock.advance(1000)
    await kit.table.settle()
    assert not kit.table.running


# -- failures ---------------------------------------------------------------------------------------


class _Exploding(FakeParticipant):
    def deliver(self, item: Outbound) -> None:
        if isinstance(item, EventsOut):
            raise RuntimeError("boom")
        super().deliver(item)


@pytest.mark.asyncio
async def test_a_failing_table_is_aborted_and_its_players_told() -> None:
    kit = await make_table(
        ("human", "tsumogiri", "tsumogiri", "tsumogiri"), timers=TableTimers(bot_delay_ms=1000)
    )
    bad = _Exploding(account("bad"))
    kit.table.submit(Attach(bad, 1))  # a bot's seat: refused
    kit.table.submit(Attach(bad, None))  # a (buggy) spectator: delivering to it will raise
    await kit.table.settle()
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None
    await kit.act(0, next(iter(prompt.legal)))
    assert not kit.table.running
    assert [e.code for e in p.errors()] == [ErrorCode.INTERNAL]
    end = p.of(MatchEndOut)
    assert end and end[0].reason is MatchEndReason.ABORTED and end[0].result is None
    match = await kit.repo.get_match("m-test")
    assert match is not None and match.status.value == "aborted"


# -- pacing for people: bot thinking time, a pause between hands ------------------------------------

# The dealer (seat 0) draws the tile that completes its hand: it can win by tsumo at once.
TSUMO_WALL = wall_with({0: "123m456m789m123p4p"}, draws="4p")
# Seat 1 holds two east winds and seat 0 (the dealer) draws the third: seat 1 may pon the discard.
BOT_PON_WALL = wall_with({1: "1z1z2m5m8m3p6p9p2s5s8s4z6z"}, draws="1z")


def _kinds(p: FakeParticipant) -> list[str]:
    return [type(e).__name__ for item in p.of(EventsOut) for e in item.events]


@pytest.mark.asyncio
async def test_the_next_hand_waits_for_the_hand_pause_at_a_table_with_people() -> None:
    kit = await make_table(walls=[TSUMO_WALL] * 3, timers=TableTimers(hand_pause_ms=5000))
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None and Tsumo() in prompt.legal
    await kit.act(0, Tsumo())
    assert _kinds(p)[-3:] == ["HandWon", "WallRevealed", "RoundEnded"], "the result is shown at once"
    assert p.last_prompt() is prompt, "but the next hand is not"
    await kit.advance(4.999)
    assert _kinds(p)[-1] == "RoundEnded"
    await kit.advance(0.001)
    assert "RoundStarted" in _kinds(p)[-4:]
    again = p.last_prompt()
    assert again is not None and again.step > prompt.step
    assert again.deadline_ms == 5000, "the dealer's time starts when the new hand is shown"


@pytest.mark.asyncio
async def test_without_a_hand_pause_the_next_hand_follows_at_once() -> None:
    kit = await make_table(walls=[TSUMO_WALL] * 3)
    p = kit.humans[0]
    prompt = p.last_prompt()
    await kit.act(0, Tsumo())
    assert "RoundStarted" in _kinds(p)[-4:]
    again = p.last_prompt()
    assert again is not None and prompt is not None and again.step > prompt.step


@pytest.mark.asyncio
async def test_a_table_of_bots_only_never_pauses_between_hands() -> None:
    kit = await make_table(("tsumogiri",) * 4, timers=TableTimers(hand_pause_ms=60_000))
    assert kit.table.finished, "the whole match was played without the clock moving"


@pytest.mark.asyncio
async def test_a_bot_thinks_over_its_own_turn_but_answers_a_call_window_at_once() -> None:
    kit = await make_table(walls=[BOT_PON_WALL] * 2, timers=TableTimers(bot_delay_ms=60_000))
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None
    await kit.act(0, Discard(parse_tile("1z"), tsumogiri=True))
    # Seat 1 (a bot) could pon the east wind: it passes without the 60 s a turn would take, so
    # the pause never tells anyone it could have called; then seat 1's own turn begins.
    assert _kinds(p)[-2:] == ["TileDiscarded", "TileDrawn"]
    drawn = p.of(EventsOut)[-1].events[-1]
    assert isinstance(drawn, TileDrawn) and drawn.seat == 1
    seen = _events_seen(p)
    await kit.advance(59.9)
    assert _events_seen(p) == seen, "seat 1 thinks over its discard"
    await kit.advance(0.1)
    assert _events_seen(p) > seen


def test_pon_wall_fixture_deals_as_described() -> None:
    from server.engine.wall import dealt_hands, live_tile

    hands = dealt_hands(PON_WALL, 0)
    assert sum(1 for t in hands[1] if t == parse_tile("1z")) == 2
    assert live_tile(PON_WALL, 0) == parse_tile("1z")
