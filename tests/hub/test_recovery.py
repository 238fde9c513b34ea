"""Crash recovery in process: the lobby rebuilds running matches from the store on a manual clock.

* a match interrupted and resumed ends exactly as the same match played without interruption;
* a request id stored with a step is remembered across the restart (``ack`` ``duplicate``);
* the replay check: a log the engine does not regenerate is flagged (``diverged``), never resumed;
* the edge cases: no seed stored, an empty log, a log whose last step ended the match, a private
  table's own timers.

The real server process, SIGKILLed repeatedly, is ``test_recovery_crash.py``; the same over real
websockets and the SQL store (tampering included) is ``test_recovery_sql.py``.
"""

from __future__ import annotations

import doctest
import json
import random
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any

import pytest
import pytest_asyncio

from server.domain.records import DIVERGED_PREFIX, MatchStatus, StepRecord
from server.engine import apply as engine_apply
from server.engine import new_match, redact_all
from server.engine.actions import Action, action_to_dict
from server.engine.match import default_action, pending_seats
from server.hub import recovery
from server.hub.clock import ManualClock
from server.hub.inbox import ActRequest
from server.hub.lobby import Lobby
from server.hub.outputs import AckOut, CatchupOut, MatchEndOut, PromptOut
from server.hub.recovery import ReplayDivergedError, replay_log, table_settings_from_json
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.hub.steplog import step_record
from server.hub.table import TableActor
from server.hub.tables import LocalTable
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST, FakeParticipant, account

BOT_DELAY_MS = 1000
SEED = b"recovery-test-seed-0123456789abcdef"


WALL_NOW = 1_700_000_000.0  # the lobbies' wall clock (what is stored as a time)


class Lobbies:
    """Makes the lobbies of one test (on manual clocks) and shuts them all down after it."""

    def __init__(self) -> None:
        self.made: list[Lobby] = []

    def make(self, repo: InMemoryRepository, **settings: Any) -> tuple[Lobby, ManualClock]:
        clock = ManualClock()
        options: dict[str, Any] = {
            "timers": TableTimers(bot_delay_ms=BOT_DELAY_MS),
            "bot_fill_after_s": 60.0,
        }
        options.update(settings)
        lobby = Lobby(
            repo=repo,
            clock=clock,
            settings=HubSettings(**options),
            rulesets={"tenhou": EAST},
            seed_source=lambda: SEED,
            rng=random.Random(7),
            wall=lambda: WALL_NOW,
        )
        self.made.append(lobby)
        return lobby, clock

    async def start(
        self, repo: InMemoryRepository, name: str = "alice"
    ) -> tuple[Lobby, ManualClock, Player, TableActor]:
        lobby, clock = self.make(repo)
        alice = Player(FakeParticipant(account(name)), random.Random(3))
        await lobby.join_queue(alice.p, "tenhou+bots", 1)
        await lobby.settle()
        (table,) = lobby.tables.values()
        return lobby, clock, alice, table


@pytest_asyncio.fixture
async def lobbies() -> AsyncIterator[Lobbies]:
    made = Lobbies()
    yield made
    for lobby in made.made:
        await lobby.shutdown()


def _key(action: Action) -> str:
    return json.dumps(action_to_dict(action), sort_keys=True)


class Player:
    """A fake participant answering each new prompt with a seeded random legal action."""

    def __init__(self, p: FakeParticipant, rng: random.Random, rids: Iterator[int] | None = None) -> None:
        self.p = p
        self.rng = rng
        self.answered: set[tuple[int, int]] = set()
        # Request ids stay unique per seat and match across reconnections (the table remembers the
        # stored ones: a reused id is answered as a duplicate).
        self.rids = rids if rids is not None else iter(range(1000, 10**6))
        self.last_rid: int | None = None

    def pending(self) -> PromptOut | None:
        prompt = self.p.last_prompt()
        if prompt is None or (prompt.step, prompt.version) in self.answered:
            return None
        return prompt

    async def answer(self, table: TableActor) -> None:
        prompt = self.pending()
        assert prompt is not None
        self.answered.add((prompt.step, prompt.version))
        action = self.rng.choice(sorted(prompt.legal, key=_key))
        self.last_rid = next(self.rids)
        table.submit(ActRequest(self.p, self.last_rid, prompt.step, action))
        await table.settle()


async def play(table: TableActor, clock: ManualClock, player: Player, *, answers: int | None = None) -> int:
    """Answer the player's prompts (bots move when the clock is advanced) until the match ends, or
    after ``answers`` answers; returns how many were given."""
    given = 0
    for _ in range(100_000):
        if table.finished or (answers is not None and given >= answers):
            return given
        if player.pending() is not None:
            await player.answer(table)
            given += 1
        else:
            clock.advance(BOT_DELAY_MS / 1000)
            await table.settle()
    raise AssertionError("the match does not end")


def _log(steps: list[StepRecord]) -> list[tuple[int, int | None, Any, Any]]:
    """A log without its wall-clock times (what must be identical between two runs)."""
    return [(s.step, s.seat, s.action, list(s.events)) for s in steps]


@pytest.mark.asyncio
async def test_a_resumed_match_ends_exactly_as_an_uninterrupted_one(lobbies: Lobbies) -> None:
    # The reference: the same seed, seats and choices, never interrupted.
    reference = InMemoryRepository()
    _, clock, alice, table = await lobbies.start(reference)
    await play(table, clock, alice)
    ref_log = _log(list(await reference.steps(table.match_id)))
    assert table.outcome is not None and table.outcome.result is not None

    repo = InMemoryRepository()
    lobby, clock, alice, table = await lobbies.start(repo)
    account_ = alice.p.account
    for interruption in range(3):  # three restarts in one match
        await play(table, clock, alice, answers=7)
        before = await table.history()
        await lobby.shutdown()  # the old process goes away; its tables stop, nothing is aborted
        stored = await repo.get_match(table.match_id)
        assert stored is not None and stored.status is MatchStatus.RUNNING and stored.seed_hex is None

        lobby, clock = lobbies.make(repo)
        report = await lobby.recover()
        assert report.resumed == [table.match_id] and not report.diverged, interruption
        table = lobby.tables[table.match_id]
        assert table.resumed and await table.history() == before
        assert lobby.live_seats(account_.id) == [(table.match_id, table.seat_of_account(account_.id))]
        # The player comes back (same account, a new connection) and resumes.
        alice = Player(FakeParticipant(account_), alice.rng, alice.rids)
        await lobby.resume(alice.p, table.match_id, len(before), 2)
        await table.settle()
        (catchup,) = alice.p.of(CatchupOut)
        seat = table.seat_of_account(account_.id)
        assert catchup.events == redact_all(before, seat) and catchup.since_version == len(before)
    await play(table, clock, alice)
    assert _log(list(await repo.steps(table.match_id))) == ref_log
    done = await repo.get_match(table.match_id)
    assert done is not None and done.status is MatchStatus.COMPLETED and done.seed_hex == SEED.hex()
    assert alice.p.of(MatchEndOut)[-1].result is not None


@pytest.mark.asyncio
async def test_a_stored_request_id_is_remembered_across_the_restart(lobbies: Lobbies) -> None:
    repo = InMemoryRepository()
    lobby, clock, alice, table = await lobbies.start(repo)
    await play(table, clock, alice, answers=3)
    rid = alice.last_rid
    assert rid is not None
    prompt = [p for p in alice.p.of(PromptOut) if (p.step, p.version) in alice.answered][-1]
    count = await repo.step_count(table.match_id)
    await lobby.shutdown()  # the ack of the last answer may have been lost with the old process

    lobby, clock = lobbies.make(repo)
    await lobby.recover()
    table = lobby.tables[table.match_id]
    again = FakeParticipant(alice.p.account)
    await lobby.resume(again, table.match_id, 0, 1)
    await table.settle()
    # The client re-sends its last request (same id): acknowledged as a duplicate, not replayed.
    table.submit(ActRequest(again, rid, prompt.step, sorted(prompt.legal, key=_key)[0]))
    await table.settle()
    assert AckOut(rid, prompt.step, True) in again.acks()
    assert await repo.step_count(table.match_id) >= count
    assert [s.request_id for s in await repo.steps(table.match_id)].count(rid) == 1


@pytest.mark.asyncio
async def test_a_tampered_log_is_flagged_and_not_resumed(lobbies: Lobbies) -> None:
    repo = InMemoryRepository()
    lobby, clock, alice, table = await lobbies.start(repo)
    await play(table, clock, alice, answers=5)
    await lobby.shutdown()
    # Change one stored event (a drawn tile) in the middle of the log.
    log = await repo.steps(table.match_id)
    k = next(i for i, s in enumerate(log) if i > 2 and any(e["type"] == "tile_drawn" for e in s.events))
    events = [dict(e) for e in log[k].events]
    drawn = next(e for e in events if e["type"] == "tile_drawn")
    drawn["tile"] = "1z" if drawn["tile"] != "1z" else "2z"
    repo.overwrite_step(replace(log[k], events=tuple(events)))

    lobby, clock = lobbies.make(repo)
    report = await lobby.recover()
    assert report.diverged == [table.match_id] and not report.resumed
    flagged = await repo.get_match(table.match_id)
    assert flagged is not None and flagged.status is MatchStatus.ABORTED and flagged.diverged
    assert flagged.status_reason is not None and flagged.status_reason.startswith(
        f"{DIVERGED_PREFIX} step {k}"
    )
    assert flagged.seed_hex is None  # not revealed: the match did not end normally
    assert table.match_id not in lobby.tables and lobby.live_seats(alice.p.account.id) == []
    assert await repo.unfinished_matches() == []  # and the next start does not try again
    again = FakeParticipant(alice.p.account)
    assert await lobby.resume(again, table.match_id, 0, 1) is None
    assert again.errors()[-1].code.value == "not_found"


def test_replay_log_names_the_first_difference() -> None:
    t = new_match(EAST, SEED)
    steps = [step_record("m", t, seat=None, action=None, request_id=None, applied_at=0.0)]
    for _ in range(6):
        seat = min(pending_seats(t.state))
        action = default_action(t.state, seat)
        t = engine_apply(t.state, seat, action)
        steps.append(step_record("m", t, seat=seat, action=action, request_id=None, applied_at=0.0))
    assert [x.step for x in replay_log(EAST, SEED, steps)] == list(range(7))
    cases: list[tuple[list[StepRecord], str]] = [
        (steps[:3] + steps[4:], "step 4, the log skips from step 2 to 4"),
        ([*steps[:5], replace(steps[5], events=steps[5].events[:-1])], "step 5, "),
        ([*steps[:5], replace(steps[5], seat=(steps[5].seat or 0) + 1)], "step 5, the engine refuses"),
        ([replace(steps[0], seat=1)], "step 0, the log does not start with the deal"),
    ]
    for log, message in cases:
        with pytest.raises(ReplayDivergedError) as caught:
            replay_log(EAST, SEED, log)
        assert str(caught.value).startswith(message), caught.value
    with pytest.raises(ReplayDivergedError, match="step 0, event 0"):
        replay_log(EAST.with_options(red_fives=(0, 0, 0)), SEED, steps)


@pytest.mark.asyncio
async def test_a_match_without_a_stored_seed_is_aborted_not_resumed(lobbies: Lobbies) -> None:
    repo = InMemoryRepository()
    lobby, _, _, table = await lobbies.start(repo)
    await lobby.shutdown()
    del repo._recovery[table.match_id]  # made by a server that did not store seeds
    lobby, _ = lobbies.make(repo)
    report = await lobby.recover()
    assert report.unrecoverable == [table.match_id]
    match = await repo.get_match(table.match_id)
    assert match is not None and match.status is MatchStatus.ABORTED and not match.diverged
    assert match.status_reason is not None and match.status_reason.startswith("unrecoverable: no seed")


@pytest.mark.asyncio
async def test_a_match_given_up_at_recovery_ends_at_the_lobbys_wall_time(lobbies: Lobbies) -> None:
    repo = InMemoryRepository()
    lobby, _, _, table = await lobbies.start(repo)
    await lobby.shutdown()
    del repo._recovery[table.match_id]
    lobby, _ = lobbies.make(repo)
    await lobby.recover()
    match = await repo.get_match(table.match_id)
    assert match is not None and match.ended_at == WALL_NOW  # the injected wall clock, not time.time()


@pytest.mark.asyncio
async def test_an_empty_log_gets_its_deal_and_resumes(lobbies: Lobbies) -> None:
    """The server stopped between storing the match and its first step: nobody saw anything yet."""
    repo = InMemoryRepository()
    lobby, _, alice, table = await lobbies.start(repo)
    await lobby.shutdown()
    repo._steps[table.match_id].clear()
    lobby, clock = lobbies.make(repo)
    assert (await lobby.recover()).resumed == [table.match_id]
    steps = await repo.steps(table.match_id)
    assert [s.step for s in steps] == [0]
    resumed = lobby.tables[table.match_id]
    player = Player(FakeParticipant(alice.p.account), random.Random(1))
    await lobby.resume(player.p, table.match_id, 0, 1)
    await play(resumed, clock, player)
    assert (await repo.get_match(table.match_id)).status is MatchStatus.COMPLETED  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_a_log_that_ended_the_match_is_finished_at_recovery(lobbies: Lobbies) -> None:
    """The last step (the end) was stored, the process died before recording the end."""
    repo = InMemoryRepository()
    lobby, clock, alice, table = await lobbies.start(repo)
    await play(table, clock, alice)
    match_id = table.match_id
    await lobby.shutdown()
    repo._matches[match_id] = replace(repo._matches[match_id], status=MatchStatus.RUNNING, seed_hex=None)
    del repo._results[match_id]
    lobby, _ = lobbies.make(repo)
    assert (await lobby.recover()).resumed == [match_id]
    done = await repo.get_match(match_id)
    assert done is not None and done.status is MatchStatus.COMPLETED and done.seed_hex == SEED.hex()
    assert await repo.get_result(match_id) is not None
    # Its player can still resume it for the retention time and gets match_end.
    again = FakeParticipant(alice.p.account)
    await lobby.resume(again, match_id, 0, 1)
    await lobby.tables[match_id].settle()
    assert again.of(MatchEndOut)[-1].result is not None


@pytest.mark.asyncio
async def test_a_private_tables_settings_survive_the_restart(lobbies: Lobbies) -> None:
    repo = InMemoryRepository()
    lobby, _ = lobbies.make(repo)
    alice = FakeParticipant(account("alice"))
    invite = await lobby.create_private(
        alice.account, bots=3, timers={"action_ms": 8000, "bot_delay_ms": 250}, spectators=False
    )
    await lobby.join_private(alice, invite.code, 1)
    (table,) = lobby.tables.values()
    record = await repo.recovery_record(table.match_id)
    assert record is not None and record.seed_hex == SEED.hex()
    assert (await repo.get_match(table.match_id)).seed_hex is None  # type: ignore[union-attr]
    await lobby.shutdown()
    lobby, _ = lobbies.make(repo)
    await lobby.recover()
    resumed = lobby.tables[table.match_id]
    assert resumed.timers == TableTimers(action_ms=8000, bot_delay_ms=250)
    assert resumed.spectate.allowed is False
    assert resumed.source == f"private:{invite.code}"


@pytest.mark.asyncio
async def test_a_private_tables_chat_choice_survives_the_restart(lobbies: Lobbies) -> None:
    repo = InMemoryRepository()
    lobby, _ = lobbies.make(repo)
    alice = FakeParticipant(account("alice"))
    invite = await lobby.create_private(alice.account, bots=3, chat="off")
    await lobby.join_private(alice, invite.code, 1)
    (table,) = lobby.tables.values()
    assert lobby.factory.tags[table.match_id] == {"chat": "off"}
    record = await repo.recovery_record(table.match_id)
    assert isinstance(record.table, dict) and record.table["chat"] == "off"  # type: ignore[union-attr]
    await lobby.shutdown()
    lobby, _ = lobbies.make(repo)
    await lobby.recover()
    assert lobby.factory.tags[table.match_id] == {"chat": "off"}  # what the table's chat is checked against


@pytest.mark.asyncio
async def test_a_paused_table_is_paused_after_the_restart_until_unpaused(lobbies: Lobbies) -> None:
    """A pause is kept with the recovery record: the table recovered after a restart starts paused,
    before any bot moves, with the prompt's clock standing; unpausing goes on and forgets it."""
    repo = InMemoryRepository()
    lobby, clock, alice, table = await lobbies.start(repo)
    await play(table, clock, alice, answers=3)
    live = LocalTable(table, lobby.factory)
    await live.pause("a dispute at table 1")
    record = await repo.recovery_record(table.match_id)
    assert isinstance(record.table, dict) and record.table["paused"] == "a dispute at table 1"  # type: ignore[union-attr]
    steps = len(await repo.steps(table.match_id))
    await lobby.shutdown()

    lobby, clock = lobbies.make(repo)
    await lobby.recover()
    resumed = lobby.tables[table.match_id]
    await resumed.settle()
    assert resumed.paused and len(await repo.steps(table.match_id)) == steps
    for _ in range(20):  # bots would move every second; the clocks stand still while paused
        clock.advance(BOT_DELAY_MS / 1000 * 30)
        await resumed.settle()
    assert len(await repo.steps(table.match_id)) == steps and not resumed.finished
    await LocalTable(resumed, lobby.factory).unpause()
    record = await repo.recovery_record(table.match_id)
    assert isinstance(record.table, dict) and "paused" not in record.table  # type: ignore[union-attr]
    assert not resumed.paused
    for _ in range(120):  # the clocks run again: alice (not back) is played for once her time is up
        clock.advance(1.0)
        await resumed.settle()
    assert len(await repo.steps(table.match_id)) > steps


def test_a_stored_pause_is_read_only_as_a_reason() -> None:
    assert recovery.stored_pause({"paused": "tea", "chat": "off"}) == "tea"
    assert [recovery.stored_pause(d) for d in (None, {}, {"paused": True}, {"paused": None})] == [None] * 4


def test_a_stored_chat_setting_this_server_lacks_is_ignored() -> None:
    assert recovery.stored_chat({"chat": "between_hands"}) == "between_hands"
    assert [recovery.stored_chat(d) for d in (None, {}, {"chat": "loud"}, {"chat": 1})] == [None] * 4


def test_doctests() -> None:
    result = doctest.testmod(recovery)
    assert result.failed == 0 and result.attempted > 0


def test_unreadable_table_settings_fall_back_to_the_servers() -> None:
    defaults = (TableTimers(action_ms=1234), SpectatePolicy(delay_s=2.0))
    assert table_settings_from_json(None, *defaults) == defaults
    assert table_settings_from_json({"timers": {"action_ms": -1}, "spectate": "?"}, *defaults) == defaults
    assert table_settings_from_json({"timers": {"bogus": 1}}, *defaults) == defaults
