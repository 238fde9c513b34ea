"""After a restart, time lost while the server was down is charged to nobody (issue 12): each step
stores the seats' banks; a recovered table restarts the pending decision with the full action time
and the stored bank, and plays nothing for a seat (connected or not) while that time lasts."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Sequence

import pytest
import pytest_asyncio

from server.domain.records import StepRecord
from server.hub.inbox import ActRequest, Detach
from server.hub.outputs import PromptOut
from server.hub.seating import left_seats
from server.store.memory import InMemoryRepository
from tests.hub.helpers import FakeParticipant
from tests.hub.test_recovery import BOT_DELAY_MS, Lobbies, Player


@pytest_asyncio.fixture
async def lobbies() -> AsyncIterator[Lobbies]:
    made = Lobbies()
    yield made
    for lobby in made.made:
        await lobby.shutdown()


@pytest.mark.asyncio
async def test_a_restart_plays_nothing_while_the_seats_time_lasts(lobbies: Lobbies) -> None:
    repo = InMemoryRepository()
    lobby, clock, alice, table = await lobbies.start(repo)
    seat = table.seat_of_account(alice.p.account.id)
    assert seat is not None
    # Alice thinks 8 s over her first decision: 3 s of her 10 s bank are spent.
    while alice.pending() is None:
        clock.advance(BOT_DELAY_MS / 1000)
        await table.settle()
    prompt = alice.pending()
    assert prompt is not None
    clock.advance(8.0)
    action = sorted(prompt.legal, key=repr)[0]
    table.submit(ActRequest(alice.p, 1, prompt.step, action))
    await table.settle()
    steps = await repo.steps(table.match_id)
    mine = [s for s in steps if s.seat == seat and s.source == "player"]
    assert mine and mine[-1].banks is not None and mine[-1].banks[seat] == 7000
    assert steps[0].banks == (10000, 10000, 10000, 10000)  # the deal: every bank full
    # Her next decision comes; the server goes down before she answers it.
    for _ in range(100):
        pending = alice.pending()
        if pending is not None and pending.step > prompt.step:
            break
        clock.advance(BOT_DELAY_MS / 1000)
        await table.settle()
    else:
        raise AssertionError("no second decision")
    await lobby.shutdown()
    count = await repo.step_count(table.match_id)

    lobby, clock = lobbies.make(repo)  # ... and comes back much later: a fresh clock
    assert (await lobby.recover()).resumed == [table.match_id]
    table = lobby.tables[table.match_id]
    clock.advance(11.5)  # within 5 s of action time + her 7 s of bank, from the restart
    await table.settle()
    assert await repo.step_count(table.match_id) == count  # nothing played while her time lasts
    back = FakeParticipant(alice.p.account)
    await lobby.resume(back, table.match_id, 0, 2)
    await table.settle()
    resumed = back.of(PromptOut)[-1]
    assert resumed.step == pending.step and (resumed.deadline_ms, resumed.bank_ms) == (0, 500)


@pytest.mark.asyncio
async def test_a_restart_charges_an_absent_seat_nothing_either(lobbies: Lobbies) -> None:
    repo = InMemoryRepository()
    lobby, clock, alice, table = await lobbies.start(repo)
    seat = table.seat_of_account(alice.p.account.id)
    while alice.pending() is None:
        clock.advance(BOT_DELAY_MS / 1000)
        await table.settle()
    await lobby.shutdown()  # the server dies on her turn; she is not back when it restarts
    count = await repo.step_count(table.match_id)
    lobby, clock = lobbies.make(repo)
    await lobby.recover()
    table = lobby.tables[table.match_id]
    clock.advance(14.999)
    await table.settle()
    assert await repo.step_count(table.match_id) == count
    clock.advance(0.001)
    await table.settle()
    played = [s for s in (await repo.steps(table.match_id))[count:] if s.seat == seat]
    assert played and played[0].source == "disconnected"
    player = Player(FakeParticipant(alice.p.account), random.Random(1))
    await lobby.resume(player.p, table.match_id, 0, 1)
    await table.settle()


@pytest.mark.asyncio
async def test_a_seat_left_on_purpose_is_still_left_after_a_restart(lobbies: Lobbies) -> None:
    """Leave table, then the server restarts: the seat is played at once, as ``left`` (not waited for
    as a disconnection, 5 s + its bank), and its bank is kept for when its player is back."""
    repo = InMemoryRepository()
    lobby, clock, alice, table = await lobbies.start(repo)
    seat = table.seat_of_account(alice.p.account.id)
    assert seat is not None
    table.submit(Detach(alice.p, on_purpose=True))
    await table.settle()

    def hers(steps: Sequence[StepRecord]) -> list[str | None]:
        return [s.source for s in steps if s.seat == seat]

    for _ in range(100):  # the bots play; each of her decisions is played at once
        if hers(await repo.steps(table.match_id)):
            break
        clock.advance(BOT_DELAY_MS / 1000)
        await table.settle()
    assert set(hers(await repo.steps(table.match_id))) == {"left"}
    await lobby.shutdown()
    count = await repo.step_count(table.match_id)

    lobby, clock = lobbies.make(repo)
    assert (await lobby.recover()).resumed == [table.match_id]
    table = lobby.tables[table.match_id]
    await table.settle()
    for _ in range(40):  # bots' moves only: her own clock (5 s) never runs out in between
        if hers((await repo.steps(table.match_id))[count:]):
            break
        clock.advance(BOT_DELAY_MS / 1000)
        await table.settle()
    later = (await repo.steps(table.match_id))[count:]
    assert hers(later) and set(hers(later)) == {"left"}  # not "disconnected"
    mine = next(s for s in later if s.seat == seat)
    before = [s for s in later if s.step < mine.step and s.seat is not None]
    assert all(s.seat != seat for s in before) and len(before) <= 3  # no clock of hers ran out first
    assert mine.banks is not None and mine.banks[seat] == 10000  # her bank is kept


def test_only_a_seat_whose_last_stored_step_says_left_is_left() -> None:
    def step(n: int, seat: int | None, source: str | None) -> StepRecord:
        return StepRecord("m", n, seat, None, (), source=source)

    log = [step(0, None, None), step(1, 0, "left"), step(2, 1, "left"), step(3, 1, "player")]
    log += [step(4, 2, "left"), step(5, 2, "timeout"), step(6, 3, "disconnected"), step(7, 0, "left")]
    assert left_seats(log) == {0}  # 1 came back and acted, 2 came back and timed out
    assert left_seats([]) == frozenset()
