"""Events on SQL: the :class:`~server.domain.tournaments.EventStore` half of ``SqlRepository``, and the
one codec of the event records' JSON documents (the in-memory store keeps the records themselves).

Settings, entrants and rounds are stored as JSON documents (migration ``0009``), so an event option
added later needs no schema change; :func:`settings_doc` / :func:`settings_of` and their siblings
are the only code that knows their shape.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from server.domain.tournaments import (
    AdjustmentRecord,
    AuditRecord,
    DuplicateMode,
    EntrantRecord,
    EntrantStatus,
    EntryMode,
    EventRecord,
    EventSettings,
    EventStatus,
    PublishedSetRecord,
    RoundRecord,
    RoundStatus,
    RoundTableRecord,
    SpectatorMode,
    StandInRecord,
)
from server.store.db import write_connection
from server.store.models import (
    EventAdjustmentRow,
    EventAuditRow,
    EventEntrantRow,
    EventRoundRow,
    EventRow,
    OrganizerRow,
)
from server.store.types import from_unix, to_unix

_ENUMS: Mapping[str, Any] = {
    "entry": EntryMode,
    "spectators": SpectatorMode,
    "duplicate": DuplicateMode,
}
_TUPLES = ("invited", "observers")


def settings_doc(s: EventSettings) -> dict[str, Any]:
    doc = dataclasses.asdict(s)
    doc["teams"] = dict(s.teams)
    return doc


def settings_of(doc: Mapping[str, Any]) -> EventSettings:
    known = {f.name for f in dataclasses.fields(EventSettings)}
    values = {k: v for k, v in doc.items() if k in known}
    for key, enum in _ENUMS.items():
        if key in values:
            values[key] = enum(values[key])
    for key in _TUPLES:
        if key in values:
            values[key] = tuple(values[key])
    return EventSettings(**values)


def entrant_doc(e: EntrantRecord) -> dict[str, Any]:
    return {
        "name": e.name,
        "kind": e.kind,
        "checked_in": list(e.checked_in),
        "start_points": e.start_points,
    }


def entrant_of(row: Any) -> EntrantRecord:
    doc = row.doc
    return EntrantRecord(
        row.event_id,
        row.entrant_id,
        doc["name"],
        doc["kind"],
        EntrantStatus(row.status),
        to_unix(row.entered_at),
        tuple(doc.get("checked_in", ())),
        doc.get("start_points"),
    )


def round_doc(r: RoundRecord) -> dict[str, Any]:
    return {
        "tables": [
            {
                "index": t.index,
                "entrants": list(t.entrants),
                "set": t.set_id,
                "match": t.match_id,
                "substitutes": list(t.substitutes),
                "stand_ins": [[x.seat, x.by, x.from_step, x.at] for x in t.stand_ins],
                "locked": list(t.locked),
                "start_scores": None if t.start_scores is None else list(t.start_scores),
            }
            for t in r.tables
        ],
        "sets": [
            {
                "id": p.set_id,
                "tables": list(p.tables),
                "seed_commitment": p.seed_commitment,
                "walls": list(p.wall_commitments),
                "seed": p.seed_hex,
            }
            for p in r.sets
        ],
        "seated_at": r.seated_at,
        "started_at": r.started_at,
        "ended_at": r.ended_at,
    }


def round_of(row: Any) -> RoundRecord:
    doc = row.doc
    return RoundRecord(
        row.event_id,
        row.number,
        RoundStatus(row.status),
        tuple(
            RoundTableRecord(
                t["index"],
                tuple(t["entrants"]),
                t["set"],
                t["match"],
                tuple(t["substitutes"]),
                tuple(StandInRecord(x[0], x[1], x[2], x[3]) for x in t.get("stand_ins", ())),
                tuple(t.get("locked", ())),
                None if t.get("start_scores") is None else tuple(t["start_scores"]),
            )
            for t in doc["tables"]
        ),
        tuple(
            PublishedSetRecord(
                p["id"], tuple(p["tables"]), p["seed_commitment"], tuple(p["walls"]), p["seed"]
            )
            for p in doc["sets"]
        ),
        doc["seated_at"],
        doc.get("started_at"),
        doc.get("ended_at"),
    )


def _event(row: Any) -> EventRecord:
    return EventRecord(
        row.id,
        settings_of(row.settings),
        EventStatus(row.status),
        row.created_by,
        to_unix(row.created_at),
        tuple(row.organizers),
        bytes.fromhex(row.secret_hex),
    )


def _event_values(e: EventRecord) -> dict[str, Any]:
    return {
        "name": e.settings.name,
        "status": e.status.value,
        "created_by": e.created_by,
        "created_at": from_unix(e.created_at),
        "settings": settings_doc(e.settings),
        "organizers": list(e.organizers),
        "secret_hex": e.secret.hex(),
    }


class SqlEvents:
    """The :class:`~server.domain.tournaments.EventStore` half of ``SqlRepository``."""

    engine: AsyncEngine
    _gate: asyncio.Lock | None

    async def add_event(self, event: EventRecord) -> None:
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(insert(EventRow).values(id=event.id, **_event_values(event)))

    async def event(self, event_id: str) -> EventRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(EventRow).where(EventRow.id == event_id))).first()
        return None if row is None else _event(row)

    async def events(self) -> list[EventRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(EventRow).order_by(EventRow.created_at, EventRow.id))
            return [_event(r) for r in rows]

    async def put_event(self, event: EventRecord) -> None:
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(update(EventRow).where(EventRow.id == event.id).values(**_event_values(event)))

    async def put_entrant(self, entrant: EntrantRecord) -> None:
        values = {
            "status": entrant.status.value,
            "entered_at": from_unix(entrant.entered_at),
            "doc": entrant_doc(entrant),
        }
        key = (EventEntrantRow.event_id == entrant.event_id, EventEntrantRow.entrant_id == entrant.entrant_id)
        async with write_connection(self.engine, self._gate) as conn:
            done = await conn.execute(update(EventEntrantRow).where(*key).values(**values))
            if done.rowcount == 0:
                await conn.execute(
                    insert(EventEntrantRow).values(
                        event_id=entrant.event_id, entrant_id=entrant.entrant_id, **values
                    )
                )

    async def entrants(self, event_id: str) -> list[EntrantRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(EventEntrantRow)
                .where(EventEntrantRow.event_id == event_id)
                .order_by(EventEntrantRow.entered_at, EventEntrantRow.entrant_id)
            )
            return [entrant_of(r) for r in rows]

    async def put_round(self, rnd: RoundRecord) -> None:
        key = (EventRoundRow.event_id == rnd.event_id, EventRoundRow.number == rnd.number)
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(delete(EventRoundRow).where(*key))
            await conn.execute(
                insert(EventRoundRow).values(
                    event_id=rnd.event_id, number=rnd.number, status=rnd.status.value, doc=round_doc(rnd)
                )
            )

    async def rounds(self, event_id: str) -> list[RoundRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(EventRoundRow).where(EventRoundRow.event_id == event_id).order_by(EventRoundRow.number)
            )
            return [round_of(r) for r in rows]

    async def delete_round(self, event_id: str, number: int) -> None:
        key = (EventRoundRow.event_id == event_id, EventRoundRow.number == number)
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(delete(EventRoundRow).where(*key))

    async def add_adjustment(self, adjustment: AdjustmentRecord) -> None:
        doc = {
            "entrant": adjustment.entrant_id,
            "amount": adjustment.amount,
            "reason": adjustment.reason,
            "by": adjustment.by,
        }
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(
                insert(EventAdjustmentRow).values(
                    event_id=adjustment.event_id, at=from_unix(adjustment.at), doc=doc
                )
            )

    async def adjustments(self, event_id: str) -> list[AdjustmentRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(EventAdjustmentRow)
                .where(EventAdjustmentRow.event_id == event_id)
                .order_by(EventAdjustmentRow.id)
            )
            return [
                AdjustmentRecord(
                    r.event_id, r.doc["entrant"], r.doc["amount"], r.doc["reason"], r.doc["by"], to_unix(r.at)
                )
                for r in rows
            ]

    async def add_audit(self, entry: AuditRecord) -> None:
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(
                insert(EventAuditRow).values(
                    event_id=entry.event_id,
                    at=from_unix(entry.at),
                    actor=entry.actor,
                    action=entry.action,
                    detail=entry.detail,
                    reason=entry.reason,
                    key=entry.key,
                )
            )

    async def audit(self, event_id: str) -> list[AuditRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(EventAuditRow).where(EventAuditRow.event_id == event_id).order_by(EventAuditRow.id)
            )
            return [
                AuditRecord(r.event_id, to_unix(r.at), r.actor, r.action, r.detail, r.reason, r.key)
                for r in rows
            ]

    async def organizer_role(self, account_id: str) -> bool:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(select(OrganizerRow).where(OrganizerRow.account_id == account_id))
            ).first()
        return row is not None

    async def set_organizer_role(self, account_id: str, granted: bool, at: float) -> None:
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(delete(OrganizerRow).where(OrganizerRow.account_id == account_id))
            if granted:
                await conn.execute(
                    insert(OrganizerRow).values(account_id=account_id, granted_at=from_unix(at))
                )
