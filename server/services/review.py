"""Game review and player history on the store's read side, without HTTP: what the admin API, the
admin pages, the players' own games and ``jantaku admin games`` / ``jantaku export`` all show.

:class:`Review` finds games (filters and a search by player name), builds a game's detail (ranking,
every hand's result, the decisions the server made for human seats: timeouts and disconnects), its
omniscient replay, the verification of every hand's wall against its commitment, and the
tenhou.net/6 / mjai exports. It reads through :class:`~server.domain.ports.Store` (the SQL store or
the in-memory one, alike) and decodes stored events through the event log's codec
(:mod:`server.eventlog.codec`); it runs no SQL and reads no event's fields by name.

It returns its own result types (:mod:`server.services.reviewtypes`): the web package turns them
into its pydantic models, the command line into text or JSON.

Two rules no caller may bypass are decided here. The hidden information of a live game (status
``running``) is never served: :meth:`Review.finished_match` raises :class:`GameLiveError` for it,
and the replay, the walls and the exports go through it. And who may read a finished game's log
(:meth:`Review.reader_access`, ``docs/ranking.md`` "Who may read a game's log"): its players and
admins always; anyone at all when its table allowed spectators (as Tenhou publishes its logs: a
game anyone could watch live is public once over); nobody else. The API checks the tokens and
which routes need the admin scope (:mod:`server.web.api.app`).
"""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

from server.domain.ports import Store
from server.domain.reads import AuditEntry, Lineup, MatchQuery, StatusFilter, is_bot
from server.domain.records import MatchRecord, MatchStatus, ResultRecord, SeatRecord
from server.engine.rules import Ruleset
from server.eventlog.codec import StoredEventError, log_events, wire_json
from server.records.errors import RecordError
from server.records.export import export_match
from server.services import reviewtypes as m
from server.services.gamelog import (
    auto_by_seat,
    count_by_seat,
    hand_label,
    hand_model,
    scan,
    server_played,
    spectators_allowed,
)
from server.services.walls import hand_walls, seed_ok

__all__ = [
    "EXPORT_MEDIA_TYPES",
    "EXPORT_SUFFIX",
    "MAX_PAGE",
    "TENHOU6_VIEWER",
    "Access",
    "GameFilters",
    "GameLiveError",
    "GameNotFoundError",
    "NotExportableError",
    "Review",
    "ReviewError",
    "hand_label",
    "outcome_of",
    "summary",
    "utc",
    "viewer_links",
]

T = TypeVar("T")

TENHOU6_VIEWER = "https://tenhou.net/6/"
MAX_PAGE = 500


class ReviewError(Exception):
    """Base of what review refuses on purpose."""


class GameNotFoundError(ReviewError, LookupError):
    pass


class GameLiveError(ReviewError):
    """The game is still being played: its hidden information is sealed until it ends."""


class NotExportableError(ReviewError):
    """The stored log cannot be written in the requested format."""


class Access(StrEnum):
    """Why a reader may read a finished game's log (:meth:`Review.reader_access`)."""

    ADMIN = "admin"
    PLAYER = "player"  # the reader's account sat at it
    PUBLIC = "public"  # its table allowed spectators: anyone with its link


def outcome_of(exc: BaseException | None) -> str:
    """The ``outcome`` an audit entry records for a read that raised ``exc`` (None: it succeeded)."""
    if exc is None:
        return "ok"
    if isinstance(exc, GameNotFoundError):
        return "not_found"
    if isinstance(exc, GameLiveError):
        return "refused_live"
    if isinstance(exc, NotExportableError):
        return "not_exportable"
    return "error"


@dataclass(frozen=True, slots=True)
class GameFilters:
    """What ``list_games`` selects; every field None means "any"."""

    status: StatusFilter | None = None
    player: str | None = None  # an account id or an exact seat name
    q: str | None = None  # part of a seat name, case-insensitive
    ruleset: str | None = None  # a ruleset name (tenhou, ema, ...) or its sha256 hash
    since: datetime | None = None  # created at or after
    until: datetime | None = None  # created before
    lineup: Lineup | None = None
    account_id: str | None = None  # only games where this account had a seat
    seats: int | None = None  # 3 or 4: only games of that many seats
    limit: int = 50
    offset: int = 0

    def describe(self) -> dict[str, Any]:
        """The filters that are set, as JSON (for the audit log)."""
        out: dict[str, Any] = {}
        for name in ("status", "player", "q", "ruleset", "lineup", "account_id", "seats"):
            value = getattr(self, name)
            if value is not None:
                out[name] = str(value)
        for name in ("since", "until"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value.isoformat()
        out["limit"], out["offset"] = self.limit, self.offset
        return out

    def query(self) -> MatchQuery:
        """The read model's query for these filters (the page clamped to 1..MAX_PAGE games)."""
        return MatchQuery(
            status=self.status,
            player=self.player,
            q=self.q,
            ruleset=self.ruleset,
            since=self.since,
            until=self.until,
            lineup=self.lineup,
            account_id=self.account_id,
            seats=self.seats,
            limit=max(1, min(self.limit, MAX_PAGE)),
            offset=max(0, self.offset),
        )


def utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _ruleset_name(ruleset_json: str) -> str:
    try:
        data = json.loads(ruleset_json)
    except ValueError:
        return ""
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else ""


def _seat_model(s: SeatRecord) -> m.Seat:
    return m.Seat(
        seat=s.seat, name=s.name, kind=s.kind.value, account_id=s.account_id, bot=s.bot, is_bot=is_bot(s)
    )


def _standings(match: MatchRecord, result: ResultRecord | None) -> list[m.Standing]:
    if result is None:
        return []
    names = {s.seat: s.name for s in match.seats}
    rows = [
        m.Standing(rank=rank, seat=seat, name=names.get(seat, f"seat {seat}"), score=score, final_points=pts)
        for seat, (score, rank, pts) in enumerate(
            zip(result.scores, result.ranks, result.final_points, strict=True)
        )
    ]
    return sorted(rows, key=lambda r: (r.rank, r.seat))


def summary(match: MatchRecord, result: ResultRecord | None) -> m.GameSummary:
    return m.GameSummary(
        id=match.id,
        status=m.GameStatus(match.status.value),
        live=match.status is MatchStatus.RUNNING,
        ruleset=_ruleset_name(match.ruleset_json),
        ruleset_hash=match.ruleset_hash,
        source=match.source,
        created_at=utc(match.created_at),
        ended_at=None if match.ended_at is None else utc(match.ended_at),
        status_reason=match.status_reason,
        seats=[_seat_model(s) for s in sorted(match.seats, key=lambda s: s.seat)],
        standings=[] if match.status is MatchStatus.RUNNING else _standings(match, result),
    )


def viewer_links(game_id: str, tenhou6: str, base: str = TENHOU6_VIEWER) -> m.ViewerLinks:
    """One tenhou.net/6 viewer URL per hand: ``<base>#json=<the document with that hand only>``.

    The viewer reads the document from the URL fragment (never sent to any server); one hand per
    link keeps URLs short enough for every browser."""
    doc = json.loads(tenhou6)
    common = {k: v for k, v in doc.items() if k not in ("log", "ruleset")}
    links = []
    for i, hand in enumerate(doc.get("log") or []):
        one = {**common, "log": [hand]}
        text = json.dumps(one, ensure_ascii=False, separators=(",", ":"))
        head = hand[0] if hand and isinstance(hand[0], list) and len(hand[0]) >= 2 else [0, 0]
        kyoku_index, honba = int(head[0]), int(head[1])
        label = hand_label(kyoku_index // 4, kyoku_index % 4, honba)
        links.append(m.ViewerLink(hand_index=i, label=label, url=f"{base}#json={urllib.parse.quote(text)}"))
    return m.ViewerLinks(game_id=game_id, links=links)


EXPORT_MEDIA_TYPES: dict[m.ExportFormat, str] = {
    m.ExportFormat.TENHOU6: "application/json",
    m.ExportFormat.MJAI: "application/x-ndjson",
}
EXPORT_SUFFIX: dict[m.ExportFormat, str] = {m.ExportFormat.TENHOU6: ".json", m.ExportFormat.MJAI: ".jsonl"}


class Review:
    """The read side of the store, for reviewing games; see the module docstring."""

    def __init__(
        self,
        repo: Store,
        *,
        clock: Callable[[], float] = time.time,
        viewer_base: str = TENHOU6_VIEWER,
        sealed: Callable[[MatchRecord], Awaitable[bool]] | None = None,
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.viewer_base = viewer_base
        # A finished game whose walls others may still be playing (a tournament's duplicate walls,
        # until its round ends) is sealed as a live one is (server.services.eventrules.sealed_games).
        self._sealed = sealed

    async def _hidden(self, match: MatchRecord) -> bool:
        if match.status is MatchStatus.RUNNING:
            return True
        return self._sealed is not None and await self._sealed(match)

    # -- finding games -------------------------------------------------------------------------------

    async def list_games(self, f: GameFilters) -> m.GameList:
        query = f.query()
        page = await self.repo.find_matches(query)
        return m.GameList(
            games=[summary(listing.match, listing.result) for listing in page.listings],
            total=page.total,
            limit=query.limit,
            offset=query.offset,
        )

    async def match(self, match_id: str) -> MatchRecord:
        match = await self.repo.get_match(match_id)
        if match is None:
            raise GameNotFoundError(f"no game {match_id!r}")
        return match

    async def finished_match(self, match_id: str) -> MatchRecord:
        """The match, if it is over (completed or aborted); GameLiveError while it is played."""
        match = await self.match(match_id)
        if match.status is MatchStatus.RUNNING:
            raise GameLiveError(
                f"game {match_id} is still being played; its hands and walls are sealed until it ends"
            )
        if await self._hidden(match):
            raise GameLiveError(
                f"game {match_id} shares its walls with tables of its event still playing; its hands "
                "and walls are sealed until the round ends"
            )
        return match

    async def reader_access(self, match_id: str, *, account_id: str | None, admin: bool = False) -> Access:
        """Why this reader (an account, or None for anyone without one) may read the finished game's
        log; GameNotFoundError otherwise, the same answer for a game that does not exist, is still
        being played (spectators watch it live, with the delay) or is private (its table refused
        spectators), so that a refusal says nothing about the game."""
        try:
            match = await self.finished_match(match_id)
        except (GameNotFoundError, GameLiveError):
            raise GameNotFoundError(f"no finished game {match_id!r} that you may see") from None
        if admin:
            return Access.ADMIN
        if account_id is not None and any(s.account_id == account_id for s in match.seats):
            return Access.PLAYER
        # The recovery record holds the seed too, but that is revealed once the match is over.
        recovery = await self.repo.recovery_record(match_id)
        if recovery is not None and spectators_allowed(recovery.table):
            return Access.PUBLIC
        raise GameNotFoundError(f"no finished game {match_id!r} that you may see")

    # -- one game ------------------------------------------------------------------------------------

    async def detail(self, match_id: str) -> m.GameDetail:
        """Everything about a game; while it is live only its public header (no hands, no steps)."""
        match = await self.match(match_id)
        head = summary(match, await self.repo.get_result(match_id))
        common = {
            **{f.name: getattr(head, f.name) for f in fields(m.GameSummary)},
            "engine_version": match.engine_version,
            "wall_algorithm": match.wall_algorithm,
            "seed_commitment": match.seed_commitment,
        }
        if await self._hidden(match):
            return m.GameDetail(**common, seed=None, steps=0, hands=[], auto_played=[], auto_by_seat=[])
        steps = await self.repo.steps(match_id)
        hands = await self.repo.hand_results(match_id)
        log = scan(steps)
        names = {s.seat: s.name for s in match.seats}
        auto = [
            m.AutoPlayed(
                step=s.step,
                seat=s.seat,
                name=names.get(s.seat, f"seat {s.seat}"),
                hand_index=log.hand_at_step.get(s.step),
                applied_at=utc(s.applied_at),
                action=s.action if isinstance(s.action, dict) else None,
                source=s.source,
            )
            for s in steps
            if s.seat is not None and server_played(match, s)
        ]
        seats = len(match.seats)
        hand_models = []
        for h in hands:
            model = hand_model(h, log)
            model.timeouts = count_by_seat(auto, "timeout", seats, h.hand_index)
            model.disconnects = count_by_seat(auto, "disconnected", seats, h.hand_index)
            hand_models.append(model)
        return m.GameDetail(
            **common,
            seed=match.seed_hex,
            steps=len(steps),
            hands=hand_models,
            auto_played=auto,
            auto_by_seat=auto_by_seat(match, auto),
        )

    async def replay(self, match_id: str) -> m.Replay:
        """Every stored step with its omniscient events: finished games only."""
        match = await self.finished_match(match_id)
        head = summary(match, await self.repo.get_result(match_id))
        steps = await self.repo.steps(match_id)
        try:
            replayed = [
                m.ReplayStep(
                    step=s.step,
                    seat=s.seat,
                    action=s.action if isinstance(s.action, dict) else None,
                    request_id=s.request_id,
                    auto=server_played(match, s),
                    source=s.source,
                    applied_at=utc(s.applied_at),
                    events=[e for data in s.events if (e := wire_json(data, s.format_version)) is not None],
                )
                for s in steps
            ]
        except StoredEventError as exc:  # a step in a format this server cannot read
            raise NotExportableError(f"game {match_id}: {exc}") from None
        return m.Replay(game=head, steps=replayed)

    async def walls(self, match_id: str) -> m.WallReport:
        """Each hand's revealed wall against its commitment (and the seed, once revealed)."""
        match = await self.finished_match(match_id)
        hands = await self.repo.hand_results(match_id)
        log = scan(await self.repo.steps(match_id))
        report = [hand_walls(match, h, log.deals.get(h.hand_index)) for h in hands]
        seed_is_ok = seed_ok(match)
        revealed = [h for h in report if h.revealed]
        return m.WallReport(
            game_id=match.id,
            wall_algorithm=match.wall_algorithm,
            seed_commitment=match.seed_commitment,
            seed=match.seed_hex,
            seed_ok=seed_is_ok,
            hands=report,
            all_ok=seed_is_ok is not False and bool(revealed) and all(h.ok for h in revealed),
        )

    async def export(self, match_id: str, fmt: m.ExportFormat) -> str:
        """The finished game as tenhou.net/6 JSON or mjai JSON lines (``server.records``)."""
        match = await self.finished_match(match_id)
        steps = await self.repo.steps(match_id)
        try:
            events = log_events(steps)
        except StoredEventError as exc:
            raise NotExportableError(f"game {match_id}: {exc}") from None
        names = [s.name for s in sorted(match.seats, key=lambda s: s.seat)]
        try:
            seats = Ruleset.from_json(match.ruleset_json).seats  # one name per seat: three or four
            return export_match(events, fmt.value, names=names if len(names) == seats else None)
        except (RecordError, ValueError) as exc:
            raise NotExportableError(f"game {match_id} cannot be written as {fmt.value}: {exc}") from None

    async def viewer_links(self, match_id: str) -> m.ViewerLinks:
        return viewer_links(match_id, await self.export(match_id, m.ExportFormat.TENHOU6), self.viewer_base)

    # -- the audit log -------------------------------------------------------------------------------

    async def audit(
        self,
        *,
        actor: str,
        actor_id: str | None,
        action: str,
        match_id: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> int:
        return await self.repo.record_audit(
            AuditEntry(
                at=self.clock(),
                actor=actor[:64],
                actor_id=actor_id,
                action=action,
                match_id=match_id,
                detail=dict(detail or {}),
            )
        )

    async def audited(
        self,
        read: Callable[[], Awaitable[T]],
        *,
        actor: str,
        actor_id: str | None,
        action: str,
        match_id: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> T:
        """Run ``read`` and write its audit entry, with the outcome, before anything is returned: if
        the entry cannot be written the read fails (the API and ``jantaku admin games`` both use
        this)."""
        outcome = "error"
        try:
            result = await read()
            outcome = outcome_of(None)
            return result
        except ReviewError as exc:
            outcome = outcome_of(exc)
            raise
        finally:
            await self.audit(
                actor=actor,
                actor_id=actor_id,
                action=action,
                match_id=match_id,
                detail={**(detail or {}), "outcome": outcome},
            )

    async def audit_log(
        self, *, match_id: str | None = None, actor_id: str | None = None, limit: int = 100
    ) -> m.AuditList:
        entries = await self.repo.audit_entries(match_id=match_id, actor_id=actor_id, limit=limit)
        return m.AuditList(
            entries=[
                m.AuditEntry(
                    id=e.id,
                    at=utc(e.at),
                    actor=e.actor,
                    actor_id=e.actor_id,
                    action=e.action,
                    match_id=e.match_id,
                    detail=e.detail,
                )
                for e in entries
            ]
        )
