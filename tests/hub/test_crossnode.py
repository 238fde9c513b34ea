"""Cluster mode's quick match, locality first (server/hub/crossnode.py), on a manual clock with a fake
placement port: four players of one node make a table there at once; a player not paired within
the local wait goes to the queue's matcher node with every other player waiting here; nobody stays
behind when the matcher's name moves; a player handed over keeps its place and its bot fill-in
time."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from client_protocol.errors import ErrorCode
from server.domain.records import AccountKind
from server.hub.clock import ManualClock
from server.hub.lobby import Lobby
from server.hub.outputs import ErrorOut, Participant, QueuedOut, SeatedOut
from server.hub.placement import LocalPlacement
from server.hub.settings import HubSettings, TableTimers
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST, FakeParticipant, account

pytestmark = pytest.mark.asyncio
ELSEWHERE = "ws://n1:8765"


class FakeCluster(LocalPlacement):
    """A placement port whose queue matcher is ``matcher`` (None: this node); records each look."""

    def __init__(self, local_wait_s: float = 1.0) -> None:
        self.matcher: str | None = None
        self.looks: list[tuple[str, bool]] = []
        self._local_wait_s = local_wait_s

    @property
    def queue_local_wait_s(self) -> float | None:
        return self._local_wait_s

    async def locate_queue(self, queue: str, *, keep: bool = False) -> str | None:
        self.looks.append((queue, keep))
        return self.matcher


@dataclass
class Handoffs:
    """The lobby's hand-over port: records (player, url, queue, request id, since)."""

    refuse: bool = False
    made: list[tuple[Participant, str, str, int | None, float]] = field(default_factory=list)

    def __call__(self, p: Participant, url: str, queue: str, request_id: int | None, since: float) -> bool:
        if self.refuse:
            return False
        self.made.append((p, url, queue, request_id, since))
        return True

    def who(self) -> list[Participant]:
        return [h[0] for h in self.made]


def make_lobby(
    placement: FakeCluster, handoffs: Handoffs, repo: InMemoryRepository | None = None
) -> tuple[Lobby, ManualClock]:
    clock = ManualClock()
    store = repo if repo is not None else InMemoryRepository()
    lobby = Lobby(
        repo=store,
        clock=clock,
        settings=HubSettings(timers=TableTimers(bot_delay_ms=60_000), bot_fill_after_s=10.0),
        rulesets={"tenhou": EAST},
        seed_source=lambda: b"crossnode-seed",
        rng=random.Random(1),
        placement=placement,
        hand_off=handoffs,
        ratings=store,
    )
    return lobby, clock


async def advance(lobby: Lobby, clock: ManualClock, seconds: float) -> None:
    clock.advance(seconds)
    await lobby.settle()


def seated(p: FakeParticipant) -> SeatedOut | None:
    items = p.of(SeatedOut)
    return items[-1] if items else None


async def test_four_players_of_one_node_make_a_table_here_at_once() -> None:
    placement, handoffs = FakeCluster(), Handoffs()
    placement.matcher = ELSEWHERE
    lobby, clock = make_lobby(placement, handoffs)
    players = [FakeParticipant(account(f"p{i}")) for i in range(4)]
    for p in players:
        await lobby.join_queue(p, "tenhou", 1)
    await advance(lobby, clock, 5.0)
    assert len({s.match_id for s in map(seated, players) if s is not None}) == 1
    assert all(seated(p) is not None for p in players)
    assert placement.looks == [] and handoffs.made == []  # nobody asked the cluster, nobody relayed


async def test_a_straggler_goes_to_the_matcher_with_everyone_waiting_here() -> None:
    placement, handoffs = FakeCluster(), Handoffs()
    placement.matcher = ELSEWHERE
    lobby, clock = make_lobby(placement, handoffs)
    alice, bob = FakeParticipant(account("alice")), FakeParticipant(account("bob"))
    await lobby.join_queue(alice, "tenhou", 7)
    await advance(lobby, clock, 0.5)
    await lobby.join_queue(bob, "tenhou", 8)
    await advance(lobby, clock, 0.49)
    assert handoffs.made == [] and lobby.waiting("tenhou") == 2  # within alice's local wait
    await advance(lobby, clock, 0.01)  # alice waited 1 s here: she and bob go to the matcher
    assert placement.looks == [("tenhou", False)]
    assert handoffs.made == [(alice, ELSEWHERE, "tenhou", 7, 0.0), (bob, ELSEWHERE, "tenhou", 8, 0.5)]
    assert lobby.waiting("tenhou") == 0
    await advance(lobby, clock, 60.0)  # no bot fill-in here, no further look: they are gone
    assert seated(alice) is None and placement.looks == [("tenhou", False)]


async def test_with_no_local_wait_a_player_goes_at_once() -> None:
    placement, handoffs = FakeCluster(local_wait_s=0.0), Handoffs()
    placement.matcher = ELSEWHERE
    lobby, clock = make_lobby(placement, handoffs)
    alice = FakeParticipant(account("alice"))
    await lobby.join_queue(alice, "tenhou", 1)
    await advance(lobby, clock, 0.0)
    assert handoffs.who() == [alice]


async def test_the_matcher_keeps_its_players_and_puts_a_handed_over_one_in_its_first_queued_place() -> None:
    placement, handoffs = FakeCluster(), Handoffs()  # this node is the matcher
    lobby, clock = make_lobby(placement, handoffs)
    local = [FakeParticipant(account(f"l{i}")) for i in range(2)]
    for p in local:
        await lobby.join_queue(p, "tenhou", 1)
        await advance(lobby, clock, 2.0)
    assert handoffs.made == [] and lobby.waiting("tenhou") == 2
    assert placement.looks[:2] == [("tenhou", False), ("tenhou", False)]  # asked every second
    looks = len(placement.looks)
    remote = FakeParticipant(account("remote"))
    await lobby.join_queue(remote, "tenhou", 3, waited_s=9.0)  # handed over after 9 s elsewhere
    assert remote.of(QueuedOut)[-1] == QueuedOut("tenhou", 3)
    await advance(lobby, clock, 0.0)
    assert placement.looks[looks] == ("tenhou", True)  # asked at once, keeping the name
    fourth = FakeParticipant(account("fourth"))
    await lobby.join_queue(fourth, "tenhou", 4)
    await lobby.settle()
    assert all(seated(p) is not None for p in [*local, remote, fourth])


async def test_fifo_a_handed_over_player_is_paired_before_newer_local_ones() -> None:
    placement, handoffs = FakeCluster(), Handoffs()
    lobby, clock = make_lobby(placement, handoffs)
    newer = [FakeParticipant(account(f"new{i}")) for i in range(3)]
    for p in newer:
        await lobby.join_queue(p, "tenhou", 1)
    await advance(lobby, clock, 1.0)
    old = FakeParticipant(account("old"))
    await lobby.join_queue(old, "tenhou", 2, waited_s=5.0)  # queued 4 s before the others
    await lobby.settle()
    assert seated(old) is not None and all(seated(p) is not None for p in newer)
    later = [FakeParticipant(account(f"later{i}")) for i in range(3)]
    for p in later:
        await lobby.join_queue(p, "tenhou", 1)
    old2 = FakeParticipant(account("old2"))
    await lobby.join_queue(old2, "tenhou", 2, waited_s=1.0)
    fifth = FakeParticipant(account("fifth"))
    await lobby.join_queue(fifth, "tenhou", 1)  # four waited longer than fifth: fifth stays
    await lobby.settle()
    assert seated(old2) is not None and seated(fifth) is None


async def test_nobody_stays_behind_when_the_matchers_name_moves() -> None:
    """A node that paired the queue (its players stay) and then is no longer the named matcher (its
    name expired and another node was named) hands its players over at its next look."""
    placement, handoffs = FakeCluster(), Handoffs()
    lobby, clock = make_lobby(placement, handoffs)
    alice, bob = FakeParticipant(account("alice")), FakeParticipant(account("bob"))
    await lobby.join_queue(alice, "tenhou", 1)
    await lobby.join_queue(bob, "tenhou", 2, waited_s=3.0)
    await advance(lobby, clock, 1.5)
    assert handoffs.made == [] and lobby.waiting("tenhou") == 2  # the matcher: they stay
    placement.matcher = ELSEWHERE  # the name moved
    await advance(lobby, clock, 1.0)
    assert set(handoffs.who()) == {alice, bob} and lobby.waiting("tenhou") == 0


async def test_a_player_that_cannot_be_handed_over_stays_and_is_tried_again() -> None:
    placement, handoffs = FakeCluster(), Handoffs(refuse=True)
    placement.matcher = ELSEWHERE
    lobby, clock = make_lobby(placement, handoffs)
    alice = FakeParticipant(account("alice"))
    await lobby.join_queue(alice, "tenhou", 1)
    await advance(lobby, clock, 1.0)
    assert lobby.waiting("tenhou") == 1 and len(placement.looks) == 1
    handoffs.refuse = False
    await advance(lobby, clock, 1.0)
    assert handoffs.who() == [alice] and len(placement.looks) == 2


async def test_a_failed_hand_over_puts_the_player_back_in_its_place() -> None:
    placement, handoffs = FakeCluster(), Handoffs()
    placement.matcher = ELSEWHERE
    lobby, clock = make_lobby(placement, handoffs)
    alice = FakeParticipant(account("alice"))
    await lobby.join_queue(alice, "tenhou", 5)
    await advance(lobby, clock, 1.0)
    assert handoffs.who() == [alice]
    await advance(lobby, clock, 0.3)
    lobby.requeue(alice, "tenhou", 5, since=0.0)  # the matcher could not be reached
    assert lobby.waiting("tenhou") == 1 and alice.of(QueuedOut)[-1] == QueuedOut("tenhou", 1)
    placement.matcher = None  # and meanwhile this node became the matcher: she stays here
    await advance(lobby, clock, 8.69)
    assert seated(alice) is None
    await advance(lobby, clock, 0.01)  # 10 s after she first queued: bots fill the table here
    assert seated(alice) is not None


async def test_bots_fill_in_counting_from_when_the_player_first_queued() -> None:
    placement, handoffs = FakeCluster(), Handoffs()
    lobby, clock = make_lobby(placement, handoffs)
    remote = FakeParticipant(account("remote"))
    await lobby.join_queue(remote, "tenhou", 1, waited_s=8.0)  # 8 s of its 10 s wait were elsewhere
    await advance(lobby, clock, 1.99)
    assert seated(remote) is None
    await advance(lobby, clock, 0.01)
    s = seated(remote)
    assert s is not None and sorted(p.kind.value for p in s.players).count("bot") == 3


async def test_a_ranked_queue_hands_over_and_checks_entry_on_the_matcher_too() -> None:
    placement, handoffs = FakeCluster(), Handoffs()
    placement.matcher = ELSEWHERE
    lobby, clock = make_lobby(placement, handoffs)
    players = [FakeParticipant(account(f"r{i}", AccountKind.PLAYER)) for i in range(2)]
    for p in players:
        await lobby.join_queue(p, "ranked:open:east", 1)
    await advance(lobby, clock, 1.0)
    assert handoffs.who() == players and {h[2] for h in handoffs.made} == {"ranked:open:east"}
    guest = FakeParticipant(account("guest"))
    await lobby.join_queue(guest, "ranked:open:east", 9, waited_s=2.0)  # handed over: checked here
    assert [e.code for e in guest.of(ErrorOut)] == [ErrorCode.FORBIDDEN]


async def test_one_process_has_no_cross_node_queue() -> None:
    lobby = Lobby(
        repo=InMemoryRepository(),
        clock=ManualClock(),
        settings=HubSettings(),
        rulesets={"tenhou": EAST},
        hand_off=Handoffs(),  # LocalPlacement: nobody to hand over to
    )
    assert lobby.stragglers is None
