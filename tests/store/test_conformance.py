"""The hub's Repository Protocol, run against every implementation: in-memory, SQLite, PostgreSQL.

Whatever the hub learns from the in-memory repository in its own tests must hold on SQL too. Times
are exact binary fractions here (both databases keep microseconds; see server/store/types.py).
"""

from __future__ import annotations

import pytest

from server.domain.errors import ConflictError, NotFoundError
from server.domain.ports import Repository
from server.domain.records import (
    Account,
    AccountKind,
    MatchRecord,
    MatchStatus,
    ResultRecord,
    Scope,
    SeatRecord,
    SessionRecord,
    StepRecord,
)

T0 = 1_700_000_000.5


def account(
    id_: str, name: str, kind: AccountKind = AccountKind.PLAYER, token_hash: str | None = None
) -> Account:
    return Account(
        id=id_,
        name=name,
        kind=kind,
        scopes=frozenset({Scope.PLAY, Scope.SPECTATE}),
        created_at=T0,
        token_hash=token_hash,
    )


def match(id_: str, *, seated: tuple[str | None, ...] = (None, None, None, None)) -> MatchRecord:
    return MatchRecord(
        id=id_,
        ruleset_json='{"name":"tenhou"}',
        ruleset_hash="a" * 64,
        seed_commitment="b" * 64,
        engine_version="1",
        wall_algorithm="jantaku-shake256-fisher-yates-v1",
        seats=tuple(
            SeatRecord(
                seat=i,
                name=f"seat{i}" if acc is None else acc,
                kind=AccountKind.BOT if acc is None else AccountKind.PLAYER,
                account_id=acc,
                bot="greedy" if acc is None else None,
            )
            for i, acc in enumerate(seated)
        ),
        status=MatchStatus.RUNNING,
        created_at=T0,
        source="queue:tenhou",
    )


def step(match_id: str, k: int, *, tile: str = "1m", request_id: int | None = None) -> StepRecord:
    if k == 0:
        return StepRecord(match_id, 0, None, None, ({"type": "round_started", "hand_index": 0},), None, T0)
    return StepRecord(
        match_id=match_id,
        step=k,
        seat=k % 4,
        action={"type": "discard", "tile": tile, "tsumogiri": False},
        events=(
            {"type": "tile_discarded", "seat": k % 4, "tile": tile, "tsumogiri": False, "riichi": False},
            {"type": "tile_drawn", "seat": (k + 1) % 4, "tile": "9s", "rinshan": False},
        ),
        request_id=request_id,
        applied_at=T0 + k * 0.25,
    )


# -- accounts ----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_accounts_round_trip(any_repo: Repository) -> None:
    alice = account("p-1", "alice", token_hash="c" * 64)
    bot = account("b-1", "tsumogiri", AccountKind.BOT, token_hash="d" * 64)
    guest = account("g-1", "alice", AccountKind.GUEST)  # guests may use a registered name
    for a in (alice, bot, guest):
        await any_repo.create_account(a)
    assert await any_repo.account_by_id("p-1") == alice
    assert await any_repo.account_by_id("g-1") == guest
    assert await any_repo.account_by_id("nobody") is None
    assert await any_repo.account_by_name("alice") == alice
    assert await any_repo.account_by_name("tsumogiri") == bot
    assert await any_repo.account_by_name("nobody") is None
    assert list(await any_repo.list_accounts()) == [alice, bot]  # by name, guests left out


@pytest.mark.asyncio
async def test_guests_are_not_found_by_name(any_repo: Repository) -> None:
    await any_repo.create_account(account("g-1", "visitor", AccountKind.GUEST))
    await any_repo.create_account(account("g-2", "visitor", AccountKind.GUEST))
    assert await any_repo.account_by_name("visitor") is None
    assert list(await any_repo.list_accounts()) == []


@pytest.mark.asyncio
async def test_duplicate_accounts_conflict(any_repo: Repository) -> None:
    await any_repo.create_account(account("p-1", "alice"))
    with pytest.raises(ConflictError):
        await any_repo.create_account(account("p-1", "bob"))  # same id
    with pytest.raises(ConflictError):
        await any_repo.create_account(account("b-9", "alice", AccountKind.BOT))  # same name
    assert await any_repo.account_by_id("b-9") is None


@pytest.mark.asyncio
async def test_revoke_account(any_repo: Repository) -> None:
    await any_repo.create_account(account("p-1", "alice"))
    await any_repo.create_session(SessionRecord("s-1", "e" * 64, "p-1", T0, T0 + 3600))
    revoked = await any_repo.revoke_account("p-1", T0 + 10)
    assert revoked.revoked_at == T0 + 10 and not revoked.active
    assert await any_repo.account_by_id("p-1") == revoked
    assert await any_repo.session_by_id("s-1") is None  # sessions end with the account
    again = await any_repo.revoke_account("p-1", T0 + 99)  # the first revocation stands
    assert again.revoked_at == T0 + 10
    with pytest.raises(NotFoundError):
        await any_repo.revoke_account("p-404", T0)


# -- sessions ----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_sessions(any_repo: Repository) -> None:
    await any_repo.create_account(account("g-1", "guest", AccountKind.GUEST))
    s1 = SessionRecord("s-1", "1" * 64, "g-1", T0, T0 + 100)
    s2 = SessionRecord("s-2", "2" * 64, "g-1", T0, T0 + 200)
    await any_repo.create_session(s1)
    await any_repo.create_session(s2)
    assert await any_repo.session_by_id("s-1") == s1
    assert await any_repo.session_by_id("s-3") is None
    with pytest.raises(ConflictError):
        await any_repo.create_session(SessionRecord("s-1", "3" * 64, "g-1", T0, T0 + 100))
    assert await any_repo.delete_expired_sessions(T0 + 99.5) == 0
    assert await any_repo.delete_expired_sessions(T0 + 100) == 1  # expires_at <= now
    assert await any_repo.session_by_id("s-1") is None
    assert await any_repo.session_by_id("s-2") == s2


# -- matches -----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_match_round_trip_and_finish(any_repo: Repository) -> None:
    await any_repo.create_account(account("p-1", "alice"))
    m = match("m-1", seated=("p-1", None, None, None))
    await any_repo.create_match(m)
    assert await any_repo.get_match("m-1") == m
    assert await any_repo.get_match("m-2") is None
    with pytest.raises(ConflictError):
        await any_repo.create_match(m)
    await any_repo.finish_match("m-1", MatchStatus.COMPLETED, T0 + 600, "ff" * 16)
    done = await any_repo.get_match("m-1")
    assert done is not None
    assert (done.status, done.ended_at, done.seed_hex) == (MatchStatus.COMPLETED, T0 + 600, "ff" * 16)
    assert done.seats == m.seats
    with pytest.raises(NotFoundError):
        await any_repo.finish_match("m-404", MatchStatus.ABORTED, T0, None)


@pytest.mark.asyncio
async def test_results(any_repo: Repository) -> None:
    await any_repo.create_match(match("m-1"))
    assert await any_repo.get_result("m-1") is None
    first = ResultRecord("m-1", (40000, 30000, 20000, 10000), (1, 2, 3, 4), (50.0, 10.0, -20.0, -40.0))
    await any_repo.record_result(first)
    assert await any_repo.get_result("m-1") == first
    fixed = ResultRecord("m-1", (39000, 31000, 20000, 10000), (1, 2, 3, 4), (49.0, 11.0, -20.0, -40.0))
    await any_repo.record_result(fixed)  # recording again replaces
    assert await any_repo.get_result("m-1") == fixed


# -- the step log ------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_steps_in_order(any_repo: Repository) -> None:
    await any_repo.create_match(match("m-1"))
    records = [step("m-1", k, request_id=k * 10) for k in range(6)]
    for r in records:
        await any_repo.append_step(r)
    assert await any_repo.step_count("m-1") == 6
    assert list(await any_repo.steps("m-1")) == records
    assert list(await any_repo.steps("m-1", after=3)) == records[4:]
    assert list(await any_repo.steps("m-1", after=5)) == []
    assert list(await any_repo.steps("m-1", limit=2)) == records[:2]  # a page (catch-ups read in pages)
    assert list(await any_repo.steps("m-1", after=2, limit=2)) == records[3:5]
    assert list(await any_repo.steps("m-1", after=4, limit=10)) == records[5:]
    assert await any_repo.step_count("m-404") == 0
    assert list(await any_repo.steps("m-404")) == []


@pytest.mark.asyncio
async def test_append_is_idempotent(any_repo: Repository) -> None:
    await any_repo.create_match(match("m-1"))
    for k in range(3):
        await any_repo.append_step(step("m-1", k))
    await any_repo.append_step(step("m-1", 2))  # the retry of the last step
    await any_repo.append_step(step("m-1", 1))  # and of an older one
    assert await any_repo.step_count("m-1") == 3
    assert list(await any_repo.steps("m-1")) == [step("m-1", k) for k in range(3)]


@pytest.mark.asyncio
async def test_append_conflicts(any_repo: Repository) -> None:
    await any_repo.create_match(match("m-1"))
    for k in range(3):
        await any_repo.append_step(step("m-1", k))
    with pytest.raises(ConflictError):
        await any_repo.append_step(step("m-1", 2, tile="9p"))  # another action at a stored step
    with pytest.raises(ConflictError):
        await any_repo.append_step(step("m-1", 1, request_id=77))  # even a different request id
    with pytest.raises(ConflictError):
        await any_repo.append_step(step("m-1", 4))  # a gap
    assert list(await any_repo.steps("m-1")) == [step("m-1", k) for k in range(3)]
    await any_repo.append_step(step("m-1", 3))  # the log goes on
    assert await any_repo.step_count("m-1") == 4


@pytest.mark.asyncio
async def test_append_to_unknown_match(any_repo: Repository) -> None:
    with pytest.raises(NotFoundError):
        await any_repo.append_step(step("m-404", 0))


@pytest.mark.asyncio
async def test_logs_of_matches_are_separate(any_repo: Repository) -> None:
    for m in ("m-1", "m-2"):
        await any_repo.create_match(match(m))
    await any_repo.append_step(step("m-1", 0))
    await any_repo.append_step(step("m-2", 0))
    await any_repo.append_step(step("m-1", 1))
    assert await any_repo.step_count("m-1") == 2
    assert await any_repo.step_count("m-2") == 1
    assert [s.match_id for s in await any_repo.steps("m-2")] == ["m-2"]


@pytest.mark.asyncio
async def test_json_comes_back_as_json(any_repo: Repository) -> None:
    """Tuples (what msgspec.to_builtins makes) are stored as arrays and read back as lists, by
    every implementation; a retry with the tuples is still the same record."""
    await any_repo.create_match(match("m-1"))
    record = StepRecord(
        "m-1",
        0,
        None,
        None,
        ({"type": "round_started", "scores": (25000, 25000, 25000, 25000), "hands": (("1m", "2m"), None)},),
        None,
        T0,
    )
    await any_repo.append_step(record)
    await any_repo.append_step(record)
    (stored,) = await any_repo.steps("m-1")
    assert stored.events == (
        {"type": "round_started", "scores": [25000, 25000, 25000, 25000], "hands": [["1m", "2m"], None]},
    )


def test_both_implementations_have_the_protocols_shape() -> None:
    """Checked by mypy: each implementation is assignable to the Protocol."""
    from server.store.memory import InMemoryRepository
    from server.store.repository import SqlRepository

    def as_repository(sql: SqlRepository, memory: InMemoryRepository) -> tuple[Repository, Repository]:
        return sql, memory

    assert callable(as_repository)
