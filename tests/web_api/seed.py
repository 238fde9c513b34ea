"""Test data for the review API: accounts and games written the way the hub writes them.

Bots play whole (east-only) matches in-process (``server.bots.selfplay``); every step is stored
as the hub stores it (``action_to_dict``, omniscient wire events), with the seats, the final result
and the revealed seed. One match is left running (live) and one aborted in the middle of a hand.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from typing import Any

from server.bots.selfplay import Step, play
from server.domain.ports import Store
from server.domain.records import (
    DEFAULT_SCOPES,
    Account,
    AccountKind,
    MatchRecord,
    MatchStatus,
    RecoveryRecord,
    ResultRecord,
    SeatRecord,
    StepRecord,
)
from server.engine import events as ev
from server.engine.actions import action_to_dict
from server.engine.rules import Ruleset, preset
from server.eventlog.codec import encode_event as event_json
from server.services.admins import create_admin
from server.services.auth import Authenticator
from server.services.ratings import RatingService

T0 = 1_700_000_000.0  # 2023-11-14T22:13:20Z
HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class Played:
    records: tuple[StepRecord, ...]
    events: tuple[ev.Event, ...]
    seed: bytes
    ruleset: Ruleset


@dataclass(slots=True)
class Seeded:
    """What the tests know about the seeded database."""

    tokens: dict[str, str] = field(default_factory=dict)  # role -> token
    accounts: dict[str, Account] = field(default_factory=dict)  # role -> account
    games: dict[str, str] = field(default_factory=dict)  # label -> match id
    events: dict[str, tuple[ev.Event, ...]] = field(default_factory=dict)  # match id -> engine events
    names: dict[str, list[str]] = field(default_factory=dict)  # match id -> seat names
    live_seed_hex: str = ""  # the secret seed of the live match: must never be served


def play_match(
    match_id: str,
    ruleset: Ruleset,
    seed: bytes,
    *,
    created_at: float,
    human_seats: frozenset[int] = frozenset(),
    sources: bool = True,
) -> Played:
    """A whole match of greedy bots as step records; every 7th decision of a human seat has no
    request id (the server played it: alternately a timeout and a disconnect, by ``source``).
    ``sources=False`` stores no ``source`` (rows written before the server recorded it)."""
    records: list[StepRecord] = []
    events: list[ev.Event] = []
    for item in play(ruleset, seed, ["greedy"] * 4):
        n = len(records)
        if isinstance(item, Step):
            t, seat, action = item.transition, item.seat, action_to_dict(item.action)
            request_id: int | None = n if seat in human_seats and n % 7 else None
            source: str | None = (
                "bot"
                if seat not in human_seats
                else "player"
                if request_id is not None
                else ("timeout", "disconnected")[(n // 7) % 2]
            )
        else:
            t, seat, action, request_id, source = item, None, None, None, None
        events.extend(t.events)
        records.append(
            StepRecord(
                match_id=match_id,
                step=n,
                seat=seat,
                action=action,
                events=tuple(event_json(e) for e in t.events),
                request_id=request_id,
                applied_at=created_at + n * 0.5,
                source=source if sources else None,
            )
        )
    return Played(tuple(records), tuple(events), seed, ruleset)


def match_record(
    match_id: str, played: Played, seats: list[SeatRecord], *, created_at: float, source: str
) -> MatchRecord:
    started = played.events[0]
    assert isinstance(started, ev.MatchStarted)
    return MatchRecord(
        id=match_id,
        ruleset_json=started.ruleset_json,
        ruleset_hash=started.ruleset_hash,
        seed_commitment=started.seed_commitment,
        engine_version=started.engine_version,
        wall_algorithm=started.wall_algorithm,
        seats=tuple(seats),
        status=MatchStatus.RUNNING,
        created_at=created_at,
        source=source,
    )


def _account_seat(seat: int, account: Account) -> SeatRecord:
    return SeatRecord(seat=seat, name=account.name, kind=account.kind, account_id=account.id)


def _builtin(seat: int) -> SeatRecord:
    return SeatRecord(seat=seat, name=f"greedy-{seat}", kind=AccountKind.BOT, account_id=None, bot="greedy")


async def store_game(
    repo: Store,
    s: Seeded,
    label: str,
    played: Played,
    seats: list[SeatRecord],
    *,
    created_at: float,
    steps: int | None = None,
    status: MatchStatus = MatchStatus.COMPLETED,
    spectators: bool | None = None,  # the table's spectate.allowed; None: stored without settings
) -> str:
    match_id = f"m-{label}"
    table = (
        None
        if spectators is None
        else {"spectate": {"delay_steps": 0, "delay_s": 5.0, "allowed": spectators}}
    )
    record = match_record(
        match_id, played, seats, created_at=created_at, source=f"queue:{played.ruleset.name}"
    )
    await repo.create_match(
        record, RecoveryRecord(match_id=match_id, seed_hex=played.seed.hex(), table=table)
    )
    records = played.records if steps is None else played.records[:steps]
    # Queued together, the steps are group-committed in a few transactions (in order).
    await asyncio.gather(*(repo.append_step(r) for r in records))
    ended_at = records[-1].applied_at + 1.0
    if status is MatchStatus.COMPLETED:
        last = played.events[-1]
        assert isinstance(last, ev.MatchEnded)
        await RatingService(repo).record_result(
            ResultRecord(match_id, last.scores, last.ranks, last.final_points)
        )
        await repo.finish_match(match_id, status, ended_at, played.seed.hex())
    elif status is MatchStatus.ABORTED:
        await repo.finish_match(match_id, status, ended_at, None, "table failed")
    s.games[label] = match_id
    s.names[match_id] = [seat.name for seat in seats]
    s.events[match_id] = (
        played.events if steps is None else tuple(e for r in records for e in _engine(played, r))
    )
    return match_id


def _engine(played: Played, record: StepRecord) -> list[ev.Event]:
    """The engine events of one stored step (by position in the played log)."""
    start = sum(len(r.events) for r in played.records[: record.step])
    return list(played.events[start : start + len(record.events)])


async def seed_database(repo: Store) -> Seeded:
    s = Seeded()
    auth = Authenticator(repo, session_ttl_s=3600)
    for role, kind in (("alice", AccountKind.PLAYER), ("bob", AccountKind.PLAYER), ("robo", AccountKind.BOT)):
        account, token = await auth.create_account(role, kind)
        s.accounts[role], s.tokens[role] = account, token
    for role in ("carol", "mallory"):  # carol never played; mallory is revoked
        account, token = await auth.create_account(role, AccountKind.PLAYER)
        s.accounts[role], s.tokens[role] = account, token
    admin, token = await create_admin(repo, "root")
    s.accounts["admin"], s.tokens["admin"] = admin, token
    ex_admin, token = await create_admin(repo, "ex-root")
    s.accounts["ex_admin"], s.tokens["ex_admin"] = ex_admin, token
    await auth.revoke("mallory")
    await auth.revoke("ex-root")
    guest = Account(
        id="g-guest1",
        name="Guest Ümit",
        kind=AccountKind.GUEST,
        scopes=DEFAULT_SCOPES[AccountKind.GUEST],
        created_at=T0,
    )
    await repo.create_account(guest)
    s.accounts["guest"] = guest

    a, b, robo = s.accounts["alice"], s.accounts["bob"], s.accounts["robo"]
    east = {name: preset(name).with_options(game_length="east") for name in ("tenhou", "ema", "mahjongsoul")}

    # 1. alice, the bot account robo and two built-in bots (tenhou rules); alice timed out a few times
    played = play_match("m-mixed", east["tenhou"], b"seed-mixed", created_at=T0, human_seats=frozenset({0}))
    await store_game(
        repo,
        s,
        "mixed",
        played,
        [_account_seat(0, a), _account_seat(1, robo), _builtin(2), _builtin(3)],
        created_at=T0,
    )
    # 2. four built-in bots (ema rules), at a table open to spectators: its log is public
    played = play_match("m-bots", east["ema"], b"seed-bots", created_at=T0 + HOUR)
    await store_game(
        repo, s, "bots", played, [_builtin(i) for i in range(4)], created_at=T0 + HOUR, spectators=True
    )
    # 3. four humans: alice, bob, a guest, bob's friend carol is not here (mahjongsoul rules)
    played = play_match(
        "m-humans",
        east["mahjongsoul"],
        b"seed-humans",
        created_at=T0 + 2 * HOUR,
        human_seats=frozenset(range(4)),
        sources=False,  # stored before steps recorded who decided: timeouts and disconnects unknown
    )
    humans = [
        _account_seat(0, b),
        _account_seat(1, guest),
        _account_seat(2, a),
        _account_seat(3, s.accounts["mallory"]),
    ]
    # a private table that refused spectators
    await store_game(repo, s, "humans", played, humans, created_at=T0 + 2 * HOUR, spectators=False)
    # 4. live: alice and bob with two built-in bots, 40 steps in
    played = play_match("m-live", east["tenhou"], b"seed-live-secret", created_at=T0 + 3 * HOUR)
    s.live_seed_hex = played.seed.hex()
    await store_game(
        repo,
        s,
        "live",
        played,
        [_account_seat(0, a), _account_seat(1, b), _builtin(2), _builtin(3)],
        created_at=T0 + 3 * HOUR,
        steps=40,
        status=MatchStatus.RUNNING,
        spectators=True,  # watched live; its log is not readable until it ends
    )
    # 5. aborted in the middle of its second hand: alice and three built-in bots
    played = play_match("m-aborted", east["tenhou"], b"seed-aborted", created_at=T0 + 4 * HOUR)
    second_hand = next(
        r.step
        for r in played.records
        if any(e.get("type") == "round_started" and e.get("hand_index") == 1 for e in r.events)
    )
    await store_game(
        repo,
        s,
        "aborted",
        played,
        [_account_seat(0, a), _builtin(1), _builtin(2), _builtin(3)],
        created_at=T0 + 4 * HOUR,
        steps=second_hand + 10,
        status=MatchStatus.ABORTED,
    )
    return s


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def walk(value: Any) -> list[str]:
    """Every string inside a JSON value (to look for secrets in a response)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in (k, *walk(v))]
    if isinstance(value, list):
        return [x for v in value for x in walk(v)]
    return []
