"""More organizer actions over HTTP (``docs/tournaments.md``, "HTTP API"): lock and unlock a seat,
an entrant's start points, an entrant checked in (or out) by an organizer, closing the event before
its last round, a game's moves marked with who played them (a substitute's), and the
event's archive (every game in tenhou.net/6 JSON and mjai JSON lines, the standings as CSV and
JSON, one zip file). Organizers only; the typed errors of :mod:`server.web.api.events`."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response
from pydantic import Field

from server.services.eventexport import event_archive
from server.web.api.errors import NO_STORE
from server.web.api.events import (
    ENTRANT,
    EVENT_ERRORS,
    EventId,
    EventRoute,
    Keyed,
    actor_of,
    entrant_doc,
    round_doc,
    service_of,
)

eventops_router = APIRouter(prefix="/api", tags=["events"], route_class=EventRoute, responses=EVENT_ERRORS)
MatchId = Annotated[str, Path(pattern=r"^m-[A-Za-z0-9_\-]{1,40}$")]
EntrantId = Annotated[str, Path(pattern=ENTRANT)]


class SeatIn(Keyed):
    table: int = Field(ge=0, le=10000)
    seat: int = Field(ge=0, le=3)


class StartPointsIn(Keyed):
    entrant: str = Field(pattern=ENTRANT)
    points: int | None = Field(
        default=None, gt=0, le=1_000_000, description="a multiple of 100; none: the ruleset's"
    )


class CheckinIn(Keyed):
    checked_in: bool = Field(default=True, strict=True, description="false: check the entrant out")


@eventops_router.post(
    "/events/{event_id}/entrants/{entrant}/checkin",
    summary="Check an entrant in (or out) for the next round, before it is seated (organizers)",
)
async def check_in_entrant(
    request: Request, event_id: EventId, entrant: EntrantId, body: CheckinIn
) -> dict[str, Any]:
    actor = await actor_of(request)
    record = await service_of(request).check_in_for(
        actor, event_id, entrant, body.checked_in, body.reason, key=body.key
    )
    return entrant_doc(record) | {"checked_in": list(record.checked_in)}


@eventops_router.post(
    "/events/{event_id}/close", summary="Close the event before its last round (organizers)"
)
async def close(request: Request, event_id: EventId, body: Keyed) -> dict[str, Any]:
    actor = await actor_of(request)
    closing = await service_of(request).close(actor, event_id, body.reason, key=body.key)
    return {"id": event_id} | dataclasses.asdict(closing)


@eventops_router.post("/events/{event_id}/lock", summary="Lock a seat: no one takes or replaces it")
async def lock_seat(request: Request, event_id: EventId, body: SeatIn) -> dict[str, Any]:
    actor = await actor_of(request)
    rnd = await service_of(request).lock_seat(
        actor, event_id, table=body.table, seat=body.seat, locked=True, reason=body.reason, key=body.key
    )
    return round_doc(rnd)


@eventops_router.post("/events/{event_id}/unlock", summary="Unlock a seat")
async def unlock_seat(request: Request, event_id: EventId, body: SeatIn) -> dict[str, Any]:
    actor = await actor_of(request)
    rnd = await service_of(request).lock_seat(
        actor, event_id, table=body.table, seat=body.seat, locked=False, reason=body.reason, key=body.key
    )
    return round_doc(rnd)


@eventops_router.post("/events/{event_id}/start-points", summary="An entrant's start points")
async def start_points(request: Request, event_id: EventId, body: StartPointsIn) -> dict[str, Any]:
    actor = await actor_of(request)
    await service_of(request).set_start_points(
        actor, event_id, body.entrant, body.points, body.reason, key=body.key
    )
    return {"entrant": body.entrant, "start_points": body.points}


@eventops_router.get(
    "/events/{event_id}/games/{match_id}/moves", summary="A game's moves, a substitute's marked (organizers)"
)
async def moves(request: Request, event_id: EventId, match_id: MatchId) -> list[dict[str, Any]]:
    actor = await actor_of(request)
    return [dataclasses.asdict(m) for m in await service_of(request).moves(actor, event_id, match_id)]


@eventops_router.get(
    "/events/{event_id}/export",
    summary="Every game (tenhou.net/6 and mjai) and the standings, one zip (organizers)",
    response_class=Response,
)
async def export(request: Request, event_id: EventId) -> Response:
    actor = await actor_of(request)
    data = await event_archive(service_of(request), actor, event_id)
    headers = dict(NO_STORE) | {"Content-Disposition": f'attachment; filename="{event_id}.zip"'}
    return Response(data, media_type="application/zip", headers=headers)
