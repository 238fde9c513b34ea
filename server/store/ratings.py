"""Ranked play on SQL: :class:`~server.domain.ports.Ratings` and :class:`~server.domain.ports.Credentials`
(the ``SqlRatings`` half of ``SqlRepository``).

Persistence only: whether a match is rated and what its rating is are decided and computed by the
rating service (:mod:`server.services.ratings`). :meth:`SqlRatings.record_result_and_rating`
stores a result and the rating the service computed in one transaction: the accounts' rows are
locked first (``FOR UPDATE`` on PostgreSQL; SQLite has one writer, ``BEGIN IMMEDIATE``), the
``rated_matches`` row is inserted (``match_id`` unique), and the stored standings must still be the
ones the rating was computed from, else :class:`~server.domain.ratingrecords.StaleRatingError` and
nothing is written. So a crash leaves both or neither, a repeated write never rates twice, and two
matches sharing a player cannot lose an update.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Row, bindparam, delete, exists, func, insert, or_, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.domain.errors import ConflictError, NotFoundError
from server.domain.playcounts import PlayCounts
from server.domain.ranked import Board, LeaderboardEntry, RatingChange
from server.domain.ratingrecords import (
    RatedEntry,
    RatingsRewrite,
    RatingsSnapshot,
    RatingSubject,
    RatingWrite,
    StaleRatingError,
)
from server.domain.records import DEFAULT_SCOPES, Account, AccountKind, MatchStatus, ResultRecord
from server.ranking import CURRENT, Length, Standing
from server.ranking.ledger import RatedMatch, StandingKey, start_standing
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


def _ranked() -> ColumnElement[bool]:
    """The sources of matches that may be rated: ranked rooms', and rated events' tables."""
    return or_(MatchRow.source.like("ranked:%"), MatchRow.source.like("event:%:ranked:%"))


_STANDING_COLUMNS = ("rank", "points", "rating", "games", "firsts", "seconds", "thirds", "fourths")


def _standing_row(key: StandingKey, s: Standing) -> dict[str, Any]:
    return {
        "account_id": key[0],
        "board": key[1],
        "length": key[2],
        "rank": s.rank,
        "points": s.points,
        "rating": s.rating,
        "games": s.games,
        "firsts": s.placements[0],
        "seconds": s.placements[1],
        "thirds": s.placements[2],
        "fourths": s.placements[3],
    }


def _change_row(c: RatingChange) -> dict[str, Any]:
    return {
        "match_id": c.match_id,
        "seat": c.seat,
        "seq": c.seq,
        "account_id": c.account_id,
        "board": c.board.value,
        "length": c.length.value,
        "placement": c.placement,
        "rank_before": c.before.rank,
        "points_before": c.before.points,
        "rating_before": c.before.rating,
        "rank_after": c.after.rank,
        "points_after": c.after.points,
        "rating_after": c.after.rating,
        "games_after": c.after.games,
        "table_version": c.table_version,
        "rated_at": from_unix(c.rated_at),
    }


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


def _counts_json(counts: Sequence[PlayCounts]) -> list[list[int]]:
    return [[c.hands, c.riichi, c.calls] for c in counts]


def _counts_of(value: Any) -> tuple[PlayCounts, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(PlayCounts(*(int(x) for x in seat)) for seat in value)


async def _subject(conn: AsyncConnection, match_id: str) -> RatingSubject | None:
    """The rating subject of one match, in one statement (the match, its seats, its result)."""
    rows = (
        await conn.execute(
            select(
                MatchRow.source,
                MatchRow.status,
                exists().where(RatedMatchRow.match_id == MatchRow.id).label("rated"),
                SeatRow.seat,
                SeatRow.account_id,
                MatchResultRow.rank,
            )
            .select_from(MatchRow)
            .outerjoin(SeatRow, SeatRow.match_id == MatchRow.id)
            .outerjoin(
                MatchResultRow,
                (MatchResultRow.match_id == SeatRow.match_id) & (MatchResultRow.seat == SeatRow.seat),
            )
            .where(MatchRow.id == match_id)
            .order_by(SeatRow.seat)
        )
    ).all()
    if not rows:
        return None
    seats = [r for r in rows if r.seat is not None]
    ranks = [r.rank for r in seats]
    return RatingSubject(
        match_id=match_id,
        source=rows[0].source,
        aborted=rows[0].status == MatchStatus.ABORTED.value,
        accounts=tuple(r.account_id for r in seats),
        placements=tuple(ranks) if ranks and None not in ranks else (),
        rated=bool(rows[0].rated),
    )


async def _subjects(conn: AsyncConnection, where: ColumnElement[bool]) -> dict[str, RatingSubject]:
    """The rating subjects of the matches ``where`` selects (three queries, however many)."""
    rated = exists().where(RatedMatchRow.match_id == MatchRow.id).label("rated")
    matches = (
        await conn.execute(select(MatchRow.id, MatchRow.source, MatchRow.status, rated).where(where))
    ).all()
    if not matches:
        return {}
    seats: dict[str, list[str | None]] = {}
    for r in await conn.execute(
        select(SeatRow.match_id, SeatRow.account_id)
        .join(MatchRow)
        .where(where)
        .order_by(SeatRow.match_id, SeatRow.seat)
    ):
        seats.setdefault(r.match_id, []).append(r.account_id)
    ranks: dict[str, list[int]] = {}
    for q in await conn.execute(
        select(MatchResultRow.match_id, MatchResultRow.rank)
        .join(MatchRow)
        .where(where)
        .order_by(MatchResultRow.match_id, MatchResultRow.seat)
    ):
        ranks.setdefault(q.match_id, []).append(q.rank)
    return {
        m.id: RatingSubject(
            match_id=m.id,
            source=m.source,
            aborted=m.status == MatchStatus.ABORTED.value,
            accounts=tuple(seats.get(m.id, ())),
            placements=tuple(ranks.get(m.id, ())),
            rated=bool(m.rated),
        )
        for m in matches
    }


async def _standings_of(conn: AsyncConnection, keys: Iterable[StandingKey]) -> dict[StandingKey, Standing]:
    wanted = set(keys)
    if not wanted:
        return {}
    rows = await conn.execute(select(StandingRow).where(StandingRow.account_id.in_({k[0] for k in wanted})))
    found = {(r.account_id, r.board, r.length): _standing(r) for r in rows}
    return {k: s for k, s in found.items() if k in wanted}


async def _put_standings(
    conn: AsyncConnection, standings: dict[StandingKey, Standing], existed: set[StandingKey]
) -> None:
    fresh = [_standing_row(k, s) for k, s in standings.items() if k not in existed]
    old = [_standing_row(k, s) for k, s in standings.items() if k in existed]
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


async def _insert_rated(
    conn: AsyncConnection, m: RatedMatch, at: float, counts: Sequence[PlayCounts] | None
) -> int:
    seq = (
        await conn.execute(
            insert(RatedMatchRow)
            .values(
                match_id=m.match_id,
                room=m.room,
                board=m.board,
                length=m.length.value,
                table_version=m.table_version,
                rated_at=from_unix(at),
                play_counts=None if counts is None else _counts_json(counts),
            )
            .returning(RatedMatchRow.seq)
        )
    ).scalar_one()
    return int(seq)


async def write_result(conn: AsyncConnection, result: ResultRecord) -> None:
    """Store (or replace) the result rows of a match in the caller's transaction."""
    rows = [
        {"match_id": result.match_id, "seat": seat, "score": score, "rank": rank, "final_points": pts}
        for seat, (score, rank, pts) in enumerate(
            zip(result.scores, result.ranks, result.final_points, strict=True)
        )
    ]
    await conn.execute(delete(MatchResultRow).where(MatchResultRow.match_id == result.match_id))
    if rows:
        await conn.execute(insert(MatchResultRow), rows)


async def write_rating(conn: AsyncConnection, w: RatingWrite) -> None:
    """Store one match's rating in the caller's transaction, after the checks (module docstring)."""
    lock = select(AccountRow.id).where(AccountRow.id.in_(w.accounts))
    if conn.dialect.name == "postgresql":
        lock = lock.with_for_update()
    await conn.execute(lock)
    # The row first: its unique match id refuses a second rating (IntegrityError, which the caller
    # turns into StaleRatingError); a rebuild holds the table (PostgreSQL) until it commits; and the
    # standings are read after it.
    seq = await _insert_rated(conn, w.match, w.rated_at, w.play_counts)
    stored = await _standings_of(conn, w.keys)
    if stored != dict(w.before):
        raise StaleRatingError(f"match {w.match.match_id!r}: a standing changed since it was read")
    await _put_standings(conn, w.after(), set(stored))
    await conn.execute(insert(RatingChangeRow), [_change_row(c) for c in w.records(seq)])


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

    # -- ratings: what the rating service reads and writes -------------------------------------------

    async def rating_subject(self, match_id: str) -> RatingSubject | None:
        async with self.engine.connect() as conn:
            return await _subject(conn, match_id)

    async def stored_standings(self, keys: Sequence[StandingKey]) -> dict[StandingKey, Standing]:
        async with self.engine.connect() as conn:
            return await _standings_of(conn, keys)

    async def unrated_matches(self) -> Sequence[str]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(MatchRow.id)
                .where(_ranked(), MatchRow.status == MatchStatus.COMPLETED.value, _unrated())
                .order_by(MatchRow.ended_at, MatchRow.id)
            )
            return [r.id for r in rows]

    async def ratings_snapshot(self) -> RatingsSnapshot:
        async with write_connection(self.engine, self._gate) as conn:  # one consistent read
            rated = [
                RatedEntry(r.match_id, r.seq, r.table_version, to_unix(r.rated_at), r.play_counts is not None)
                for r in await conn.execute(select(RatedMatchRow).order_by(RatedMatchRow.seq))
            ]
            unrated = [
                r.id
                for r in await conn.execute(
                    select(MatchRow.id)
                    .where(_ranked(), MatchRow.status == MatchStatus.COMPLETED.value, _unrated())
                    .order_by(MatchRow.ended_at, MatchRow.id)
                )
            ]
            rated_ids = select(RatedMatchRow.match_id).scalar_subquery()
            subjects = await _subjects(conn, _ranked() | MatchRow.id.in_(rated_ids))
            changes = [_change(r) for r in await conn.execute(select(RatingChangeRow))]
            standings = {
                (r.account_id, r.board, r.length): _standing(r)
                for r in await conn.execute(select(StandingRow))
            }
        return RatingsSnapshot(tuple(rated), tuple(unrated), subjects, tuple(changes), standings)

    async def replace_ratings(self, rewrite: RatingsRewrite) -> None:
        async with write_connection(self.engine, self._gate) as conn:
            if conn.dialect.name == "postgresql":  # no rating commits while the recomputation is stored
                await conn.execute(text("LOCK TABLE rated_matches IN EXCLUSIVE MODE"))
            seqs = tuple(
                (await conn.execute(select(RatedMatchRow.seq).order_by(RatedMatchRow.seq))).scalars()
            )
            if seqs != rewrite.expected:
                raise StaleRatingError("a match was rated since the ratings were read")
            await conn.execute(delete(RatingChangeRow))
            await conn.execute(delete(StandingRow))
            keep = [e.match_id for e in rewrite.rated if isinstance(e, RatedEntry)]
            await conn.execute(delete(RatedMatchRow).where(RatedMatchRow.match_id.not_in(keep)))
            for e in rewrite.rated:
                counts = rewrite.counts.get(e.match_id)
                if isinstance(e, RatedMatch):
                    await _insert_rated(conn, e, rewrite.at, counts)
                elif counts is not None:
                    await conn.execute(
                        update(RatedMatchRow)
                        .where(RatedMatchRow.match_id == e.match_id)
                        .values(play_counts=_counts_json(counts))
                    )
            by_match = {
                r.match_id: int(r.seq)
                for r in await conn.execute(select(RatedMatchRow.match_id, RatedMatchRow.seq))
            }
            changes = [_change_row(c) for c in rewrite.changes_with(by_match)]
            if changes:
                await conn.execute(insert(RatingChangeRow), changes)
            await _put_standings(conn, dict(rewrite.standings), set())

    # -- ratings: reads ------------------------------------------------------------------------------

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
