"""Reports and their review (docs/social.md): a player reports a player, or one chat line (at a
table or in a lobby channel), with a reason; the server stores the report with the context it saw
(the lines around the reported one, the channel or match and its step), never what the reporter
claims. An administrator resolves an open report once: ``dismiss`` it, or act on it with a
``chat_ban`` or a ``suspend`` (a sanction given through :class:`~server.services.social.SocialService`,
with its own reason and end: the audit), always with a reason, stored with who resolved it and when.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from server.domain.moderation import LobbyLineRecord, ModerationStore, ReportRecord
from server.services.lobbychat import line_payload
from server.services.social import SocialError, SocialService
from server.social.chat import ChatError, ChatPolicy, check_text
from server.social.moderation import ReportStatus, SanctionKind

MAX_REASON = 500
MAX_OPEN_PER_REPORTER = 20  # open reports one player may have waiting at once
CONTEXT_BEFORE = 10  # lines before a reported line kept as its context ...
CONTEXT_AFTER = 5  # ... and after it (those said by the time of the report)


class Place(StrEnum):
    LOBBY = "lobby"  # a lobby channel's line
    TABLE = "table"  # a table's chat line or stamp
    PLAYER = "player"  # the player, no line


class Action(StrEnum):
    DISMISS = "dismiss"
    CHAT_BAN = "chat_ban"
    SUSPEND = "suspend"


_SANCTION = {Action.CHAT_BAN: SanctionKind.CHAT_BAN, Action.SUSPEND: SanctionKind.SUSPENSION}


@dataclass(frozen=True, slots=True)
class Resolved:
    report: ReportRecord
    sanction_id: int | None


def _reason(text: object, what: str) -> str:
    try:
        return check_text(text, ChatPolicy(max_length=MAX_REASON))
    except ChatError as exc:
        raise SocialError("invalid", f"{what}: {exc}") from None


def context_of(report: ReportRecord) -> dict[str, Any]:
    """The stored context as a JSON object (an empty one if it is not)."""
    try:
        found = json.loads(report.context)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


class Reports:
    """File, list and resolve reports."""

    def __init__(self, social: SocialService, store: ModerationStore, *, now: Callable[[], float]) -> None:
        self.social = social
        self.store = store
        self._now = now

    async def file(
        self,
        reporter_id: str,
        target_id: str,
        reason: object,
        *,
        place: Place,
        context: Mapping[str, Any],
        names: Mapping[str, str] | None = None,
    ) -> ReportRecord:
        """Store a report (``SocialError``: ``invalid`` for oneself or a bad reason, ``limited``
        when the reporter has too many open reports). ``names``: the players' names as the server
        saw them (a guest has no stored account to name it), kept in the context."""
        if reporter_id == target_id:
            raise SocialError("invalid", "you cannot report yourself")
        why = _reason(reason, "the reason")
        waiting = [
            r
            for r in await self.store.reports(status=ReportStatus.OPEN.value)
            if r.reporter_id == reporter_id
        ]
        if len(waiting) >= MAX_OPEN_PER_REPORTER:
            raise SocialError("limited", f"you have {len(waiting)} reports waiting for review; wait for them")
        doc = json.dumps(
            {**context, **({"names": dict(names)} if names else {})},
            separators=(",", ":"),
            ensure_ascii=False,
        )
        record = ReportRecord(0, reporter_id, target_id, place.value, why, doc, self._now())
        return await self.store.add_report(record)

    async def report_lobby_line(
        self,
        reporter_id: str,
        line_id: int,
        reason: object,
        *,
        target_id: str | None = None,
        reporter_name: str | None = None,
    ) -> ReportRecord:
        """Report a lobby line: its sender (``not_found`` if it is not ``target_id``'s), with the
        lines around it as stored now."""
        lines = await self.store.lobby_lines_around(line_id, before=CONTEXT_BEFORE, after=CONTEXT_AFTER)
        target = next((r for r in lines if r.id == line_id), None)
        if target is None or target_id not in (None, target.account_id):
            raise SocialError("not_found", f"no lobby line {line_id} of that player (it may have expired)")
        return await self.file(
            reporter_id,
            target.account_id,
            reason,
            place=Place.LOBBY,
            context={"channel": target.channel, "line_id": line_id, "lines": _lines(lines)},
            names={target.account_id: target.name, **({reporter_id: reporter_name} if reporter_name else {})},
        )

    async def list(self, status: str | None = None) -> list[ReportRecord]:
        if status is not None and status not in {s.value for s in ReportStatus}:
            raise SocialError("invalid", f"no report status {status!r}: open, dismissed or actioned")
        return await self.store.reports(status=status)

    async def get(self, report_id: int) -> ReportRecord:
        found = next((r for r in await self.store.reports() if r.id == report_id), None)
        if found is None:
            raise SocialError("not_found", f"no report {report_id}")
        return found

    async def resolve(
        self, report_id: int, action: str, reason: object, *, by: str, minutes: float | None = None
    ) -> Resolved:
        """Close an open report (``SocialError``: ``not_found``, ``already`` when it is closed,
        ``invalid`` for an unknown action, a missing reason or a bad length; nothing changes then)."""
        try:
            act = Action(action)
        except ValueError:
            raise SocialError("invalid", f"no action {action!r}: dismiss, chat_ban or suspend") from None
        why = _reason(reason, "the resolution's reason")
        report = await self.get(report_id)
        if report.status != ReportStatus.OPEN.value:
            raise SocialError("already", f"report {report_id} is {report.status} already")
        sanction_id = None
        if act is not Action.DISMISS:
            sanction = await self.social.sanction(
                report.target_id, _SANCTION[act], f"report {report_id}: {why}", given_by=by, minutes=minutes
            )
            sanction_id = sanction.id
        status = ReportStatus.DISMISSED if act is Action.DISMISS else ReportStatus.ACTIONED
        done = await self.store.resolve_report(
            report_id, status=status.value, by=by, at=self._now(), resolution=why, sanction_id=sanction_id
        )
        assert done is not None
        return Resolved(done, sanction_id)


def _lines(lines: Sequence[LobbyLineRecord]) -> list[dict[str, Any]]:
    return [line_payload(r) for r in lines]
