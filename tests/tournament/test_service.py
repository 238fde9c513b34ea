"""The event service (server/services/tournaments.py) against a fake table factory: roles, entry,
seating, duplicate walls through the factory, pause, substitutes, adjustments, idempotency, audit and
standings from the stored games."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest

from server.domain.records import Account, AccountKind
from server.domain.tournaments import DuplicateMode, EntryMode, EventSettings, EventStatus, RoundStatus
from server.engine.rules import PRESETS
from server.services.eventbase import PostedNotice
from server.services.tables import SeatRequest, TableSpec, TableStatus, TableUnsupportedError
from server.services.tournaments import Actor, EventError, EventService
from server.store.memory_events import InMemoryEvents
from server.tournament.duplicate import PublishedSet, check_reveal, wall_set_seed


def account(name: str, kind: AccountKind = AccountKind.PLAYER) -> Account:
    return Account(id=f"a-{name}", name=name, kind=kind, scopes=frozenset(), created_at=0.0)


ADMIN = Actor(account("admin"), admin=True)
ORG = Actor(account("org"))
PLAYERS = [Actor(account(n)) for n in ("ann", "bob", "cat", "dan", "eve", "fay")]
pytestmark = pytest.mark.asyncio

ACCOUNTS = {a.id: a.account for a in [ADMIN, ORG, *PLAYERS]} | {"a-sub": account("sub")}


@dataclass
class FakeLive:
    spec: TableSpec
    match_id: str
    paused: bool = False
    ended: str | None = None
    refuses: bool = False  # what is asked of it raises unsupported (a table that cannot do it)
    locked: set[int] = field(default_factory=set)
    subs: list[tuple[int, SeatRequest]] = field(default_factory=list)

    def status(self) -> TableStatus:
        return TableStatus(self.match_id, self.spec.source, self.spec.tags, paused=self.paused)

    async def pause(self, reason: str) -> None:
        if self.refuses:
            raise TableUnsupportedError("this table cannot do that")
        self.paused = True

    async def unpause(self) -> None:
        self.paused = False

    async def end(self, reason: str) -> None:
        self.ended = reason

    async def lock_seat(self, seat: int, locked: bool) -> None:
        if self.refuses:
            raise TableUnsupportedError("this table cannot do that")
        (self.locked.add if locked else self.locked.discard)(seat)

    async def substitute(self, seat: int, by: SeatRequest) -> int:
        if self.refuses:
            raise TableUnsupportedError("this table cannot do that")
        self.subs.append((seat, by))
        return 40 + len(self.subs)


@dataclass
class FakeTables:
    made: list[FakeLive] = field(default_factory=list)
    ids: itertools.count[int] = field(default_factory=itertools.count)

    async def create(self, spec: TableSpec) -> FakeLive:
        live = FakeLive(spec, f"m-{next(self.ids)}")
        self.made.append(live)
        return live

    async def find(self, match_id: str) -> FakeLive | None:
        return next((t for t in self.made if t.match_id == match_id), None)


@dataclass
class FakeResults:
    finals: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=dict)

    async def final(self, match_id: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        return self.finals.get(match_id)


class World:
    def __init__(self, **collaborators: Any) -> None:
        """``collaborators``: more of the event service's (e.g. ``suspensions_of``)."""
        self.store = InMemoryEvents()
        self.tables = FakeTables()
        self.results = FakeResults()
        self.clock = 1000.0
        ids = itertools.count(1)

        async def accounts(account_id: str) -> Account | None:
            return ACCOUNTS.get(account_id)

        self.service = EventService(
            store=self.store,
            tables=self.tables,
            results=self.results,
            accounts=accounts,
            now=lambda: self.clock,
            new_id=lambda: f"ev-{next(ids)}",
            new_secret=lambda: b"event secret",
            **collaborators,
        )


def settings(**kw: object) -> EventSettings:
    base: dict[str, object] = {"name": "Club night", "ruleset_json": PRESETS["tenhou"].to_json(), "rounds": 2}
    return EventSettings(**(base | kw))  # type: ignore[arg-type]


async def codes(coro: object) -> str:
    with pytest.raises(EventError) as err:
        await coro  # type: ignore[misc]
    return err.value.code


async def organized(w: World, **kw: object) -> str:
    await w.service.grant_organizer(ADMIN, ORG.id, True, "runs the club")
    event = await w.service.create(ORG, settings(**kw))
    return event.id


async def test_roles_are_granted_by_admins_and_audited() -> None:
    w = World()
    assert await codes(w.service.create(ORG, settings())) == "forbidden"
    assert await codes(w.service.grant_organizer(ORG, ORG.id, True, "")) == "forbidden"
    event_id = await organized(w)
    assert await codes(w.service.add_bot(PLAYERS[0], event_id)) == "forbidden"
    await w.service.add_organizer(ORG, event_id, PLAYERS[5].id, "co-organizer")
    await w.service.add_bot(PLAYERS[5], event_id)  # a co-organizer may act
    log = await w.service.log(ORG, event_id)
    assert [(a.actor, a.action) for a in log] == [
        (ORG.id, "create"),
        (ORG.id, "add_organizer"),
        ("a-fay", "add_bot"),
    ]
    assert log[1].reason == "co-organizer"
    assert await codes(w.service.log(PLAYERS[0], event_id)) == "forbidden"


async def test_bad_settings_are_refused() -> None:
    w = World()
    await w.service.grant_organizer(ADMIN, ORG.id, True, "")
    for bad in (
        settings(name=" "),
        settings(ruleset_json="{not json"),
        settings(rounds=0),
        settings(seating="alphabetical"),
        settings(formula="best_consecutive"),
        settings(duplicate=DuplicateMode.SETS),
    ):
        assert await codes(w.service.create(ORG, bad)) == "malformed"
    assert await w.store.events() == []


async def test_entry_cap_waitlist_invite_and_guests() -> None:
    w = World()
    event_id = await organized(w, cap=2)
    a, b, c = PLAYERS[:3]
    assert (await w.service.enter(a, event_id)).status == "entered"
    assert (await w.service.enter(a, event_id)).status == "entered"  # twice changes nothing
    await w.service.enter(b, event_id)
    assert (await w.service.enter(c, event_id)).status == "waitlisted"
    await w.service.withdraw(a, event_id)
    statuses = {e.entrant_id: e.status for e in (await w.service.view(event_id)).entrants}
    assert statuses == {a.id: "withdrawn", b.id: "entered", c.id: "entered"}
    guest = Actor(account("g", AccountKind.GUEST))
    assert await codes(w.service.enter(guest, event_id)) == "forbidden"
    invite = await w.service.create(ORG, settings(entry=EntryMode.INVITE, invited=(b.id,)))
    assert await codes(w.service.enter(c, invite.id)) == "forbidden"
    await w.service.enter(b, invite.id)
    window = await w.service.create(ORG, settings(signup_opens=2000.0))
    assert await codes(w.service.enter(c, window.id)) == "conflict"


async def full_event(w: World, **kw: object) -> str:
    event_id = await organized(w, **kw)
    for p in PLAYERS[:6]:
        await w.service.enter(p, event_id)
    await w.service.add_bot(ORG, event_id)
    await w.service.add_bot(ORG, event_id)
    return event_id


async def test_a_round_with_duplicate_walls_goes_through_the_factory() -> None:
    w = World()
    event_id = await full_event(w, duplicate=DuplicateMode.ROUND)
    rnd = await w.service.seat(ORG, event_id, key="seat-1")
    assert rnd.status is RoundStatus.SEATED and len(rnd.tables) == 2
    assert len(rnd.sets) == 1 and rnd.sets[0].seed_hex is None  # published, not revealed
    again = await w.service.seat(ORG, event_id, key="seat-1")  # the same key: nothing new
    assert again == rnd and len(await w.store.rounds(event_id)) == 1
    started = await w.service.start(ORG, event_id, key="start-1")
    assert started.status is RoundStatus.RUNNING and len(w.tables.made) == 2
    assert await w.service.start(ORG, event_id) == started and len(w.tables.made) == 2  # idempotent
    seeds = {t.spec.seed for t in w.tables.made}
    assert seeds == {wall_set_seed(b"event secret", 1, 0)}  # every table: the same walls
    assert all(t.spec.hold_reveals for t in w.tables.made)  # so no table shows the shared walls early
    spec = w.tables.made[0].spec
    assert spec.tags == {"event": event_id, "round": "1", "table": "0"}
    assert spec.source == f"event:{event_id}:r1:t0"
    assert [s.kind.value for s in spec.seats].count("bot") + [
        s.kind.value for s in w.tables.made[1].spec.seats
    ].count("bot") == 2
    assert (await w.service.view(event_id)).event.status is EventStatus.RUNNING
    assert await codes(w.service.seat(ORG, event_id)) == "conflict"  # round 1 still running


async def test_pause_end_and_finish_with_reveal_and_standings() -> None:
    w = World()
    event_id = await full_event(w, duplicate=DuplicateMode.ROUND)
    await w.service.seat(ORG, event_id)
    rnd = await w.service.start(ORG, event_id)
    await w.service.pause(ORG, event_id, None, True, "power cut")
    assert all(t.paused for t in w.tables.made)
    await w.service.pause(ORG, event_id, 1, False)
    assert [t.paused for t in w.tables.made] == [True, False]
    w.tables.made[0].refuses = True
    assert await codes(w.service.pause(ORG, event_id, 0, True)) == "unsupported"
    assert await codes(w.service.finish_round(ORG, event_id)) == "conflict"  # tables still playing
    await w.service.end_table(ORG, event_id, 1, "time limit")
    assert w.tables.made[1].ended == "time limit"
    t0, t1 = rnd.tables
    w.results.finals[t0.match_id or ""] = ((45300, 30000, 18000, 6700), (1, 2, 3, 4))
    w.results.finals[t1.match_id or ""] = ((25000, 25000, 25000, 25000), (1, 2, 3, 4))
    await w.service.adjust(ORG, event_id, t0.entrants[0], -50, "slow play")
    finished = await w.service.finish_round(ORG, event_id)
    seed = bytes.fromhex(finished.sets[0].seed_hex or "")
    published = PublishedSet(
        finished.sets[0].set_id,
        finished.sets[0].tables,
        finished.sets[0].seed_commitment,
        finished.sets[0].wall_commitments,
    )
    assert check_reveal(published, seed, PRESETS["tenhou"]) == []
    table = await w.service.standings(event_id)
    top = {s.name: s.total for s in table}
    # 45,300 first: +55.3, minus the 5.0 penalty
    assert top[t0.entrants[0]] == 503
    assert top[t1.entrants[0]] == -50 + 200 + 200  # 25,000: -5.0 + uma 20 + oka 20
    actions = [a.action for a in await w.service.log(ORG, event_id)]
    assert actions[-5:] == ["pause", "unpause", "end_table", "adjust", "finish_round"]


async def test_substitute_before_the_round_starts() -> None:
    w = World()
    event_id = await full_event(w)
    rnd = await w.service.seat(ORG, event_id)
    out = rnd.tables[0].entrants[2]
    changed = await w.service.substitute(
        ORG, event_id, table=0, seat=2, substitute="bot:greedy", reason="no-show"
    )
    table = changed.tables[0]
    assert table.player_of(2).startswith("bot:greedy:sub") and table.substitutes == (2,)
    assert table.entrants[2] == out  # the entrant of record keeps the seat (and its score)
    assert table.stand_ins[0].from_step is None  # it plays every move of the seat
    assert (
        await codes(w.service.substitute(ORG, event_id, table=0, seat=1, substitute="bot:greedy", reason=""))
        == "malformed"
    )
    rnd = await w.service.start(ORG, event_id)
    made = w.tables.made[0].spec.seats
    assert made[2].bot == "greedy" and made[2].account is None  # the table seats the substitute


async def test_impossible_seating_is_a_conflict_naming_it() -> None:
    w = World()
    event_id = await organized(w, max_meetings=1)
    for p in PLAYERS[:4]:
        await w.service.enter(p, event_id)
    await w.service.seat(ORG, event_id)
    rnd = await w.service.start(ORG, event_id)
    w.results.finals[rnd.tables[0].match_id or ""] = ((30000, 30000, 20000, 20000), (1, 2, 3, 4))
    await w.service.finish_round(ORG, event_id)
    with pytest.raises(EventError) as err:
        await w.service.seat(ORG, event_id)
    assert err.value.code == "conflict" and "has met all but 0" in err.value.message
    assert len(await w.store.rounds(event_id)) == 1  # nothing changed


async def test_scripted_seating_and_check_in() -> None:
    w = World()
    event_id = await organized(w, seating="scripted", checkin=True)
    for p in PLAYERS[:4]:
        await w.service.enter(p, event_id)
    assert await codes(w.service.seat(ORG, event_id)) == "conflict"  # no script uploaded
    for p in PLAYERS[:3]:
        await w.service.check_in(p, event_id)
    script = ",".join(p.id for p in PLAYERS[:4])
    with pytest.raises(EventError) as err:
        await w.service.seat(ORG, event_id, script=script)
    assert "is not an entrant of this round" in err.value.message  # dan did not check in
    await w.service.check_in(PLAYERS[3], event_id)
    rnd = await w.service.seat(ORG, event_id, script=script)
    assert rnd.tables[0].entrants == tuple(p.id for p in PLAYERS[:4])


async def test_seat_actions_a_table_refuses_as_unsupported_change_nothing() -> None:
    w = World()
    event_id = await full_event(w)
    await w.service.seat(ORG, event_id)
    rnd = await w.service.start(ORG, event_id)
    for live in w.tables.made:
        live.refuses = True
    before = (await w.store.rounds(event_id), len(await w.store.audit(event_id)))
    lock = w.service.lock_seat(ORG, event_id, table=0, seat=0, locked=True, reason="r")
    assert await codes(lock) == "unsupported"
    sub = w.service.substitute(ORG, event_id, table=0, seat=0, substitute="a-sub", reason="late")
    assert await codes(sub) == "unsupported"
    assert (await w.store.rounds(event_id), len(await w.store.audit(event_id))) == before
    for live in w.tables.made:
        live.refuses = False
    changed = await w.service.substitute(ORG, event_id, table=0, seat=0, substitute="a-sub", reason="late")
    assert changed.tables[0].stand_ins[0].from_step == 41  # the step the factory answered
    assert w.tables.made[0].subs[0][1].account == ACCOUNTS["a-sub"]
    assert changed.tables[0].player_of(0) == "a-sub" and changed.tables[0].entrants == rnd.tables[0].entrants
    # not an organizer: forbidden, nothing changed
    assert await codes(w.service.lock_seat(PLAYERS[0], event_id, table=0, seat=1, locked=True)) == "forbidden"
    assert await codes(w.service.set_start_points(PLAYERS[0], event_id, PLAYERS[0].id, 30000)) == "forbidden"
    assert await codes(w.service.moves(PLAYERS[0], event_id, "m-0")) == "forbidden"
    assert await codes(w.service.moves(ORG, event_id, "m-0")) == "unsupported"  # no stored moves here


async def test_a_sign_up_window_that_closes_before_it_opens_is_malformed() -> None:
    w = World()
    await w.service.grant_organizer(ADMIN, ORG.id, True, "runs the club")
    assert (
        await codes(w.service.create(ORG, settings(signup_opens=2000.0, signup_closes=1000.0))) == "malformed"
    )
    assert await w.store.events() == []


async def test_an_events_chat_setting_goes_to_its_tables() -> None:
    w = World()
    event_id = await full_event(w, chat="on")  # free text at its tables even while a hand is live
    await w.service.seat(ORG, event_id, key="seat-1")
    await w.service.start(ORG, event_id, key="start-1")
    assert {t.spec.tags.get("chat") for t in w.tables.made} == {"on"}


async def test_a_notice_is_pushed_to_the_entrants_still_in_the_event_and_once_per_key() -> None:
    pushed: list[tuple[list[str], PostedNotice]] = []
    w = World(notice_to=lambda to, notice: pushed.append((sorted(to), notice)))
    event_id = await full_event(w)
    await w.service.drop(ORG, event_id, PLAYERS[5].id, "left early")
    for _ in range(2):
        await w.service.notice(ORG, event_id, "  round 1 ends at 21:00 ", key="n-1")
    assert len(pushed) == 1  # the same key: posted, and pushed, once
    to, notice = pushed[0]
    assert to == sorted(p.id for p in PLAYERS[:5])  # neither the dropped player nor the bots
    assert notice == PostedNotice(event_id, "Club night", "round 1 ends at 21:00", w.clock)
    assert await codes(w.service.notice(PLAYERS[0], event_id, "hi")) == "forbidden"
    assert await codes(w.service.notice(ORG, event_id, " ")) == "malformed"
    assert len(pushed) == 1  # refused: nothing pushed
