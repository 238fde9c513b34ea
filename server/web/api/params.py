"""The review API's parameters: ids, search text, time filters, pages, and the filters they make.

Time filters take exactly what ``docs/admin.md`` says and nothing looser: an RFC 3339 time with its
zone, or unix seconds as a plain number; times beyond what can be represented are clamped.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Path, Query, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer
from pydantic import BeforeValidator

from server.services.review import MAX_PAGE, GameFilters
from server.web.api import models as m
from server.web.api.errors import ApiError

ID_PATTERN = r"^[A-Za-z0-9_.:\-]{1,64}$"
TEXT_PATTERN = r"^[^\x00-\x1f\x7f]*$"

GameId = Annotated[str, Path(description="the game (match) id", max_length=64, pattern=ID_PATTERN)]
Format = Annotated[m.ExportFormat, Query(description="tenhou6: tenhou.net/6 JSON; mjai: mjai JSON lines")]
Download = Annotated[bool, Query(description="answer as an attachment (Content-Disposition) to save")]
bearer = HTTPBearer(
    auto_error=False,
    scheme_name="token",
    description="An API token (jantaku admin create-admin / create-player / create-bot) or a session token.",
)
_NUMBER = re.compile(r"^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$")


def _parse_time(value: Any) -> Any:
    """Exactly what the document says, nothing looser: an RFC 3339 time (with its zone) or unix
    seconds as a plain number (pydantic alone would also take whitespace, ``inf``, ...)."""
    if not isinstance(value, str):
        return value
    if _NUMBER.fullmatch(value):
        return float(value)
    if _RFC3339.fullmatch(value):
        return datetime.fromisoformat(value.upper().replace(" ", "T"))
    raise ValueError("expected an RFC 3339 time with its zone (2026-11-21T09:00:00Z) or unix seconds")


Since = Annotated[
    datetime | float | None,
    BeforeValidator(_parse_time),
    Query(description="created at or after: an RFC 3339 time (2026-11-21T09:00:00Z) or unix seconds"),
]
Until = Annotated[
    datetime | float | None,
    BeforeValidator(_parse_time),
    Query(description="created before (exclusive): an RFC 3339 time or unix seconds"),
]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="games per page")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="games to skip")]


_EARLIEST = datetime.min.replace(tzinfo=UTC)
_LATEST = datetime.max.replace(tzinfo=UTC)


def _utc(value: datetime | float | None, name: str) -> datetime | None:
    """A time filter in UTC: an ISO 8601 time (UTC if it names no zone) or unix seconds. Times
    beyond what can be represented are clamped (they select all games or none, as they should)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        if not math.isfinite(value):
            raise ApiError(
                m.ErrorCode.INVALID_REQUEST,
                f"{name} must be a finite number of seconds",
                [{"loc": ["query", name], "msg": "not finite", "type": "finite_number"}],
            )
        try:
            return datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            return _EARLIEST if value < 0 else _LATEST
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except (OverflowError, ValueError):
        return _EARLIEST if value.year < 5000 else _LATEST


def filters(
    *,
    status: m.StatusFilter | None,
    player: str | None,
    q: str | None,
    ruleset: str | None,
    since: datetime | float | None,
    until: datetime | float | None,
    lineup: m.Lineup | None,
    limit: int,
    offset: int,
    account_id: str | None = None,
    seats: int | None = None,
) -> GameFilters:
    return GameFilters(
        status=status,
        player=player,
        q=q or None,
        ruleset=ruleset or None,
        since=_utc(since, "since"),
        until=_utc(until, "until"),
        lineup=lineup,
        account_id=account_id,
        seats=seats,
        limit=limit,
        offset=offset,
    )


def query_names(dependant: Dependant) -> set[str]:
    names = {field.alias for field in dependant.query_params}
    for sub in dependant.dependencies:
        names |= query_names(sub)
    return names


def refuse_unknown_parameters(request: Request) -> None:
    """A misspelt filter (``?stauts=running``) must not silently list everything, nor a parameter
    given twice pick one of its values: 422."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    known = query_names(route.dependant)
    repeated = sorted({k for k in request.query_params if len(request.query_params.getlist(k)) > 1})
    if repeated:
        raise ApiError(
            m.ErrorCode.INVALID_REQUEST,
            f"query parameter {repeated[0]!r} is given more than once",
            [
                {"loc": ["query", name], "msg": "given more than once", "type": "repeated"}
                for name in repeated
            ],
        )
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        raise ApiError(
            m.ErrorCode.INVALID_REQUEST,
            f"unknown query parameter {unknown[0]!r}; this route takes {', '.join(sorted(known)) or 'none'}",
            [
                {"loc": ["query", name], "msg": "unknown parameter", "type": "extra_forbidden"}
                for name in unknown
            ],
        )
