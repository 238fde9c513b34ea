"""Round flow: ippatsu, double riichi and the suucha riichi abort.

Rules (docs/rules.md#ippatsu): ippatsu is a win "within an uninterrupted set of turns after the
riichi declaration", at the latest on the declarer's next draw; "tile calls ... including a player's
own closed kan, will invalidate ippatsu", except "a robbed kan (chankan)", which is not complete;
ippatsu never combines with rinshan kaihou. Double riichi is riichi on the first turn with no call
(closed kans included) before it. Suucha riichi: "After the fourth riichi declarer discards a tile,
if that tile is not called for a win, the hand ends" (``Ruleset.abort_suucha_riichi``).
"""

from __future__ import annotations

from server.engine.actions import Ankan, Chi, Kakan, Pon, Riichi, Ron, Tsumo
from server.engine.events import DrawReason, HandDrawn, HandWon, RiichiAccepted, RoundStarted
from server.engine.rules import EMA
from server.engine.state import Phase
from server.engine.tiles import parse_tile, parse_tiles
from tests.engine.scenario import Game

T = parse_tile
TENPAI = "123m456p789s1122z"  # shanpon on 1z / 2z


def quad(text: str) -> tuple[int, int, int, int]:
    a, b, c, d = parse_tiles(text)
    return (a, b, c, d)


def yaku(win: HandWon) -> set[str]:
    return {y.name for y in win.yaku}


# -- ippatsu --------------------------------------------------------------------------------------


def test_ippatsu_on_the_declarers_next_draw() -> None:
    """docs/rules.md#ippatsu: "The latest possible chance to win with ippatsu is with the player's
    next drawn tile"."""
    g = Game.start({0: TENPAI}, draws="9m", late={4: "1z"}, quiet=True, dora="9p")
    g.do(0, Riichi(T("9m"), True))
    assert g.state.hand.players[0].ippatsu
    g.run_to(65)
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert {"double_riichi", "ippatsu"} <= yaku(win)  # the dealer's first discard: double riichi


def test_ippatsu_on_a_ron_before_the_next_draw() -> None:
    """docs/rules.md#ippatsu: "The earliest possible chance to win with ippatsu comes from the
    shimocha's discard"; any discard before the declarer's next draw qualifies (here seat 2's)."""
    g = Game.start({0: TENPAI}, draws="9m3p2z", quiet=True, dora="9p")
    g.do(0, Riichi(T("9m"), True))
    g.tsumogiri(1)
    g.tsumogiri(2)
    g.do(0, Ron())
    (win,) = g.wins()
    assert win.from_seat == 2 and "ippatsu" in yaku(win)


def test_ippatsu_ends_with_the_declarers_next_discard() -> None:
    """docs/rules.md#ippatsu: "If, after declaring riichi, the hand wins before the declarer's next
    discard": a win on the second go-around has no ippatsu."""
    g = Game.start({0: TENPAI}, draws="9m", late={8: "1z"}, quiet=True, dora="9p")
    g.do(0, Riichi(T("9m"), True))
    g.run_to(65)
    g.tsumogiri(0)
    assert not g.state.hand.players[0].ippatsu
    g.pass_all()
    g.run_to(61)
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert "ippatsu" not in yaku(win)
    assert "riichi" in yaku(win) or "double_riichi" in yaku(win)


def test_ippatsu_broken_by_a_pon() -> None:
    """docs/rules.md#ippatsu: tile calls "immediately end the chance for ippatsu" (a pon of the
    riichi tile here)."""
    g = Game.start({0: TENPAI, 1: "99m147p258s34567z"}, draws="9m", late={3: "1z"}, quiet=True, dora="9p")
    g.do(0, Riichi(T("9m"), True))
    g.do(1, Pon((T("9m"), T("9m"))))
    assert not g.state.hand.players[0].ippatsu
    g.discard(1, "7z")
    g.pass_all()
    g.run_to(66)
    assert g.state.hand.turn == 0
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert "ippatsu" not in yaku(win)


def test_ippatsu_broken_by_a_chi() -> None:
    """docs/rules.md#ippatsu: a chi is a call too."""
    g = Game.start({0: TENPAI, 1: "78m147p258s34567z"}, draws="9m", late={3: "1z"}, quiet=True, dora="9p")
    g.do(0, Riichi(T("9m"), True))
    g.do(1, Chi((T("7m"), T("8m"))))
    g.discard(1, "7z")
    g.pass_all()
    g.run_to(66)
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert "ippatsu" not in yaku(win)


def test_ippatsu_broken_by_another_players_closed_kan() -> None:
    """docs/rules.md#ippatsu: "This includes any calls for kan" - a closed kan by any player ends
    ippatsu."""
    g = Game.start(
        {0: TENPAI, 1: "666z147m258p369s7z"},
        draws="9m6z",
        rinshan="9p",
        late={4: "1z"},
        quiet=True,
        dora="3p",
    )
    g.do(0, Riichi(T("9m"), True))
    assert g.state.hand.players[0].ippatsu
    g.do(1, Ankan(quad("6666z")))
    assert not g.state.hand.players[0].ippatsu
    g.tsumogiri(1)
    g.pass_all()
    g.run_to(64)
    assert g.state.hand.turn == 0
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert "ippatsu" not in yaku(win)


def test_ippatsu_broken_by_own_closed_kan_and_never_with_rinshan() -> None:
    """docs/rules.md#ippatsu: "including a player's own closed kan"; docs/rules.md#ippatsu: ippatsu
    never combines with rinshan kaihou."""
    g = Game.start({0: "111m456p789s1122z"}, draws="9m", late={4: "1m"}, rinshan="1z", quiet=True, dora="9p")
    g.do(0, Riichi(T("9m"), True))
    g.run_to(65)
    g.do(0, Ankan(quad("1111m")))
    assert not g.state.hand.players[0].ippatsu
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert "rinshan" in yaku(win)
    assert "ippatsu" not in yaku(win)


def test_ippatsu_kept_by_a_robbed_kan() -> None:
    """docs/rules.md#ippatsu: ippatsu "can combine with chankan, as the kan call is not considered
    complete if someone wins off it": seat 2 declares riichi after seat 1's pon, then robs seat 1's
    added kan."""
    g = Game.start(
        {1: "33m147p258s34567z", 2: "12m123456p789s11z"},
        draws="3m9m",
        late={4: "3m"},
        quiet=True,
        dora="9p",
    )
    g.tsumogiri(0)
    g.do(1, Pon((T("3m"), T("3m"))))
    g.discard(1, "7z")
    g.pass_all()
    g.do(2, Riichi(T("9m"), True))
    g.pass_all()
    assert g.state.hand.players[2].ippatsu
    g.run_to(65)
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("3m")
    g.do(1, Kakan(T("3m")))
    assert g.state.hand.phase is Phase.CHANKAN
    g.do(2, Ron())
    (win,) = g.wins()
    assert {"chankan", "ippatsu", "riichi"} <= yaku(win)


def test_ippatsu_with_haitei_on_the_last_chance_riichi() -> None:
    """docs/rules.md#ippatsu: the last chance to riichi leaves the declarer the haitei draw: riichi,
    ippatsu, haitei (riichi at 4 live tiles, every player draws once, the declarer draws the last
    tile)."""
    seat = (69 - 4) % 4
    g = Game.start({seat: TENPAI}, late={65: "9m", 69: "1z"}, quiet=True, dora="9p")
    g.run_to(4)
    assert g.state.hand.turn == seat
    g.do(seat, Riichi(T("9m"), True))
    g.pass_all()
    g.run_to(0)
    assert g.state.hand.turn == seat
    g.do(seat, Tsumo())
    (win,) = g.wins()
    assert {"riichi", "ippatsu", "haitei"} <= yaku(win)


# -- double riichi --------------------------------------------------------------------------------


def test_double_riichi_on_the_dealers_first_discard() -> None:
    """docs/rules.md#riichi: "If riichi is declared on the first turn ... double riichi applies" (2
    han, not riichi)."""
    g = Game.start({0: TENPAI}, draws="9m", late={4: "1z"}, quiet=True, dora="9p")
    g.do(0, Riichi(T("9m"), True))
    assert g.state.hand.players[0].double_riichi
    g.run_to(65)
    g.do(0, Tsumo())
    (win,) = g.wins()
    names = {y.name: y.han for y in win.yaku}
    assert names.get("double_riichi") == 2 and "riichi" not in names


def test_double_riichi_for_a_non_dealer_on_an_uninterrupted_first_turn() -> None:
    """A non-dealer's first discard counts too while no call has been made."""
    g = Game.start({1: TENPAI}, draws="9p9m", quiet=True)
    g.tsumogiri(0)
    g.do(1, Riichi(T("9m"), True))
    assert g.state.hand.players[1].double_riichi


def test_no_double_riichi_after_a_call() -> None:
    """docs/rules.md#riichi: "no tile calls may have been made before riichi is called"."""
    g = Game.start({2: "66z147m258p369s37z", 3: TENPAI}, draws="6z9m", quiet=True)
    g.tsumogiri(0)
    g.do(2, Pon((T("6z"), T("6z"))))
    g.discard(2, "7z")
    g.pass_all()
    g.do(3, Riichi(T("9m"), True))
    g.pass_all()
    p3 = g.state.hand.players[3]
    assert p3.riichi and not p3.double_riichi


def test_no_double_riichi_after_a_closed_kan() -> None:
    """docs/rules.md#riichi: a closed kan interrupts the first go-around too (docs/rules.md: "a
    closed kan included")."""
    g = Game.start({0: "1111m258p369s147z", 1: "234m456p789s1122z"}, draws="2z9m", rinshan="9p", quiet=True)
    g.do(0, Ankan(quad("1111m")))
    g.tsumogiri(0)
    g.pass_all()
    g.do(1, Riichi(T("9m"), True))
    g.pass_all()
    p1 = g.state.hand.players[1]
    assert p1.riichi and not p1.double_riichi


def test_no_double_riichi_on_the_second_turn() -> None:
    """Riichi on the player's second discard is an ordinary riichi."""
    g = Game.start({0: TENPAI}, draws="9p", late={4: "9m"}, quiet=True)
    g.tsumogiri(0)
    g.pass_all()
    g.run_to(65)
    g.do(0, Riichi(T("9m"), True))
    g.pass_all()
    p0 = g.state.hand.players[0]
    assert p0.riichi and not p0.double_riichi


# -- suucha riichi --------------------------------------------------------------------------------

FOUR_TENPAI = {
    0: "123m456p789s1122z",  # waits 1z / 2z
    1: "123p456s789m3344z",  # waits 3z / 4z
    2: "123s456m789p5566z",  # waits 5z / 6z
    3: "234m567p678s77z88m",  # waits 7z / 8m
}


def test_suucha_riichi_aborts_when_the_fourth_riichi_discard_passes() -> None:
    """docs/rules.md#option-abort_suucha_riichi: four riichi declarations and the fourth discard not
    won on: an abortive draw; the four deposits stay on the table and the same dealer deals again
    with one more honba."""
    g = Game.start(FOUR_TENPAI, draws="9m9p9s1s", quiet=True)
    for seat, tile in enumerate(("9m", "9p", "9s", "1s")):
        g.do(seat, Riichi(T(tile), True))
        g.pass_all()
    (drawn,) = g.of(HandDrawn)
    assert drawn.reason is DrawReason.SUUCHA_RIICHI
    assert len(g.of(RiichiAccepted)) == 4
    assert drawn.scores == (24000, 24000, 24000, 24000)
    nxt = g.of(RoundStarted)[-1]
    assert (nxt.round_wind, nxt.kyoku, nxt.honba, nxt.riichi_sticks) == (0, 0, 1, 4)


def test_no_suucha_riichi_when_the_fourth_riichi_discard_is_won_on() -> None:
    """A ron on the fourth riichi tile ends the hand as a win (and voids that deposit)."""
    g = Game.start(FOUR_TENPAI, draws="9m9p9s2z", quiet=True, dora="9p")
    for seat, tile in enumerate(("9m", "9p", "9s")):
        g.do(seat, Riichi(T(tile), True))
        g.pass_all()
    g.do(3, Riichi(T("2z"), True))
    g.do(0, Ron())
    assert not g.of(HandDrawn)
    (win,) = g.wins()
    assert win.seat == 0 and win.from_seat == 3
    assert len(g.of(RiichiAccepted)) == 3


def test_suucha_riichi_off_plays_on() -> None:
    """With abort_suucha_riichi off (EMA) the hand continues after the fourth riichi."""
    g = Game.start(FOUR_TENPAI, draws="9m9p9s1s", quiet=True, ruleset=EMA)
    for seat, tile in enumerate(("9m", "9p", "9s", "1s")):
        g.do(seat, Riichi(T(tile), True))
        g.pass_all()
    assert not g.of(HandDrawn)
    assert g.state.hand.turn == 0 and g.state.hand.phase is Phase.TURN
