"""Round flow: riichi conditions, the deposit, the sideways tile, the locked hand, kan during
riichi.

Rules (docs/rules.md#riichi): riichi needs a closed hand (a closed kan keeps it closed), tenpai, >=
1,000 points and >= 4 tiles in the live wall; the 1,000-point deposit is placed "unless the first
sideways discard is claimed for a win"; if the riichi tile is called "the next discard is turned
sideways as a replacement"; after riichi "the hand remains locked" except for a closed kan that
changes neither the waits (Tenhou, ``kan_during_riichi = waits``) nor, under ``strict`` (EMA), the
reading of the three tiles: with 3444m778899s333z a drawn 4m may not be kanned but 3z may; with
111m222333p5678s, 1m, 2p and 3p may.
"""

from __future__ import annotations

import pytest

from server.engine.actions import Ankan, Discard, Pass, Pon, Riichi, Ron, Tsumo
from server.engine.events import HandWon, MeldCalled, RiichiAccepted, TileDiscarded, TileDrawn
from server.engine.rules import EMA, TENHOU, KanDuringRiichi, Ruleset
from server.engine.tiles import kind, parse_tile, parse_tiles
from tests.engine.scenario import Game

T = parse_tile
TENPAI = "123m456p789s1122z"  # shanpon on 1z / 2z


def quad(text: str) -> tuple[int, int, int, int]:
    a, b, c, d = parse_tiles(text)
    return (a, b, c, d)


def riichis(g: Game, seat: int) -> set[str]:
    return {f"{a.tile}:{a.tsumogiri}" for a in g.legal(seat) if isinstance(a, Riichi)}


# -- conditions -----------------------------------------------------------------------------------


def test_riichi_is_offered_to_a_closed_tenpai_hand_with_only_tenpai_discards() -> None:
    """docs/rules.md#riichi: a closed tenpai hand may declare; the discard must leave the hand
    tenpai."""
    g = Game.start({0: TENPAI}, draws="9m", quiet=True)
    assert {a for a in g.legal(0) if isinstance(a, Riichi)} == {Riichi(T("9m"), True)}


def test_riichi_offered_for_every_discard_that_keeps_tenpai() -> None:
    """A 14-tile hand with several tenpai-keeping discards offers riichi with each of them."""
    g = Game.start({0: "123456789m111z1p"}, draws="2p", quiet=True)
    assert {a for a in g.legal(0) if isinstance(a, Riichi)} == {
        Riichi(T("2p"), True),  # tanki 1p
        Riichi(T("1p"), False),  # tanki 2p
        Riichi(T("1z"), False),  # 12p penchan with the 1z pair
    }


def test_no_riichi_for_a_noten_hand() -> None:
    """docs/rules.md#riichi: the hand must be tenpai (the engine never allows a noten riichi,
    docs/rules.md)."""
    g = Game.start({0: "147m258p369s1234z"}, draws="9m", quiet=True)
    assert not riichis(g, 0)


def test_no_riichi_for_an_open_hand() -> None:
    """docs/rules.md#riichi: "The hand is closed - no chii, pon, or open kan has been made"."""
    g = Game.start({1: "66z123m456p789s12z"}, draws="6z", quiet=True, late={4: "9m"})
    g.tsumogiri(0)
    g.do(1, Pon((T("6z"), T("6z"))))
    g.discard(1, "2z")
    g.pass_all()
    g.run_to(65)
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("9m")
    assert not riichis(g, 1)  # tenpai on 1z but open


def test_a_closed_kan_keeps_the_hand_closed_for_riichi() -> None:
    """docs/rules.md#riichi: a closed kan keeps the hand closed, so riichi is still offered."""
    g = Game.start({0: "111m456p789s1122z"}, draws="1m", rinshan="9m", quiet=True)
    g.do(0, Ankan(quad("1111m")))
    assert Riichi(T("9m"), True) in g.legal(0)


@pytest.mark.parametrize(("points", "offered"), [(900, False), (999, False), (1000, True), (1100, True)])
def test_riichi_needs_1000_points(points: int, offered: bool) -> None:
    """docs/rules.md#riichi: "The player must have at least 1,000 points"
    (Ruleset.riichi_min_points)."""
    rest = (100000 - points) // 3
    scores = (points, rest, rest, 100000 - points - 2 * rest)
    g = Game.at({0: TENPAI}, "9m", scores=scores)
    assert bool(riichis(g, 0)) == offered


def test_riichi_min_points_is_an_option() -> None:
    """Ruleset.riichi_min_points = 0 lets a player below 1,000 declare."""
    ruleset = TENHOU.with_options(riichi_min_points=0)
    g = Game.at({0: TENPAI}, "9m", scores=(500, 33100, 33200, 33200), ruleset=ruleset)
    assert riichis(g, 0)


@pytest.mark.parametrize(("remaining", "offered"), [(5, True), (4, True), (3, False), (0, False)])
def test_riichi_needs_four_live_tiles(remaining: int, offered: bool) -> None:
    """docs/rules.md#riichi: "There must be at least 4 tiles left in the live wall" after the
    declarer's draw."""
    seat = (69 - remaining) % 4  # the seat whose draw leaves ``remaining`` live tiles
    g = Game.start({seat: TENPAI}, quiet=True, dora="9p")
    g.run_to(remaining)
    assert g.state.hand.turn == seat
    assert bool(riichis(g, seat)) == offered


def test_riichi_while_furiten_is_allowed() -> None:
    """docs/rules.md#riichi: riichi may be declared while furiten (a wait is in the declarer's own
    discards)."""
    g = Game.start({0: "1122m3344p55s77z9s"}, draws="8s", late={4: "9s"}, quiet=True)
    g.play(0, "9s")  # chiitoitsu waiting on 8s; 9s is in the river
    g.run_to(65)
    assert g.state.hand.players[0].drawn == T("9s")
    assert Riichi(T("8s"), False) in g.legal(0)  # waits on 9s: furiten, still allowed


# -- deposit --------------------------------------------------------------------------------------


def test_deposit_placed_once_the_riichi_discard_passes() -> None:
    """docs/rules.md#riichi: the 1,000-point deposit goes on the table when the riichi tile is not
    won on."""
    g = Game.start({0: TENPAI}, draws="9m", quiet=True)
    events = g.do(0, Riichi(T("9m"), True))
    assert events[0] == TileDiscarded(seat=0, tile=T("9m"), tsumogiri=True, riichi=True)
    accepted = [e for e in events if isinstance(e, RiichiAccepted)]
    assert accepted == [RiichiAccepted(seat=0, scores=(24000, 25000, 25000, 25000), riichi_sticks=1)]
    assert g.state.scores == (24000, 25000, 25000, 25000) and g.state.riichi_sticks == 1
    assert g.state.hand.players[0].riichi
    assert g.state.hand.players[0].river[0].sideways


def test_deposit_waits_for_the_call_window() -> None:
    """While seats may still ron the riichi tile, nothing is paid."""
    g = Game.start({0: TENPAI, 1: "78m456p345s55577z"}, draws="9m", quiet=True)
    g.do(0, Riichi(T("9m"), True))
    assert g.pending() == (1,)
    assert not g.of(RiichiAccepted) and g.state.scores[0] == 25000
    g.do(1, Pass())
    assert g.of(RiichiAccepted) and g.state.scores[0] == 24000


def test_ron_on_the_riichi_tile_voids_the_deposit() -> None:
    """docs/rules.md#riichi: "Unless the first sideways discard is claimed for a win", a ron on it
    voids the deposit."""
    g = Game.start({0: TENPAI, 1: "78m456p345s55577z"}, draws="9m", quiet=True, dora="9p")
    g.do(0, Riichi(T("9m"), True))
    g.do(1, Ron())
    assert not g.of(RiichiAccepted)
    (win,) = g.of(HandWon)
    assert win.seat == 1 and win.from_seat == 0
    assert win.deltas[0] == -win.points and win.deltas[1] == win.points
    assert sum(win.deltas) == 0
    assert win.scores == (25000 - win.points, 25000 + win.points, 25000, 25000)


# -- the sideways tile ----------------------------------------------------------------------------


def test_called_riichi_tile_moves_the_sideways_mark_to_the_next_discard() -> None:
    """docs/rules.md#riichi: "If that tile is claimed by another player for an open meld, then the
    next discard is turned sideways as a replacement"."""
    g = Game.start({0: TENPAI, 1: "99m147p258s34567z"}, draws="9m", quiet=True)
    g.do(0, Riichi(T("9m"), True))
    g.do(1, Pon((T("9m"), T("9m"))))
    assert g.of(RiichiAccepted)  # a pon is not a win: the deposit stands
    g.discard(1, "7z")
    g.pass_all()
    g.run_to(66)  # draws 1..3 by seats 2, 3, 0
    assert g.state.hand.turn == 0
    g.tsumogiri(0)
    river = g.state.hand.players[0].river
    assert river[0].sideways and river[0].called
    assert river[1].sideways and not river[1].called
    assert not g.of(TileDiscarded)[-1].riichi  # the declaration itself is not repeated
    g.pass_all()
    g.run_to(62)
    assert g.state.hand.turn == 0
    g.tsumogiri(0)
    assert not g.state.hand.players[0].river[2].sideways  # only one replacement


def test_uncalled_riichi_tile_stays_the_only_sideways_tile() -> None:
    """Without a call the riichi tile itself is sideways and the next discard is not."""
    g = Game.start({0: TENPAI}, draws="9m", quiet=True)
    g.do(0, Riichi(T("9m"), True))
    g.run_to(65)
    g.tsumogiri(0)
    river = g.state.hand.players[0].river
    assert river[0].sideways and not river[1].sideways


# -- the locked hand ------------------------------------------------------------------------------


def test_riichi_hand_is_locked_to_tsumogiri() -> None:
    """docs/rules.md#riichi: "After a riichi declaration, the hand remains locked": only the drawn
    tile is discarded."""
    g = Game.start({0: TENPAI}, draws="9m", late={4: "9p"}, quiet=True, dora="3p")
    g.do(0, Riichi(T("9m"), True))
    g.run_to(65)
    assert g.legal(0) == frozenset({Discard(T("9p"), True)})


def test_riichi_hand_may_tsumo() -> None:
    """A locked hand still wins on its draw."""
    g = Game.start({0: TENPAI}, draws="9m", late={4: "1z"}, quiet=True, dora="3p")
    g.do(0, Riichi(T("9m"), True))
    g.run_to(65)
    assert g.legal(0) == frozenset({Discard(T("1z"), True), Tsumo()})


def test_riichi_hand_makes_no_calls_but_may_ron() -> None:
    """After riichi no pon or open kan is offered (the hand is locked); a ron still is."""
    g = Game.start({0: "111m456p789s1122z"}, draws="9m1m2z", quiet=True, dora="3p")
    g.do(0, Riichi(T("9m"), True))
    g.tsumogiri(1)  # the fourth 1m
    assert g.legal(0) == frozenset()
    assert 0 not in g.pending()
    g.pass_all()
    g.tsumogiri(2)  # 2z: a wait
    assert g.legal(0) == frozenset({Ron(), Pass()})


# -- kan during riichi ----------------------------------------------------------------------------


def _riichi_then_draw(hand: str, drawn: str, ruleset: Ruleset) -> Game:
    """Seat 0 declares riichi with ``hand`` (discarding a drawn 9p) and then draws ``drawn``."""
    g = Game.start({0: hand}, draws="9p", late={4: drawn}, ruleset=ruleset, quiet=True, dora="1p")
    g.do(0, Riichi(T("9p"), True))
    g.run_to(65)
    assert g.state.hand.turn == 0 and g.state.hand.players[0].drawn == T(drawn)
    return g


def _ankans(g: Game) -> set[int]:
    return {kind(a.consumed[0]) for a in g.legal(0) if isinstance(a, Ankan)}


@pytest.mark.parametrize("ruleset", [TENHOU, EMA], ids=["waits", "strict"])
def test_003_example_1_no_kan_of_4m(ruleset: Ruleset) -> None:
    """docs/rules.md#kan-during-riichi: 3444m778899s333z drawing 4m may not kan (3m tanki vs 34m +
    44m: waits would change)."""
    g = _riichi_then_draw("3444m778899s333z", "4m", ruleset)
    assert _ankans(g) == set()
    assert g.legal(0) == frozenset({Discard(T("4m"), True)})


@pytest.mark.parametrize("ruleset", [TENHOU, EMA], ids=["waits", "strict"])
def test_003_example_1_kan_of_3z_is_legal(ruleset: Ruleset) -> None:
    """docs/rules.md#kan-during-riichi: "Had the player drawn a west wind, he would have been
    allowed to kan it"."""
    g = _riichi_then_draw("3444m778899s333z", "3z", ruleset)
    assert _ankans(g) == {kind(T("3z"))}
    g.do(0, Ankan(quad("3333z")))
    p0 = g.state.hand.players[0]
    assert p0.riichi and p0.melds[0].kind == kind(T("3z"))
    assert g.of(TileDrawn)[-1].rinshan


@pytest.mark.parametrize("ruleset", [TENHOU, EMA], ids=["waits", "strict"])
@pytest.mark.parametrize("drawn", ["1m", "2p", "3p"])
def test_003_example_2_kan_of_1m_2p_3p_is_legal(ruleset: Ruleset, drawn: str) -> None:
    """docs/rules.md#kan-during-riichi: 111m222333p5678s: "Legal kan: 1m 2p or 3p" (the waits 5s /
    8s are unrelated)."""
    g = _riichi_then_draw("111m222333p5678s", drawn, ruleset)
    assert _ankans(g) == {kind(T(drawn))}


def test_kan_during_riichi_never() -> None:
    """kan_during_riichi = never: not even the docs/rules.md#kan-during-riichi legal kan is offered."""
    ruleset = TENHOU.with_options(kan_during_riichi=KanDuringRiichi.NEVER)
    g = _riichi_then_draw("3444m778899s333z", "3z", ruleset)
    assert _ankans(g) == set()


@pytest.mark.parametrize(("ruleset", "offered"), [(TENHOU, True), (EMA, False)], ids=["waits", "strict"])
def test_kan_of_a_triplet_readable_as_sequences(ruleset: Ruleset, offered: bool) -> None:
    """docs/rules.md#kan-during-riichi (strict): three consecutive triplets read as three sequences
    may not be kanned, although the waits (4p / 7p) would not change, which is enough under Tenhou's
    ``waits``."""
    g = _riichi_then_draw("111222333m456p7p", "1m", ruleset)
    assert (_ankans(g) == {kind(T("1m"))}) == offered


def test_kan_during_riichi_only_of_the_drawn_tile() -> None:
    """A riichi hand may kan only the tile it just drew, not four tiles it already held (locked)."""
    g = _riichi_then_draw("111m222333p5678s", "9m", TENHOU)
    assert _ankans(g) == set()


def test_meld_event_of_a_riichi_kan() -> None:
    """The kan during riichi is an ANKAN meld event and keeps the riichi."""
    g = _riichi_then_draw("111m222333p5678s", "2p", TENHOU)
    g.do(0, Ankan(quad("2222p")))
    kan = g.of(MeldCalled)[-1]
    assert kan.seat == 0 and kan.consumed == parse_tiles("2222p")
    assert g.state.hand.players[0].riichi
