"""A table's writes to the store, and what it does when one fails.

Every store call of a table is awaited with a timeout on the table's clock (:meth:`Commits.call`).
A step is adopted only once stored (commit before broadcast). A step write that fails may still
have landed (the store took it and the reply was lost, or it was cancelled by the timeout after the
database committed): it is kept as :attr:`Commits.uncertain`, and before the table writes or answers
anything else it asks the store how many steps it holds (:meth:`Commits.reconcile`):

* as many as before the write: it did not land; the table goes on as if it had never been tried;
* one more: it landed; the table adopts it (the same engine step, so the same events);
* anything else: the log and the table disagree and the table stops (:class:`TableDivergedError`)
  rather than guess.

A decision the table makes itself (a bot, a timeout) whose write fails is retried after
``retry_s`` (:meth:`Commits.stall`); a player's act is answered ``busy_retry`` instead.

In cluster mode a refused fencing token (:class:`~server.domain.errors.FencedError`: another node
took the match over) is certain, not uncertain: it propagates and the table drops itself.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

from server.domain.errors import FencedError
from server.domain.ports import Repository
from server.domain.records import StepRecord
from server.engine.actions import Action
from server.hub.clock import Clock, with_deadline
from server.hub.inbox import CommitError, TableDivergedError
from server.hub.metrics import HubMetrics

T = TypeVar("T")


class Commits:
    """One table's store calls: timeouts, the uncertain write, the retry pause."""

    __slots__ = (
        "_clock",
        "_log",
        "_match_id",
        "_metrics",
        "_repo",
        "_retry_s",
        "_timeout_s",
        "stalled_until",
        "uncertain",
    )

    def __init__(
        self,
        match_id: str,
        repo: Repository,
        clock: Clock,
        *,
        timeout_s: float,
        retry_s: float,
        log: logging.LoggerAdapter[logging.Logger],
        metrics: HubMetrics | None = None,
    ) -> None:
        self._match_id = match_id
        self._repo = repo
        self._clock = clock
        self._timeout_s = timeout_s
        self._retry_s = retry_s
        self._log = log
        self._metrics = metrics
        self.uncertain: tuple[StepRecord, Action] | None = None  # a write whose outcome is unknown
        self.stalled_until: float | None = None  # a failed write of the table's own: retry then

    @property
    def repo(self) -> Repository:
        return self._repo

    async def call(self, awaitable: Coroutine[Any, Any, T]) -> T:
        """Await a store call, cancelling it after ``timeout_s`` on the table's clock."""
        when = self._clock.now() + self._timeout_s
        return await with_deadline(self._clock, awaitable, when, "the store")

    async def best_effort(self, awaitable: Coroutine[Any, Any, None], failure: str) -> None:
        """A write the table goes on without (the step log has what it says): a failure is logged
        (``failure``, the exception appended) and swallowed."""
        try:
            await self.call(awaitable)
        except asyncio.CancelledError:
            raise
        except Exception:
            self._log.exception("table %s: %s", self._match_id, failure)

    async def append(self, record: StepRecord, action: Action) -> None:
        """Store ``action``'s step; raises CommitError (then the write is :attr:`uncertain`)."""
        started = time.perf_counter()
        try:
            await self.call(self._repo.append_step(record))
        except (asyncio.CancelledError, FencedError):
            raise  # fenced: nothing was written, and this node must never write for the match again
        except Exception as exc:
            self.uncertain = (record, action)
            raise CommitError(f"storing step {record.step} failed: {type(exc).__name__}: {exc}") from exc
        if self._metrics is not None:
            self._metrics.observe_commit(time.perf_counter() - started)

    async def reconcile(self, expected: int) -> tuple[StepRecord, Action] | None:
        """Settle the :attr:`uncertain` write, whose step is ``expected``: returns it if it landed
        (adopt it), None if not. Raises CommitError when the store cannot be read (still
        uncertain), TableDivergedError when the log holds neither."""
        assert self.uncertain is not None
        record, action = self.uncertain
        try:
            count = await self.call(self._repo.step_count(self._match_id))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise CommitError(f"the store cannot be read: {type(exc).__name__}: {exc}") from exc
        self.uncertain = None
        if count == expected:
            return None  # it did not land
        if count != expected + 1 or record.seat is None:
            raise TableDivergedError(f"{self._match_id}: the log holds {count} steps, the table {expected}")
        self._log.warning("table %s: step %s was stored after all; adopting it", self._match_id, record.step)
        return record, action

    def stall(self, why: CommitError) -> None:
        """A write of the table's own decision failed: try again after ``retry_s``."""
        self._log.warning("table %s: %s; retrying in %s s", self._match_id, why, self._retry_s)
        self.stalled_until = self._clock.now() + self._retry_s

    def stalled(self, now: float) -> bool:
        """True while the retry pause lasts (the table decides nothing itself meanwhile)."""
        if self.stalled_until is None:
            return False
        if now < self.stalled_until:
            return True
        self.stalled_until = None
        return False
