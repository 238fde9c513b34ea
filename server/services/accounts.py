"""Accounts players make themselves: register, sign in, sign out, change password.

* Passwords are hashed with **argon2id** (``argon2-cffi``'s :class:`argon2.PasswordHasher`, its
  default parameters, RFC 9106's second recommendation); only the PHC string is stored
  (``credentials``). Hashing runs in a worker thread, so the event loop keeps serving.
* Signing in gives a **session token** (the same kind ``welcome`` carries: ``hello`` with
  ``{"type": "session"}`` comes back as the player). Signing out deletes that session; changing
  the password ends every session of the account.
* **Rate limit** (:class:`SignInLimiter`): after ``per_account`` failed attempts on one account, or
  ``per_address`` from one address, within ``window_s``, sign-in answers :class:`AuthError` with
  ``rate_limited`` (and how long to wait) without checking the password. A success clears the
  account's failures.
* A guest registers with its session: the guest account becomes the player (same id), so the games
  it played stay its own.
* Names: 1-32 of letters, digits, ``_.-`` (:func:`server.services.auth.valid_account_name`); passwords:
  8-128 characters. Anything else is a typed error and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import argon2

from client_protocol.errors import ErrorCode
from server.domain.errors import ConflictError, NotFoundError
from server.domain.ports import Credentials, Repository
from server.domain.records import DEFAULT_SCOPES, Account, AccountKind
from server.services.auth import Authenticated, Authenticator, AuthError, public_id, valid_account_name

log = logging.getLogger(__name__)

MIN_PASSWORD = 8
MAX_PASSWORD = 128


class AccountInputError(ValueError):
    """A bad name or password, or a name already taken; ``field`` says which."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


class AccountStore(Repository, Credentials, Protocol):
    """What :class:`Accounts` needs of a store (both ports)."""


def check_password(password: str) -> None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountInputError("password", f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    if not password.strip():
        raise AccountInputError("password", "a password is not only spaces")
    if "\x00" in password:
        raise AccountInputError("password", "a password has no NUL character")


def check_name(name: str) -> None:
    if not valid_account_name(name):
        raise AccountInputError(
            "name", "a name has 1-32 letters, digits, '_', '.', '-', starting with a letter or digit"
        )


@dataclass(slots=True)
class SignInLimiter:
    """Failed sign-ins per account and per address in a sliding window."""

    per_account: int = 5
    per_address: int = 20
    window_s: float = 900.0
    clock: Callable[[], float] = time.monotonic
    _failures: dict[str, deque[float]] = field(default_factory=dict)

    def _recent(self, key: str) -> deque[float]:
        q = self._failures.setdefault(key, deque())
        cutoff = self.clock() - self.window_s
        while q and q[0] <= cutoff:
            q.popleft()
        if not q:
            del self._failures[key]
            return deque()
        return q

    def check(self, name: str, address: str) -> None:
        for key, limit in ((f"a:{name.lower()}", self.per_account), (f"i:{address}", self.per_address)):
            q = self._recent(key)
            if len(q) >= limit:
                wait = int(q[0] + self.window_s - self.clock()) + 1
                what = "this account" if key.startswith("a:") else "this address"
                raise AuthError(
                    f"too many failed sign-ins for {what}; try again in {wait} s", ErrorCode.RATE_LIMITED
                )

    def failed(self, name: str, address: str) -> None:
        now = self.clock()
        for key in (f"a:{name.lower()}", f"i:{address}"):
            self._recent(key)
            self._failures.setdefault(key, deque()).append(now)

    def succeeded(self, name: str) -> None:
        self._failures.pop(f"a:{name.lower()}", None)


class Accounts:
    """Register, sign in, sign out, change password (over the HTTP API, ``docs/ranking.md``)."""

    def __init__(
        self,
        store: AccountStore,
        auth: Authenticator,
        *,
        limiter: SignInLimiter | None = None,
        hasher: argon2.PasswordHasher | None = None,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._auth = auth
        self.limiter = limiter or SignInLimiter()
        self._hasher = hasher or argon2.PasswordHasher()
        self._wall = wall
        # A hash to verify against when the name is unknown, so both answers take as long.
        self._dummy = self._hasher.hash(secrets.token_urlsafe(16))

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self._hasher.hash, password)

    async def _verify(self, stored: str, password: str) -> bool:
        try:
            return await asyncio.to_thread(self._hasher.verify, stored, password)
        except argon2.exceptions.VerificationError:
            return False
        except argon2.exceptions.InvalidHashError:
            log.error("a stored password hash is not an argon2 hash")
            return False

    async def register(self, name: str, password: str, *, guest_session: str | None = None) -> Authenticated:
        """A new player (or the guest of ``guest_session`` made a player) and its session."""
        check_name(name)
        check_password(password)
        digest = await self._hash(password)
        try:
            if guest_session is not None:
                guest = await self._auth.account_for_bearer(guest_session)
                if guest.kind is not AccountKind.GUEST:
                    raise AccountInputError("guest_session", "that session is not a guest's")
                await self._auth.store_guest(guest.id)  # a guest that never sat is stored first
                account = await self._store.upgrade_guest(guest.id, name, digest, self._wall())
            else:
                account = Account(
                    id=f"p-{secrets.token_hex(8)}",
                    name=name,
                    kind=AccountKind.PLAYER,
                    scopes=DEFAULT_SCOPES[AccountKind.PLAYER],
                    created_at=self._wall(),
                )
                await self._store.register_account(account, digest)
        except ConflictError:
            raise AccountInputError("name", f"the name {name!r} is taken") from None
        except NotFoundError:
            raise AccountInputError(
                "guest_session", "that guest cannot register (unknown or revoked)"
            ) from None
        log.info("registered player %s (%s)", account.id, name)
        return Authenticated(account, await self._auth.new_session(account))

    async def sign_in(self, name: str, password: str, address: str) -> Authenticated:
        self.limiter.check(name, address)
        account = await self._store.account_by_name(name) if valid_account_name(name) else None
        stored = await self._store.password_hash(account.id) if account is not None else None
        ok = await self._verify(stored or self._dummy, password[:MAX_PASSWORD])
        if account is None or stored is None or not ok:
            self.limiter.failed(name, address)
            if account is not None and stored is None and account.kind is not AccountKind.GUEST:
                # made by an administrator with a token only: say how it does sign in
                raise AuthError(
                    f"the {account.kind.value} {account.name!r} has no password: it signs in with its "
                    "token; an administrator makes players for this card with "
                    "`jantaku admin create-player NAME --password`"
                )
            raise AuthError("unknown name or wrong password")
        if not account.active:
            raise AuthError("this account was revoked")
        self.limiter.succeeded(name)
        if self._hasher.check_needs_rehash(stored):
            await self._store.set_password_hash(account.id, await self._hash(password), self._wall())
        return Authenticated(account, await self._auth.new_session(account))

    async def sign_out(self, session_token: str) -> None:
        """End the session (an unknown or already ended one is no error: signing out is idempotent)."""
        session_id = public_id(session_token)
        if session_id is None or not session_id.startswith("s-"):
            return
        try:
            await self._auth.account_for_bearer(session_token)  # only the token's holder ends it
        except AuthError:
            return
        await self._store.delete_session(session_id)

    async def change_password(self, account: Account, old: str, new: str) -> Authenticated:
        """Check ``old``, store ``new``, end every session, return a fresh one."""
        check_password(new)
        stored = await self._store.password_hash(account.id)
        if stored is None:
            raise AuthError("this account has no password (it signs in with its token)", ErrorCode.FORBIDDEN)
        if not await self._verify(stored, old[:MAX_PASSWORD]):
            raise AuthError("wrong password")
        await self._store.set_password_hash(account.id, await self._hash(new), self._wall())
        return Authenticated(account, await self._auth.new_session(account))
