"""A seat that loses its connection keeps its own clock (issue 12): its action time and bank run as
if it were there; the table plays for it only when they are spent, then at once on each later
decision until it comes back (Tenhou's rule). On the table actor with a manual clock."""

from __future__ import annotations

import pytest

from server.domain.records import SERVER_PLAYED_SOURCES
from server.engine.actions import Discard
from server.eventlog.codec import decode_action
from server.hub.inbox import Attach, Detach
from server.hub.metrics import HubMetrics
from server.hub.outputs import CatchupOut, PlayedForOut, PromptOut
from server.hub.settings import TableTimers
from tests.hub.helpers import FakeParticipant, TableKit, make_table

TIMERS = TableTimers(action_ms=5000, bank_ms=10000)


async def _seat0_steps(kit: TableKit) -> list[tuple[int, str | None]]:
    return [(s.step, s.source) for s in await kit.repo.steps("m-test") if s.seat == 0]


async def _run(kit: TableKit, seconds: float) -> None:
    """Let ``seconds`` pass in half-second ticks (each prompt is timed from the tick it is sent at)."""
    for _ in range(round(seconds * 2)):
        await kit.advance(0.5)


async def _leave(kit: TableKit, seat: int = 0) -> None:
    kit.table.submit(Detach(kit.humans[seat]))
    await kit.table.settle()


async def _return(kit: TableKit, seat: int = 0) -> FakeParticipant:
    again = FakeParticipant(kit.humans[seat].account)
    kit.table.submit(Attach(again, seat, since_version=max(kit.humans[seat].versions(), default=0)))
    await kit.table.settle()
    kit.humans[seat] = again
    return again


@pytest.mark.asyncio
async def test_a_disconnected_seat_keeps_its_action_time_and_bank() -> None:
    kit = await make_table(timers=TIMERS)
    await kit.advance(1.0)
    await _leave(kit)  # a second into its turn, the seat loses its connection
    state = kit.table.state
    await kit.advance(13.999)
    assert kit.table.state is state  # 5 s of action time + 10 s of bank, from the prompt
    assert await _seat0_steps(kit) == []
    await kit.advance(0.001)
    assert kit.table.state is not state
    steps = await _seat0_steps(kit)
    assert steps[0] == (1, "disconnected")


@pytest.mark.asyncio
async def test_a_reload_on_your_own_turn_plays_nothing_for_you() -> None:
    kit = await make_table(timers=TIMERS)
    first = kit.humans[0].last_prompt()
    assert first is not None
    await kit.advance(4.0)
    await _leave(kit)
    await kit.advance(1.0)  # the page reloads in a second
    again = await _return(kit)
    prompt = again.last_prompt()
    assert prompt is not None and prompt.step == first.step  # the same decision
    assert (prompt.deadline_ms, prompt.bank_ms) == (0, 10000)  # the same clock, nothing charged twice
    assert again.of(PlayedForOut) == []  # nothing was played for it
    assert await _seat0_steps(kit) == []
    await kit.advance(9.999)
    assert await _seat0_steps(kit) == []
    await kit.advance(0.001)
    assert await _seat0_steps(kit) == [(1, "timeout")]  # back, then let its time run out


@pytest.mark.asyncio
async def test_once_played_for_an_absent_seat_is_played_at_once_until_it_returns() -> None:
    kit = await make_table(timers=TIMERS.replace(bot_delay_ms=1000))
    await _leave(kit)
    await kit.advance(15.0)
    assert await _seat0_steps(kit) == [(1, "disconnected")]
    await _run(kit, 3.0)  # three bots take a second each; seat 0 draws and is played at once
    played = await _seat0_steps(kit)
    assert len(played) >= 2 and {source for _, source in played} == {"disconnected"}
    again = await _return(kit)
    prompt = None
    for _ in range(10):  # its next turn, with the action time (the bank is spent)
        await kit.advance(1.0)
        prompt = again.last_prompt()
        if prompt is not None:
            break
    assert prompt is not None and (prompt.deadline_ms, prompt.bank_ms) == (5000, 0)
    await kit.advance(4.999)
    assert len(await _seat0_steps(kit)) == len(played)  # back: its clock again, not at once
    await kit.advance(0.001)
    assert (await _seat0_steps(kit))[len(played)][1] == "timeout"


@pytest.mark.asyncio
async def test_a_seat_gone_for_good_lets_the_match_finish_without_waiting_twice() -> None:
    kit = await make_table(timers=TIMERS)
    await _leave(kit)
    await kit.advance(15.0)  # its first decision takes its whole clock; every later one none
    assert kit.table.finished
    sources = {source for _, source in await _seat0_steps(kit)}
    assert sources == {"disconnected"} and sources <= SERVER_PLAYED_SOURCES


@pytest.mark.asyncio
async def test_the_disconnect_grace_is_extra_time_for_a_seat_without_a_connection() -> None:
    kit = await make_table(timers=TIMERS.replace(disconnect_grace_ms=2000))
    await _leave(kit)
    await kit.advance(16.999)
    assert await _seat0_steps(kit) == []
    await kit.advance(0.001)
    assert (await _seat0_steps(kit))[0] == (1, "disconnected")


@pytest.mark.asyncio
async def test_a_returning_seat_is_told_which_moves_were_played_for_it() -> None:
    kit = await make_table(timers=TIMERS.replace(bot_delay_ms=1000))
    await _leave(kit)
    await _run(kit, 18.0)  # its clock runs out at 15 s; its next turn (18 s) is played at once
    stored = [s for s in await kit.repo.steps("m-test") if s.seat == 0]
    assert len(stored) >= 2 and {s.source for s in stored} == {"disconnected"}
    again = await _return(kit)
    (told,) = again.of(PlayedForOut)
    assert told.match_id == "m-test"
    assert [a for _, a in told.moves] == [decode_action(s.action, s.format_version) for s in stored]
    steps = [step for step, _ in told.moves]  # each decision's public number, oldest first
    assert steps == sorted(set(steps))
    assert any(isinstance(a, Discard) and a.tsumogiri for _, a in told.moves)
    kinds = [type(i) for i in again.items if isinstance(i, CatchupOut | PlayedForOut | PromptOut)]
    assert kinds.index(PlayedForOut) == kinds.index(CatchupOut) + 1  # after the catch-up
    await _leave(kit)
    again = await _return(kit)  # a second reload: nothing new was played
    assert again.of(PlayedForOut) == []


@pytest.mark.asyncio
async def test_metrics_count_moves_played_for_a_disconnected_seat_apart() -> None:
    metrics = HubMetrics()
    kit = await make_table(timers=TIMERS, metrics=metrics)

    def count(source: str) -> float:
        value = metrics.registry.get_sample_value("jantaku_actions_total", {"source": source})
        return value or 0.0

    await kit.advance(15.0)  # connected: its time runs out
    assert (count("timeout"), count("disconnected")) == (1.0, 0.0)
    await _leave(kit)
    for _ in range(10):
        if count("disconnected"):
            break
        await kit.advance(1.0)
    assert count("timeout") == 1.0 and count("disconnected") >= 1.0
    assert metrics.registry.get_sample_value("jantaku_timeouts_total") == 1.0 + count("disconnected")


async def _leave_on_purpose(kit: TableKit, seat: int = 0) -> None:
    kit.table.submit(Detach(kit.humans[seat], on_purpose=True))
    await kit.table.settle()


@pytest.mark.asyncio
async def test_a_seat_left_on_purpose_is_played_at_once_and_keeps_its_bank() -> None:
    """Leave table (issue 29): the table does not wait for the clock of a player who said they are
    gone; the moves are stored as ``left``, not ``disconnected``; back, the bank is whole."""
    kit = await make_table(timers=TIMERS.replace(bot_delay_ms=1000))
    await kit.advance(1.0)
    await _leave_on_purpose(kit)
    await kit.advance(0.0)
    assert await _seat0_steps(kit) == [(1, "left")]  # at once, not after 5 s + 10 s
    await _run(kit, 3.0)
    played = await _seat0_steps(kit)
    assert len(played) >= 2 and {source for _, source in played} == {"left"} <= SERVER_PLAYED_SOURCES
    again = await _return(kit)
    prompt = None
    for _ in range(10):
        await kit.advance(1.0)
        prompt = again.last_prompt()
        if prompt is not None:
            break
    assert prompt is not None and (prompt.deadline_ms, prompt.bank_ms) == (5000, 10000)
    await kit.advance(14.999)
    assert len(await _seat0_steps(kit)) == len(played)  # back: its own clock, bank included
    await kit.advance(0.001)
    assert (await _seat0_steps(kit))[len(played)][1] == "timeout"
