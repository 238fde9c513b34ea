"""Accounts and authentication: guests, registered players, bots; API tokens and session tokens.

* A **guest** says ``hello`` with ``{"type": "guest"}``: a guest account is made on the spot, in
  memory; it is stored (account and session) only when the guest sits at a table
  (:meth:`Authenticator.store_guest`), so a hello costs no database write.
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
from collections import OrderedDict
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
MAX_PENDING_GUESTS = 100_000  # guests kept in memory until they sit at a table (then stored)
# A revoked account's credentials get the same answer as unknown ones (the log tells them apart).
_UNKNOWN_TOKEN = "unknown or invalid token"
_UNKNOWN_SESSION = "unknown session; say hello with your token or as a guest again"


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
        # Guests that have not sat at a table yet: account id -> (account, session), oldest first,
        # and session id -> account id. Stored by store_guest; lost on restart (they played nothing).
        self._pending: OrderedDict[str, tuple[Account, SessionRecord]] = OrderedDict()
        self._pending_sessions: dict[str, str] = {}

    async def authenticate(self, auth: Auth) -> Authenticated:
        match auth:
            case TokenAuth(token=token):
                account = await self._by_api_token(token)
                return Authenticated(account, await self.new_session(account))
            case GuestAuth(name=name):
                # No database write yet: the guest and its session are kept here until the guest
                # sits at a table (store_guest); a hello costs a few hashes, not two commits.
                account_id = f"g-{secrets.token_hex(8)}"
                account = Account(
                    id=account_id,
                    name=_guest_name(name, account_id),
                    kind=AccountKind.GUEST,
                    scopes=DEFAULT_SCOPES[AccountKind.GUEST],
                    created_at=self._wall(),
                )
                token, session = self._session_record(account)
                self._pending[account_id] = (account, session)
                self._pending_sessions[session.id] = account_id
                while len(self._pending) > MAX_PENDING_GUESTS:  # the oldest never sat: forgotten
                    _, (_, old) = self._pending.popitem(last=False)
                    self._pending_sessions.pop(old.id, None)
                return Authenticated(account, token)
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
            raise AuthError(_UNKNOWN_TOKEN)
        if not account.active:
            # Told apart in the log only: the client gets the answer of an unknown token.
            log.info("refused the token of revoked account %s", account.id)
            raise AuthError(_UNKNOWN_TOKEN)
        return account

    async def store_guest(self, account_id: str) -> None:
        """A guest sits at a table: store its account and session now (nothing for anyone else, or
        a guest stored already)."""
        pending = self._pending.pop(account_id, None)
        if pending is None:
            return
        account, session = pending
        try:
            await self._repo.create_account(account)
            await self._repo.create_session(session)
        except BaseException:
            self._pending[account_id] = pending  # not stored: the next seat tries again
            raise
        self._pending_sessions.pop(session.id, None)

    async def _by_session_token(self, token: str) -> Account:
        session_id = public_id(token)
        pending_id = self._pending_sessions.get(session_id) if session_id else None
        if pending_id is not None:  # a guest that has not sat at a table yet
            guest, record = self._pending[pending_id]
            if not hmac.compare_digest(record.token_hash, hash_token(token)):
                raise AuthError(_UNKNOWN_SESSION)
            if record.expires_at <= self._wall():
                raise AuthError("this session expired; say hello with your token or as a guest again")
            return guest
        session = await self._repo.session_by_id(session_id) if session_id else None
        if session is None or not hmac.compare_digest(session.token_hash, hash_token(token)):
            raise AuthError(_UNKNOWN_SESSION)
        if session.expires_at <= self._wall():
            raise AuthError("this session expired; say hello with your token or as a guest again")
        account = await self._repo.account_by_id(session.account_id)
        if account is None or not account.active:
            log.info("refused a session of inactive account %s", session.account_id)
            raise AuthError(_UNKNOWN_SESSION)  # a revoked account is not told apart from an unknown one
        return account

    async def new_session(self, account: Account) -> str:
        """A new session token for ``account`` (secret: only its hash is stored)."""
        token, record = self._session_record(account)
        await self._repo.create_session(record)
        return token

    def _session_record(self, account: Account) -> tuple[str, SessionRecord]:
        session_id = f"s-{secrets.token_hex(8)}"
        token = make_token(session_id)
        now = self._wall()
        record = SessionRecord(
            id=session_id,
            token_hash=hash_token(token),
            account_id=account.id,
            created_at=now,
            expires_at=now + self._session_ttl_s,
        )
        return token, record

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
