"""Cluster mode: a table whose append is refused by the fencing token (another node took the match
over) drops itself at once: nothing is adopted, nothing more is written (the match is NOT aborted:
the new owner plays it), and its seats are told to resume (``docs/scaling.md``)."""

from __future__ import annotations

import pytest

from client_protocol.errors import ErrorCode
from server.domain.errors import FencedError
from server.domain.records import MatchStatus, StepRecord
from server.engine.actions import Discard
from server.hub.inbox import ActRequest
from server.store.memory import InMemoryRepository
from tests.hub.helpers import make_table


class TakenOver(InMemoryRepository):
    """Refuses every append once ``taken`` is set, as the SQL store does for a stale owner."""

    def __init__(self) -> None:
        super().__init__()
        self.taken = False

    async def append_step(self, step: StepRecord) -> None:
        if self.taken:
            raise FencedError(step.match_id, 1, 2)
        await super().append_step(step)


@pytest.mark.asyncio
async def test_a_fenced_table_drops_itself_without_ending_the_match() -> None:
    repo = TakenOver()
    kit = await make_table(repo=repo)
    p = kit.humans[0]
    prompt = p.last_prompt()
    assert prompt is not None and p.following == ("m-test", 0)
    state = kit.table.state
    repo.taken = True
    discard = next(a for a in prompt.legal if isinstance(a, Discard))
    kit.table.submit(ActRequest(p, 1, prompt.step, discard))
    await kit.table.settle()  # the barrier is resolved when the actor stops
    assert not kit.table.running and kit.table.state is state
    assert [e.code for e in p.errors()] == [ErrorCode.BUSY_RETRY]
    assert "moved to another server node" in p.errors()[0].message
    assert p.following is None and not p.acks()
    stored = await repo.get_match("m-test")
    assert stored is not None and stored.status is MatchStatus.RUNNING  # the new owner's to end
    assert await repo.step_count("m-test") == 1
