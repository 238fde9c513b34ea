"""Ranked play on SQL: :class:`~server.domain.ports.Ratings` and :class:`~server.domain.ports.Credentials`
(the ``SqlRatings`` half of ``SqlRepository``).

A match is rated by :func:`rate_on` inside the transaction that stores its result
(``SqlRepository.record_result``): the insert into ``rated_matches`` (``match_id`` unique) and the
standings move together with the result, so a crash leaves both or neither, and a repeated
``record_result`` never rates twice. The four accounts' rows are locked first (``FOR UPDATE`` on
PostgreSQL; SQLite has one writer), so two matches sharing a player cannot lose an update.
:meth:`SqlRatings.rate_pending` rates what a failed write left unrated; the fold itself is
:class:`server.ranking.ledger.Ledger`, shared with the rebuild and the in-memory store.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Row, bindparam, delete, exists, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.domain.errors import ConflictError, NotFoundError
from server.domain.playcounts import PlayCounts, play_counts
from server.domain.ranked import (
    Board,
    LeaderboardEntry,
    RatingChange,
    RatingDifference,
    rated_match,
)
from server.domain.records import DEFAULT_SCOPES, Account, AccountKind, MatchStatus
from server.engine import events as ev
from server.eventlog.codec import EventKind, decode_kinds
from server.ranking import CURRENT, Length, SeatChange, Standing, rated_source
from server.ranking.ledger import (
    Ledger,
    RatedMatch,
    StandingKey,
    start_standing,
)
from server.store.db import write_connection
from server.store.models import (
    AccountRow,
    CredentialRow,
    MatchResultRow,
    MatchRow,
    RatedMatchRow,
    RatingChangeRow,
    SeatRow,
    SessionRow,
    StandingRow,
    StepRow,
)
from server.store.types import from_unix, to_unix


def _standing(row: Any) -> Standing:
    return Standing(
        rank=row.rank,
        points=row.points,
        rating=row.rating,
        games=row.games,
        placements=(row.firsts, row.seconds, row.thirds, row.fourths),
    )


def _unrated() -> ColumnElement[bool]:
    return ~exists().where(RatedMatchRow.match_id == MatchRow.id)


_STANDING_COLUMNS = ("rank", "points", "rating", "games", "firsts", "seconds", "thirds", "fourths")


def _standing_values(s: Standing) -> dict[str, Any]:
    return {
        "rank": s.rank,
        "points": s.points,
        "rating": s.rating,
        "games": s.games,
        "firsts": s.placements[0],
        "seconds": s.placements[1],
        "thirds": s.placements[2],
        "fourths": s.placements[3],
    }


def _rateable_source() -> ColumnElement[bool]:
    """The sources of matches that may be rated: ranked rooms', and rated events' tables."""
    return or_(MatchRow.source.like("ranked:%"), MatchRow.source.like("event:%:ranked:%"))


async def _rated_match(
    conn: AsyncConnection, match_id: str, table_version: str, *, unrated_only: bool = False
) -> RatedMatch | None:
    """What ``match_id`` contributes to the ratings, or None if it is not a rated match (or, with
    ``unrated_only``, if it is rated already)."""
    query = select(MatchRow.source, MatchRow.status).where(MatchRow.id == match_id)
    if unrated_only:
        query = query.where(_unrated())
    match = (await conn.execute(query)).first()
    if match is None or match.status == MatchStatus.ABORTED.value or rated_source(match.source) is None:
        return None  # not rateable (rated_match says so too): its seats need not be read
    rows = (
        await conn.execute(
            select(SeatRow.account_id, MatchResultRow.rank)
            .join(
                MatchResultRow,
                (MatchResultRow.match_id == SeatRow.match_id) & (MatchResultRow.seat == SeatRow.seat),
            )
            .where(SeatRow.match_id == match_id)
            .order_by(SeatRow.seat)
        )
    ).all()
    return rated_match(
        match_id,
        source=match.source,
        aborted=match.status == MatchStatus.ABORTED.value,
        accounts=[r.account_id for r in rows],
        placements=[r.rank for r in rows],
        table_version=table_version,
    )


async def _store_changes(
    conn: AsyncConnection,
    m: RatedMatch,
    *,
    seq: int,
    changes: Sequence[SeatChange],
    at: float,
    existed: set[StandingKey],
) -> None:
    keys = Ledger.keys(m)
    rows = [
        {"account_id": k[0], "board": k[1], "length": k[2], **_standing_values(c.after)}
        for k, c in zip(keys, changes, strict=True)
    ]
    fresh = [r for k, r in zip(keys, rows, strict=True) if k not in existed]
    old = [r for k, r in zip(keys, rows, strict=True) if k in existed]
    if fresh:
        await conn.execute(insert(StandingRow), fresh)
    if old:
        await conn.execute(
            update(StandingRow)
            .where(
                StandingRow.account_id == bindparam("b_account"),
                StandingRow.board == bindparam("b_board"),
                StandingRow.length == bindparam("b_length"),
            )
            .values({k: bindparam(k) for k in _STANDING_COLUMNS}),
            [
                {"b_account": r["account_id"], "b_board": r["board"], "b_length": r["length"]}
                | {k: r[k] for k in _STANDING_COLUMNS}
                for r in old
            ],
        )
    await conn.execute(
        insert(RatingChangeRow),
        [
            {
                "match_id": m.match_id,
                "seat": c.seat,
                "seq": seq,
                "account_id": key[0],
                "board": m.board,
                "length": m.length.value,
                "placement": c.placement,
                "rank_before": c.before.rank,
                "points_before": c.before.points,
                "rating_before": c.before.rating,
                "rank_after": c.after.rank,
                "points_after": c.after.points,
                "rating_after": c.after.rating,
                "games_after": c.after.games,
                "table_version": m.table_version,
                "rated_at": from_unix(at),
            }
            for key, c in zip(keys, changes, strict=True)
        ],
    )


_COUNTED = (EventKind.ROUND_STARTED, EventKind.TILE_DISCARDED, EventKind.MELD_CALLED)


async def _count_play(conn: AsyncConnection, match_id: str) -> list[list[int]]:
    """Per seat ``[hands, riichi hands, call hands]`` of ``match_id``, from its step log (read once,
    when the match is rated)."""
    rows = await conn.execute(
        select(StepRow.events, StepRow.format_version)
        .where(StepRow.match_id == match_id)
        .order_by(StepRow.step)
    )
    events = (e for r in rows for e in decode_kinds(r.events, r.format_version, _COUNTED))
    return [[c.hands, c.riichi, c.calls] for c in play_counts(events)]


def _counts_of(value: Any) -> tuple[PlayCounts, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(PlayCounts(*(int(x) for x in seat)) for seat in value)


async def rate_on(conn: AsyncConnection, match_id: str, at: float) -> bool:
    """Rate ``match_id`` in the caller's transaction, once: False if it is not a rated match or is
    rated already."""
    m = await _rated_match(conn, match_id, CURRENT.version, unrated_only=True)
    if m is None:
        return False
    counts = await _count_play(conn, match_id)  # before the accounts' locks: they are held briefly
    accounts = [str(a) for a in m.accounts]
    lock = select(AccountRow.id).where(AccountRow.id.in_(accounts))
    if conn.dialect.name == "postgresql":
        lock = lock.with_for_update()
    await conn.execute(lock)
    rows = await conn.execute(
        select(StandingRow).where(
            StandingRow.account_id.in_(accounts),
            StandingRow.board == m.board,
            StandingRow.length == m.length.value,
        )
    )
    known = {(r.account_id, r.board, r.length): _standing(r) for r in rows}
    changes = Ledger().rate(m, known)
    seq = (
        await conn.execute(
            insert(RatedMatchRow)
            .values(
                match_id=match_id,
                room=m.room,
                board=m.board,
                length=m.length.value,
                table_version=m.table_version,
                rated_at=from_unix(at),
                play_counts=counts,
            )
            .returning(RatedMatchRow.seq)
        )
    ).scalar_one()
    await _store_changes(conn, m, seq=int(seq), changes=changes, at=at, existed=set(known))
    return True


async def _result_from_log(conn: AsyncConnection, match_id: str) -> None:
    """A completed match whose result's write failed: store the result its log ends with (the
    ``match_ended`` event of its last step), so that it can be rated."""
    if (await conn.execute(select(MatchResultRow.seat).where(MatchResultRow.match_id == match_id))).first():
        return
    last = (
        await conn.execute(
            select(StepRow.events, StepRow.format_version)
            .where(StepRow.match_id == match_id)
            .order_by(StepRow.step.desc())
            .limit(1)
        )
    ).first()
    if last is None:
        return
    for end in decode_kinds(last.events, last.format_version, (EventKind.MATCH_ENDED,)):
        assert isinstance(end, ev.MatchEnded)
        rows = [
            {"match_id": match_id, "seat": seat, "score": score, "rank": rank, "final_points": pts}
            for seat, (score, rank, pts) in enumerate(
                zip(end.scores, end.ranks, end.final_points, strict=True)
            )
        ]
        await conn.execute(insert(MatchResultRow), rows)


def _change(row: Row[Any]) -> RatingChange:
    return RatingChange(
        match_id=row.match_id,
        seat=row.seat,
        seq=row.seq,
        account_id=row.account_id,
        board=Board(row.board),
        length=Length(row.length),
        placement=row.placement,
        before=Standing(rank=row.rank_before, points=row.points_before, rating=row.rating_before),
        after=Standing(
            rank=row.rank_after, points=row.points_after, rating=row.rating_after, games=row.games_after
        ),
        table_version=row.table_version,
        rated_at=to_unix(row.rated_at),
    )


def _same(a: Standing, b: Standing) -> bool:
    return (a.rank, a.points, a.games, a.placements) == (
        b.rank,
        b.points,
        b.games,
        b.placements,
    ) and math.isclose(a.rating, b.rating, abs_tol=1e-6)


def compare(
    stored: dict[StandingKey, Standing], recomputed: dict[StandingKey, Standing]
) -> list[RatingDifference]:
    """The standings that differ between what is stored and a recomputation."""
    out = []
    for key in sorted(set(stored) | set(recomputed)):
        a, b = stored.get(key), recomputed.get(key)
        if a is None or b is None or not _same(a, b):
            out.append(RatingDifference("standing", f"{'/'.join(key)}: stored {a}, recomputed {b}"))
    return out


class SqlRatings:
    """The ranked-play half of ``SqlRepository``."""

    engine: AsyncEngine
    _gate: asyncio.Lock | None

    # -- credentials ---------------------------------------------------------------------------------

    async def register_account(self, account: Account, password_hash: str) -> None:
        try:
            async with write_connection(self.engine, self._gate) as conn:
                taken = select(AccountRow.id).where(
                    AccountRow.name == account.name, AccountRow.kind != AccountKind.GUEST.value
                )
                if (await conn.execute(taken)).first():
                    raise ConflictError(f"an account named {account.name!r} exists")
                await conn.execute(
                    insert(AccountRow).values(
                        id=account.id,
                        name=account.name,
                        kind=account.kind.value,
                        scopes=sorted(s.value for s in account.scopes),
                        token_hash=account.token_hash,
                        created_at=from_unix(account.created_at),
                        revoked_at=None,
                    )
                )
                await conn.execute(
                    insert(CredentialRow).values(
                        account_id=account.id,
                        password_hash=password_hash,
                        updated_at=from_unix(account.created_at),
                    )
                )
        except IntegrityError as exc:
            raise ConflictError(f"account {account.name!r}: {exc.orig}") from exc

    async def upgrade_guest(self, account_id: str, name: str, password_hash: str, at: float) -> Account:
        scopes = sorted(s.value for s in DEFAULT_SCOPES[AccountKind.PLAYER])
        try:
            async with write_connection(self.engine, self._gate) as conn:
                row = (await conn.execute(select(AccountRow).where(AccountRow.id == account_id))).first()
                if row is None or row.kind != AccountKind.GUEST.value or row.revoked_at is not None:
                    raise NotFoundError(f"no active guest {account_id!r}")
                taken = select(AccountRow.id).where(
                    AccountRow.name == name, AccountRow.kind != AccountKind.GUEST.value
                )
                if (await conn.execute(taken)).first():
                    raise ConflictError(f"an account named {name!r} exists")
                await conn.execute(
                    update(AccountRow)
                    .where(AccountRow.id == account_id)
                    .values(name=name, kind=AccountKind.PLAYER.value, scopes=scopes)
                )
                await conn.execute(
                    insert(CredentialRow).values(
                        account_id=account_id, password_hash=password_hash, updated_at=from_unix(at)
                    )
                )
        except IntegrityError as exc:
            raise ConflictError(f"account {name!r}: {exc.orig}") from exc
        return Account(
            id=account_id,
            name=name,
            kind=AccountKind.PLAYER,
            scopes=DEFAULT_SCOPES[AccountKind.PLAYER],
            created_at=to_unix(row.created_at),
        )

    async def password_hash(self, account_id: str) -> str | None:
        async with self.engine.connect() as conn:
            value = await conn.scalar(
                select(CredentialRow.password_hash).where(CredentialRow.account_id == account_id)
            )
            return None if value is None else str(value)

    async def delete_session(self, session_id: str) -> None:
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(delete(SessionRow).where(SessionRow.id == session_id))

    async def set_password_hash(self, account_id: str, password_hash: str, at: float) -> None:
        async with write_connection(self.engine, self._gate) as conn:
            result = await conn.execute(
                update(CredentialRow)
                .where(CredentialRow.account_id == account_id)
                .values(password_hash=password_hash, updated_at=from_unix(at))
            )
            if result.rowcount == 0:
                raise NotFoundError(f"account {account_id!r} has no password")
            await conn.execute(delete(SessionRow).where(SessionRow.account_id == account_id))

    # -- ratings -------------------------------------------------------------------------------------

    async def rate_pending(self, at: float) -> int:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(MatchRow.id)
                .where(
                    _rateable_source(),
                    MatchRow.status == MatchStatus.COMPLETED.value,
                    _unrated(),
                )
                .order_by(MatchRow.ended_at, MatchRow.id)
            )
            pending = [r.id for r in rows]
        count = 0
        for match_id in pending:
            async with write_connection(self.engine, self._gate) as conn:
                await _result_from_log(conn, match_id)
                count += await rate_on(conn, match_id, at)
        return count

    async def standing(self, account_id: str, board: Board, length: Length) -> Standing:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(StandingRow).where(
                        StandingRow.account_id == account_id,
                        StandingRow.board == board.value,
                        StandingRow.length == length.value,
                    )
                )
            ).first()
        return start_standing(CURRENT.version) if row is None else _standing(row)

    async def leaderboard(
        self, board: Board, length: Length, *, limit: int = 50, offset: int = 0
    ) -> tuple[Sequence[LeaderboardEntry], int]:
        where = (StandingRow.board == board.value, StandingRow.length == length.value)
        async with self.engine.connect() as conn:
            total = int(await conn.scalar(select(func.count()).select_from(StandingRow).where(*where)) or 0)
            # The page's account ids first (an index-only scan of the board's order, however deep the
            # offset), then their rows and names.
            order = (
                StandingRow.rank.desc(),
                StandingRow.points.desc(),
                StandingRow.rating.desc(),
                StandingRow.account_id.desc(),
            )
            page = select(StandingRow.account_id).where(*where).order_by(*order).limit(limit).offset(offset)
            ids = list((await conn.execute(page)).scalars())
            rows = await conn.execute(
                select(StandingRow, AccountRow.name)
                .join(AccountRow, AccountRow.id == StandingRow.account_id)
                .where(*where, StandingRow.account_id.in_(ids))
                .order_by(*order)
            )
            entries = [
                LeaderboardEntry(offset + i + 1, r.account_id, r.name, _standing(r))
                for i, r in enumerate(rows)
            ]
        return entries, total

    async def rating_history(
        self, account_id: str, board: Board, length: Length, *, limit: int = 200
    ) -> Sequence[RatingChange]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(RatingChangeRow)
                .where(
                    RatingChangeRow.account_id == account_id,
                    RatingChangeRow.board == board.value,
                    RatingChangeRow.length == length.value,
                )
                .order_by(RatingChangeRow.seq.desc())
                .limit(limit)
            )
            return [_change(r) for r in reversed(rows.all())]

    async def play_counts(self, match_ids: Sequence[str]) -> dict[str, tuple[PlayCounts, ...]]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(RatedMatchRow.match_id, RatedMatchRow.play_counts).where(
                    RatedMatchRow.match_id.in_(list(match_ids))
                )
            )
            out = {r.match_id: _counts_of(r.play_counts) for r in rows}
        return {k: v for k, v in out.items() if v is not None}

    async def rebuild_ratings(self, *, check: bool, at: float) -> Sequence[RatingDifference]:
        async with write_connection(self.engine, self._gate) as conn:
            rated = (await conn.execute(select(RatedMatchRow).order_by(RatedMatchRow.seq))).all()
            unrated = (
                await conn.execute(
                    select(MatchRow.id)
                    .where(
                        _rateable_source(),
                        MatchRow.status == MatchStatus.COMPLETED.value,
                        _unrated(),
                    )
                    .order_by(MatchRow.ended_at, MatchRow.id)
                )
            ).all()
            ledger, diffs = Ledger(), []
            stored_changes = {
                (r.match_id, r.seat): _change(r) for r in await conn.execute(select(RatingChangeRow))
            }
            recomputed: list[tuple[RatedMatch, int | None, tuple[SeatChange, ...]]] = []
            for r in rated:
                m = await _rated_match(conn, r.match_id, r.table_version)
                if m is None:
                    diffs.append(
                        RatingDifference("orphan", f"{r.match_id}: rated, but its result does not rate")
                    )
                    continue
                changes = ledger.rate(m)
                recomputed.append((m, r.seq, changes))
                diffs.extend(_change_diffs(m, changes, stored_changes))
            for u in unrated:
                m = await _rated_match(conn, u.id, CURRENT.version)
                if m is not None:
                    diffs.append(RatingDifference("unrated", f"{u.id}: completed and ranked, but not rated"))
                    recomputed.append((m, None, ledger.rate(m)))
            stored = {
                (r.account_id, r.board, r.length): _standing(r)
                for r in await conn.execute(select(StandingRow))
            }
            diffs.extend(compare(stored, ledger.standings))
            uncounted = await _uncounted(conn)
            diffs.extend(RatingDifference("play_counts", f"{m}: no riichi or call counts") for m in uncounted)
            if not check and diffs:
                await _rewrite(conn, recomputed, at)
                for mid in uncounted:  # rated before the counts were kept: count them now
                    await conn.execute(
                        update(RatedMatchRow)
                        .where(RatedMatchRow.match_id == mid)
                        .values(play_counts=await _count_play(conn, mid))
                    )
        return diffs


async def _uncounted(conn: AsyncConnection) -> list[str]:
    rows = await conn.execute(select(RatedMatchRow.match_id).where(RatedMatchRow.play_counts.is_(None)))
    return sorted(str(r) for r in rows.scalars())


def _change_diffs(
    m: RatedMatch, changes: Iterable[SeatChange], stored: dict[tuple[str, int], RatingChange]
) -> list[RatingDifference]:
    out = []
    for c in changes:
        s = stored.get((m.match_id, c.seat))
        if (
            s is None
            or s.placement != c.placement
            or (s.after.rank, s.after.points, s.after.games) != (c.after.rank, c.after.points, c.after.games)
            or not math.isclose(s.after.rating, c.after.rating, abs_tol=1e-6)
        ):
            out.append(RatingDifference("change", f"{m.match_id} seat {c.seat}: stored {s}, recomputed {c}"))
    return out


async def _rewrite(
    conn: AsyncConnection,
    recomputed: Sequence[tuple[RatedMatch, int | None, tuple[SeatChange, ...]]],
    at: float,
) -> None:
    await conn.execute(delete(RatingChangeRow))
    await conn.execute(delete(StandingRow))
    for m, seq, _ in recomputed:
        if seq is None:
            await conn.execute(
                insert(RatedMatchRow).values(
                    match_id=m.match_id,
                    room=m.room,
                    board=m.board,
                    length=m.length.value,
                    table_version=m.table_version,
                    rated_at=from_unix(at),
                    play_counts=await _count_play(conn, m.match_id),
                )
            )
    seqs = {r.match_id: r.seq for r in await conn.execute(select(RatedMatchRow.match_id, RatedMatchRow.seq))}
    known: set[StandingKey] = set()
    for m, _, changes in recomputed:
        await _store_changes(conn, m, seq=seqs[m.match_id], changes=changes, at=at, existed=known)
        known.update(Ledger.keys(m))
