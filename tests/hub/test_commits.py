"""A table's store calls on the manual clock: timeouts, the uncertain write and its reconciliation."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import pytest

from server.domain.records import AccountKind, StepRecord
from server.engine import apply, legal_actions, new_match
from server.engine.actions import Action
from server.hub.clock import ManualClock
from server.hub.commits import Commits
from server.hub.inbox import CommitError, SeatSpec, TableDivergedError
from server.hub.steplog import match_record, step_record
from tests.hub.helpers import EAST, FlakyRepository

LOG = logging.LoggerAdapter(logging.getLogger("tests.commits"), {"match_id": "m"})


class Repository(FlakyRepository):
    """``unreadable``: counting the steps fails."""

    unreadable = False

    async def step_count(self, match_id: str) -> int:
        if self.unreadable:
            raise ConnectionError("the database went away")
        return await super().step_count(match_id)


@dataclass
class Kit:
    commits: Commits
    repo: Repository
    clock: ManualClock
    action: Action  # the dealer's first action
    record: StepRecord  # its step (1), request id 9


async def kit() -> Kit:
    """A store holding the deal of match ``m``."""
    repo, clock = Repository(), ManualClock()
    commits = Commits("m", repo, clock, timeout_s=5.0, retry_s=1.0, log=LOG)
    t = new_match(EAST, b"commits")
    seats = [SeatSpec(name=f"bot{i}", kind=AccountKind.BOT, bot="tsumogiri") for i in range(4)]
    await repo.create_match(match_record("m", EAST, b"commits", seats, created_at=0.0, source="test"))
    await repo.append_step(step_record("m", t, seat=None, action=None, request_id=None, applied_at=0.0))
    action = sorted(legal_actions(t.state, 0), key=repr)[0]
    after = apply(t.state, 0, action)
    record = step_record("m", after, seat=0, action=action, request_id=9, applied_at=1.0)
    return Kit(commits, repo, clock, action, record)


@pytest.mark.asyncio
async def test_a_store_call_times_out_on_the_tables_clock() -> None:
    k = await kit()
    k.repo.stall = True
    writing = asyncio.create_task(k.commits.append(k.record, k.action))
    await k.repo.stalled.wait()
    k.clock.advance(4.999)
    assert not writing.done()
    k.clock.advance(0.001)
    with pytest.raises(CommitError, match="storing step 1 failed: TimeoutError"):
        await writing
    assert k.commits.uncertain == (k.record, k.action)


@pytest.mark.asyncio
async def test_a_write_that_did_not_land_is_forgotten() -> None:
    k = await kit()
    k.repo.fail_next = True
    with pytest.raises(CommitError):
        await k.commits.append(k.record, k.action)
    assert await k.commits.reconcile(expected=1) is None
    assert k.commits.uncertain is None
    await k.commits.append(k.record, k.action)  # the table may write it again
    assert await k.repo.step_count("m") == 2


@pytest.mark.asyncio
async def test_a_write_that_landed_is_handed_back_to_be_adopted(caplog: pytest.LogCaptureFixture) -> None:
    k = await kit()
    k.repo.land_then_fail = True
    with pytest.raises(CommitError):
        await k.commits.append(k.record, k.action)
    with caplog.at_level(logging.WARNING, logger="tests.commits"):
        assert await k.commits.reconcile(expected=1) == (k.record, k.action)
    assert "step 1 was stored after all" in caplog.text
    assert k.commits.uncertain is None


@pytest.mark.asyncio
async def test_an_unreadable_store_keeps_the_write_uncertain_and_a_strange_log_diverges() -> None:
    k = await kit()
    k.repo.fail_next = True
    with pytest.raises(CommitError):
        await k.commits.append(k.record, k.action)
    k.repo.unreadable = True
    with pytest.raises(CommitError, match="the store cannot be read: ConnectionError"):
        await k.commits.reconcile(expected=1)
    k.repo.unreadable = False
    assert k.commits.uncertain == (k.record, k.action)
    with pytest.raises(TableDivergedError, match="the log holds 1 steps, the table 3"):
        await k.commits.reconcile(expected=3)


def test_a_failed_write_of_the_tables_own_stalls_it_for_the_retry_pause() -> None:
    clock = ManualClock(10.0)
    commits = Commits("m", FlakyRepository(), clock, timeout_s=5.0, retry_s=1.0, log=LOG)
    assert not commits.stalled(clock.now())
    commits.stall(CommitError("storing step 4 failed"))
    assert commits.stalled_until == 11.0 and commits.stalled(clock.now())
    clock.advance(0.999)
    assert commits.stalled(clock.now())
    clock.advance(0.001)
    assert not commits.stalled(clock.now()) and commits.stalled_until is None


@pytest.mark.asyncio
async def test_a_best_effort_write_logs_its_failure_and_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    k = await kit()

    async def broken() -> None:
        raise ConnectionError("the database went away")

    with caplog.at_level(logging.ERROR, logger="tests.commits"):
        await k.commits.best_effort(broken(), "storing the result failed")
    assert "table m: storing the result failed" in caplog.text and "went away" in caplog.text
