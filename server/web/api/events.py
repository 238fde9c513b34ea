"""Tournaments over HTTP: every action of the event service (``docs/tournaments.md``, "HTTP API").

Public (no token): ``GET /api/events`` (the list), ``GET /api/events/{id}`` (the event: settings,
entrants, rounds with their tables, published wall commitments and revealed seeds, notices) and
``GET /api/events/{id}/standings[?format=csv]``.

Everything else needs a signed-in account, as the ranked routes do: ``Authorization: Bearer`` (an
API token or a session token) or the ``jantaku_session`` cookie. Entrants enter, withdraw and check
in for themselves; the event's organizers (or an administrator: a token with the ``admin`` scope)
do the rest, each action audited with its reason; ``POST /api/admin/organizers`` (administrators)
grants or revokes the organizer role, and ``GET /api/admin/organizers`` lists its holders and its log.

A refused action answers the typed error of the other routes, ``{"error": {"code", "message"}}``,
and changes nothing: ``unauthenticated`` 401, ``forbidden`` 403, ``not_found`` 404,
``invalid_request`` 422 (a malformed body or setting), ``conflict`` 409 (not now: e.g. the round is
running), ``unsupported`` 409 (not possible where it was asked), ``busy`` 503 (a table could not be
made now, or the node running it could not be reached: try again).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Collection, Coroutine
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from server.domain.records import Scope
from server.domain.tournaments import (
    DuplicateMode,
    EntryMode,
    EventRecord,
    EventSettings,
    SpectatorMode,
)
from server.engine.errors import RulesError
from server.engine.rules import PRESETS, Ruleset
from server.services.auth import Authenticator, AuthError
from server.services.eventexport import standings_json
from server.services.eventrules import standings_csv
from server.services.tournaments import Actor, EventError, EventService
from server.tournament.standings import Formula
from server.web.api import models as m
from server.web.api.errors import NO_STORE, ApiError
from server.web.api.ports import AdminRoute
from server.web.api.ranked import COOKIE

EVENT_ID = r"^ev-[A-Za-z0-9_\-]{1,40}$"
ENTRANT = r"^[A-Za-z0-9:._\-]{1,80}$"

STATUS_OF_EVENT_ERROR: dict[str, tuple[m.ErrorCode, int]] = {
    "not_found": (m.ErrorCode.NOT_FOUND, 404),
    "forbidden": (m.ErrorCode.FORBIDDEN, 403),
    "malformed": (m.ErrorCode.INVALID_REQUEST, 422),
    "conflict": (m.ErrorCode.CONFLICT, 409),
    "unsupported": (m.ErrorCode.UNSUPPORTED, 409),
    "suspended": (m.ErrorCode.SUSPENDED, 403),
    "busy": (m.ErrorCode.BUSY, 503),
}


def event_error_response(exc: EventError) -> JSONResponse:
    code, status = STATUS_OF_EVENT_ERROR.get(exc.code, (m.ErrorCode.CONFLICT, 409))
    body = m.ErrorResponse(error=m.ErrorBody(code=code, message=exc.message))
    return JSONResponse(body.model_dump(mode="json", exclude_none=True), status_code=status, headers=NO_STORE)


class EventRoute(AdminRoute):
    """A route of this router (on the admin port, as the ranked routes): the service's
    :class:`EventError` becomes its typed answer."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except EventError as exc:
                return event_error_response(exc)

        return run


_ERROR_TEXT = {
    401: "no token or session, or an unknown, expired or revoked one (code unauthenticated)",
    403: "not an organizer of this event, not invited, not an administrator... (code forbidden); a "
    "moderator's suspension runs: no entry, check-in or seat (code suspended)",
    404: "no such event, entrant, table or account (code not_found)",
    409: "not now: the round is running, sign-up is closed, a seating constraint cannot be met... "
    "(code conflict); not possible where it was asked (code unsupported)",
    422: "a malformed body, parameter or setting, or a missing reason (code invalid_request)",
    503: "a table could not be made, or reached on its node, now: try again (code busy); events not "
    "served here, or the database is unavailable (code unavailable)",
}
EVENT_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": m.ErrorResponse, "description": text} for code, text in _ERROR_TEXT.items()
}

events_router = APIRouter(prefix="/api", tags=["events"], route_class=EventRoute, responses=EVENT_ERRORS)
EventId = Annotated[str, Path(pattern=EVENT_ID)]


# -- bodies ---------------------------------------------------------------------------------------------


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SettingsIn(Strict):
    """An event's settings (docs/tournaments.md, "Settings")."""

    name: str = Field(min_length=1, max_length=100)
    description: str = Field(default="", max_length=4000)
    ruleset: Literal["tenhou", "mahjongsoul", "ema"] = Field(
        default="tenhou", description="a preset's name (ignored with ruleset_json)"
    )
    ruleset_json: dict[str, Any] | None = Field(default=None, description="a custom ruleset")
    rounds: int = Field(ge=1, le=100)
    entry: EntryMode = EntryMode.OPEN
    invited: list[str] = Field(default_factory=list, max_length=10000)
    cap: int | None = Field(default=None, ge=1)
    guests: bool = False
    min_dan: int | None = Field(default=None, ge=1, le=10, description="open sign-up: this dan or higher")
    min_rating: float | None = Field(
        default=None, ge=0, le=10000, description="open sign-up: this R or higher"
    )
    ranked: bool = Field(default=False, strict=True, description="the games count for ranked stats")
    signup_opens: float | None = None
    signup_closes: float | None = None
    checkin: bool = False
    spectators: SpectatorMode = SpectatorMode.DELAYED
    spectate_delay_s: float = Field(default=300.0, ge=0, le=86400)
    spectate_delay_hands: int = Field(default=0, ge=0, le=16)
    caster: bool = Field(default=False, description="offer the caster view (needs a delay of a hand or 60 s)")
    observers: list[str] = Field(default_factory=list, max_length=64)
    seating: Literal["random", "standings", "scripted"] = "random"
    max_meetings: int | None = Field(default=None, ge=1)
    max_wind_spread: int | None = Field(default=2, ge=0)
    duplicate: DuplicateMode = DuplicateMode.OFF
    set_size: int | None = Field(default=None, ge=1)
    formula: Formula = Formula.POINTS
    best_n: int | None = Field(default=None, ge=1)
    teams: dict[str, str] = Field(default_factory=dict)
    action_ms: int | None = Field(default=None, ge=0, le=3_600_000)
    bank_ms: int | None = Field(default=None, ge=0, le=3_600_000)
    chat: Literal["on", "between_hands", "off"] | None = Field(
        default=None, description="seated players' free text at the event's tables (docs/social.md)"
    )

    def settings(self) -> EventSettings:
        if self.ruleset_json is not None:
            ruleset_json = json.dumps(self.ruleset_json)
        elif self.ruleset in PRESETS:
            ruleset_json = PRESETS[self.ruleset].to_json()
        else:
            raise EventError("malformed", f"no ruleset preset {self.ruleset!r}; presets: {sorted(PRESETS)}")
        try:
            Ruleset.from_json(ruleset_json)
        except (RulesError, ValueError) as exc:
            raise EventError("malformed", f"ruleset: {exc}") from None
        return EventSettings(
            name=self.name,
            ruleset_json=ruleset_json,
            rounds=self.rounds,
            description=self.description,
            entry=self.entry,
            invited=tuple(self.invited),
            cap=self.cap,
            guests=self.guests,
            min_dan=self.min_dan,
            min_rating=self.min_rating,
            ranked=self.ranked,
            signup_opens=self.signup_opens,
            signup_closes=self.signup_closes,
            checkin=self.checkin,
            spectators=self.spectators,
            spectate_delay_s=self.spectate_delay_s,
            spectate_delay_hands=self.spectate_delay_hands,
            caster=self.caster,
            observers=tuple(self.observers),
            seating=self.seating,
            max_meetings=self.max_meetings,
            max_wind_spread=self.max_wind_spread,
            duplicate=self.duplicate,
            set_size=self.set_size,
            formula=self.formula.value,
            best_n=self.best_n,
            teams=dict(self.teams),
            action_ms=self.action_ms,
            bank_ms=self.bank_ms,
            chat=self.chat,
        )


class CreateIn(SettingsIn):
    reason: str = Field(default="", max_length=500)


class Reason(Strict):
    reason: str = Field(default="", max_length=500)


class Keyed(Reason):
    key: str | None = Field(default=None, max_length=100, description="idempotency key")


class SeatIn(Keyed):
    script: str | None = Field(
        default=None, max_length=1_000_000, description="the round's tables as CSV or JSON (scripted seating)"
    )


class AccountIn(Reason):
    account: str = Field(min_length=1, max_length=80, description="an account id")


class OrganizerIn(Reason):
    name: str = Field(min_length=1, max_length=64, description="the account's name")
    granted: bool = True


class BotsIn(Keyed):
    bot: str = Field(default="greedy", pattern=r"^[a-z][a-z0-9_\-]{0,31}$")
    count: int = Field(default=1, ge=1, le=64)


class EntrantIn(Reason):
    entrant: str = Field(pattern=ENTRANT)


class PauseIn(Keyed):
    table: int | None = Field(default=None, ge=0, description="a table's index; none: the whole round")


class SubstituteIn(Keyed):
    table: int = Field(ge=0)
    seat: int = Field(ge=0, le=3)
    substitute: str = Field(pattern=ENTRANT, description="an account id, or bot:<name>")


class AdjustIn(Keyed):
    entrant: str = Field(pattern=ENTRANT)
    amount: int = Field(ge=-1_000_000, le=1_000_000, description="in the formula's unit")


class NoticeIn(Strict):
    text: str = Field(min_length=1, max_length=500)
    key: str | None = Field(default=None, max_length=100, description="idempotency key")


# -- helpers --------------------------------------------------------------------------------------------


def service_of(request: Request) -> EventService:
    service: EventService | None = request.app.state.settings.events
    if service is None:
        raise ApiError(m.ErrorCode.UNAVAILABLE, "events are not served by this server")
    return service


async def actor_of(request: Request) -> Actor:
    header = request.headers.get("authorization", "")
    token = header[7:].strip() if header.lower().startswith("bearer ") else request.cookies.get(COOKIE)
    if not token or len(token) > 300:
        raise ApiError(m.ErrorCode.UNAUTHENTICATED, "sign in first (cookie or Authorization: Bearer)")
    authenticator: Authenticator = request.app.state.authenticator
    try:
        account = await authenticator.account_for_bearer(token)
    except AuthError as exc:
        raise ApiError(m.ErrorCode.UNAUTHENTICATED, exc.message) from None
    return Actor(account, admin=Scope.ADMIN in account.scopes)


def event_summary(e: EventRecord) -> dict[str, Any]:
    s = e.settings
    return {
        "id": e.id,
        "name": s.name,
        "status": e.status.value,
        "rounds": s.rounds,
        "created_at": e.created_at,
    }


def settings_out(s: EventSettings) -> dict[str, Any]:
    out = dataclasses.asdict(s)
    out["ruleset"] = json.loads(s.ruleset_json)
    del out["ruleset_json"]
    return out


async def event_out(
    service: EventService, event_id: str, suspended: Collection[str] | None = None
) -> dict[str, Any]:
    """The public view of an event (never its secret); with ``suspended`` (the organizers' view),
    whether a suspension keeps each entrant from a seat now."""
    view = await service.view(event_id)
    e = view.event
    return event_summary(e) | {
        "description": e.settings.description,
        "organizers": list(e.organizers),
        "settings": settings_out(e.settings),
        "entrants": [
            {
                "id": x.entrant_id,
                "name": x.name,
                "kind": x.kind,
                "status": x.status.value,
                "checked_in": list(x.checked_in),
                "start_points": x.start_points,
            }
            | ({} if suspended is None else {"suspended": x.entrant_id in suspended})
            for x in view.entrants
        ],
        "rounds": [
            {
                "number": r.number,
                "status": r.status.value,
                "tables": [dataclasses.asdict(t) for t in r.tables],
                "sets": [dataclasses.asdict(p) for p in r.sets],
            }
            for r in view.rounds
        ],
        "notices": [
            {"at": a.at, "text": json.loads(a.detail)["text"]} for a in await service.notices(event_id)
        ],
        "closed": None if (closed := await service.closing(event_id)) is None else dataclasses.asdict(closed),
    }


# -- public routes --------------------------------------------------------------------------------------


@events_router.get("/events", summary="Every event")
async def list_events(request: Request) -> list[dict[str, Any]]:
    return [event_summary(e) for e in await service_of(request).events()]


@events_router.get("/events/{event_id}", summary="An event: settings, entrants, rounds, notices")
async def show_event(request: Request, event_id: EventId) -> dict[str, Any]:
    """Signed in as one of its organizers (or an administrator), each entrant also says whether a
    moderator's suspension keeps it from a seat now (``suspended``); never shown to others."""
    service = service_of(request)
    return await event_out(service, event_id, await organizers_view(request, service, event_id))


async def organizers_view(request: Request, service: EventService, event_id: str) -> Collection[str] | None:
    """The suspended entrants when the caller organizes the event, else None (the public view)."""
    if "authorization" not in request.headers and COOKIE not in request.cookies:
        return None
    try:
        return await service.suspended_entrants(await actor_of(request), event_id)
    except ApiError:
        return None  # not signed in: the public view
    except EventError as exc:
        if exc.code == "forbidden":
            return None
        raise


@events_router.get("/events/{event_id}/standings", summary="The standings (JSON or CSV)", response_model=None)
async def event_standings(
    request: Request, event_id: EventId, format: Annotated[Literal["json", "csv"], Query()] = "json"
) -> Response | list[dict[str, Any]]:
    service = service_of(request)
    formula = (await service.view(event_id)).event.settings.formula
    rows = await service.standings(event_id)
    if format == "csv":
        headers = dict(NO_STORE) | {"Content-Disposition": f'attachment; filename="{event_id}-standings.csv"'}
        return Response(standings_csv(rows, formula), media_type="text/csv; charset=utf-8", headers=headers)
    return standings_json(rows, formula)


# -- organizers -----------------------------------------------------------------------------------------


@events_router.post("/admin/organizers", summary="Grant or revoke the organizer role (administrators)")
async def grant_organizer(request: Request, body: OrganizerIn) -> dict[str, Any]:
    actor = await actor_of(request)
    service = service_of(request)
    if not actor.admin:
        raise EventError("forbidden", "only an administrator grants the organizer role")
    account = await request.app.state.store.account_by_name(body.name)
    if account is None:
        raise EventError("not_found", f"no account named {body.name!r}")
    await service.grant_organizer(actor, account.id, body.granted, body.reason)
    return {"account": account.id, "name": account.name, "organizer": body.granted}


@events_router.get("/admin/organizers", summary="Who holds the organizer role, and its log (administrators)")
async def organizers(request: Request) -> dict[str, Any]:
    actor = await actor_of(request)
    grants = await service_of(request).organizer_grants(actor)
    store = request.app.state.store
    log: list[dict[str, Any]] = []
    holders: dict[str, tuple[str, bool, float]] = {}  # account -> (name, holds the role, since)
    for a in grants:
        detail = json.loads(a.detail)
        account = await store.account_by_id(detail["account"])
        name = account.name if account is not None else detail["account"]
        entry = {"at": a.at, "actor": a.actor, "account": detail["account"], "name": name}
        log.append(entry | {"granted": detail["granted"], "reason": a.reason})
        holders[detail["account"]] = (name, bool(detail["granted"]), a.at)
    held = [{"account": k, "name": n, "since": at} for k, (n, granted, at) in holders.items() if granted]
    return {"organizers": sorted(held, key=lambda o: o["name"]), "log": log}


@events_router.post("/events", summary="Create an event (organizers)", status_code=201)
async def create_event(request: Request, body: CreateIn) -> dict[str, Any]:
    actor = await actor_of(request)
    service = service_of(request)
    event = await service.create(actor, body.settings(), body.reason)
    return await event_out(service, event.id)


@events_router.put("/events/{event_id}/settings", summary="Change the settings before the first round")
async def update_settings(request: Request, event_id: EventId, body: CreateIn) -> dict[str, Any]:
    actor = await actor_of(request)
    service = service_of(request)
    await service.update_settings(actor, event_id, body.settings(), body.reason)
    return await event_out(service, event_id)


@events_router.post("/events/{event_id}/organizers", summary="Name a co-organizer")
async def add_organizer(request: Request, event_id: EventId, body: AccountIn) -> dict[str, Any]:
    actor = await actor_of(request)
    event = await service_of(request).add_organizer(actor, event_id, body.account, body.reason)
    return {"organizers": list(event.organizers)}


@events_router.get("/events/{event_id}/log", summary="The audit log (organizers)")
async def event_log(request: Request, event_id: EventId) -> list[dict[str, Any]]:
    actor = await actor_of(request)
    return [
        {
            "at": a.at,
            "actor": a.actor,
            "action": a.action,
            "detail": json.loads(a.detail),
            "reason": a.reason,
            "key": a.key,
        }
        for a in await service_of(request).log(actor, event_id)
    ]


# -- entry ----------------------------------------------------------------------------------------------


def entrant_doc(x: Any) -> dict[str, Any]:
    return {"id": x.entrant_id, "name": x.name, "kind": x.kind, "status": x.status.value}


@events_router.post("/events/{event_id}/entry", summary="Enter (yourself)")
async def enter(request: Request, event_id: EventId) -> dict[str, Any]:
    actor = await actor_of(request)
    return entrant_doc(await service_of(request).enter(actor, event_id))


@events_router.post("/events/{event_id}/withdraw", summary="Withdraw (yourself, before the first round)")
async def withdraw(request: Request, event_id: EventId) -> dict[str, Any]:
    actor = await actor_of(request)
    await service_of(request).withdraw(actor, event_id)
    return {"withdrawn": actor.id}


@events_router.post("/events/{event_id}/checkin", summary="Check in for the next round (yourself)")
async def check_in(request: Request, event_id: EventId) -> dict[str, Any]:
    actor = await actor_of(request)
    record = await service_of(request).check_in(actor, event_id)
    return entrant_doc(record) | {"checked_in": list(record.checked_in)}


@events_router.post("/events/{event_id}/bots", summary="Add built-in bots as entrants (organizers)")
async def add_bots(request: Request, event_id: EventId, body: BotsIn) -> list[dict[str, Any]]:
    actor = await actor_of(request)
    service = service_of(request)
    keys = [None if body.key is None else f"{body.key}#{i}" for i in range(body.count)]
    added = [await service.add_bot(actor, event_id, body.bot, body.reason, key=k) for k in keys]
    return [entrant_doc(e) for e in added]


@events_router.post("/events/{event_id}/drop", summary="Take an entrant out (organizers)")
async def drop(request: Request, event_id: EventId, body: EntrantIn) -> dict[str, Any]:
    actor = await actor_of(request)
    await service_of(request).drop(actor, event_id, body.entrant, body.reason)
    return {"dropped": body.entrant}


# -- rounds ---------------------------------------------------------------------------------------------


def round_doc(r: Any) -> dict[str, Any]:
    return {
        "number": r.number,
        "status": r.status.value,
        "tables": [dataclasses.asdict(t) for t in r.tables],
        "sets": [dataclasses.asdict(p) for p in r.sets],
    }


@events_router.post("/events/{event_id}/seat", summary="Seat the next round (organizers)")
async def seat(request: Request, event_id: EventId, body: SeatIn) -> dict[str, Any]:
    actor = await actor_of(request)
    rnd = await service_of(request).seat(
        actor, event_id, script=body.script, key=body.key, reason=body.reason
    )
    return round_doc(rnd)


@events_router.post("/events/{event_id}/start", summary="Start the seated round's tables (organizers)")
async def start(request: Request, event_id: EventId, body: Keyed) -> dict[str, Any]:
    actor = await actor_of(request)
    return round_doc(await service_of(request).start(actor, event_id, key=body.key, reason=body.reason))


@events_router.post("/events/{event_id}/pause", summary="Pause a table or the whole round (organizers)")
async def pause(request: Request, event_id: EventId, body: PauseIn) -> dict[str, Any]:
    actor = await actor_of(request)
    await service_of(request).pause(actor, event_id, body.table, True, body.reason, key=body.key)
    return {"paused": True, "table": body.table}


@events_router.post("/events/{event_id}/resume", summary="Resume a table or the whole round (organizers)")
async def resume(request: Request, event_id: EventId, body: PauseIn) -> dict[str, Any]:
    actor = await actor_of(request)
    await service_of(request).pause(actor, event_id, body.table, False, body.reason, key=body.key)
    return {"paused": False, "table": body.table}


@events_router.post("/events/{event_id}/tables/{table}/end", summary="End a table early (organizers)")
async def end_table(
    request: Request, event_id: EventId, table: Annotated[int, Path(ge=0, le=10000)], body: Keyed
) -> dict[str, Any]:
    actor = await actor_of(request)
    await service_of(request).end_table(actor, event_id, table, body.reason, key=body.key)
    return {"ended": table}


@events_router.post("/events/{event_id}/substitute", summary="Seat a substitute (before or after the start)")
async def substitute(request: Request, event_id: EventId, body: SubstituteIn) -> dict[str, Any]:
    actor = await actor_of(request)
    rnd = await service_of(request).substitute(
        actor,
        event_id,
        table=body.table,
        seat=body.seat,
        substitute=body.substitute,
        reason=body.reason,
        key=body.key,
    )
    return round_doc(rnd)


@events_router.post("/events/{event_id}/adjust", summary="A penalty or correction, with a reason")
async def adjust(request: Request, event_id: EventId, body: AdjustIn) -> dict[str, Any]:
    actor = await actor_of(request)
    await service_of(request).adjust(actor, event_id, body.entrant, body.amount, body.reason, key=body.key)
    return {"entrant": body.entrant, "amount": body.amount}


@events_router.post("/events/{event_id}/notice", summary="A notice to every entrant (organizers)")
async def notice(request: Request, event_id: EventId, body: NoticeIn) -> dict[str, Any]:
    actor = await actor_of(request)
    await service_of(request).notice(actor, event_id, body.text, key=body.key)
    return {"notice": body.text.strip()}


@events_router.post("/events/{event_id}/finish-round", summary="Finish the round: reveal the seeds")
async def finish_round(request: Request, event_id: EventId, body: Keyed) -> dict[str, Any]:
    actor = await actor_of(request)
    return round_doc(await service_of(request).finish_round(actor, event_id, body.reason, key=body.key))
