"""The in-memory store: :class:`~server.domain.ports.Repository` and
:class:`~server.domain.ports.ReadModel` (tests, ``--database-url memory:``).

Everything lives in memory and is lost when the process exits; ``jantaku serve`` uses the SQL store
(:mod:`server.store.repository`) otherwise. Both answer every read alike (``tests/store`` and the
admin API's tests run on both). The per-hand results are projected from the log when they are
read, not as steps are appended: appending stays as cheap as it can be (the hub's benchmark runs on
this store). Before the SQL store, player and bot accounts were kept in a JSON file
(``DATA_DIR/accounts.json``, token hashes only); :class:`AccountFile` still reads it, so that
``jantaku serve`` / ``jantaku admin`` import such a file into the database once
(:func:`server.app.compose.import_accounts_file`), and ``accounts_path`` still keeps an in-memory
repository's players and bots in one (shared by processes, re-read when it changed).
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import msgspec

from server.domain.errors import ConflictError, NotFoundError
from server.domain.reads import (
    AuditEntry,
    HandResult,
    Lineup,
    MatchListing,
    MatchPage,
    MatchQuery,
    StatusFilter,
    is_bot,
)
from server.domain.records import (
    Account,
    AccountKind,
    MatchRecord,
    MatchStatus,
    RecoveryRecord,
    ResultRecord,
    Scope,
    SessionRecord,
    StepRecord,
    paused_settings,
)
from server.store.memory_moderation import MemoryModeration
from server.store.memory_ratings import MemoryRatings
from server.store.memory_social import MemorySocial
from server.store.projection import HandEnd, HandOp, HandStart, hand_result, replay_ops
from server.store.types import from_unix

ACCOUNTS_FILE_VERSION = 1


class AccountFile:
    """Player and bot accounts in one JSON document (token hashes only, never tokens)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None

    def changed(self) -> bool:
        return self._current_stamp() != self._stamp

    def _current_stamp(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def load(self) -> list[Account]:
        stamp = self._current_stamp()
        if stamp is None:
            self._stamp = None
            return []
        data = json.loads(self.path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("version") != ACCOUNTS_FILE_VERSION:
            raise ValueError(f"{self.path}: not a version {ACCOUNTS_FILE_VERSION} accounts file")
        self._stamp = stamp
        return [_account_from_json(item) for item in data["accounts"]]

    def save(self, accounts: Sequence[Account]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        doc = {"version": ACCOUNTS_FILE_VERSION, "accounts": [_account_to_json(a) for a in accounts]}
        fd, tmp = tempfile.mkstemp(prefix=".accounts-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=2, sort_keys=True)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._stamp = self._current_stamp()


def _account_to_json(a: Account) -> dict[str, Any]:
    return {
        "id": a.id,
        "name": a.name,
        "kind": a.kind.value,
        "scopes": sorted(s.value for s in a.scopes),
        "created_at": a.created_at,
        "token_hash": a.token_hash,
        "revoked_at": a.revoked_at,
    }


def _account_from_json(item: dict[str, Any]) -> Account:
    return Account(
        id=str(item["id"]),
        name=str(item["name"]),
        kind=AccountKind(item["kind"]),
        scopes=frozenset(Scope(s) for s in item["scopes"]),
        created_at=float(item["created_at"]),
        token_hash=item.get("token_hash"),
        revoked_at=item.get("revoked_at"),
    )


_encode_json = msgspec.json.Encoder().encode
_decode_json = msgspec.json.Decoder().decode


class _StoredStep:
    """One stored step: its fields, and its JSON (``[action, events]``) encoded.

    Encoded once when appended (msgspec, a few microseconds, where a copy through the standard
    ``json`` module cost several times that; the hub's benchmark runs on this store), and decoded
    when read, so that readers get what a database gives back (JSON values: tuples become lists,
    keys strings), and a value the caller changes later changes nothing stored."""

    __slots__ = ("fields", "payload")

    def __init__(self, step: StepRecord) -> None:
        # (match_id, step, seat, request_id, applied_at, source, format_version, banks)
        self.fields = (
            step.match_id,
            step.step,
            step.seat,
            step.request_id,
            step.applied_at,
            step.source,
            step.format_version,
            None if step.banks is None else tuple(step.banks),
        )
        self.payload = _encode_json((step.action, step.events))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _StoredStep) and (self.fields, self.payload) == (other.fields, other.payload)

    __hash__ = None  # type: ignore[assignment]

    def record(self) -> StepRecord:
        match_id, step, seat, request_id, applied_at, source, format_version, banks = self.fields
        action, events = _decode_json(self.payload)
        return StepRecord(
            match_id=match_id,
            step=step,
            seat=seat,
            action=action,
            events=tuple(events),
            request_id=request_id,
            applied_at=applied_at,
            source=source,
            format_version=format_version,
            banks=banks,
        )


class InMemoryRepository(MemoryRatings, MemorySocial, MemoryModeration):
    """Implements :class:`~server.domain.ports.Store`, both sides (checked by the tests)."""

    def __init__(self, accounts_path: Path | None = None) -> None:
        self._file = AccountFile(accounts_path) if accounts_path is not None else None
        self._accounts: dict[str, Account] = {}
        self._sessions: dict[str, SessionRecord] = {}
        self._matches: dict[str, MatchRecord] = {}
        self._steps: dict[str, list[_StoredStep]] = {}
        self._results: dict[str, ResultRecord] = {}
        self._recovery: dict[str, RecoveryRecord] = {}
        self._audit: list[AuditEntry] = []
        self._init_ratings()
        self._init_social()
        self._init_moderation()
        self._fences: dict[str, int] = {}
        self._refresh()

    async def close(self) -> None:
        """Nothing to release (the SQL store's counterpart commits and disconnects)."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    # -- accounts ------------------------------------------------------------------------------------

    def _refresh(self) -> None:
        """Re-read the accounts file if another process changed it (players and bots only)."""
        if self._file is None or not self._file.changed():
            return
        guests = {k: a for k, a in self._accounts.items() if a.kind is AccountKind.GUEST}
        self._accounts = guests | {a.id: a for a in self._file.load()}

    def _persist(self) -> None:
        if self._file is not None:
            self._file.save([a for a in self._accounts.values() if a.kind is not AccountKind.GUEST])

    async def create_account(self, account: Account) -> None:
        self._refresh()
        if account.id in self._accounts:
            raise ConflictError(f"account id {account.id!r} exists")
        if account.kind is not AccountKind.GUEST and any(
            a.name == account.name and a.kind is not AccountKind.GUEST for a in self._accounts.values()
        ):
            raise ConflictError(f"an account named {account.name!r} exists")
        self._accounts[account.id] = account
        if account.kind is not AccountKind.GUEST:
            self._persist()

    async def account_by_id(self, account_id: str) -> Account | None:
        self._refresh()
        return self._accounts.get(account_id)

    async def account_by_name(self, name: str) -> Account | None:
        self._refresh()
        for a in self._accounts.values():
            if a.name == name and a.kind is not AccountKind.GUEST:
                return a
        return None

    async def list_accounts(self) -> Sequence[Account]:
        self._refresh()
        return sorted(
            (a for a in self._accounts.values() if a.kind is not AccountKind.GUEST), key=lambda a: a.name
        )

    async def revoke_account(self, account_id: str, at: float) -> Account:
        self._refresh()
        account = self._accounts.get(account_id)
        if account is None:
            raise NotFoundError(f"no account {account_id!r}")
        if account.revoked_at is None:
            account = replace(account, revoked_at=at)
            self._accounts[account_id] = account
            self._sessions = {k: s for k, s in self._sessions.items() if s.account_id != account_id}
            if account.kind is not AccountKind.GUEST:
                self._persist()
        return account

    # -- sessions ------------------------------------------------------------------------------------

    async def create_session(self, session: SessionRecord) -> None:
        if session.id in self._sessions:
            raise ConflictError(f"session {session.id!r} exists")
        self._sessions[session.id] = session

    async def session_by_id(self, session_id: str) -> SessionRecord | None:
        return self._sessions.get(session_id)

    async def delete_expired_sessions(self, now: float) -> int:
        expired = [k for k, s in self._sessions.items() if s.expires_at <= now]
        for k in expired:
            del self._sessions[k]
        return len(expired)

    # -- matches -------------------------------------------------------------------------------------

    async def create_match(self, match: MatchRecord, recovery: RecoveryRecord | None = None) -> None:
        if match.id in self._matches:
            raise ConflictError(f"match {match.id!r} exists")
        if recovery is not None and recovery.match_id != match.id:
            raise ValueError(f"the recovery record of {recovery.match_id!r} given for {match.id!r}")
        self._matches[match.id] = match
        self._steps[match.id] = []
        if recovery is not None:
            self._recovery[match.id] = replace(recovery, table=json.loads(json.dumps(recovery.table)))

    async def get_match(self, match_id: str) -> MatchRecord | None:
        return self._matches.get(match_id)

    async def finish_match(
        self,
        match_id: str,
        status: MatchStatus,
        ended_at: float,
        seed_hex: str | None,
        reason: str | None = None,
    ) -> None:
        match = self._matches.get(match_id)
        if match is None:
            raise NotFoundError(f"no match {match_id!r}")
        if status is MatchStatus.RUNNING and seed_hex is not None:
            raise ValueError("the seed of a running match stays secret")
        self._matches[match_id] = replace(
            match, status=status, ended_at=ended_at, seed_hex=seed_hex, status_reason=reason
        )

    async def unfinished_matches(self) -> Sequence[MatchRecord]:
        running = (m for m in self._matches.values() if m.status is MatchStatus.RUNNING)
        return sorted(running, key=lambda m: (m.created_at, m.id))

    async def unfinished_match_ids(self) -> Sequence[str]:
        return [m.id for m in await self.unfinished_matches()]

    async def unfinished_matches_of(self, account_id: str) -> Sequence[str]:
        mine = await self.unfinished_matches()
        return [m.id for m in mine if any(s.account_id == account_id for s in m.seats)]

    async def recovery_record(self, match_id: str) -> RecoveryRecord | None:
        return self._recovery.get(match_id)

    async def set_paused(self, match_id: str, reason: str | None) -> None:
        record = self._recovery.get(match_id)
        if record is not None:
            table = paused_settings(record.table, reason)
            self._recovery[match_id] = dataclasses.replace(record, table=table)

    async def append_step(self, step: StepRecord) -> None:
        log = self._steps.get(step.match_id)
        if log is None:
            raise NotFoundError(f"no match {step.match_id!r}")
        stored = _StoredStep(step)
        if step.step < len(log) and log[step.step] == stored:
            return  # the same write again (a retry after an uncertain outcome)
        if step.step != len(log):
            raise ConflictError(f"match {step.match_id}: step {step.step} but the log expects {len(log)}")
        log.append(stored)

    def overwrite_step(self, step: StepRecord) -> None:
        """Tests: put ``step`` in place of the stored step of the same number (a tampered log)."""
        self._steps[step.match_id][step.step] = _StoredStep(step)

    async def steps(self, match_id: str, after: int = -1, limit: int | None = None) -> Sequence[StepRecord]:
        stop = None if limit is None else after + 1 + limit
        return tuple(s.record() for s in self._steps.get(match_id, ())[after + 1 : stop])

    async def step_count(self, match_id: str) -> int:
        return len(self._steps.get(match_id, ()))

    async def record_result(self, result: ResultRecord) -> None:
        await self.record_result_and_rating(result, None)  # rated by server.services.ratings

    async def get_result(self, match_id: str) -> ResultRecord | None:
        return self._results.get(match_id)

    async def acquire_match(self, match_id: str) -> int:
        """Bump the match's fencing token. One process holds this store, so no other owner can
        exist to be fenced off (cluster mode refuses ``memory:``); the token is kept for the port."""
        if match_id not in self._matches:
            raise NotFoundError(f"no match {match_id!r}")
        self._fences[match_id] = self._fences.get(match_id, 0) + 1
        return self._fences[match_id]

    # -- the read side -------------------------------------------------------------------------------

    @property
    def unavailable_errors(self) -> tuple[type[Exception], ...]:
        return ()  # memory does not go down

    async def find_matches(self, query: MatchQuery) -> MatchPage:
        # The order of the SQL store: newest first, at the microsecond it keeps, then by id.
        selected = sorted(
            (m for m in self._matches.values() if _selects(query, m)),
            key=lambda m: (from_unix(m.created_at), m.id),
            reverse=True,
        )
        page = selected[query.offset : query.offset + query.limit] if query.limit > 0 else []
        listings = tuple(MatchListing(m, self._results.get(m.id)) for m in page)
        return MatchPage(listings, len(selected))

    async def hand_results(self, match_id: str) -> Sequence[HandResult]:
        steps = [s.record() for s in self._steps.get(match_id, ())]
        log = [(s.step, s.events, s.format_version) for s in steps]
        rows = _project(replay_ops(match_id, log))
        return [hand_result(rows[i]) for i in sorted(rows)]

    async def record_audit(self, entry: AuditEntry) -> int:
        detail = json.loads(json.dumps(entry.detail if entry.detail is not None else {}))
        entry = replace(entry, id=len(self._audit) + 1, detail=detail)
        self._audit.append(entry)
        assert entry.id is not None
        return entry.id

    async def audit_entries(
        self, *, match_id: str | None = None, actor_id: str | None = None, limit: int = 100
    ) -> Sequence[AuditEntry]:
        found = [
            e
            for e in reversed(self._audit)
            if (match_id is None or e.match_id == match_id) and (actor_id is None or e.actor_id == actor_id)
        ]
        return found[: max(0, limit)]


def _ruleset_selects(text: str, match: MatchRecord) -> bool:
    text = text.strip()
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text.lower()):
        return match.ruleset_hash == text.lower()
    return '"name":' + json.dumps(text) in match.ruleset_json  # canonical JSON: the exact name


def _lineup_selects(lineup: Lineup, match: MatchRecord) -> bool:
    has_bot = any(is_bot(s) for s in match.seats)
    has_human = any(not is_bot(s) for s in match.seats)
    match lineup:
        case Lineup.HUMANS:
            return has_human and not has_bot
        case Lineup.BOTS:
            return has_bot and not has_human
        case Lineup.MIXED:
            return has_bot and has_human
        case Lineup.WITH_BOTS:
            return has_bot
        case Lineup.WITH_HUMANS:
            return has_human


def _selects(q: MatchQuery, match: MatchRecord) -> bool:
    """Whether ``q`` selects ``match`` (the filters of :mod:`server.domain.reads`)."""
    seats = match.seats
    if q.status is StatusFilter.FINISHED:
        if match.status is MatchStatus.RUNNING:
            return False
    elif q.status is not None and match.status.value != q.status.value:
        return False
    if q.account_id is not None and not any(s.account_id == q.account_id for s in seats):
        return False
    if q.player is not None and not any(q.player in (s.account_id, s.name) for s in seats):
        return False
    if q.q:
        # ASCII: folded as the databases' lower() folds it; beyond, casefold (as the SQL store).
        fold = str.lower if q.q.isascii() else str.casefold
        if not any(fold(q.q) in fold(s.name) for s in seats):
            return False
    if q.ruleset is not None and not _ruleset_selects(q.ruleset, match):
        return False
    if q.seats is not None and len(seats) != q.seats:
        return False
    created = from_unix(match.created_at)
    if (q.since is not None and created < q.since) or (q.until is not None and created >= q.until):
        return False
    return q.lineup is None or _lineup_selects(q.lineup, match)


def _project(ops: Sequence[HandOp]) -> dict[int, dict[str, Any]]:
    """The hand rows of one match: the projection's ops applied as the SQL store applies them."""
    rows: dict[int, dict[str, Any]] = {}
    for op in ops:
        match op:
            case HandStart():
                rows.setdefault(op.values["hand_index"], json.loads(json.dumps(op.values)))
            case HandEnd():
                index = op.hand_index if op.hand_index is not None else max(rows, default=None)
                if index is not None and index in rows:
                    rows[index].update(json.loads(json.dumps(op.values())))
    return rows
