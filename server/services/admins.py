"""Admin accounts: a player account whose only scope is ``admin`` (``jantaku admin create-admin``).

An admin token reads every stored game through the review API; it cannot play or spectate (no
``play`` / ``spectate`` scope), so an admin's reads are never mixed with a player's. It is revoked
like any other account: ``jantaku admin revoke NAME``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from server.domain.ports import Repository
from server.domain.records import Account, AccountKind, Scope
from server.services.auth import hash_token, make_token, valid_account_name

ADMIN_SCOPES = frozenset({Scope.ADMIN})
ADMIN_ID_PREFIX = "a-"


async def create_admin(
    repo: Repository, name: str, *, clock: Callable[[], float] = time.time
) -> tuple[Account, str]:
    """A new admin account and its API token (shown once; only its sha256 is stored).

    Raises ValueError for a bad name, ConflictError if a player or bot has that name."""
    if not valid_account_name(name):
        raise ValueError(
            f"bad account name {name!r}: 1-32 letters, digits, '_', '.', '-', starting with a letter or digit"
        )
    account_id = f"{ADMIN_ID_PREFIX}{secrets.token_hex(8)}"
    token = make_token(account_id)
    account = Account(
        id=account_id,
        name=name,
        kind=AccountKind.PLAYER,
        scopes=ADMIN_SCOPES,
        created_at=clock(),
        token_hash=hash_token(token),
    )
    await repo.create_account(account)
    return account, token
