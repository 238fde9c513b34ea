"""Accounts and authentication: guests, registered players, bots; API tokens and session tokens.

* A **guest** says ``hello`` with ``{"type": "guest"}``: a guest account is made on the spot.
* A **registered player** or a **bot** is an account with a personal API token, made by
  ``jantaku admin create-player NAME`` / ``create-bot NAME`` (no passwords: the token is the
  credential). ``jantaku admin revoke NAME`` disables it.
* Every ``welcome`` carries a **session token**: ``hello`` with ``{"type": "session"}`` comes back as
  the same player (guests have no other way back) until it expires.

Tokens are ``<public id>.<secret>`` with a secret of 256 random bits (``secrets.token_urlsafe(32)``).
Only ``sha256(token)`` is stored; the lookup goes by the public id, then the hashes are compared with
:func:`hmac.compare_digest`. No token is ever logged; log lines name the account id.

>>> token = make_token("b-1234")
>>> token.startswith("b-1234.") and len(token) > 40
True
>>> public_id(token), public_id("no-dot")
('b-1234', None)
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from client_protocol.errors import ErrorCode
from client_protocol.messages import Auth, GuestAuth, SessionAuth, TokenAuth
from server.domain.errors import NotFoundError
from server.domain.ports import Repository
from server.domain.records import DEFAULT_SCOPES, Account, AccountKind, SessionRecord

log = logging.getLogger(__name__)

SECRET_BYTES = 32  # 256 bits; the issue asks for at least 128
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,31}$")
_ID_PREFIX = {AccountKind.GUEST: "g", AccountKind.PLAYER: "p", AccountKind.BOT: "b"}


class AuthError(Exception):
    """Credentials refused; ``code`` is the protocol error code to answer with."""

    def __init__(self, message: str, code: ErrorCode = ErrorCode.UNAUTHENTICATED) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def make_token(public: str) -> str:
    return f"{public}.{secrets.token_urlsafe(SECRET_BYTES)}"


def public_id(token: str) -> str | None:
    head, dot, secret = token.partition(".")
    return head if dot and head and secret else None


def valid_account_name(name: str) -> bool:
    """Names of players and bots: 1-32 of letters, digits, ``_.-``, starting with a letter or digit."""
    return _NAME.fullmatch(name) is not None


def _guest_name(requested: str | None, account_id: str) -> str:
    if requested is not None:
        cleaned = "".join(ch for ch in requested if ch.isprintable()).strip()
        if cleaned:
            return cleaned[:32]
    return f"guest-{account_id[2:6]}"


@dataclass(frozen=True, slots=True)
class Authenticated:
    account: Account
    session_token: str  # secret: goes to the client in welcome, never to a log


class Authenticator:
    """Checks ``hello`` credentials against the repository and issues session tokens."""

    def __init__(
        self, repo: Repository, *, session_ttl_s: float, wall: Callable[[], float] = time.time
    ) -> None:
        self._repo = repo
        self._session_ttl_s = session_ttl_s
        self._wall = wall

    async def authenticate(self, auth: Auth) -> Authenticated:
        match auth:
            case TokenAuth(token=token):
                account = await self._by_api_token(token)
                return Authenticated(account, await self.new_session(account))
            case GuestAuth(name=name):
                account_id = f"g-{secrets.token_hex(8)}"
                account = Account(
                    id=account_id,
                    name=_guest_name(name, account_id),
                    kind=AccountKind.GUEST,
                    scopes=DEFAULT_SCOPES[AccountKind.GUEST],
                    created_at=self._wall(),
                )
                await self._repo.create_account(account)
                return Authenticated(account, await self.new_session(account))
            case SessionAuth(session_token=token):
                return Authenticated(await self._by_session_token(token), token)

    async def account_for_bearer(self, token: str) -> Account:
        """An HTTP ``Authorization: Bearer`` credential: a session token or an API token."""
        head = public_id(token)
        if head is not None and head.startswith("s-"):
            return await self._by_session_token(token)
        return await self._by_api_token(token)

    async def _by_api_token(self, token: str) -> Account:
        account_id = public_id(token)
        account = await self._repo.account_by_id(account_id) if account_id else None
        if (
            account is None
            or account.kind is AccountKind.GUEST
            or account.token_hash is None
            or not hmac.compare_digest(account.token_hash, hash_token(token))
        ):
            log.info("refused an API token (account id %r)", account_id)
            raise AuthError("unknown or invalid token")
        if not account.active:
            log.info("refused the token of revoked account %s", account.id)
            raise AuthError("this account's token was revoked")
        return account

    async def _by_session_token(self, token: str) -> Account:
        session_id = public_id(token)
        session = await self._repo.session_by_id(session_id) if session_id else None
        if session is None or not hmac.compare_digest(session.token_hash, hash_token(token)):
            raise AuthError("unknown session; say hello with your token or as a guest again")
        if session.expires_at <= self._wall():
            raise AuthError("this session expired; say hello with your token or as a guest again")
        account = await self._repo.account_by_id(session.account_id)
        if account is None or not account.active:
            raise AuthError("this session's account is no longer active")
        return account

    async def new_session(self, account: Account) -> str:
        """A new session token for ``account`` (secret: only its hash is stored)."""
        session_id = f"s-{secrets.token_hex(8)}"
        token = make_token(session_id)
        now = self._wall()
        await self._repo.create_session(
            SessionRecord(
                id=session_id,
                token_hash=hash_token(token),
                account_id=account.id,
                created_at=now,
                expires_at=now + self._session_ttl_s,
            )
        )
        return token

    # -- administration (``jantaku admin``) ---------------------------------------------------------

    async def create_account(self, name: str, kind: AccountKind) -> tuple[Account, str]:
        """A new player or bot account and its API token (shown once; only its hash is kept)."""
        if kind is AccountKind.GUEST:
            raise ValueError("guest accounts are made by hello, not by an administrator")
        if not valid_account_name(name):
            raise ValueError(
                f"bad account name {name!r}: 1-32 letters, digits, '_', '.', '-', "
                "starting with a letter or digit"
            )
        account_id = f"{_ID_PREFIX[kind]}-{secrets.token_hex(8)}"
        token = make_token(account_id)
        account = Account(
            id=account_id,
            name=name,
            kind=kind,
            scopes=DEFAULT_SCOPES[kind],
            created_at=self._wall(),
            token_hash=hash_token(token),
        )
        await self._repo.create_account(account)
        log.info("created %s account %s (%s)", kind.value, account_id, name)
        return account, token

    async def revoke(self, name: str) -> Account:
        account = await self._repo.account_by_name(name)
        if account is None:
            raise NotFoundError(f"no player or bot named {name!r}")
        account = await self._repo.revoke_account(account.id, self._wall())
        log.info("revoked account %s (%s)", account.id, name)
        return account
