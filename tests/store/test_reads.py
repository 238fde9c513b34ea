"""The read model (``server.domain.reads``), run against every store: in memory, SQLite, PostgreSQL.

The admin API reads only through it, so what its tests learn on one store must hold on the others:
the same filters select the same matches, in the same order, and the same log projects the same
hands."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from server.domain.ports import Store
from server.domain.reads import AuditEntry, Lineup, MatchQuery, StatusFilter
from server.domain.records import AccountKind, MatchStatus, ResultRecord, SeatRecord
from server.engine import events as ev
from server.eventlog.summary import tiles_json
from tests.store.games import match_record, played
from tests.store.test_conformance import T0, account, match

HASH_EMA = "e" * 64


def _seats(*names: str | None) -> tuple[SeatRecord, ...]:
    """A bot seat for None, else a player's (its account id is ``p-<name>``)."""
    return tuple(
        SeatRecord(i, f"bot{i}", AccountKind.BOT, None, "greedy")
        if n is None
        else SeatRecord(i, n, AccountKind.PLAYER, f"p-{n}")
        for i, n in enumerate(names)
    )


async def _matches(store: Store) -> None:
    specs = [
        ("m-1", _seats(None, None, None, None), "tenhou", MatchStatus.COMPLETED),
        ("m-2", _seats("alice", None, None, None), "tenhou", MatchStatus.ABORTED),
        ("m-3", _seats("alice", "Bob", "Ümit", "dan"), "ema", MatchStatus.COMPLETED),
        ("m-4", _seats("bob", None, "alice", None), "ema", MatchStatus.RUNNING),
        ("m-5", _seats(None, None, None, None), "mahjongsoul", MatchStatus.COMPLETED),
    ]
    for name in ("alice", "Bob", "Ümit", "dan", "bob"):
        await store.create_account(account(f"p-{name}", name))
    for i, (id_, seats, name, status) in enumerate(specs):
        record = replace(
            match(id_),
            seats=seats,
            ruleset_json=json.dumps(
                {"name": name, "red_fives": [1, 1, 1]}, sort_keys=True, separators=(",", ":")
            ),
            ruleset_hash=HASH_EMA if name == "ema" else "a" * 64,
            created_at=T0 + 3600 * (i // 2),  # m-1/m-2 and m-3/m-4 created at the same time
        )
        await store.create_match(record)
        if status is not MatchStatus.RUNNING:
            await store.finish_match(id_, status, T0 + 9000, None)
        if status is MatchStatus.COMPLETED:
            await store.record_result(
                ResultRecord(id_, (40000, 30000, 20000, 10000), (1, 2, 3, 4), (1.0, 0, 0, -1))
            )


def _at(hours: float) -> datetime:
    return datetime.fromtimestamp(T0 + 3600 * hours, UTC)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (MatchQuery(), ["m-5", "m-4", "m-3", "m-2", "m-1"]),  # newest first, then by id
        (MatchQuery(status=StatusFilter.RUNNING), ["m-4"]),
        (MatchQuery(status=StatusFilter.FINISHED), ["m-5", "m-3", "m-2", "m-1"]),
        (MatchQuery(status=StatusFilter.ABORTED), ["m-2"]),
        (MatchQuery(player="alice"), ["m-4", "m-3", "m-2"]),
        (MatchQuery(player="p-dan"), ["m-3"]),
        (MatchQuery(account_id="p-bob"), ["m-4"]),
        (MatchQuery(q="BO"), ["m-5", "m-4", "m-3", "m-2", "m-1"]),  # "bot0" ... and "Bob"
        (MatchQuery(q="bob"), ["m-4", "m-3"]),
        (MatchQuery(q="üMI"), ["m-3"]),
        (MatchQuery(ruleset="ema"), ["m-4", "m-3"]),
        (MatchQuery(ruleset="em"), []),  # the whole name, not part of it
        (MatchQuery(ruleset=HASH_EMA.upper()), ["m-4", "m-3"]),
        (MatchQuery(since=_at(1), until=_at(2)), ["m-4", "m-3"]),
        (MatchQuery(since=_at(1.5)), ["m-5"]),
        (MatchQuery(lineup=Lineup.BOTS), ["m-5", "m-1"]),
        (MatchQuery(lineup=Lineup.HUMANS), ["m-3"]),
        (MatchQuery(lineup=Lineup.MIXED), ["m-4", "m-2"]),
        (MatchQuery(lineup=Lineup.WITH_HUMANS, status=StatusFilter.COMPLETED), ["m-3"]),
        (MatchQuery(lineup=Lineup.WITH_BOTS, limit=2, offset=1), ["m-4", "m-2"]),
        (MatchQuery(player="nobody"), []),
    ],
)
async def test_find_matches(any_store: Store, query: MatchQuery, expected: list[str]) -> None:
    await _matches(any_store)
    page = await any_store.find_matches(query)
    assert [listing.match.id for listing in page.listings] == expected
    everything = await any_store.find_matches(replace(query, limit=100, offset=0))
    assert page.total == len(everything.listings)
    for listing in page.listings:
        assert listing.match == await any_store.get_match(listing.match.id)
        assert listing.result == await any_store.get_result(listing.match.id)


@pytest.mark.asyncio
async def test_hand_results_are_the_logs(any_store: Store) -> None:
    records, events = played()
    await any_store.create_match(match_record("m-game", events))
    for r in records:
        await any_store.append_step(r)
    hands = await any_store.hand_results("m-game")
    starts = [e for e in events if isinstance(e, ev.RoundStarted)]
    walls = [e for e in events if isinstance(e, ev.WallRevealed)]
    won = {e.seat for e in events if isinstance(e, ev.HandWon)}
    assert [h.hand_index for h in hands] == [e.hand_index for e in starts]
    assert [h.wall for h in hands] == [tuple(tiles_json(w.wall)) for w in walls]
    assert [h.scores_before for h in hands] == [e.scores for e in starts]
    assert {w["seat"] for h in hands for w in h.wins} == won
    assert all(h.outcome in ("won", "drawn") and h.end_step is not None for h in hands)
    assert await any_store.hand_results("m-404") == []


@pytest.mark.asyncio
async def test_the_audit_log(any_store: Store) -> None:
    await any_store.create_account(account("p-root", "root"))
    ids = [
        await any_store.record_audit(AuditEntry(T0, "root", "game.read", "p-root", "m-1", {"n": 1})),
        await any_store.record_audit(AuditEntry(T0 + 1, "cli:ops", "games.list", None, None, None)),
        await any_store.record_audit(
            AuditEntry(T0 + 2, "root", "game.export", "p-root", "m-1", {"f": "mjai"})
        ),
    ]
    assert ids == sorted(ids) and len(set(ids)) == 3
    latest = await any_store.audit_entries()
    assert [e.id for e in latest] == ids[::-1]
    assert latest[1] == AuditEntry(T0 + 1, "cli:ops", "games.list", None, None, {}, ids[1])
    assert [e.action for e in await any_store.audit_entries(match_id="m-1")] == ["game.export", "game.read"]
    assert [e.id for e in await any_store.audit_entries(actor_id="p-root", limit=1)] == [ids[2]]


@pytest.mark.asyncio
async def test_find_matches_by_seat_count(any_store: Store) -> None:
    await _matches(any_store)  # four seats each
    three = replace(match("m-sanma"), seats=_seats(None, None, None), created_at=T0 + 3600 * 5)
    await any_store.create_match(three)
    page = await any_store.find_matches(MatchQuery(seats=3))
    assert [listing.match.id for listing in page.listings] == ["m-sanma"] and page.total == 1
    assert page.listings[0].match == await any_store.get_match("m-sanma")
    four = await any_store.find_matches(MatchQuery(seats=4))
    assert [listing.match.id for listing in four.listings] == ["m-5", "m-4", "m-3", "m-2", "m-1"]
