"""Game review on the SQL store, without HTTP: what the admin API, the admin pages and
``jantaku admin games`` / ``jantaku export`` all show.

:class:`Review` finds games (filters and a search by player name), builds a game's detail (ranking,
every hand's result, the decisions the server made for human seats: timeouts and disconnects), its
omniscient replay, the verification of every hand's wall against its commitment, and the
tenhou.net/6 / mjai exports.

It does **not** decide who may see what (the API does: :mod:`server.web.api.app`), except for the
one rule no caller may bypass: the hidden information of a live game (status ``running``) is never
served. :meth:`Review.finished_match` raises :class:`GameLiveError` for it, and the replay, the
walls and the exports go through it.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, and_, exists, func, not_, or_, select

from server.domain.records import (
    SERVER_PLAYED_SOURCES,
    AccountKind,
    MatchRecord,
    MatchStatus,
    ResultRecord,
    SeatRecord,
    StepRecord,
)
from server.engine.errors import NotationError, RulesetError
from server.engine.rules import Ruleset
from server.engine.tiles import parse_tile, sorted_tiles
from server.engine.wall import (
    dealt_hands,
    dora_indicator,
    make_salt,
    make_wall,
    seed_commitment,
    verify_wall,
)
from server.records.errors import RecordError
from server.records.export import export_match
from server.store.models import MatchResultRow, MatchRow, SeatRow
from server.store.repository import AuditEntry, HandResult, SqlRepository
from server.web.api import models as m
from server.web.api.events import StoredEventError, events_from_json

T = TypeVar("T")

TENHOU6_VIEWER = "https://tenhou.net/6/"
WINDS = ("East", "South", "West", "North")
MAX_PAGE = 500


class ReviewError(Exception):
    """Base of what review refuses on purpose."""


class GameNotFoundError(ReviewError, LookupError):
    pass


class GameLiveError(ReviewError):
    """The game is still being played: its hidden information is sealed until it ends."""


class NotExportableError(ReviewError):
    """The stored log cannot be written in the requested format."""


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

    status: m.StatusFilter | None = None
    player: str | None = None  # an account id or an exact seat name
    q: str | None = None  # part of a seat name, case-insensitive
    ruleset: str | None = None  # a ruleset name (tenhou, ema, ...) or its sha256 hash
    since: datetime | None = None  # created at or after
    until: datetime | None = None  # created before
    lineup: m.Lineup | None = None
    account_id: str | None = None  # only games where this account had a seat
    limit: int = 50
    offset: int = 0

    def describe(self) -> dict[str, Any]:
        """The filters that are set, as JSON (for the audit log)."""
        out: dict[str, Any] = {}
        for name in ("status", "player", "q", "ruleset", "lineup", "account_id"):
            value = getattr(self, name)
            if value is not None:
                out[name] = str(value)
        for name in ("since", "until"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value.isoformat()
        out["limit"], out["offset"] = self.limit, self.offset
        return out


@dataclass(slots=True)
class _HandScan:
    """What the step log says beyond the hand_results projection."""

    wins: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # hand_index -> hand_won events
    deals: dict[int, dict[str, Any]] = field(default_factory=dict)  # hand_index -> round_started
    hand_at_step: dict[int, int] = field(default_factory=dict)  # step -> current hand_index


def hand_label(round_wind: int, kyoku: int, honba: int) -> str:
    wind = WINDS[round_wind] if 0 <= round_wind < 4 else f"Round {round_wind}"
    label = f"{wind} {kyoku + 1}"
    return f"{label}, {honba} honba" if honba else label


def utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _ruleset_name(ruleset_json: str) -> str:
    try:
        data = json.loads(ruleset_json)
    except ValueError:
        return ""
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else ""


def _is_bot(seat: SeatRecord) -> bool:
    return seat.kind is AccountKind.BOT or seat.bot is not None


def _seat_is_bot() -> ColumnElement[bool]:
    return or_(SeatRow.kind == AccountKind.BOT.value, SeatRow.bot.is_not(None))


def _seat_model(s: SeatRecord) -> m.Seat:
    return m.Seat(
        seat=s.seat, name=s.name, kind=s.kind.value, account_id=s.account_id, bot=s.bot, is_bot=_is_bot(s)
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


def _filter_clauses(f: GameFilters, names_matching: set[str] | None = None) -> list[ColumnElement[bool]]:
    clauses: list[ColumnElement[bool]] = []
    seat_of_match = SeatRow.match_id == MatchRow.id
    if f.status is m.StatusFilter.FINISHED:
        clauses.append(MatchRow.status != MatchStatus.RUNNING.value)
    elif f.status is not None:
        clauses.append(MatchRow.status == f.status.value)
    if f.account_id is not None:
        clauses.append(exists().where(seat_of_match, SeatRow.account_id == f.account_id))
    if f.player is not None:
        clauses.append(
            exists().where(seat_of_match, or_(SeatRow.account_id == f.player, SeatRow.name == f.player))
        )
    if f.q and f.q.isascii():
        # lower() folds ASCII on both databases, so an ASCII search is one SQL condition.
        needle = f.q.lower()
        clauses.append(
            exists().where(seat_of_match, func.lower(SeatRow.name).contains(needle, autoescape=True))
        )
    elif f.q:
        # Beyond ASCII, SQLite's lower() folds nothing: the names are matched here (casefold).
        clauses.append(exists().where(seat_of_match, SeatRow.name.in_(sorted(names_matching or ()))))
    if f.ruleset is not None:
        text = f.ruleset.strip()
        if len(text) == 64 and all(c in "0123456789abcdef" for c in text.lower()):
            clauses.append(MatchRow.ruleset_hash == text.lower())
        else:
            # ruleset_json is canonical (sorted keys, no spaces), so the name is this exact text.
            needle = '"name":' + json.dumps(text)
            clauses.append(MatchRow.ruleset_json.contains(needle, autoescape=True))
    if f.since is not None:
        clauses.append(MatchRow.created_at >= f.since)
    if f.until is not None:
        clauses.append(MatchRow.created_at < f.until)
    if f.lineup is not None:
        has_bot = exists().where(seat_of_match, _seat_is_bot())
        has_human = exists().where(seat_of_match, not_(_seat_is_bot()))
        clauses.append(
            {
                m.Lineup.HUMANS: and_(has_human, not_(has_bot)),
                m.Lineup.BOTS: and_(has_bot, not_(has_human)),
                m.Lineup.MIXED: and_(has_bot, has_human),
                m.Lineup.WITH_BOTS: has_bot,
                m.Lineup.WITH_HUMANS: has_human,
            }[f.lineup]
        )
    return clauses


def _scan(steps: Sequence[StepRecord]) -> _HandScan:
    scan = _HandScan()
    current: int | None = None
    for s in steps:
        for e in s.events:
            if not isinstance(e, Mapping):
                continue
            kind = e.get("type")
            if kind == "round_started" and isinstance(e.get("hand_index"), int):
                current = e["hand_index"]
                scan.deals[current] = dict(e)
            elif kind == "hand_won" and current is not None:
                scan.wins.setdefault(current, []).append(dict(e))
        if current is not None:
            scan.hand_at_step[s.step] = current
    return scan


def _ints(value: Any) -> list[int]:
    return [v for v in value if isinstance(v, int)] if isinstance(value, list | tuple) else []


def _strs(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list | tuple) else []


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _win(data: Mapping[str, Any]) -> m.Win:
    seat = _opt_int(data.get("seat")) or 0
    from_seat = _opt_int(data.get("from_seat"))
    melds = []
    for md in data.get("melds") or ():
        if isinstance(md, Mapping):
            melds.append(
                m.Meld(
                    type=str(md.get("type")),
                    tiles=_strs(md.get("tiles")),
                    called=md.get("called") if isinstance(md.get("called"), str) else None,
                    from_seat=_opt_int(md.get("from_seat")) or 0,
                    added=md.get("added") if isinstance(md.get("added"), str) else None,
                )
            )
    yaku = [
        m.Yaku(name=str(y.get("name")), han=_opt_int(y.get("han")) or 0)
        for y in data.get("yaku") or ()
        if isinstance(y, Mapping)
    ]
    return m.Win(
        seat=seat,
        from_seat=seat if from_seat is None else from_seat,
        tsumo=from_seat is None or from_seat == seat,
        win_tile=data.get("win_tile") if isinstance(data.get("win_tile"), str) else None,
        hand=_strs(data.get("hand")),
        melds=melds,
        yaku=yaku,
        han=_opt_int(data.get("han")) or 0,
        fu=_opt_int(data.get("fu")) or 0,
        points=_opt_int(data.get("points")) or 0,
        limit=str(data.get("limit") or ""),
        yakuman=_opt_int(data.get("yakuman")) or 0,
        pao_seat=_opt_int(data.get("pao_seat")),
        deltas=_ints(data.get("deltas")),
        dora_indicators=_strs(data.get("dora_indicators")),
        ura_indicators=_strs(data.get("ura_indicators")),
    )


def _by_seat(auto: Sequence[m.AutoPlayed], source: str, seats: int, hand_index: int) -> list[int]:
    counts = [0] * seats
    for a in auto:
        if a.hand_index == hand_index and a.source == source and 0 <= a.seat < seats:
            counts[a.seat] += 1
    return counts


def _auto_by_seat(match: MatchRecord, auto: Sequence[m.AutoPlayed]) -> list[m.SeatAutoPlayed]:
    return [
        m.SeatAutoPlayed(
            seat=s.seat,
            name=s.name,
            timeouts=sum(1 for a in auto if a.seat == s.seat and a.source == "timeout"),
            disconnects=sum(1 for a in auto if a.seat == s.seat and a.source == "disconnected"),
            total=sum(1 for a in auto if a.seat == s.seat),
        )
        for s in sorted(match.seats, key=lambda s: s.seat)
    ]


def _hand_model(h: HandResult, scan: _HandScan) -> m.HandResult:
    events = scan.wins.get(h.hand_index)
    # The hand_won events carry the hands and indicators; the projection alone is the fallback.
    source = events if events else [w for w in h.wins if isinstance(w, Mapping)]
    wins = [_win(w) for w in source]
    return m.HandResult(
        hand_index=h.hand_index,
        label=hand_label(h.round_wind, h.kyoku, h.honba),
        round_wind=h.round_wind,
        kyoku=h.kyoku,
        honba=h.honba,
        riichi_sticks=h.riichi_sticks,
        dealer=h.dealer,
        scores_before=list(h.scores_before),
        outcome=h.outcome,
        draw_reason=h.draw_reason,
        wins=wins,
        deltas=None if h.deltas is None else list(h.deltas),
        scores_after=None if h.scores_after is None else list(h.scores_after),
        tenpai=None if h.tenpai is None else list(h.tenpai),
        nagashi=None if h.nagashi is None else list(h.nagashi),
        start_step=h.start_step,
        end_step=h.end_step,
    )


def _auto(match: MatchRecord, step: StepRecord) -> bool:
    """A human seat's decision the server played: its ``source`` says timeout or disconnected; a
    step stored before sources were recorded (null) counts when no client sent it (no request id)."""
    if step.seat is None:
        return False
    if step.source is not None:
        return step.source in SERVER_PLAYED_SOURCES
    if step.request_id is not None:
        return False
    seat = next((s for s in match.seats if s.seat == step.seat), None)
    return seat is not None and not _is_bot(seat)


def _hand_walls(match: MatchRecord, hand: HandResult, deal: Mapping[str, Any] | None) -> m.HandWall:
    label = hand_label(hand.round_wind, hand.kyoku, hand.honba)
    revealed = hand.wall is not None and hand.wall_salt is not None
    commitment_ok: bool | None = None
    from_seed: bool | None = None
    deal_ok: bool | None = None
    if revealed:
        assert hand.wall is not None and hand.wall_salt is not None
        try:
            tiles = tuple(parse_tile(t) for t in hand.wall)
            salt = bytes.fromhex(hand.wall_salt)
        except (NotationError, ValueError):
            tiles, salt = None, None
        if tiles is None or salt is None:
            commitment_ok = False
        else:
            commitment_ok = verify_wall(hand.wall_commitment, salt, tiles)
            if match.seed_hex is not None:
                try:
                    seed = bytes.fromhex(match.seed_hex)
                    red = Ruleset.from_json(match.ruleset_json).red_fives
                    from_seed = (
                        make_salt(seed, hand.hand_index) == salt
                        and make_wall(seed, hand.hand_index, red) == tiles
                    )
                except (ValueError, RulesetError):
                    from_seed = False
            if deal is not None and len(tiles) >= 52:
                deal_ok = _deal_matches(deal, tiles, hand.dealer)
    ok = bool(revealed and commitment_ok and from_seed is not False and deal_ok is not False)
    return m.HandWall(
        hand_index=hand.hand_index,
        label=label,
        commitment=hand.wall_commitment,
        revealed=revealed,
        salt=hand.wall_salt,
        wall=None if hand.wall is None else list(hand.wall),
        commitment_ok=commitment_ok,
        from_seed=from_seed,
        deal_ok=deal_ok,
        ok=ok,
    )


def _deal_matches(deal: Mapping[str, Any], wall: tuple[int, ...], dealer: int) -> bool:
    """The dealt hands and the first dora indicator of ``round_started`` are the wall's."""
    try:
        expected = dealt_hands(wall, dealer)
        hands = deal.get("hands")
        if not isinstance(hands, list | tuple) or len(hands) != 4:
            return False
        for seat, shown in enumerate(hands):
            if not isinstance(shown, list | tuple):
                return False
            if sorted_tiles(parse_tile(t) for t in shown) != sorted_tiles(expected[seat]):
                return False
        indicator = deal.get("dora_indicator")
        return isinstance(indicator, str) and parse_tile(indicator) == dora_indicator(wall, 0)
    except (NotationError, IndexError, TypeError):
        return False


def _seed_ok(match: MatchRecord) -> bool | None:
    if match.seed_hex is None:
        return None
    try:
        return seed_commitment(bytes.fromhex(match.seed_hex)) == match.seed_commitment.lower()
    except ValueError:
        return False


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
    """Read-side of the store for reviewing games; see the module docstring."""

    def __init__(
        self,
        repo: SqlRepository,
        *,
        clock: Callable[[], float] = time.time,
        viewer_base: str = TENHOU6_VIEWER,
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.viewer_base = viewer_base

    # -- finding games -------------------------------------------------------------------------------

    async def list_games(self, f: GameFilters) -> m.GameList:
        names = await self._names_containing(f.q) if f.q and not f.q.isascii() else None
        clauses = _filter_clauses(f, names)
        limit = max(1, min(f.limit, MAX_PAGE))
        offset = max(0, f.offset)
        count_q: Select[Any] = select(func.count()).select_from(MatchRow).where(*clauses)
        page_q = (
            select(MatchRow.id)
            .where(*clauses)
            .order_by(MatchRow.created_at.desc(), MatchRow.id.desc())
            .limit(limit)
            .offset(offset)
        )
        async with self.repo.engine.connect() as conn:
            total = int(await conn.scalar(count_q) or 0)
            ids = list((await conn.execute(page_q)).scalars())
            if not ids:
                return m.GameList(games=[], total=total, limit=limit, offset=offset)
            match_rows = {r.id: r for r in await conn.execute(select(MatchRow).where(MatchRow.id.in_(ids)))}
            seats: dict[str, list[SeatRecord]] = {}
            for r in await conn.execute(
                select(SeatRow).where(SeatRow.match_id.in_(ids)).order_by(SeatRow.match_id, SeatRow.seat)
            ):
                seats.setdefault(r.match_id, []).append(
                    SeatRecord(
                        seat=r.seat, name=r.name, kind=AccountKind(r.kind), account_id=r.account_id, bot=r.bot
                    )
                )
            results: dict[str, list[Any]] = {}
            for rr in await conn.execute(
                select(MatchResultRow)
                .where(MatchResultRow.match_id.in_(ids))
                .order_by(MatchResultRow.match_id, MatchResultRow.seat)
            ):
                results.setdefault(rr.match_id, []).append(rr)
        games = []
        for match_id in ids:
            row = match_rows.get(match_id)
            if row is None:  # deleted between the two queries
                continue
            match = MatchRecord(
                id=row.id,
                ruleset_json=row.ruleset_json,
                ruleset_hash=row.ruleset_hash,
                seed_commitment=row.seed_commitment,
                engine_version=row.engine_version,
                wall_algorithm=row.wall_algorithm,
                seats=tuple(seats.get(match_id, ())),
                status=MatchStatus(row.status),
                created_at=row.created_at.timestamp(),
                ended_at=None if row.ended_at is None else row.ended_at.timestamp(),
                seed_hex=row.seed_hex,
                source=row.source,
                status_reason=row.status_reason,
            )
            res = results.get(match_id)
            result = (
                ResultRecord(
                    match_id=match_id,
                    scores=tuple(r.score for r in res),
                    ranks=tuple(r.rank for r in res),
                    final_points=tuple(r.final_points for r in res),
                )
                if res
                else None
            )
            games.append(summary(match, result))
        return m.GameList(games=games, total=total, limit=limit, offset=offset)

    async def _names_containing(self, text: str) -> set[str]:
        needle = text.casefold()
        async with self.repo.engine.connect() as conn:
            names = (await conn.execute(select(SeatRow.name).distinct())).scalars()
            return {n for n in names if needle in n.casefold()}

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
        return match

    # -- one game ------------------------------------------------------------------------------------

    async def detail(self, match_id: str) -> m.GameDetail:
        """Everything about a game; while it is live only its public header (no hands, no steps)."""
        match = await self.match(match_id)
        head = summary(match, await self.repo.get_result(match_id))
        common = {
            **head.model_dump(),
            "engine_version": match.engine_version,
            "wall_algorithm": match.wall_algorithm,
            "seed_commitment": match.seed_commitment,
        }
        if match.status is MatchStatus.RUNNING:
            return m.GameDetail(**common, seed=None, steps=0, hands=[], auto_played=[], auto_by_seat=[])
        steps = await self.repo.steps(match_id)
        hands = await self.repo.hand_results(match_id)
        scan = _scan(steps)
        names = {s.seat: s.name for s in match.seats}
        auto = [
            m.AutoPlayed(
                step=s.step,
                seat=s.seat,
                name=names.get(s.seat, f"seat {s.seat}"),
                hand_index=scan.hand_at_step.get(s.step),
                applied_at=utc(s.applied_at),
                action=s.action if isinstance(s.action, dict) else None,
                source=s.source,
            )
            for s in steps
            if s.seat is not None and _auto(match, s)
        ]
        seats = len(match.seats)
        hand_models = []
        for h in hands:
            model = _hand_model(h, scan)
            model.timeouts = _by_seat(auto, "timeout", seats, h.hand_index)
            model.disconnects = _by_seat(auto, "disconnected", seats, h.hand_index)
            hand_models.append(model)
        return m.GameDetail(
            **common,
            seed=match.seed_hex,
            steps=len(steps),
            hands=hand_models,
            auto_played=auto,
            auto_by_seat=_auto_by_seat(match, auto),
        )

    async def replay(self, match_id: str) -> m.Replay:
        """Every stored step with its omniscient events: finished games only."""
        match = await self.finished_match(match_id)
        head = summary(match, await self.repo.get_result(match_id))
        steps = await self.repo.steps(match_id)
        return m.Replay(
            game=head,
            steps=[
                m.ReplayStep(
                    step=s.step,
                    seat=s.seat,
                    action=s.action if isinstance(s.action, dict) else None,
                    request_id=s.request_id,
                    auto=_auto(match, s),
                    source=s.source,
                    applied_at=utc(s.applied_at),
                    events=[dict(e) for e in s.events if isinstance(e, Mapping)],
                )
                for s in steps
            ],
        )

    async def walls(self, match_id: str) -> m.WallReport:
        """Each hand's revealed wall against its commitment (and the seed, once revealed)."""
        match = await self.finished_match(match_id)
        hands = await self.repo.hand_results(match_id)
        scan = _scan(await self.repo.steps(match_id))
        report = [_hand_walls(match, h, scan.deals.get(h.hand_index)) for h in hands]
        seed_ok = _seed_ok(match)
        revealed = [h for h in report if h.revealed]
        return m.WallReport(
            game_id=match.id,
            wall_algorithm=match.wall_algorithm,
            seed_commitment=match.seed_commitment,
            seed=match.seed_hex,
            seed_ok=seed_ok,
            hands=report,
            all_ok=seed_ok is not False and bool(revealed) and all(h.ok for h in revealed),
        )

    async def export(self, match_id: str, fmt: m.ExportFormat) -> str:
        """The finished game as tenhou.net/6 JSON or mjai JSON lines (``server.records``)."""
        match = await self.finished_match(match_id)
        steps = await self.repo.steps(match_id)
        try:
            events = events_from_json(e for s in steps for e in s.events)
        except StoredEventError as exc:
            raise NotExportableError(f"game {match_id}: {exc}") from None
        names = [s.name for s in sorted(match.seats, key=lambda s: s.seat)]
        try:
            return export_match(events, fmt.value, names=names if len(names) == 4 else None)
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
