"""No side channel: what a seat or a spectator receives never depends on another seat's options.

Two walls differ only in seat 1's concealed tiles: in one, seat 1 may pon the dealer's first discard
(and passes); in the other it may not. Every public move is the same. The three other seats and a
spectator (without delay, or a few public steps behind) must receive byte-identical frames: prompts
(their ``step``), acks, errors (also the ones a client provokes on purpose), event versions, message
counts and sizes. The one difference allowed is the wall's commitment, a hash of
the whole wall (published so that the wall can be checked after the hand), which is masked here.

The frames are the real protocol's (:class:`~server.hub.session.ProtocolSession` behind a table on
a manual clock), so anything the renderer adds is covered too.
"""

from __future__ import annotations

import json
import re

import msgspec
import pytest

from client_protocol.messages import GuestAuth
from server.domain.records import AccountKind
from server.engine.tiles import parse_tiles
from server.engine.wall import build_wall
from server.hub.adapter import Authenticate
from server.hub.clock import ManualClock
from server.hub.inbox import Attach, SeatSpec
from server.hub.session import ProtocolSession
from server.hub.settings import ConnectionLimits, SpectatePolicy, TableTimers
from server.hub.table import TableActor
from server.hub.tablesetup import TableDeps, TableSetup
from server.store.memory import InMemoryRepository
from tests.hub.corekit import Directory, Sink
from tests.hub.helpers import EAST, account

COMMON = "5p6p7p8p9p1s2s3s4s5s6s"  # seat 1's eleven tiles that are the same in both walls
HANDS = {
    0: "1m2m3m4m5m6m7m8m9m1p2p3p4p",
    2: "1m2m3m4m5m6m7m8m9m1p2p3p4p",
    3: "2z2z2z3z3z3z4z4z4z5z5z5z7p",
}
# The dealer draws the third east wind and discards it at once (tsumogiri); then plain draws.
DRAWS = "1z" + "7s8s9s" * 3 + "6p6p6p6z6z6z9p9p9p"
DISCARDS = 14  # compare everything up to the 14th discard (all of them from the given draws)
HELLO = '{"type": "hello", "protocol": 1, "auth": {"type": "guest", "name": "p"}}'
COMMITMENT = re.compile(rb'"wall_commitment":"[0-9a-f]+"')


def wall(seat1_pair: str) -> tuple[int, ...]:
    hands = [parse_tiles(HANDS[s]) if s != 1 else parse_tiles(seat1_pair + COMMON) for s in range(4)]
    return tuple(
        build_wall(
            hands, 0, live_draws=parse_tiles(DRAWS), dora_indicators=parse_tiles("8p"), red_fives=(1, 1, 1)
        )
    )


def connection(name: str, clock: ManualClock, directory: Directory) -> tuple[ProtocolSession, Sink]:
    sink = Sink()
    core = ProtocolSession(sink, directory, clock, ConnectionLimits(rate_per_s=1000.0, rate_burst=1000))
    assert core.receive_hello(HELLO) == Authenticate(GuestAuth(name="p"))
    core.authenticated(account(name))
    core.welcome("token")
    sink.frames.clear()
    return core, sink


def act_frame(rid: int, step: int, action: object) -> str:
    return msgspec.json.encode({"type": "act", "request_id": rid, "step": step, "action": action}).decode()


async def play(seat1_pair: str, delay_steps: int) -> dict[str, list[bytes]]:
    """Play the hand (every seat: pass when it may, otherwise discard the drawn tile) up to the
    ``DISCARDS``-th discard; returns the frames each seat and spectator received."""
    clock, directory = ManualClock(), Directory()
    seats = {s: connection(f"p{s}", clock, directory) for s in range(4)}
    specs = [
        SeatSpec(name=f"p{s}", kind=AccountKind.GUEST, account_id=seats[s][0].account.id) for s in range(4)
    ]
    table = TableActor(
        TableSetup(
            match_id="m-side",
            ruleset=EAST,
            seed=b"side",
            seats=specs,
            timers=TableTimers(min_call_ms=0),
            spectate=SpectatePolicy(delay_steps=delay_steps, delay_s=0.0),
            walls=[wall(seat1_pair)] * 8,
        ),
        TableDeps(repo=InMemoryRepository(), clock=clock),
    )
    directory.tables["m-side"] = table  # type: ignore[assignment]
    await table.start({s: core for s, (core, _) in seats.items()})
    spectator, spectator_sink = connection("watcher", clock, directory)
    table.submit(Attach(spectator, None, 0, announce=True))
    await table.settle()
    received: dict[int, list[bytes]] = {s: [] for s in range(4)}
    rids = dict.fromkeys(range(4), 0)  # request ids per seat (seat 1's own acts differ)
    while sum(1 for e in await table.history() if type(e).__name__ == "TileDiscarded") < DISCARDS:
        moved = False
        for s, (core, sink) in seats.items():
            frames, sink.frames[:] = list(sink.frames), []
            received[s].extend(frames)
            for frame in frames:
                message = json.loads(frame)
                if message["type"] != "prompt":
                    continue
                legal = message["legal_actions"]
                choice = next((a for a in legal if a["type"] == "pass"), None)
                if choice is None:
                    choice = next(a for a in legal if a["type"] == "discard" and a["tsumogiri"])
                if s == 2:
                    # Errors a client can provoke on purpose (seat 2 with a decision, seat 3
                    # without one): none may tell it the table's internal step.
                    for prober in (2, 3):
                        for step in (0, message["step"] - 1, message["step"] + 1, 10_000):
                            rids[prober] += 1
                            seats[prober][0].receive(act_frame(rids[prober], step, choice))
                rids[s] += 1
                core.receive(act_frame(rids[s], message["step"], choice))
                moved = True
        await table.settle()
        if not moved:
            clock.advance(0.1)
            await table.settle()
    out = {f"seat {s}": received[s] + list(seats[s][1].frames) for s in (0, 2, 3)}
    out["spectator"] = list(spectator_sink.frames)
    await table.stop()
    return out


def masked(frames: list[bytes]) -> list[bytes]:
    return [COMMITMENT.sub(b'"wall_commitment":"*"', f) for f in frames]


@pytest.mark.asyncio
@pytest.mark.parametrize("delay_steps", [0, 3])
async def test_another_seats_call_option_changes_nothing_anyone_else_receives(delay_steps: int) -> None:
    may_pon, may_not = await play("1z1z", delay_steps), await play("7z7z", delay_steps)
    assert may_pon.keys() == may_not.keys()
    for who in may_pon:
        assert len(may_pon[who]) > 20, who
        assert masked(may_pon[who]) == masked(may_not[who]), who
