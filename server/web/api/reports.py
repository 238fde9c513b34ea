"""Reports over HTTP (``docs/social.md``): the admin review queue, and a player's report.

* ``GET /api/admin/reports?status=open``: the reports (oldest first), for the ``admin`` scope;
* ``GET /api/admin/reports/{id}``: one report with its context (the lines around a reported line,
  the channel or match and its step) and the reported player's sanctions;
* ``POST /api/admin/reports/{id}/resolve`` ``{action, reason, minutes?}``: ``dismiss``, ``chat_ban``
  or ``suspend`` (a sanction through the social service, as ``jantaku admin moderation`` gives);
  written to the audit log with the reason;
* ``POST /api/me/reports`` ``{account_id, reason, lobby_line_id?}``: a signed-in player reports a
  player, or a lobby line (a table line is reported over the websocket, where its id is known).

Every read of the queue and every resolution is written to the audit log (``report.list``,
``report.read``, ``report.resolve``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from server.domain.moderation import ModerationStore, ReportRecord
from server.domain.ports import Store
from server.domain.records import Account, Scope
from server.services.reports import Place, Reports, context_of
from server.services.review import Review
from server.services.social import SocialError, social_service
from server.web.api import models as m
from server.web.api.errors import ApiError, error_docs
from server.web.api.ports import AdminRoute, BothPortsRoute
from server.web.api.ranked import signed_in

reports_router = APIRouter(prefix="/api/admin/reports", tags=["moderation"], route_class=AdminRoute)
player_reports_router = APIRouter(prefix="/api/me", tags=["social"], route_class=BothPortsRoute)

ReportId = Annotated[int, Path(ge=1, le=2**31 - 1)]


class ReportOut(BaseModel):
    id: int
    reporter_id: str
    reporter: str = Field(description="the reporter's name")
    target_id: str
    target: str = Field(description="the reported player's name")
    place: str = Field(description="lobby, table or player")
    reason: str
    created_at: float
    status: str = Field(description="open, dismissed or actioned")
    resolved_by: str | None = None
    resolved_at: float | None = None
    resolution: str | None = None
    sanction_id: int | None = None


class SanctionOut(BaseModel):
    id: int
    kind: str
    reason: str
    given_by: str
    starts: float
    ends: float | None
    lifted_at: float | None


class ReportDetail(ReportOut):
    context: dict[str, Any] = Field(description="what the server saw: channel or match_id, step, lines")
    sanctions: list[SanctionOut] = Field(description="the reported player's sanctions (the audit)")


class ReportList(BaseModel):
    reports: list[ReportOut]


class Resolution(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["dismiss", "chat_ban", "suspend"]
    reason: str = Field(min_length=1, max_length=500, description="why (stored, and the sanction's reason)")
    minutes: float | None = Field(default=None, gt=0, le=10 * 365 * 24 * 60, description="none: until lifted")


class PlayerReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    account_id: str = Field(min_length=1, max_length=64)
    reason: str = Field(min_length=1, max_length=1000)
    lobby_line_id: int | None = Field(default=None, ge=1, le=2**53 - 1)


class Filed(BaseModel):
    report_id: int


async def _admin(request: Request) -> Account:
    account, _ = await signed_in(request)
    if Scope.ADMIN not in account.scopes:
        raise ApiError(m.ErrorCode.FORBIDDEN, "this route needs an account with the admin scope")
    return account


async def _reports(request: Request) -> Reports:
    store = request.app.state.store
    if not callable(getattr(store, "add_report", None)):
        raise ApiError(m.ErrorCode.NOT_FOUND, "this server keeps no reports")
    social = social_service(store, request.app.state.settings.clock)
    await social.load()
    moderation: ModerationStore = store
    return Reports(social, moderation, now=request.app.state.settings.clock)


def _refused(exc: SocialError) -> ApiError:
    codes = {
        "not_found": m.ErrorCode.NOT_FOUND,
        "already": m.ErrorCode.CONFLICT,
        "limited": m.ErrorCode.FORBIDDEN,
    }
    return ApiError(codes.get(exc.code, m.ErrorCode.INVALID_REQUEST), str(exc))


async def _name(store: Store, account_id: str) -> str:
    account = await store.account_by_id(account_id)
    return account.name if account is not None else account_id


async def _out(store: Store, r: ReportRecord) -> dict[str, Any]:
    names = context_of(r).get("names")
    known = names if isinstance(names, dict) else {}  # a guest's name, as the server saw it
    return {
        "id": r.id,
        "reporter_id": r.reporter_id,
        "reporter": known.get(r.reporter_id) or await _name(store, r.reporter_id),
        "target_id": r.target_id,
        "target": known.get(r.target_id) or await _name(store, r.target_id),
        "place": r.where,
        "reason": r.reason,
        "created_at": r.created_at,
        "status": r.status,
        "resolved_by": r.resolved_by,
        "resolved_at": r.resolved_at,
        "resolution": r.resolution,
        "sanction_id": r.sanction_id,
    }


async def _audit(request: Request, admin: Account, action: str, detail: dict[str, Any]) -> None:
    review: Review = request.app.state.review
    await review.audit(actor=admin.name, actor_id=admin.id, action=action, detail=detail)


@reports_router.get("", response_model=ReportList, responses=error_docs(401, 403, 422, 503))
async def list_reports(
    request: Request,
    status: Annotated[Literal["open", "dismissed", "actioned"] | None, Query()] = None,
) -> ReportList:
    admin = await _admin(request)
    reports = await _reports(request)
    found = await reports.list(status)
    await _audit(request, admin, "report.list", {"status": status or "all", "count": len(found)})
    store = request.app.state.store
    return ReportList(reports=[ReportOut(**await _out(store, r)) for r in found])


@reports_router.get(
    "/{report_id}", response_model=ReportDetail, responses=error_docs(401, 403, 404, 422, 503)
)
async def show_report(request: Request, report_id: ReportId) -> ReportDetail:
    admin = await _admin(request)
    reports = await _reports(request)
    try:
        report = await reports.get(report_id)
    except SocialError as exc:
        raise _refused(exc) from None
    await _audit(request, admin, "report.read", {"report": report_id})
    sanctions = [
        SanctionOut(
            id=s.id,
            kind=s.kind,
            reason=s.reason,
            given_by=s.given_by,
            starts=s.starts,
            ends=s.ends,
            lifted_at=s.lifted_at,
        )
        for s in reports.social.sanctions(report.target_id)
    ]
    store = request.app.state.store
    return ReportDetail(**await _out(store, report), context=context_of(report), sanctions=sanctions)


@reports_router.post(
    "/{report_id}/resolve", response_model=ReportOut, responses=error_docs(401, 403, 404, 409, 422, 503)
)
async def resolve_report(request: Request, report_id: ReportId, body: Resolution) -> ReportOut:
    admin = await _admin(request)
    reports = await _reports(request)
    try:
        done = await reports.resolve(report_id, body.action, body.reason, by=admin.name, minutes=body.minutes)
    except SocialError as exc:
        raise _refused(exc) from None
    detail = {"report": report_id, "action": body.action, "reason": body.reason, "sanction": done.sanction_id}
    await _audit(request, admin, "report.resolve", detail)
    return ReportOut(**await _out(request.app.state.store, done.report))


@player_reports_router.post("/reports", response_model=Filed, responses=error_docs(401, 403, 404, 422, 503))
async def file_report(request: Request, body: PlayerReport) -> Filed:
    account, _ = await signed_in(request)
    reports = await _reports(request)
    store: Store = request.app.state.store
    if await store.account_by_id(body.account_id) is None:
        raise ApiError(m.ErrorCode.NOT_FOUND, "no such player")
    try:
        if body.lobby_line_id is not None:
            record = await reports.report_lobby_line(
                account.id, body.lobby_line_id, body.reason, target_id=body.account_id
            )
        else:
            record = await reports.file(
                account.id, body.account_id, body.reason, place=Place.PLAYER, context={}
            )
    except SocialError as exc:
        raise _refused(exc) from None
    return Filed(report_id=record.id)
