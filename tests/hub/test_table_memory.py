"""A live table keeps only the hands it still needs in memory; the rest comes back from the store's
step log on a resume or a spectator's catch-up (issue 17 section 4, ``docs/hub.md`` "Catch-up").

Each test plays the same match on two tables: one forgets (the server's behaviour), the other keeps
every event (the full-history reference, as the table was before): what a resuming seat or a new
spectator is sent must be the same on both, with no gap and no duplicate after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from client_protocol.errors import ErrorCode
from server.domain.records import StepRecord
from server.engine import default_action, redact_all
from server.engine.actions import Pass
from server.engine.events import Event
from server.engine.rules import TENHOU
from server.hub.decisions import REMEMBERED_ANSWERS
from server.hub.inbox import ActRequest, Attach, Barrier, Detach
from server.hub.outputs import AckOut, CatchupOut, EventsOut, PromptOut
from server.hub.settings import SpectatePolicy, TableTimers
from server.store.memory import InMemoryRepository
from tests.hub.helpers import FakeParticipant, TableKit, make_table

# The human seat is gone and played at once; the bots think 1 s of the table's clock per turn.
TIMERS = TableTimers(action_ms=1000, bank_ms=0, bot_delay_ms=1000)
SPECTATE = SpectatePolicy(delay_steps=3, delay_s=5.0)


class GatedRepository(InMemoryRepository):
    """Reads of the step log wait for ``gate`` (a catch-up read racing with the table's play)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()
        self.reads = 0

    async def steps(self, match_id: str, after: int = -1, limit: int | None = None) -> Sequence[StepRecord]:
        self.reads += 1
        await self.gate.wait()
        return await super().steps(match_id, after, limit)


async def pair(repo: InMemoryRepository | None = None) -> tuple[TableKit, TableKit]:
    """The same match twice: ``forgetting`` (as served) and ``reference`` (keeps every event)."""
    forgetting = await make_table(ruleset=TENHOU, timers=TIMERS, spectate=SPECTATE, repo=repo, seed=b"memory")
    reference = await make_table(ruleset=TENHOU, timers=TIMERS, spectate=SPECTATE, seed=b"memory")
    reference.table._audience.pacing.keep_all = True
    for kit in (forgetting, reference):
        kit.table.submit(Detach(kit.humans[0]))
        await kit.table.settle()
    return forgetting, reference


def kept(kit: TableKit) -> int:
    return len(kit.table._audience.pacing.stream.events)


def hands(kit: TableKit) -> int:
    return kit.table._audience.pacing.stream.hands


async def play_until_hand(kits: Sequence[TableKit], hand: int, *, step_s: float = 5.0) -> list[int]:
    """Advance both tables' clocks together until the ``hand``-th hand is on; the events kept in
    memory by the first, sampled at every step."""
    samples = []
    while hands(kits[0]) < hand:
        assert not kits[0].table.finished, "the match ended first"
        for kit in kits:
            await kit.advance(step_s)
        samples.append(kept(kits[0]))
    return samples


async def barrier(kit: TableKit) -> None:
    """The table handled everything before (without waiting for catch-up reads, unlike settle)."""
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    kit.table.submit(Barrier(future))
    await future
    for _ in range(10):  # and the reads it started began
        await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_the_events_kept_in_memory_do_not_grow_with_the_match() -> None:
    forgetting, reference = await pair()
    samples = await play_until_hand([forgetting, reference], 6)
    everything = await forgetting.table.history()
    assert (
        everything == tuple(reference.table._audience.pacing.stream.events) == await reference.table.history()
    )
    assert forgetting.table._audience.pacing.stream.base > 0
    # At most the hand being played and the one before it (the spectators' delay), whatever the hand.
    longest_two_hands = 2 * max(samples)
    assert kept(forgetting) < len(everything) / 2
    assert max(samples[len(samples) // 2 :]) <= longest_two_hands
    assert max(samples) < len(everything) * 2 / 3


@pytest.mark.asyncio
async def test_a_resume_after_many_hands_gets_what_the_full_history_gives() -> None:
    forgetting, reference = await pair()
    await play_until_hand([forgetting, reference], 5)
    assert forgetting.table._audience.pacing.stream.base > 0
    for since in (0, 7, 350, forgetting.table.version - 2):
        seen = []
        for kit in (forgetting, reference):
            again = FakeParticipant(kit.humans[0].account)
            kit.table.submit(Attach(again, 0, since_version=since))
            await kit.table.settle()
            seen.append(again.items)
        assert seen[0] == seen[1]
        catchup = seen[0][0]
        assert isinstance(catchup, CatchupOut) and catchup.since_version == since
        full = await reference.table.history()
        assert catchup.events == redact_all(full[: reference.table.version], 0)
        prompted = any(isinstance(i, PromptOut) for i in seen[0])
        assert prompted == (0 in reference.table._decisions.prompts)


@pytest.mark.asyncio
async def test_a_spectator_joining_after_many_hands_gets_what_the_full_history_gives() -> None:
    forgetting, reference = await pair()
    await play_until_hand([forgetting, reference], 5)
    watchers = []
    for kit in (forgetting, reference):
        watcher = FakeParticipant()
        kit.table.submit(Attach(watcher, None, announce=True))
        await kit.table.settle()
        watchers.append(watcher)
    assert watchers[0].items == watchers[1].items
    await play_until_hand([forgetting, reference], 7)
    assert watchers[0].items == watchers[1].items
    versions = watchers[0].versions()
    assert versions == list(range(1, len(versions) + 1))  # no gap, no duplicate
    full = await forgetting.table.history()
    shown: list[Event] = []
    for item in watchers[0].items:
        if isinstance(item, (CatchupOut, EventsOut)):
            shown.extend(item.events)
    assert tuple(shown) == redact_all(full[: len(shown)], None)


@pytest.mark.asyncio
async def test_a_resume_racing_with_new_events_has_no_gap_and_no_duplicate() -> None:
    repo = GatedRepository()
    forgetting, reference = await pair(repo)
    await play_until_hand([forgetting, reference], 4)
    repo.gate.clear()  # the catch-up's read waits while the table plays on
    again = FakeParticipant(forgetting.humans[0].account)
    forgetting.table.submit(Attach(again, 0, since_version=0))
    await barrier(forgetting)
    assert repo.reads >= 1 and not again.items
    before = forgetting.table.version
    for _ in range(40):  # past a hand's end: the table forgets more meanwhile
        forgetting.clock.advance(5.0)
        await barrier(forgetting)
    assert forgetting.table.version > before
    repo.gate.set()
    await forgetting.table.settle()
    versions = again.versions()
    assert versions == list(range(1, len(versions) + 1))
    assert versions[-1] == forgetting.table.version
    full = await forgetting.table.history()
    shown: list[Event] = []
    for item in again.items:
        if isinstance(item, (CatchupOut, EventsOut)):
            shown.extend(item.events)
    assert tuple(shown) == redact_all(full[: len(shown)], 0)


@pytest.mark.asyncio
async def test_a_catchup_read_overtaken_by_a_leave_sends_nothing() -> None:
    repo = GatedRepository()
    forgetting, reference = await pair(repo)
    await play_until_hand([forgetting, reference], 3)
    repo.gate.clear()
    again = FakeParticipant(forgetting.humans[0].account)
    forgetting.table.submit(Attach(again, 0, since_version=0))
    await barrier(forgetting)
    forgetting.table.submit(Detach(again, notify=True))
    await barrier(forgetting)
    repo.gate.set()
    await forgetting.table.settle()
    assert again.items == [] and again.following is None


@pytest.mark.asyncio
async def test_a_seat_s_last_answers_are_remembered_and_an_older_one_is_never_applied_again() -> None:
    kit = await make_table(ruleset=TENHOU, seed=b"answers")
    p = kit.humans[0]
    steps = {}
    for rid in range(1, REMEMBERED_ANSWERS + 20):
        prompt = p.last_prompt()
        assert prompt is not None and kit.table.state is not None and not kit.table.finished
        steps[rid] = prompt.step
        await kit.act(0, default_action(kit.table.state, 0), request_id=rid)
        assert p.acks()[-1].request_id == rid
    assert len(kit.table._decisions._answered[0]) == REMEMBERED_ANSWERS
    last = REMEMBERED_ANSWERS + 19
    version = kit.table.version
    p.clear()
    await kit.act(0, Pass(), step=steps[last], request_id=last)  # a retry of the last one: its ack
    assert p.acks() == [AckOut(last, steps[last], True)]
    p.clear()
    await kit.act(0, Pass(), step=steps[1], request_id=1)  # forgotten: refused, nothing applied
    assert [e.code for e in p.errors()] == [ErrorCode.STALE_STEP] and kit.table.version == version


@pytest.mark.asyncio
async def test_an_act_right_behind_a_resume_waits_for_its_catch_up_read() -> None:
    """docs/protocol.md#re-sending-after-a-reconnection: an act sent right after a resume is taken
    after it, also when the catch-up must first be read from the store: a re-sent applied act gets
    its duplicate ack, not a "holds no seat" refusal."""
    repo = GatedRepository()
    kit = await make_table(ruleset=TENHOU, timers=TIMERS, spectate=SPECTATE, repo=repo, seed=b"memory")
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None and kit.table.state is not None
    action = default_action(kit.table.state, 0)
    await kit.act(0, action, request_id=1)
    assert p.acks() == [AckOut(1, prompt.step, False)]
    kit.table.submit(Detach(p))
    await play_until_hand([kit], 3)
    assert kit.table._audience.pacing.stream.base > 0
    repo.gate.clear()  # the catch-up's read waits
    again = FakeParticipant(p.account)
    kit.table.submit(Attach(again, 0, since_version=0))
    kit.table.submit(ActRequest(again, 1, prompt.step, action))
    await barrier(kit)
    assert again.items == []  # neither the catch-up nor an answer to the act yet
    repo.gate.set()
    await kit.table.settle()
    assert again.errors() == [] and again.acks() == [AckOut(1, prompt.step, True)]
    assert isinstance(again.items[0], CatchupOut)
