"""The store's errors, on top of the hub's repository errors (see :mod:`server.store`).

Tree::

    RepositoryError                      (server.domain.errors)
    ├── NotFoundError                    no such account / match
    ├── ConflictError                    a duplicate name, id or step
    │   └── StepConflictError            a different step is already stored at (match, step),
    │                                    or the step is not the next one
    ├── InvalidRecordError (ValueError)  the record cannot be stored (not JSON, too long, ...)
    └── UnavailableError                 the outcome of the write is unknown: retry it
        └── StoreUnavailableError             the database failed, stalled or the store is closed
            └── StoreBusyError                too many writes are waiting: refused at once, nothing written
    StoreConfigError (ValueError)        bad URL, SQLite pragmas not in effect, schema not migrated
"""

from __future__ import annotations

from server.domain.errors import ConflictError, RepositoryError, UnavailableError


class StepConflictError(ConflictError):
    """``append_step`` for a (match, step) that holds a different record, or that is not the next."""

    def __init__(self, match_id: str, step: int, reason: str) -> None:
        super().__init__(f"match {match_id}: step {step}: {reason}")
        self.match_id = match_id
        self.step = step


class InvalidRecordError(RepositoryError, ValueError):
    """The record cannot be stored as it is (a value that is not JSON, a string too long, ...);
    retrying will not help."""


class StoreUnavailableError(UnavailableError):
    """The database did not confirm the write: it failed, stalled past the timeout, or the store is
    closed. The write may have happened; the same call may be retried (writes are idempotent)."""


class StoreBusyError(StoreUnavailableError):
    """Too many writes are already waiting for the database: refused at once, nothing was written."""


class StoreConfigError(ValueError):
    """The store cannot be used as configured (the message says what to fix)."""
