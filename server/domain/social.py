"""The stored side of players together (docs/social.md): links between two accounts (a friend
request, a friendship, a block), personal mutes, and the sanctions administrators give, with the
:class:`SocialStore` port the memory and SQL stores implement; and each player's own setting of
hiding their presence. The rules live in
:mod:`server.social`; these are only the records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class LinkRecord:
    """The one link between ``a`` and ``b``: ``requested`` (a asked b), ``friends``, or ``blocked``
    (a blocked b)."""

    a: str
    b: str
    kind: str
    since: float


@dataclass(frozen=True, slots=True)
class SanctionRecord:
    """A ``chat_ban`` or ``suspension`` from ``starts`` to ``ends`` (None: until lifted)."""

    id: int
    account_id: str
    kind: str
    reason: str
    given_by: str
    starts: float
    ends: float | None
    lifted_at: float | None = None
    lifted_by: str | None = None


class SocialStore(Protocol):
    async def links(self) -> list[LinkRecord]:
        """Every link (the social service holds them all in memory)."""
        ...

    async def put_link(self, link: LinkRecord) -> None:
        """Store ``link`` as the one link between its two accounts (replacing any)."""
        ...

    async def drop_link(self, a: str, b: str) -> None: ...

    async def mutes(self) -> list[tuple[str, str]]:
        """Every ``(account, muted account)``."""
        ...

    async def put_mute(self, account_id: str, muted: str, *, on: bool) -> None: ...

    async def add_sanction(self, sanction: SanctionRecord) -> SanctionRecord:
        """Store a new sanction (its ``id`` is ignored); returns it with the id it was given."""
        ...

    async def lift_sanction(self, sanction_id: int, *, by: str, at: float) -> SanctionRecord | None: ...

    async def sanctions(self) -> list[SanctionRecord]:
        """Every sanction, oldest first (lifted and ended ones too: the audit)."""
        ...

    async def hidden(self) -> list[str]:
        """The accounts that hide their presence (their own setting)."""
        ...

    async def put_hidden(self, account_id: str, *, hidden: bool) -> None: ...
