"""Rare hands played through the hub, then exported and verified (issue 15, item 7).

Our material holds no independent occurrence of these hands, so each is built from an injected
wall and played whole through the hub path: four participants act at a ``TableActor`` that stores
every step in the in-memory repository, as a live table does. The stored game is then exported to
tenhou.net/6 JSON and mjai JSON lines, each export is read back and its result checked (points,
yaku, deltas, pao), and ``verify`` replays both with no mismatch.

Cases: pao on a ron, daisuushii pao, suukantsu pao, three rons on one discard under each
``multiple_ron`` setting, a double yakuman, a composite yakuman, kazoe yakuman, kokushi robbing a
closed kan, renhou, and haitei after a rinshan draw.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import pytest

from server.engine import legal_actions, pending_seats
from server.engine.actions import (
    Action,
    Ankan,
    Daiminkan,
    Discard,
    Pass,
    Pon,
    Riichi,
    Ron,
    Tsumo,
)
from server.engine.events import Event, HandDrawn, HandWon, MatchStarted, RoundEnded
from server.engine.rules import EMA, MAHJONGSOUL, TENHOU, MultipleRon, Ruleset
from server.engine.state import MatchState, Phase
from server.engine.tiles import Tile, parse_tile, parse_tiles
from server.eventlog.codec import log_events
from server.hub.recovery import replay_log
from server.records import GameRecord
from server.records.export import export_match
from server.records.mjai import read_mjai
from server.records.model import Win
from server.records.replay import Outcome, record_ruleset, replay_record
from server.records.tenhou6 import read_tenhou6
from server.records.yaku import engine_yaku_id
from tests.engine.scenario import quiet_wall, spare_walls
from tests.engine.test_rules import TENHOU_BEFORE_KARATEN, TENHOU_BEFORE_KARATEN_HASH
from tests.hub.helpers import TableKit, make_table

T = parse_tile
NAMES = ["A", "B", "C", "D"]


def quad(text: str) -> tuple[Tile, Tile, Tile, Tile]:
    a, b, c, d = parse_tiles(text)
    return (a, b, c, d)


class HubHand:
    """Drives a table whose four seats are test participants, with the engine's legal actions."""

    def __init__(self, kit: TableKit) -> None:
        self.kit = kit

    @property
    def state(self) -> MatchState:
        state = self.kit.table.state
        assert state is not None
        return state

    def legal(self, seat: int) -> frozenset[Action]:
        return legal_actions(self.state, seat)

    async def do(self, seat: int, action: Action) -> None:
        assert action in self.legal(seat), (seat, action, sorted(map(repr, self.legal(seat))))
        before = self.state.step
        await self.kit.act(seat, action)
        assert not self.kit.humans[seat].errors(), self.kit.humans[seat].errors()
        assert self.state.step == before + 1, "the table did not apply the action"

    async def discard(self, seat: int, tile: str) -> None:
        t = T(tile)
        for tsumogiri in (False, True):
            if Discard(t, tsumogiri) in self.legal(seat):
                await self.do(seat, Discard(t, tsumogiri))
                return
        raise AssertionError(f"seat {seat} cannot discard {tile}")

    async def tsumogiri(self, seat: int) -> None:
        drawn = self.state.hand.players[seat].drawn
        assert drawn is not None
        await self.do(seat, Discard(drawn, True))

    async def pass_all(self, *, except_seat: int | None = None) -> None:
        while self.state.hand.phase in (Phase.CALLS, Phase.CHANKAN):
            seats = [s for s in pending_seats(self.state) if s != except_seat]
            if not seats:
                return
            await self.do(seats[0], Pass())

    async def play(self, seat: int, tile: str) -> None:
        await self.discard(seat, tile)
        await self.pass_all()

    async def run_to(self, remaining: int) -> None:
        while self.state.hand.live_remaining > remaining:
            await self.tsumogiri(self.state.hand.turn)
            await self.pass_all()


async def through_the_hub(
    ruleset: Ruleset,
    wall: Sequence[Tile],
    script: Callable[[HubHand], Awaitable[None]],
) -> list[Event]:
    """Play the hand ``script`` plays at a hub table; the stored events up to its end."""
    walls = [wall, *spare_walls(ruleset)]
    kit = await make_table(("human",) * 4, ruleset=ruleset, walls=walls, seed=b"hub-records")
    await script(HubHand(kit))
    stored = await kit.repo.steps(kit.table.match_id)
    events = log_events(stored)
    end = next(i for i, e in enumerate(events) if isinstance(e, RoundEnded))
    return events[: end + 1]


def exported(events: list[Event]) -> tuple[GameRecord, GameRecord]:
    """The events exported to tenhou.net/6 and to mjai, each read back and verified."""
    records = (
        read_tenhou6(export_match(events, "tenhou6", names=NAMES)),
        read_mjai(export_match(events, "mjai", names=NAMES)),
    )
    for record in records:
        reports = replay_record(record, record_ruleset(record))
        assert [str(m) for r in reports for m in r.mismatches] == []
        assert [r.outcome for r in reports] == [Outcome.VERIFIED]
    return records


def yaku_of(win: Win) -> dict[str, int]:
    return {engine_yaku_id(y.id): y.han for y in win.yaku if y.han}


def check_wins(
    events: list[Event], expected: list[tuple[int, int, int, tuple[int, ...], int | None]]
) -> None:
    """Each win (seat, from, points, deltas, pao) in the event log and in both exports."""
    ours = [e for e in events if isinstance(e, HandWon)]
    assert [(w.seat, w.from_seat, w.points, w.deltas, w.pao_seat) for w in ours] == expected
    for record in exported(events):
        wins = record.hands[0].wins
        assert [(w.seat, w.from_seat, w.deltas) for w in wins] == [(s, f, d) for s, f, _, d, _ in expected]
        for win, event in zip(wins, ours, strict=True):
            if win.yaku:  # mjai writes no yaku
                assert yaku_of(win) == {y.name: y.han for y in event.yaku if y.han}
            if win.points is not None:
                assert win.points == event.points
            if record.source.value == "tenhou6":
                assert win.pao_seat == event.pao_seat


# -- pao ------------------------------------------------------------------------------------------


async def _daisangen_fed_by_seat_2(h: HubHand) -> None:
    await h.tsumogiri(0)  # 5z
    await h.do(1, Pon((T("5z"), T("5z"))))
    await h.play(1, "1z")
    await h.tsumogiri(2)  # 6z
    await h.do(1, Pon((T("6z"), T("6z"))))
    await h.play(1, "2z")
    await h.tsumogiri(2)  # 7z
    await h.do(1, Pon((T("7z"), T("7z"))))
    assert h.state.hand.players[1].pao_seat == 2
    await h.play(1, "3z")


@pytest.mark.asyncio
async def test_pao_on_a_ron() -> None:
    """Seat 2 fed seat 1's third dragon pon; seat 3 deals in the daisangen: the discarder and the
    liable seat pay half each (16,000)."""
    wall = quiet_wall({1: "55z66z77z123m9s123z"}, "5z6z7z", late={4: "9s"}, dora="9p")

    async def script(h: HubHand) -> None:
        await _daisangen_fed_by_seat_2(h)
        await h.tsumogiri(2)
        await h.pass_all()
        await h.tsumogiri(3)  # 9s
        await h.do(1, Ron())

    events = await through_the_hub(TENHOU, wall, script)
    check_wins(events, [(1, 3, 32000, (0, 32000, -16000, -16000), 2)])


@pytest.mark.asyncio
async def test_daisuushii_pao() -> None:
    """Seat 2 fed the fourth wind pon: it pays seat 1's daisuushii tsumo alone (Tenhou: one
    yakuman, 32,000)."""
    wall = quiet_wall({1: "11z22z33z44z19m19p9s"}, "1z2z3z4z", late={7: "9s"}, dora="5p")

    async def script(h: HubHand) -> None:
        await h.tsumogiri(0)  # 1z
        await h.do(1, Pon((T("1z"), T("1z"))))
        await h.play(1, "1m")
        for wind, drop in (("2z", "9m"), ("3z", "1p"), ("4z", "9p")):
            await h.tsumogiri(2)
            await h.do(1, Pon((T(wind), T(wind))))
            await h.play(1, drop)
        assert h.state.hand.players[1].pao_seat == 2
        while not (h.state.hand.turn == 1 and h.state.hand.players[1].drawn == T("9s")):
            await h.tsumogiri(h.state.hand.turn)
            await h.pass_all()
        await h.do(1, Tsumo())

    events = await through_the_hub(TENHOU, wall, script)
    check_wins(events, [(1, 1, 32000, (0, 32000, -32000, 0), 2)])


@pytest.mark.asyncio
async def test_suukantsu_pao() -> None:
    """With suukantsu in ``pao``: seat 2 discards the tile of seat 1's fourth kan (a daiminkan) and
    pays the suukantsu won on its replacement tile alone."""
    ruleset = TENHOU.with_options(pao=["daisangen", "daisuushii", "suukantsu"])
    wall = quiet_wall(
        {1: "111m222p333s444z9p", 2: "4z258m369p147s58s6z"},
        "6m1m",
        late={5: "2p", 9: "3s"},
        rinshan="6s7s8s9p",
        ruleset=ruleset,
    )

    async def script(h: HubHand) -> None:
        await h.tsumogiri(0)
        await h.pass_all()
        for tile in ("1m", "2p", "3s"):
            while not (h.state.hand.turn == 1 and h.state.hand.players[1].drawn == T(tile)):
                await h.tsumogiri(h.state.hand.turn)
                await h.pass_all()
            await h.do(1, Ankan(quad(tile[0] * 4 + tile[1])))
            await h.tsumogiri(1)  # the replacement tile
            await h.pass_all()
            if tile != "3s":
                continue
            await h.discard(2, "4z")
            await h.do(1, Daiminkan((T("4z"), T("4z"), T("4z"))))
            assert h.state.hand.players[1].pao_seat == 2
            await h.do(1, Tsumo())  # 9p on the fourth replacement draw

    events = await through_the_hub(ruleset, wall, script)
    check_wins(events, [(1, 1, 32000, (0, 32000, -32000, 0), 2)])


# -- three rons on one discard ------------------------------------------------------------------

TRIPLE = {
    1: "234m567p88p678s23s",  # 1s / 4s, pinfu
    2: "345m456p678m99s56s",  # 4s / 7s, pinfu
    3: "123p456p789p111m4s",  # 4s tanki, ittsu
}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("ruleset", "winners"),
    [
        (MAHJONGSOUL, [1, 2, 3]),
        (TENHOU.with_options(abort_sanchahou=False), [1, 2]),
        (EMA, [1]),
        (TENHOU, []),
    ],
    ids=["triple", "double", "head_bump", "sanchahou"],
)
async def test_three_rons_on_one_discard(ruleset: Ruleset, winners: list[int]) -> None:
    """Seat 0's 4s completes three hands. ``triple`` scores all three, ``double`` the first two from
    the discarder's right, ``head_bump`` the first; Tenhou (``double`` with ``abort_sanchahou``)
    aborts the hand."""
    wall = quiet_wall(TRIPLE, "1z2z3z4z4s", ruleset=ruleset)

    async def script(h: HubHand) -> None:
        for seat in range(4):
            await h.tsumogiri(seat)
            await h.pass_all()
        await h.tsumogiri(0)  # 4s
        for seat in (1, 2, 3):
            await h.do(seat, Ron())

    events = await through_the_hub(ruleset, wall, script)
    wins = [e for e in events if isinstance(e, HandWon)]
    assert [w.seat for w in wins] == winners
    records = exported(events)
    if not winners:
        (drawn,) = [e for e in events if isinstance(e, HandDrawn)]
        assert str(drawn.reason) == "sanchahou"
        for record in records:
            draw = record.hands[0].draw
            assert draw is not None and str(draw.reason) == "sanchahou"
        return
    assert ruleset.multiple_ron is not MultipleRon.HEAD_BUMP or len(winners) == 1
    for record in records:
        assert [w.seat for w in record.hands[0].wins] == winners
        assert [w.deltas for w in record.hands[0].wins] == [w.deltas for w in wins]
    assert sum(sum(w.deltas) for w in wins) == 0
    assert sum(-w.deltas[0] for w in wins) == sum(w.points for w in wins)


# -- yakuman values -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_double_yakuman() -> None:
    """Mahjong Soul counts kokushi on its thirteen-sided wait double: 64,000 from the discarder."""
    wall = quiet_wall({2: "19m19p19s1234567z"}, "3m9m", ruleset=MAHJONGSOUL)

    async def script(h: HubHand) -> None:
        await h.tsumogiri(0)  # 3m
        await h.pass_all()
        await h.tsumogiri(1)  # 9m
        await h.do(2, Ron())

    events = await through_the_hub(MAHJONGSOUL, wall, script)
    check_wins(events, [(2, 1, 64000, (0, -64000, 64000, 0), None)])
    (win,) = [e for e in events if isinstance(e, HandWon)]
    assert win.yakuman == 2 and [y.name for y in win.yaku] == ["kokushi_13"]


@pytest.mark.asyncio
async def test_composite_yakuman() -> None:
    """Daisangen and tsuuiisou in one hand, won on a shanpon: two yakuman on Tenhou (64,000)."""
    wall = quiet_wall({2: "555z666z777z11z22z"}, "3m1z")

    async def script(h: HubHand) -> None:
        await h.tsumogiri(0)
        await h.pass_all()
        await h.tsumogiri(1)  # 1z
        await h.do(2, Ron())

    events = await through_the_hub(TENHOU, wall, script)
    check_wins(events, [(2, 1, 64000, (0, -64000, 64000, 0), None)])
    (win,) = [e for e in events if isinstance(e, HandWon)]
    assert win.yakuman == 2 and {y.name for y in win.yaku} == {"daisangen", "tsuuiisou"}


@pytest.mark.asyncio
async def test_kazoe_yakuman() -> None:
    """Riichi, tsumo, pinfu, iipeikou, ittsu, chinitsu and three dora (5m, indicator 4m): 13+ han is
    a counted yakuman, 8,000 / 16,000."""
    wall = quiet_wall({1: "123m123m56m789m55m"}, "9s2z", late={5: "4m"}, dora="4m")

    async def script(h: HubHand) -> None:
        await h.tsumogiri(0)
        await h.pass_all()
        await h.do(1, Riichi(T("2z"), True))
        await h.pass_all()
        while not (h.state.hand.turn == 1 and h.state.hand.players[1].drawn == T("4m")):
            await h.tsumogiri(h.state.hand.turn)
            await h.pass_all()
        await h.do(1, Tsumo())

    events = await through_the_hub(TENHOU, wall, script)
    (win,) = [e for e in events if isinstance(e, HandWon)]
    assert win.limit == "kazoe_yakuman" and win.han >= 13 and win.points == 32000
    check_wins(events, [(1, 1, 32000, win.deltas, None)])
    assert win.deltas[1] == 32000 + 1000  # the riichi stick comes back
    tenhou6, _ = exported(events)  # mjai has no limit field
    assert tenhou6.hands[0].wins[0].limit == "kazoe_yakuman"


# -- kans, the first turn, the last tile ---------------------------------------------------------


@pytest.mark.asyncio
async def test_kokushi_robs_a_closed_kan() -> None:
    """Mahjong Soul lets kokushi rob a closed kan: the 1m of seat 0's ankan, 32,000 from seat 0."""
    hands = {0: "1111m258p369s147z", 1: "9m19p19s12345677z"}
    wall = quiet_wall(hands, "9s", rinshan="9p", ruleset=MAHJONGSOUL)

    async def script(h: HubHand) -> None:
        await h.do(0, Ankan(quad("1111m")))
        assert h.state.hand.phase is Phase.CHANKAN
        await h.do(1, Ron())

    events = await through_the_hub(MAHJONGSOUL, wall, script)
    check_wins(events, [(1, 0, 32000, (-32000, 32000, 0, 0), None)])


@pytest.mark.asyncio
async def test_renhou() -> None:
    """EMA: a ron before the player's first draw is renhou, a mangan (8,000) that takes no other
    yaku or dora."""
    wall = quiet_wall({2: "23m456p789s678s11z"}, "1m", dora="1m", ruleset=EMA)

    async def script(h: HubHand) -> None:
        await h.tsumogiri(0)  # 1m
        await h.do(2, Ron())

    events = await through_the_hub(EMA, wall, script)
    check_wins(events, [(2, 0, 8000, (-8000, 0, 8000, 0), None)])
    (win,) = [e for e in events if isinstance(e, HandWon)]
    assert [(y.name, y.han) for y in win.yaku] == [("renhou", 5)]


@pytest.mark.asyncio
async def test_haitei_after_a_rinshan_draw() -> None:
    """Seat 0's closed kan on its first turn takes a replacement tile, so the live wall ends one draw
    early: the 69th live draw is the haitei tile, and seat 0 wins on it (haitei, menzen tsumo)."""
    wall = quiet_wall({0: "111m456p789s123s5z"}, "1m", rinshan="9m", late={68: "5z"}, dora="9p")

    async def script(h: HubHand) -> None:
        await h.do(0, Ankan(quad("1111m")))
        await h.tsumogiri(0)  # 9m
        await h.pass_all()
        await h.run_to(0)
        assert h.state.hand.turn == 0 and h.state.hand.players[0].drawn == T("5z")
        await h.do(0, Tsumo())

    events = await through_the_hub(TENHOU, wall, script)
    (win,) = [e for e in events if isinstance(e, HandWon)]
    names = {y.name for y in win.yaku}
    assert names >= {"haitei", "menzen_tsumo"} and "rinshan" not in names
    check_wins(events, [(0, 0, win.points, win.deltas, None)])


# -- a match stored before an option existed ---------------------------------------------------


@pytest.mark.asyncio
async def test_a_match_stored_under_a_ruleset_from_before_karaten_replays() -> None:
    """A table playing under the ruleset document stored before ``karaten`` existed announces that
    same document and hash, and its stored log replays from the seed (as crash recovery does)."""
    ruleset = Ruleset.from_json(TENHOU_BEFORE_KARATEN)
    kit = await make_table(("human",) * 4, ruleset=ruleset, seed=b"stored-before-karaten")
    h = HubHand(kit)
    for _ in range(8):
        await h.tsumogiri(h.state.hand.turn)
        await h.pass_all()
    steps = await kit.repo.steps(kit.table.match_id)
    (started,) = [e for e in log_events(steps[:1]) if isinstance(e, MatchStarted)]
    assert started.ruleset_json == TENHOU_BEFORE_KARATEN
    assert started.ruleset_hash == TENHOU_BEFORE_KARATEN_HASH
    replayed = replay_log(Ruleset.from_json(started.ruleset_json), b"stored-before-karaten", steps)
    assert replayed[-1].step == steps[-1].step >= 8
