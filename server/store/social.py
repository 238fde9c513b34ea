"""Links, mutes and sanctions on SQL (migration ``0010``), the players' presence setting (``0013``): the
:class:`~server.domain.social.SocialStore` half of ``SqlRepository``."""

from __future__ import annotations

import asyncio

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from server.domain.social import LinkRecord, SanctionRecord
from server.store.db import write_connection
from server.store.models import SanctionRow, SocialLinkRow, SocialMuteRow, SocialPrefRow
from server.store.types import from_unix, to_unix


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _sanction(row: SanctionRow) -> SanctionRecord:
    return SanctionRecord(
        row.id,
        row.account_id,
        row.kind,
        row.reason,
        row.given_by,
        to_unix(row.starts),
        None if row.ends is None else to_unix(row.ends),
        None if row.lifted_at is None else to_unix(row.lifted_at),
        row.lifted_by,
    )


class SqlSocial:
    """The :class:`~server.domain.social.SocialStore` half of ``SqlRepository``."""

    engine: AsyncEngine
    _gate: asyncio.Lock | None

    async def links(self) -> list[LinkRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(SocialLinkRow))
            return [LinkRecord(r.a, r.b, r.kind, to_unix(r.since)) for r in rows]

    async def put_link(self, link: LinkRecord) -> None:
        low, high = _pair(link.a, link.b)
        key = (SocialLinkRow.low == low, SocialLinkRow.high == high)
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(delete(SocialLinkRow).where(*key))
            await conn.execute(
                insert(SocialLinkRow).values(
                    low=low, high=high, a=link.a, b=link.b, kind=link.kind, since=from_unix(link.since)
                )
            )

    async def drop_link(self, a: str, b: str) -> None:
        low, high = _pair(a, b)
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(
                delete(SocialLinkRow).where(SocialLinkRow.low == low, SocialLinkRow.high == high)
            )

    async def mutes(self) -> list[tuple[str, str]]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(SocialMuteRow.account_id, SocialMuteRow.muted_id).order_by(
                    SocialMuteRow.account_id, SocialMuteRow.muted_id
                )
            )
            return [(r.account_id, r.muted_id) for r in rows]

    async def put_mute(self, account_id: str, muted: str, *, on: bool) -> None:
        key = (SocialMuteRow.account_id == account_id, SocialMuteRow.muted_id == muted)
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(delete(SocialMuteRow).where(*key))
            if on:
                await conn.execute(insert(SocialMuteRow).values(account_id=account_id, muted_id=muted))

    async def add_sanction(self, sanction: SanctionRecord) -> SanctionRecord:
        values = {
            "account_id": sanction.account_id,
            "kind": sanction.kind,
            "reason": sanction.reason,
            "given_by": sanction.given_by,
            "starts": from_unix(sanction.starts),
            "ends": None if sanction.ends is None else from_unix(sanction.ends),
        }
        async with write_connection(self.engine, self._gate) as conn:
            result = await conn.execute(insert(SanctionRow).values(**values).returning(SanctionRow.id))
            new_id = int(result.scalar_one())
        return SanctionRecord(new_id, *[getattr(sanction, f) for f in _FIELDS])

    async def lift_sanction(self, sanction_id: int, *, by: str, at: float) -> SanctionRecord | None:
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(
                update(SanctionRow)
                .where(SanctionRow.id == sanction_id, SanctionRow.lifted_at.is_(None))
                .values(lifted_at=from_unix(at), lifted_by=by)
            )
            row = (await conn.execute(select(SanctionRow).where(SanctionRow.id == sanction_id))).first()
        return None if row is None else _sanction(row)  # type: ignore[arg-type]

    async def sanctions(self) -> list[SanctionRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(SanctionRow).order_by(SanctionRow.id))
            return [_sanction(r) for r in rows]  # type: ignore[arg-type]

    async def hidden(self) -> list[str]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(SocialPrefRow.account_id)
                .where(SocialPrefRow.hide_presence == 1)
                .order_by(SocialPrefRow.account_id)
            )
            return [r.account_id for r in rows]

    async def put_hidden(self, account_id: str, *, hidden: bool) -> None:
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(delete(SocialPrefRow).where(SocialPrefRow.account_id == account_id))
            await conn.execute(insert(SocialPrefRow).values(account_id=account_id, hide_presence=int(hidden)))


_FIELDS = ("account_id", "kind", "reason", "given_by", "starts", "ends", "lifted_at", "lifted_by")
