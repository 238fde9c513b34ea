"""Shared test doubles for the hub: fake participants and repositories, walls, the leak scanner."""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

from client_protocol import events as w
from client_protocol.client import Client
from client_protocol.messages import (
    EventMessage,
    Prompt,
    Seated,
    ServerMessage,
    Snapshot,
)
from server.domain.ports import Repository
from server.domain.records import DEFAULT_SCOPES, Account, AccountKind, StepRecord
from server.engine.rules import TENHOU, Ruleset
from server.engine.tiles import Tile, full_set, kind, parse_tiles, sort_key
from server.engine.wall import build_wall
from server.hub.clock import ManualClock
from server.hub.inbox import ActRequest, SeatSpec
from server.hub.metrics import HubMetrics
from server.hub.outputs import (
    AckOut,
    CatchupOut,
    ErrorOut,
    EventsOut,
    Outbound,
    PromptOut,
)
from server.hub.settings import SpectatePolicy, TableTimers
from server.hub.table import TableActor
from server.hub.tablesetup import TableDeps, TableSetup
from server.store.memory import InMemoryRepository

EAST = TENHOU.with_options(game_length="east")
OutT = TypeVar("OutT", bound=Outbound)


def account(name: str = "alice", kind: AccountKind = AccountKind.GUEST) -> Account:
    return Account(
        id=f"g-{name}-{secrets.token_hex(4)}",
        name=name,
        kind=kind,
        scopes=DEFAULT_SCOPES[kind],
        created_at=0.0,
    )


class FakeParticipant:
    """Records what a table or the lobby delivers; ``log`` (shared) records the global order."""

    def __init__(self, acct: Account | None = None, log: list[tuple[str, Any]] | None = None) -> None:
        self._account = acct or account()
        self.items: list[Outbound] = []
        self._log = log
        self.following: tuple[str, int | None] | None = None  # what the table says: (match, seat)
        self.gone = False  # refuse to be seated (a connection that is over)
        self.wants_hints = False  # its prompts carry hints when True

    @property
    def participant_id(self) -> str:
        return f"fake-{self._account.id}"

    @property
    def account(self) -> Account:
        return self._account

    def deliver(self, item: Outbound) -> None:
        self.items.append(item)
        if self._log is not None:
            self._log.append(("send", item))

    def attached(self, match_id: str, seat: int | None) -> bool:
        if self.gone:
            return False
        self.following = (match_id, seat)
        return True

    def released(self, match_id: str) -> None:
        if self.following is not None and self.following[0] == match_id:
            self.following = None

    def of(self, kind: type[OutT]) -> list[OutT]:
        return [i for i in self.items if isinstance(i, kind)]

    def last_prompt(self) -> PromptOut | None:
        prompts = self.of(PromptOut)
        return prompts[-1] if prompts else None

    def errors(self) -> list[ErrorOut]:
        return self.of(ErrorOut)

    def acks(self) -> list[AckOut]:
        return self.of(AckOut)

    def versions(self) -> list[int]:
        """Every event version received (catch-ups and event batches), in order."""
        out: list[int] = []
        for item in self.items:
            if isinstance(item, EventsOut):
                out.extend(range(item.first_version, item.first_version + len(item.events)))
            elif isinstance(item, CatchupOut):
                out.extend(range(item.since_version + 1, len(item.events) + 1))
        return out

    def clear(self) -> None:
        self.items.clear()


class RecordingRepository(InMemoryRepository):
    """Records the order of commits in a log shared with the participants."""

    def __init__(self, log: list[tuple[str, Any]]) -> None:
        super().__init__()
        self.log = log

    async def append_step(self, step: StepRecord) -> None:
        await super().append_step(step)
        self.log.append(("commit", step))


class FlakyRepository(InMemoryRepository):
    """``fail_next`` makes the next append raise before storing; ``land_then_fail`` stores it and
    raises anyway (the reply was lost); ``stall`` makes appends wait until released."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_next = False
        self.land_then_fail = False
        self.stall = False
        self.stalled = asyncio.Event()
        self.release = asyncio.Event()

    async def append_step(self, step: StepRecord) -> None:
        if self.stall:
            self.stalled.set()
            await self.release.wait()
        if self.fail_next:
            self.fail_next = False
            raise ConnectionError("database went away")
        await super().append_step(step)
        if self.land_then_fail:
            self.land_then_fail = False
            raise ConnectionError("reply lost")


def wall_with(
    hands: dict[int, str], draws: str = "", *, dealer: int = 0, ruleset: Ruleset = EAST
) -> tuple[Tile, ...]:
    """A wall dealing ``hands`` (other seats get scattered leftovers) and drawing ``draws`` first."""
    given = {s: parse_tiles(h) for s, h in hands.items()}
    live = parse_tiles(draws)
    pool = Counter(full_set(ruleset.red_fives))
    for tiles in (*given.values(), live):
        pool.subtract(tiles)
    leftovers = iter(sorted(pool.elements(), key=lambda t: ((kind(t) * 7) % 34, sort_key(t))))
    filled = [given[s] if s in given else tuple(next(leftovers) for _ in range(13)) for s in range(4)]
    return build_wall(filled, dealer, live_draws=live, red_fives=ruleset.red_fives)


@dataclass
class TableKit:
    table: TableActor
    clock: ManualClock
    repo: InMemoryRepository
    humans: dict[int, FakeParticipant]
    log: list[tuple[str, Any]] = field(default_factory=list)
    request_ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    async def act(
        self, seat: int, action: Any, *, step: int | None = None, request_id: int | None = None
    ) -> None:
        p = self.humans[seat]
        prompt = p.last_prompt()
        assert step is not None or prompt is not None, "no prompt to answer"
        rid = request_id if request_id is not None else next(self.request_ids)
        self.table.submit(ActRequest(p, rid, step if step is not None else prompt.step, action))  # type: ignore[union-attr]
        await self.table.settle()

    async def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)
        await self.table.settle()


async def make_table(
    seats: Sequence[str] = ("human", "tsumogiri", "tsumogiri", "tsumogiri"),
    *,
    timers: TableTimers | None = None,
    spectate: SpectatePolicy | None = None,
    repo: InMemoryRepository | None = None,
    log: list[tuple[str, Any]] | None = None,
    walls: Sequence[Sequence[Tile]] | None = None,
    ruleset: Ruleset = EAST,
    seed: bytes = b"table-test",
    commit_timeout_s: float = 5.0,
    metrics: HubMetrics | None = None,
) -> TableKit:
    """A started table on a ManualClock; ``"human"`` seats get a FakeParticipant, others a bot."""
    shared_log = log if log is not None else []
    clock = ManualClock()
    repo = repo if repo is not None else InMemoryRepository()
    specs: list[SeatSpec] = []
    humans: dict[int, FakeParticipant] = {}
    for seat, who in enumerate(seats):
        if who == "human":
            p = FakeParticipant(account(f"p{seat}"), shared_log)
            humans[seat] = p
            specs.append(SeatSpec(name=p.account.name, kind=p.account.kind, account_id=p.account.id))
        else:
            specs.append(SeatSpec(name=f"{who}-{seat}", kind=AccountKind.BOT, bot=who))
    table = TableActor(
        TableSetup(
            match_id="m-test",
            ruleset=ruleset,
            seed=seed,
            seats=specs,
            timers=timers or TableTimers(),
            spectate=spectate or SpectatePolicy(delay_s=0.0),
            walls=walls,
        ),
        TableDeps(repo=repo, clock=clock, commit_timeout_s=commit_timeout_s, metrics=metrics),
    )
    await table.start(dict(humans))
    await table.settle()
    return TableKit(table=table, clock=clock, repo=repo, humans=humans, log=shared_log)


# -- the leak scanner --------------------------------------------------------------------------------


class LeakError(AssertionError):
    pass


class LeakScanner:
    """Checks every message one client receives for secrets it must not see.

    ``viewer`` is the client's seat (None for a spectator). Per message: another seat's dealt hand
    or drawn tile must be null, prompts are for the viewer only, snapshots hide the other hands,
    and the wall is revealed only after the hand's result. :meth:`verify` then compares every event
    with the omniscient log, redacted for the viewer: equal, field by field.
    """

    def __init__(self, viewer: int | None) -> None:
        self.viewer = viewer
        self.events: dict[str, dict[int, w.Event]] = {}
        self._hand_over: dict[str, bool] = {}
        self.count = 0

    def scan(self, message: ServerMessage) -> None:
        self.count += 1
        match message:
            case EventMessage(match_id=match_id, version=version, event=event):
                self._scan_event(match_id, event)
                seen = self.events.setdefault(match_id, {})
                if version in seen and seen[version] != event:
                    raise LeakError(f"version {version} of {match_id} arrived twice, differently")
                seen[version] = event
            case Snapshot(view=view):
                for s in view.seats:
                    if s.seat != self.viewer and (s.hand is not None or s.drawn is not None):
                        raise LeakError(f"snapshot shows seat {s.seat}'s concealed tiles to {self.viewer}")
            case Prompt(seat=seat):
                if seat != self.viewer:
                    raise LeakError(f"prompt for seat {seat} sent to {self.viewer}")
            case _:
                pass

    def _scan_event(self, match_id: str, event: w.Event) -> None:
        match event:
            case w.RoundStarted(hands=hands):
                self._hand_over[match_id] = False
                for s, hand in enumerate(hands):
                    if s != self.viewer and hand is not None:
                        raise LeakError(f"round_started shows seat {s}'s hand to {self.viewer}")
            case w.TileDrawn(seat=seat, tile=tile):
                if seat != self.viewer and tile is not None:
                    raise LeakError(f"tile_drawn shows seat {seat}'s draw to {self.viewer}")
            case w.HandWon() | w.HandDrawn():
                self._hand_over[match_id] = True
            case w.WallRevealed():
                if not self._hand_over.get(match_id, False):
                    raise LeakError("the wall was revealed before the hand ended")
            case _:
                pass

    async def verify(self, repo: Repository, match_id: str) -> int:
        """Compare what was received with the stored omniscient log; returns the events checked."""
        omniscient = [e for step in await repo.steps(match_id) for e in step.events]
        received = self.events.get(match_id, {})
        for version, event in received.items():
            expected = redact_json(_plain(omniscient[version - 1]), self.viewer)
            got = _plain(event)
            if got != expected:
                raise LeakError(f"version {version}: got {got}, expected {expected}")
        return len(received)


def _plain(value: Any) -> Any:
    """JSON types only (tuples become lists), as a client would decode them."""
    return msgspec.json.decode(msgspec.json.encode(value))


def redact_json(event: Any, viewer: int | None) -> Any:
    """The test's own, independent statement of what a viewer may see of an omniscient event."""
    event = dict(event)
    if event["type"] == "round_started":
        event["hands"] = [h if s == viewer else None for s, h in enumerate(event["hands"])]
    elif event["type"] == "tile_drawn" and event["seat"] != viewer:
        event["tile"] = None
    return event


class ScannedClient(Client):
    """The library client, with every message it receives run through a :class:`LeakScanner`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: list[ServerMessage] = []
        self.scanner: LeakScanner | None = None
        self.leaks: list[LeakError] = []

    async def _dispatch(self, message: ServerMessage) -> None:
        self.received.append(message)
        if isinstance(message, Seated):
            self.scanner = LeakScanner(message.seat)
        try:
            if self.scanner is not None:
                self.scanner.scan(message)
            elif isinstance(message, EventMessage | Prompt | Snapshot):
                raise LeakError(f"{type(message).__name__} before seated")
        except LeakError as exc:  # the reader task must go on; the test asserts on .leaks
            self.leaks.append(exc)
        await super()._dispatch(message)

    async def verify(self, repo: Repository) -> int:
        """No leak seen, and every event equal to the omniscient log redacted for this viewer."""
        assert not self.leaks, self.leaks
        assert self.scanner is not None and self.match_id is not None
        return await self.scanner.verify(repo, self.match_id)


def first(items: Iterable[OutT]) -> OutT:
    return next(iter(items))
