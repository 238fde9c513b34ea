"""Round flow: the deal, the dealer's first draw, draws in seat order, discards, haitei and houtei.

Rules: the wall layout of ``docs/rules.md`` (13 tiles per seat from the dealer, live draws from
index 52, 70 - kans live draws); haitei / houtei (docs/rules.md#haitei-houtei: a win on the last
live tile / its discard); "you cannot score Last Tile Draw and After a Kong together"
(docs/rules.md#haitei-houtei): a rinshan tile is never haitei.
"""

from __future__ import annotations

from server.engine.actions import Ankan, Discard, Pon, Ron, Tsumo
from server.engine.events import DrawReason, HandDrawn, HandWon, RoundStarted, TileDiscarded, TileDrawn
from server.engine.state import Phase
from server.engine.tiles import parse_tile, parse_tiles
from tests.engine.scenario import Game

T = parse_tile


def _yaku(win: HandWon) -> set[str]:
    return {y.name for y in win.yaku}


def test_deal_gives_thirteen_tiles_per_seat_from_the_dealer_and_the_dealer_draws_first() -> None:
    """Wall layout: seat (dealer + i) % 4 gets wall[13i:13i+13]; the dealer draws wall[52] (14 tiles)."""
    g = Game.start({0: "19m19p19s1234567z"}, draws="5m")
    started = g.of(RoundStarted)
    assert len(started) == 1
    wall = g.state.hand.wall
    for seat in range(4):
        assert started[0].hands[seat] == wall[13 * seat : 13 * seat + 13]
        assert len(started[0].hands[seat] or ()) == 13
    assert started[0].dealer == 0
    assert started[0].dora_indicator == wall[126]
    drawn = g.of(TileDrawn)
    assert drawn == [TileDrawn(seat=0, tile=wall[52], rinshan=False)]
    assert wall[52] == T("5m")
    p = g.state.hand.players
    assert len(p[0].hand) == 14 and p[0].drawn == T("5m")
    assert [len(pl.hand) for pl in p[1:]] == [13, 13, 13]
    assert g.pending() == (0,)
    assert g.legal(1) == g.legal(2) == g.legal(3) == frozenset()
    assert g.state.hand.live_remaining == 69


def test_draws_go_round_in_seat_order_from_the_live_wall() -> None:
    """Live draws are wall[52], wall[53], ... to seats 0, 1, 2, 3, 0, ... when nobody calls."""
    g = Game.start({}, quiet=True)
    wall = g.state.hand.wall
    for i in range(8):
        seat = i % 4
        assert g.state.hand.turn == seat
        assert g.state.hand.players[seat].drawn == wall[52 + i]
        g.tsumogiri(seat)
        g.pass_all()
    draws = g.of(TileDrawn)
    assert [d.seat for d in draws] == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert [d.tile for d in draws] == list(wall[52:61])
    assert g.state.hand.live_remaining == 70 - 9


def test_discard_leaves_the_hand_for_the_river_with_the_tsumogiri_flag() -> None:
    """A discard removes the tile from the hand and lays it in the river (tsumogiri or from hand)."""
    g = Game.start({0: "123m456p789s1234z"}, draws="9p", quiet=True)
    events = g.do(0, Discard(T("4z"), False))
    assert events[0] == TileDiscarded(seat=0, tile=T("4z"), tsumogiri=False)
    p0 = g.state.hand.players[0]
    assert T("4z") not in p0.hand and T("9p") in p0.hand and len(p0.hand) == 13
    assert [rt.tile for rt in p0.river] == [T("4z")]
    assert not p0.river[0].tsumogiri
    g.pass_all()
    g.tsumogiri(1)
    assert g.state.hand.players[1].river[0].tsumogiri


def test_exhaustive_draw_after_seventy_live_draws() -> None:
    """With no kan the live wall holds 70 draws; after the 70th draw's discard the hand is drawn."""
    g = Game.start({}, quiet=True)
    g.run_to(0)
    assert g.state.hand.live_remaining == 0
    assert g.state.hand.turn == 69 % 4
    wall = g.state.hand.wall
    g.tsumogiri(g.state.hand.turn)
    g.pass_all()
    end = next(i for i, e in enumerate(g.events) if isinstance(e, HandDrawn))
    draws = [e for e in g.events[:end] if isinstance(e, TileDrawn)]
    assert [d.tile for d in draws] == list(wall[52:122])
    assert [d.seat for d in draws] == [i % 4 for i in range(70)]
    assert g.of(HandDrawn)[0].reason is DrawReason.EXHAUSTIVE


def test_haitei_tsumo_on_the_last_live_tile() -> None:
    """Haitei (docs/rules.md#haitei-houtei): a tsumo on the last live-wall tile; the 70th draw goes
    to seat 1 (69 % 4)."""
    g = Game.start({1: "123456789m1112z"}, late={69: "2z"}, rinshan="22z", dora="9p", quiet=True)
    g.run_to(0)
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("2z")
    assert Tsumo() in g.legal(1)
    g.do(1, Tsumo())
    (win,) = g.wins()
    assert "haitei" in _yaku(win)
    assert "houtei" not in _yaku(win)


def test_no_haitei_before_the_last_tile() -> None:
    """Haitei is only the last tile: the same tsumo one draw earlier scores no haitei."""
    g = Game.start({0: "123456789m1112z"}, late={68: "2z"}, rinshan="22z", dora="9p", quiet=True)
    g.run_to(1)
    assert g.state.hand.turn == 0
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert "haitei" not in _yaku(win)


def test_houtei_ron_on_the_discard_after_the_last_draw_and_no_calls_on_it() -> None:
    """Houtei (docs/rules.md#haitei-houtei): a ron on the final discard; that discard cannot be
    called for pon (our choice, as Tenhou: docs/rules.md#haitei-houtei)."""
    g = Game.start(
        {2: "123456789m1112z", 3: "22z147m258p369s34z"},
        late={69: "2z"},
        dora="9p",
        quiet=True,
    )
    g.run_to(0)
    assert g.state.hand.turn == 1
    g.tsumogiri(1)
    assert g.state.hand.phase is Phase.CALLS
    assert g.pending() == (2,)  # seat 3 holds 2z2z but may not pon the last discard
    assert Pon((T("2z"), T("2z"))) not in g.legal(3)
    g.do(2, Ron())
    (win,) = g.wins()
    assert win.seat == 2 and win.from_seat == 1
    assert "houtei" in _yaku(win)


def test_pon_is_offered_before_the_last_discard() -> None:
    """The same pair may pon a discard while live tiles remain (contrast with houtei)."""
    g = Game.start({1: "22z147m258p369s34z"}, draws="2z", quiet=True)
    g.tsumogiri(0)
    assert Pon((T("2z"), T("2z"))) in g.legal(1)


def test_rinshan_draw_on_the_last_tile_is_not_haitei() -> None:
    """docs/rules.md#haitei-houtei: Last Tile Draw and After a Kong do not combine: a kan declared
    on the second-to-last tile takes the last draw from the dead wall and a win on it is rinshan
    kaihou only."""
    g = Game.start(
        {0: "111m456p789s1155z"},
        late={68: "1m"},
        rinshan="5z",
        dora="9p",
        ura="1z5z",
        quiet=True,
    )
    g.run_to(1)
    assert g.state.hand.turn == 0 and g.state.hand.live_remaining == 1
    g.do(0, Ankan(parse_tiles("1111m")))  # type: ignore[arg-type]
    assert g.state.hand.live_remaining == 0
    assert g.of(TileDrawn)[-1] == TileDrawn(seat=0, tile=T("5z"), rinshan=True)
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert "rinshan" in _yaku(win)
    assert "haitei" not in _yaku(win)


def test_no_kan_on_the_last_live_tile() -> None:
    """A kan needs a tile left in the live wall (docs/rules.md#kans: the last chance to kan is with
    one tile left)."""
    g = Game.start({1: "111m456p789s1155z"}, late={69: "1m"}, dora="9p", quiet=True)
    g.run_to(0)
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("1m")
    assert not any(isinstance(a, Ankan) for a in g.legal(1))
