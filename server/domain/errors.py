"""The errors of the persistence ports (:mod:`server.domain.ports`), shared by the hub, the store and
the web layer.

Exception tree::

    RepositoryError
    ├── NotFoundError        no such account / match
    ├── ConflictError        a duplicate name, id or step
    ├── UnavailableError     the store is stalled, down or overloaded: the outcome of the write is
    │                        unknown; retrying the same write is safe (the hub answers busy_retry)
    ├── FencedError          cluster mode: another node took the match over; this one must drop it
    └── (anything else the backend raises: the hub treats it as "the write may not have happened")
"""

from __future__ import annotations


class RepositoryError(Exception):
    """Root of the errors a repository raises on purpose."""


class NotFoundError(RepositoryError):
    pass


class ConflictError(RepositoryError):
    pass


class UnavailableError(RepositoryError):
    """The store could not confirm the write in time (stalled, failed or overloaded).

    The write may or may not have happened: retry the very same call (writes are idempotent). The
    table answers ``busy_retry`` and, before its next write, reads ``step_count`` to learn whether
    the write landed (then it adopts it)."""


class FencedError(RepositoryError):
    """Cluster mode: the match's fencing token moved (another node took it over, ``docs/scaling.md``).

    Nothing was written. The node that gets it no longer owns the match and must never write for it
    again: its table drops itself, and its players reconnect to the new owner."""

    def __init__(self, match_id: str, fence: int, current: int | None) -> None:
        super().__init__(
            f"match {match_id}: this node's fencing token {fence} is stale (the match's is {current}); "
            "another node owns it now"
        )
        self.match_id = match_id
        self.fence = fence
        self.current = current
