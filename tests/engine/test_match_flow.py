"""Match flow: dealer rotation, renchan, honba, riichi sticks carried over, east -> south -> west
(sudden death), the end by length, busting (tobi), agari-yame / tenpai-yame, leftover sticks,
ranking ties and final points with uma and oka.

Rules (docs/rules.md "Match length, points and the end of the match", "Ending a hand"): a dealer
win or a dealer-tenpai exhaustive draw keeps the deal and adds a honba; otherwise the deal passes
(honba back to 0 after a win, +1 after a draw); ``sudden_death`` plays into the next round wind
while nobody holds ``return_points`` and stops after the first hand that leaves someone there, for
one round wind at most; ``tobi`` ends the match when a score falls below ``tobi_below`` (0 itself
still plays); ``agari_yame`` / ``tenpai_yame`` end all-last when the dealer is first with at least
``return_points``; ``leftover_sticks`` go to the top or are lost; ties rank by seat order from the
first dealer; final points are ``(score - return_points) / 1000 + uma`` plus oka for first place.
"""

from __future__ import annotations

from server.engine.actions import Ron
from server.engine.events import HandDrawn, HandWon, MatchEnded, RoundStarted
from server.engine.rules import EMA, TENHOU, GameLength, LeftoverSticks, Ruleset
from tests.engine.scenario import Game

PINFU = "234m567p234s56s88p"  # dama pinfu + tanyao on 4s / 7s: 2,000 (dealer 2,900) by ron, dora 9s
FOUR_TENPAI = {
    0: "123m456p789s1122z",
    1: "123p456s789m3344z",
    2: "123s456m789p5566z",
    3: "234m567p678s77z88m",
}
Scores = tuple[int, int, int, int]


def ron(
    winner: int,
    *,
    round_wind: int = 0,
    kyoku: int = 0,
    honba: int = 0,
    sticks: int = 0,
    scores: Scores | None = None,
    ruleset: Ruleset = TENHOU,
) -> Game:
    """The hand (round_wind, kyoku) is won by ``winner`` with a ron on 7s: from the dealer's first
    discard, or for a dealer win from the next seat's first discard."""
    dealer = kyoku
    discarder = dealer if winner != dealer else (dealer + 1) % 4
    draws = "7s" if winner != dealer else "9m7s"
    g = Game.at(
        {winner: PINFU},
        draws,
        round_wind=round_wind,
        kyoku=kyoku,
        honba=honba,
        sticks=sticks,
        scores=scores,
        ruleset=ruleset,
        dora="9s",
    )
    if winner == dealer:
        g.tsumogiri(dealer)
        g.pass_all()
    g.tsumogiri(discarder)
    g.do(winner, Ron())
    (win,) = g.wins()
    assert win.seat == winner and win.from_seat == discarder
    return g


def draw(
    tenpai: tuple[int, ...],
    *,
    round_wind: int = 0,
    kyoku: int = 0,
    honba: int = 0,
    sticks: int = 0,
    scores: Scores | None = None,
    ruleset: Ruleset = TENHOU,
) -> Game:
    """The hand (round_wind, kyoku) ends in an exhaustive draw with the ``tenpai`` seats tenpai."""
    g = Game.at(
        {s: FOUR_TENPAI[s] for s in tenpai},
        round_wind=round_wind,
        kyoku=kyoku,
        honba=honba,
        sticks=sticks,
        scores=scores,
        ruleset=ruleset,
    )
    g.run_to(0)
    g.tsumogiri(g.state.hand.turn)
    g.pass_all()
    (drawn,) = g.of(HandDrawn)
    assert drawn.tenpai == tuple(s in tenpai for s in range(4))
    return g


def next_hand(g: Game) -> tuple[int, int, int, int]:
    """(round wind, kyoku, honba, riichi sticks) of the hand dealt after the scenario's hand."""
    started = g.of(RoundStarted)
    assert len(started) == 2, "the match should have gone on"
    s = started[1]
    assert s.dealer == s.kyoku
    return (s.round_wind, s.kyoku, s.honba, s.riichi_sticks)


def ended(g: Game) -> MatchEnded:
    (end,) = g.of(MatchEnded)
    assert g.state.finished and len(g.of(RoundStarted)) == 1
    return end


# -- rotation, renchan, honba, sticks -------------------------------------------------------------


def test_non_dealer_win_passes_the_deal_and_resets_honba() -> None:
    """A non-dealer win: the deal moves to the next seat, honba back to 0."""
    g = ron(1, honba=2)
    assert next_hand(g) == (0, 1, 0, 0)


def test_dealer_win_is_a_renchan_with_one_more_honba() -> None:
    """A dealer win: the same dealer deals again with one more honba."""
    g = ron(0, honba=2)
    assert next_hand(g) == (0, 0, 3, 0)


def test_dealer_rotates_through_all_four_seats() -> None:
    """Seat k deals East k+1: a non-dealer win in East 3 (seat 2 deals) passes the deal to seat 3."""
    g = ron(0, kyoku=2)
    assert next_hand(g) == (0, 3, 0, 0)


def test_draw_with_a_noten_dealer_passes_the_deal_and_adds_a_honba() -> None:
    """docs/rules.md: after an exhaustive draw honba goes up even when the deal moves on."""
    g = draw((2,), kyoku=1, honba=1)
    assert next_hand(g) == (0, 2, 2, 0)


def test_riichi_sticks_are_carried_over_a_draw() -> None:
    """Sticks on the table stay there through a drawn hand until someone wins."""
    g = draw((), sticks=3, scores=(24000, 24000, 24000, 25000))
    assert next_hand(g)[3] == 3
    assert g.of(HandDrawn)[0].scores == (24000, 24000, 24000, 25000)


def test_riichi_sticks_are_taken_by_the_next_winner() -> None:
    """Carried sticks go to the next winner and the table is empty again."""
    g = ron(2, kyoku=0, sticks=3, scores=(24000, 24000, 24000, 25000))
    (win,) = g.wins()
    assert win.deltas[2] == 2000 + 3000
    assert next_hand(g)[3] == 0


def test_east_four_is_followed_by_south_one() -> None:
    """Hanchan: after East 4 comes South 1 with seat 0 dealing."""
    g = ron(0, kyoku=3, scores=(30000, 25000, 25000, 20000))
    assert next_hand(g) == (1, 0, 0, 0)


# -- the end by length ----------------------------------------------------------------------------


def test_match_ends_after_south_four() -> None:
    """Hanchan: a non-dealer win in South 4 with someone at 30,000 ends the match."""
    g = ron(1, round_wind=1, kyoku=3, scores=(35000, 25000, 20000, 20000))
    end = ended(g)
    assert end.scores == (35000, 27000, 20000, 18000)


def test_tonpuusen_ends_after_east_four() -> None:
    """game_length = east: East 4 is all-last."""
    ruleset = TENHOU.with_options(game_length=GameLength.EAST)
    g = ron(1, kyoku=3, scores=(35000, 25000, 20000, 20000), ruleset=ruleset)
    ended(g)


def test_tonpuusen_sudden_death_goes_into_south() -> None:
    """game_length = east with nobody at 30,000 after East 4: sudden death continues into South."""
    ruleset = TENHOU.with_options(game_length=GameLength.EAST)
    g = ron(1, kyoku=3, scores=(26000, 25000, 25000, 24000), ruleset=ruleset)
    assert next_hand(g) == (1, 0, 0, 0)


def test_all_last_dealer_win_not_first_keeps_the_deal() -> None:
    """South 4: a dealer win that does not make the dealer first is a renchan as usual."""
    g = ron(3, round_wind=1, kyoku=3, scores=(35000, 25000, 20000, 20000))
    assert next_hand(g) == (1, 3, 1, 0)


# -- agari-yame and tenpai-yame -------------------------------------------------------------------


def test_agari_yame_ends_the_match_when_the_all_last_dealer_wins_into_first() -> None:
    """agari_yame (Tenhou): in South 4 the dealer wins and is first with >= 30,000: the match ends."""
    g = ron(3, round_wind=1, kyoku=3, scores=(25000, 25000, 20000, 30000))
    end = ended(g)
    assert end.ranks[3] == 1


def test_agari_yame_off_continues() -> None:
    """agari_yame = false: the dealer plays on (renchan)."""
    ruleset = TENHOU.with_options(agari_yame=False)
    g = ron(3, round_wind=1, kyoku=3, scores=(25000, 25000, 20000, 30000), ruleset=ruleset)
    assert next_hand(g) == (1, 3, 1, 0)


def test_tenpai_yame_off_by_default_continues() -> None:
    """tenpai_yame = false (Tenhou): a tenpai dealer first in South 4 keeps playing."""
    g = draw((3,), round_wind=1, kyoku=3, scores=(25000, 25000, 20000, 30000))
    assert next_hand(g) == (1, 3, 1, 0)


def test_tenpai_yame_ends_the_match() -> None:
    """tenpai_yame = true: the tenpai all-last dealer in first place may end the match."""
    ruleset = TENHOU.with_options(tenpai_yame=True)
    g = draw((3,), round_wind=1, kyoku=3, scores=(25000, 25000, 20000, 30000), ruleset=ruleset)
    end = ended(g)
    assert end.scores == (24000, 24000, 19000, 33000)


# -- sudden death ---------------------------------------------------------------------------------


def test_sudden_death_goes_into_west_while_nobody_has_30000() -> None:
    """sudden_death: nobody at return_points after South 4: West 1 follows."""
    g = ron(1, round_wind=1, kyoku=3, scores=(26000, 25000, 25000, 24000))
    assert next_hand(g) == (2, 0, 0, 0)


def test_no_sudden_death_when_disabled() -> None:
    """sudden_death = false: the match ends after South 4 whatever the scores."""
    ruleset = TENHOU.with_options(sudden_death=False)
    g = ron(1, round_wind=1, kyoku=3, scores=(26000, 25000, 25000, 24000), ruleset=ruleset)
    ended(g)


def test_west_ends_on_the_first_hand_that_reaches_30000() -> None:
    """In West the match stops after the first hand that leaves someone at 30,000 or more."""
    g = ron(1, round_wind=2, kyoku=0, scores=(25500, 28500, 23000, 23000))
    end = ended(g)
    assert end.scores[1] == 30500


def test_west_continues_below_30000() -> None:
    """... and goes on while nobody has reached it."""
    g = ron(1, round_wind=2, kyoku=0, scores=(26000, 26000, 24000, 24000))
    assert next_hand(g) == (2, 1, 0, 0)


def test_west_dealer_win_into_first_over_30000_ends() -> None:
    """In West a dealer win that leaves the dealer first at 30,000 or more ends the match."""
    g = ron(1, round_wind=2, kyoku=1, scores=(26000, 28000, 23000, 23000))
    end = ended(g)
    assert end.ranks[1] == 1 and end.scores[1] == 30900


def test_west_dealer_win_not_first_plays_on() -> None:
    """... but a dealer who keeps the deal without being first plays on, even if someone else has
    reached 30,000 (docs/rules.md sudden_death)."""
    g = ron(1, round_wind=2, kyoku=1, scores=(32000, 22000, 23000, 23000))
    assert next_hand(g) == (2, 1, 1, 0)


def test_sudden_death_lasts_one_round_wind_at_most() -> None:
    """docs/rules.md: "It runs for one extra round wind at most": West 4 is the very last hand."""
    g = ron(0, round_wind=2, kyoku=3, scores=(26000, 25000, 25000, 24000))
    ended(g)


# -- tobi -----------------------------------------------------------------------------------------


def test_tobi_ends_the_match_below_zero() -> None:
    """tobi: a score below 0 ends the match at once, even in East 1."""
    g = ron(1, scores=(1000, 33000, 33000, 33000))
    end = ended(g)
    assert end.scores[0] == -1000 and end.ranks[0] == 4


def test_exactly_zero_is_still_in_the_game() -> None:
    """tobi_below = 0: exactly 0 points does not bust."""
    g = ron(1, scores=(2000, 32000, 33000, 33000))
    assert g.of(HandWon)[0].scores[0] == 0
    assert next_hand(g) == (0, 1, 0, 0)


def test_no_tobi_when_disabled() -> None:
    """tobi = false (EMA): play goes on below zero."""
    ruleset = TENHOU.with_options(tobi=False)
    g = ron(1, scores=(1000, 33000, 33000, 33000), ruleset=ruleset)
    assert next_hand(g) == (0, 1, 0, 0)


# -- the end: leftover sticks, ranks, final points ------------------------------------------------


def test_leftover_sticks_go_to_the_top() -> None:
    """leftover_sticks = to_top: sticks still on the table at the end go to first place."""
    g = draw((), round_wind=1, kyoku=3, sticks=2, scores=(40000, 30000, 20000, 8000))
    end = ended(g)
    assert end.scores == (42000, 30000, 20000, 8000)


def test_leftover_sticks_lost() -> None:
    """leftover_sticks = lost: they leave the game."""
    ruleset = TENHOU.with_options(leftover_sticks=LeftoverSticks.LOST)
    g = draw((), round_wind=1, kyoku=3, sticks=2, scores=(40000, 30000, 20000, 8000), ruleset=ruleset)
    end = ended(g)
    assert end.scores == (40000, 30000, 20000, 8000)


def test_ties_are_ranked_by_seat_order() -> None:
    """docs/rules.md: equal scores rank by seat order from the first dealer (seat 1 before seat 2)."""
    g = draw((), round_wind=1, kyoku=3, scores=(25000, 30000, 30000, 15000))
    end = ended(g)
    assert end.ranks == (3, 1, 2, 4)
    assert end.final_points == (-15.0, 40.0, 10.0, -35.0)


def test_final_points_with_uma_and_oka_tenhou() -> None:
    """Tenhou: (score - 30,000) / 1,000 + uma 20/10/-10/-20, and oka 20 for first place."""
    g = draw((), round_wind=1, kyoku=3, scores=(40000, 30000, 20000, 10000))
    end = ended(g)
    assert end.ranks == (1, 2, 3, 4)
    assert end.final_points == (50.0, 10.0, -20.0, -40.0)
    assert sum(end.final_points) == 0


def test_final_points_with_uma_without_oka_ema() -> None:
    """EMA: 30,000 start and return points, uma 15/5/-5/-15, no oka."""
    g = draw((), round_wind=1, kyoku=3, scores=(25000, 35000, 45000, 15000), ruleset=EMA)
    end = ended(g)
    assert end.ranks == (3, 2, 1, 4)
    assert end.final_points == (-10.0, 10.0, 30.0, -30.0)
