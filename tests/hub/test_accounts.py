"""Accounts, tokens and sessions; the in-memory repository and its accounts file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client_protocol.errors import ErrorCode
from client_protocol.messages import GuestAuth, SessionAuth, TokenAuth
from server.domain.errors import ConflictError, NotFoundError
from server.domain.ports import Repository
from server.domain.records import AccountKind, MatchRecord, MatchStatus, StepRecord
from server.services.auth import Authenticator, AuthError, hash_token, public_id
from server.store.memory import InMemoryRepository


class Wall:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def make_auth(repo: InMemoryRepository | None = None) -> tuple[Authenticator, InMemoryRepository, Wall]:
    repo = repo or InMemoryRepository()
    wall = Wall()
    return Authenticator(repo, session_ttl_s=3600, wall=wall), repo, wall


def test_the_memory_repository_implements_the_protocol() -> None:
    repo: Repository = InMemoryRepository()  # checked by mypy --strict
    assert repo is not None


@pytest.mark.asyncio
async def test_bot_tokens_are_random_hashed_and_revocable() -> None:
    auth, repo, _ = make_auth()
    account, token = await auth.create_account("robo", AccountKind.BOT)
    _, token2 = await auth.create_account("robo2", AccountKind.BOT)
    assert token != token2 and public_id(token) == account.id
    assert len(token.partition(".")[2]) >= 43  # token_urlsafe(32): 256 bits
    stored = await repo.account_by_id(account.id)
    assert stored is not None and stored.token_hash == hash_token(token) and token not in repr(stored)
    authed = await auth.authenticate(TokenAuth(token=token))
    assert authed.account.id == account.id and authed.session_token != token
    for bad in (token + "x", token2.replace(public_id(token2) or "", account.id), "nodot", "b-none.secret"):
        with pytest.raises(AuthError) as err:
            await auth.authenticate(TokenAuth(token=bad))
        assert err.value.code is ErrorCode.UNAUTHENTICATED
    await auth.revoke("robo")
    with pytest.raises(AuthError) as revoked:
        await auth.authenticate(TokenAuth(token=token))
    with pytest.raises(AuthError) as unknown:
        await auth.authenticate(TokenAuth(token="b-none.secret"))
    # A revoked account is answered exactly as an unknown one (on /ws, /mjai and the HTTP API).
    assert (revoked.value.code, revoked.value.message) == (unknown.value.code, unknown.value.message)
    with pytest.raises(AuthError) as revoked:  # its sessions die with it
        await auth.authenticate(SessionAuth(session_token=authed.session_token))
    with pytest.raises(AuthError) as unknown:
        await auth.authenticate(SessionAuth(session_token="s-none.secret"))
    assert (revoked.value.code, revoked.value.message) == (unknown.value.code, unknown.value.message)
    with pytest.raises(NotFoundError):
        await auth.revoke("nobody")


@pytest.mark.asyncio
async def test_names_are_unique_and_checked() -> None:
    auth, _, _ = make_auth()
    await auth.create_account("alice", AccountKind.PLAYER)
    with pytest.raises(ConflictError):
        await auth.create_account("alice", AccountKind.BOT)
    for bad in ("", "-x", "a b", "x" * 33, "名前"):
        with pytest.raises(ValueError):
            await auth.create_account(bad, AccountKind.BOT)


@pytest.mark.asyncio
async def test_guests_and_sessions() -> None:
    auth, _, wall = make_auth()
    guest = await auth.authenticate(GuestAuth(name="  alice\x00 "))
    assert guest.account.kind is AccountKind.GUEST and guest.account.name == "alice"
    anon = await auth.authenticate(GuestAuth())
    assert anon.account.name.startswith("guest-") and anon.account.id != guest.account.id
    back = await auth.authenticate(SessionAuth(session_token=guest.session_token))
    assert back.account.id == guest.account.id and back.session_token == guest.session_token
    with pytest.raises(AuthError):
        await auth.authenticate(SessionAuth(session_token=guest.session_token + "x"))
    wall.now += 3600
    with pytest.raises(AuthError):
        await auth.authenticate(SessionAuth(session_token=guest.session_token))
    # A bearer credential for HTTP may be a session token or an API token.
    _, token = await auth.create_account("bob", AccountKind.PLAYER)
    assert (await auth.account_for_bearer(token)).name == "bob"
    fresh = await auth.authenticate(GuestAuth(name="carol"))
    assert (await auth.account_for_bearer(fresh.session_token)).name == "carol"


@pytest.mark.asyncio
async def test_accounts_file_is_shared_between_processes(tmp_path: Path) -> None:
    path = tmp_path / "accounts.json"
    server_repo = InMemoryRepository(accounts_path=path)
    admin, _, _ = make_auth(InMemoryRepository(accounts_path=path))  # another process, say
    account, token = await admin.create_account("robo", AccountKind.BOT)
    assert token not in path.read_text() and hash_token(token) in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o600
    server_auth = Authenticator(server_repo, session_ttl_s=60)
    assert (await server_auth.authenticate(TokenAuth(token=token))).account.id == account.id
    await server_auth.authenticate(GuestAuth(name="guest"))
    doc = json.loads(path.read_text())
    assert [a["name"] for a in doc["accounts"]] == ["robo"]  # guests stay in memory
    await admin.revoke("robo")
    with pytest.raises(AuthError):
        await server_auth.authenticate(TokenAuth(token=token))
    assert [a.name for a in await server_repo.list_accounts()] == ["robo"]


@pytest.mark.asyncio
async def test_the_step_log_is_append_only_and_idempotent() -> None:
    repo = InMemoryRepository()
    match = MatchRecord("m-1", "{}", "h", "c", "1", "w", (), MatchStatus.RUNNING, 0.0)
    await repo.create_match(match)
    with pytest.raises(ConflictError):
        await repo.create_match(match)
    step0 = StepRecord("m-1", 0, None, None, ({"type": "x"},))
    await repo.append_step(step0)
    await repo.append_step(step0)  # the same write again: fine
    with pytest.raises(ConflictError):
        await repo.append_step(StepRecord("m-1", 0, 1, {"type": "pass"}, ()))
    with pytest.raises(ConflictError):
        await repo.append_step(StepRecord("m-1", 2, 1, {"type": "pass"}, ()))
    with pytest.raises(NotFoundError):
        await repo.append_step(StepRecord("m-2", 0, None, None, ()))
    await repo.append_step(StepRecord("m-1", 1, 0, {"type": "pass"}, ()))
    assert await repo.step_count("m-1") == 2 and [s.step for s in await repo.steps("m-1", after=0)] == [1]
    await repo.finish_match("m-1", MatchStatus.COMPLETED, 5.0, "abcd")
    stored = await repo.get_match("m-1")
    assert stored is not None and stored.status is MatchStatus.COMPLETED and stored.seed_hex == "abcd"
