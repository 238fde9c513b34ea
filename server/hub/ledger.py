"""What one table stores, in the order its actor asks: the match and its deal, each step, the
result, the match's final status.

The records are :mod:`server.hub.steplog`'s; every call goes through the table's
:class:`~server.hub.commits.Commits` (the timeout on the table's clock, the write whose outcome is
unknown, the retry pause). A step is stored with the banks as they are once the deciding seat's
time is charged (what crash recovery restarts the clocks with), and its events are rendered once,
for the log and for the seats (:data:`~server.hub.steplog.Rendered`). The result and the status are
written on a best-effort basis: the step log has what they say.
"""

from __future__ import annotations

from collections.abc import Callable

from server.domain.records import MatchStatus, RecoveryRecord, ResultRecord
from server.engine import Transition
from server.engine.actions import Action
from server.engine.events import MatchEnded
from server.hub.commits import Commits
from server.hub.outputs import ResultOut
from server.hub.steplog import (
    Rendered,
    deal_record,
    match_record,
    render_events,
    step_record,
)
from server.hub.tablesetup import TableSetup
from server.hub.timing import OpenPrompt, TimeKeeper


class Ledger:
    """One table's writes: what is stored, and when (the module docstring)."""

    __slots__ = ("_setup", "_time", "_wall_clock", "commits")

    def __init__(
        self, setup: TableSetup, commits: Commits, time: TimeKeeper, wall_clock: Callable[[], float]
    ) -> None:
        self._setup = setup
        self.commits = commits
        self._time = time  # the seats' banks, stored with every step
        self._wall_clock = wall_clock  # what is stored is wall-clock time

    async def open(self, t: Transition) -> None:
        """Store the match and its deal ``t``: the seed is stored (secret until the end) so that a
        restarted server can replay the match; a match dealt from injected walls (tests) cannot be
        replayed from its seed, so it gets no recovery record. Raises when the store refuses."""
        setup, commits = self._setup, self.commits
        match = match_record(
            setup.match_id,
            setup.ruleset,
            setup.seed,
            setup.seats,
            created_at=self._wall_clock(),
            source=setup.source,
        )
        settings = setup.stored_settings()
        recovery = (
            None if setup.walls is not None else RecoveryRecord(setup.match_id, setup.seed.hex(), settings)
        )
        await commits.call(commits.repo.create_match(match, recovery))
        await self.deal(t)

    async def deal(self, t: Transition) -> None:
        """Store step 0, the deal ``t``, with every seat's full bank."""
        banks = self._time.stored_banks(None, None, 0.0)
        record = deal_record(self._setup.match_id, t, applied_at=self._wall_clock(), banks=banks)
        await self.commits.call(self.commits.repo.append_step(record))

    async def step(
        self,
        t: Transition,
        seat: int,
        action: Action,
        *,
        request_id: int | None,
        source: str,
        prompt: OpenPrompt | None,
        now: float,
    ) -> Rendered:
        """Store ``seat``'s ``action`` and the step ``t`` it made (``source``: who decided), with the
        banks once the seat's time on ``prompt`` is charged at ``now``; returns the events as
        rendered for the log (the seats receive the same). Raises CommitError: nothing is stored,
        or the write is uncertain (:attr:`Commits.uncertain`)."""
        rendered = render_events(t.events)
        record = step_record(
            self._setup.match_id,
            t,
            seat=seat,
            action=action,
            request_id=request_id,
            applied_at=self._wall_clock(),
            source=source,
            banks=self._time.stored_banks(seat, prompt, now),
            rendered=rendered,
        )
        await self.commits.append(record, action)
        return rendered

    async def result(self, last: MatchEnded) -> ResultOut:
        """Store the completed match's result (best effort); returns it as the seats are told it."""
        record = ResultRecord(self._setup.match_id, last.scores, last.ranks, last.final_points)
        commits = self.commits
        await commits.best_effort(
            commits.repo.record_result(record), "storing the result failed (the step log has it)"
        )
        return ResultOut(scores=last.scores, ranks=last.ranks, final_points=last.final_points)

    async def close(self, status: MatchStatus, seed_hex: str | None, why: str | None) -> None:
        """Store the match's final status (best effort): before ``match_end`` goes out, so a client
        that saw the end finds the match over in the store (if this write fails, a restart finishes
        a completed match again from its log)."""
        commits = self.commits
        await commits.best_effort(
            commits.repo.finish_match(self._setup.match_id, status, self._wall_clock(), seed_hex, why),
            "storing the match status failed",
        )
