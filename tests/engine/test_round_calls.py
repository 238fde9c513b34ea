"""Round flow: calls (chi, pon, the three kans), kuikae, the caller's turn and call priority.

Rules: chi only from the player to your left (the discarder's next seat), pon and open kan from
anyone; at most four kans, so a fifth is never offered (docs/rules.md#kans);
kuikae per ``Ruleset.kuikae`` (docs/rules.md#option-kuikae); after chi / pon the
caller discards without drawing, after any kan it draws a replacement from the dead wall; a call
window is resolved ron > pon / kan > chi whatever order the answers arrive in.
"""

from __future__ import annotations

import itertools

import pytest

from server.engine.actions import Action, Ankan, Chi, Daiminkan, Discard, Kakan, Pass, Pon, Riichi, Ron, Tsumo
from server.engine.events import DoraRevealed, HandWon, MeldCalled, TileDrawn
from server.engine.melds import MeldType
from server.engine.rules import TENHOU, Kuikae
from server.engine.state import Phase
from server.engine.tiles import parse_tile, parse_tiles
from tests.engine.scenario import Game

T = parse_tile


def pair(text: str) -> tuple[int, int]:
    a, b = parse_tiles(text)
    return (a, b)


def triple(text: str) -> tuple[int, int, int]:
    a, b, c = parse_tiles(text)
    return (a, b, c)


def quad(text: str) -> tuple[int, int, int, int]:
    a, b, c, d = parse_tiles(text)
    return (a, b, c, d)


# -- chi ------------------------------------------------------------------------------------------


def test_chi_only_from_the_next_seat() -> None:
    """Chi is offered only to the discarder's next seat (shimocha), never across or to the left."""
    g = Game.start(
        {1: "12m258p369s12367z", 2: "129m147p258s4567z", 3: "249m147p369s4567z"}, draws="3m", quiet=True
    )
    g.tsumogiri(0)
    assert Chi(pair("12m")) in g.legal(1)
    assert g.legal(2) == frozenset() and g.legal(3) == frozenset()
    assert g.pending() == (1,)


def test_chi_shapes_offered_to_the_next_seat() -> None:
    """Every sequence the discard completes is offered: 3m with 12m, 24m and 45m (and a red five)."""
    g = Game.start({1: "12450m369p147s12z"}, draws="3m", quiet=True)
    g.tsumogiri(0)
    chis = {a for a in g.legal(1) if isinstance(a, Chi)}
    assert chis == {Chi(pair("12m")), Chi(pair("24m")), Chi(pair("45m")), Chi(pair("40m"))}


def test_seat_three_may_chi_seat_two_but_not_seat_zero() -> None:
    """The next seat wraps around: seat 3 chis seat 2's discard; seat 0 is seat 3's shimocha."""
    g = Game.start({0: "24m147p369s12345z", 3: "24m147p369s12345z"}, draws="9s1s3m", quiet=True)
    g.play(0, "9s")
    g.play(1, "1s")
    g.tsumogiri(2)
    assert Chi(pair("24m")) in g.legal(3)
    assert g.legal(0) == frozenset()


# -- pon and daiminkan ----------------------------------------------------------------------------


@pytest.mark.parametrize("caller", [1, 2, 3])
def test_pon_from_any_seat(caller: int) -> None:
    """Pon takes any other seat's discard: the next seat, across or the previous seat."""
    g = Game.start({caller: "66z147m258p369s12z"}, draws="6z", quiet=True)
    g.tsumogiri(0)
    assert Pon(pair("66z")) in g.legal(caller)
    events = g.do(caller, Pon(pair("66z")))
    called = [e for e in events if isinstance(e, MeldCalled)]
    assert len(called) == 1
    meld = called[0].meld
    assert called[0].seat == caller and meld.type is MeldType.PON
    assert meld.called == T("6z") and meld.from_seat == 0
    assert g.state.hand.players[0].river[-1].called
    assert g.state.hand.turn == caller


def test_daiminkan_from_any_seat_draws_from_the_dead_wall() -> None:
    """Open kan on a discard (three in hand): a MeldCalled DAIMINKAN, then a rinshan draw."""
    g = Game.start({2: "666z147m258p369s1z"}, draws="6z", rinshan="9m", quiet=True)
    g.tsumogiri(0)
    assert Daiminkan(triple("666z")) in g.legal(2)
    g.do(2, Daiminkan(triple("666z")))
    (called,) = g.of(MeldCalled)
    assert called.type is MeldType.DAIMINKAN and called.seat == 2 and called.tile == T("6z")
    assert g.of(TileDrawn)[-1] == TileDrawn(seat=2, tile=T("9m"), rinshan=True)
    assert g.state.hand.wall[122] == T("9m")
    assert g.state.hand.turn == 2 and g.state.hand.players[2].drawn == T("9m")
    assert len(g.state.hand.players[2].hand) == 11


def test_pon_then_kakan_draws_from_the_dead_wall() -> None:
    """Added kan: the fourth tile joins an earlier pon; the meld becomes KAKAN; rinshan draw."""
    g = Game.start({1: "66z147m258p369s12z"}, draws="6z", rinshan="9m", late={4: "6z"}, quiet=True)
    g.tsumogiri(0)
    g.do(1, Pon(pair("66z")))
    g.discard(1, "1z")
    g.pass_all()
    g.run_to(70 - 5)  # draws 1..3 by seats 2, 3, 0; draw 4 (6z) by seat 1
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("6z")
    assert Kakan(T("6z")) in g.legal(1)
    g.do(1, Kakan(T("6z")))
    kan = g.of(MeldCalled)[-1]
    assert kan.type is MeldType.KAKAN and kan.tile == T("6z") and kan.consumed == (T("6z"),)
    assert kan.meld.tiles == parse_tiles("6666z") and kan.meld.added == T("6z")
    assert [m.type for m in g.state.hand.players[1].melds] == [MeldType.KAKAN]
    assert g.of(TileDrawn)[-1] == TileDrawn(seat=1, tile=T("9m"), rinshan=True)


def test_ankan_on_own_turn_draws_from_the_dead_wall() -> None:
    """Closed kan of four concealed tiles: MeldCalled ANKAN (no called tile), rinshan draw."""
    g = Game.start({0: "1111m258p369s147z"}, draws="2z", rinshan="9m", quiet=True)
    assert Ankan(quad("1111m")) in g.legal(0)
    g.do(0, Ankan(quad("1111m")))
    (kan,) = g.of(MeldCalled)
    assert kan.type is MeldType.ANKAN and kan.tile is None and kan.consumed == parse_tiles("1111m")
    assert not g.state.hand.players[0].melds[0].is_open
    assert g.of(TileDrawn)[-1] == TileDrawn(seat=0, tile=T("9m"), rinshan=True)
    assert g.state.hand.players[0].closed


def test_fifth_kan_is_never_offered() -> None:
    """At most four kans per hand (docs/rules.md): after seat 0's four kans nobody may kan again,
    neither an open kan on a discard nor a closed kan of four in hand."""
    g = Game.start(
        {0: "111m222p333s444s5z", 1: "666z777z369m369p9s"},
        draws="1m7z",
        rinshan="2p3s4s6z",
        quiet=True,
    )
    for quad_ in ("1111m", "2222p", "3333s", "4444s"):
        g.do(0, Ankan(quad(quad_)))
    assert len(g.state.hand.kans) == 4
    assert len(g.of(DoraRevealed)) == 4
    g.discard(0, "6z")
    assert Pon(pair("66z")) in g.legal(1)
    assert not any(isinstance(a, Daiminkan) for a in g.legal(1))
    g.do(1, Pass())
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("7z")
    assert not any(isinstance(a, Ankan) for a in g.legal(1))


# -- the caller's turn ----------------------------------------------------------------------------


def test_after_chi_the_caller_discards_without_drawing() -> None:
    """A chi gives the caller the turn with no draw: only discards are legal (no tsumo, kan, riichi)."""
    g = Game.start({1: "12m258p369s12367z"}, draws="3m", quiet=True)
    g.tsumogiri(0)
    drawn_before = len(g.of(TileDrawn))
    g.do(1, Chi(pair("12m")))
    assert len(g.of(TileDrawn)) == drawn_before
    p1 = g.state.hand.players[1]
    assert g.state.hand.turn == 1 and g.state.hand.phase is Phase.TURN
    assert p1.drawn is None and len(p1.hand) == 11
    legal = g.legal(1)
    assert legal and all(isinstance(a, Discard) and not a.tsumogiri for a in legal)
    g.discard(1, "7z")
    assert g.of(TileDrawn)[-1].seat == 2  # play continues from the caller's right


def test_after_pon_the_caller_discards_without_drawing_and_skipped_seats_lose_their_turn() -> None:
    """Pon by seat 3 on seat 0's discard: seat 3 discards next (seats 1 and 2 are skipped)."""
    g = Game.start({3: "66z147m258p369s12z"}, draws="6z", quiet=True)
    g.tsumogiri(0)
    drawn_before = len(g.of(TileDrawn))
    g.do(3, Pon(pair("66z")))
    assert len(g.of(TileDrawn)) == drawn_before
    legal = g.legal(3)
    assert not any(isinstance(a, Tsumo | Riichi | Ankan | Kakan) for a in legal)
    g.discard(3, "1z")
    g.pass_all()
    assert g.of(TileDrawn)[-1].seat == 0


# -- kuikae ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kuikae", "forbidden"),
    [(Kuikae.FULL, {"1m", "4m"}), (Kuikae.SAME_TILE, {"1m"}), (Kuikae.NONE, set())],
)
def test_kuikae_after_chi_per_ruleset(kuikae: Kuikae, forbidden: set[str]) -> None:
    """Ruleset.kuikae: after chi 1m with 23m, ``same_tile`` bans 1m, ``full`` also the suji 4m."""
    ruleset = TENHOU.with_options(kuikae=kuikae)
    g = Game.start({1: "1234m258p369s147z"}, draws="1m", ruleset=ruleset, quiet=True)
    g.tsumogiri(0)
    g.do(1, Chi(pair("23m")))
    discards = {a.tile for a in g.legal(1) if isinstance(a, Discard)}
    for name in ("1m", "4m"):
        assert (T(name) in discards) == (name not in forbidden)
    assert T("2p") in discards


@pytest.mark.parametrize(
    ("kuikae", "banned"), [(Kuikae.FULL, True), (Kuikae.SAME_TILE, True), (Kuikae.NONE, False)]
)
def test_kuikae_after_pon_per_ruleset(kuikae: Kuikae, banned: bool) -> None:
    """After pon of 6z the caller may not discard its other 6z unless kuikae is ``none``."""
    ruleset = TENHOU.with_options(kuikae=kuikae)
    g = Game.start({2: "666z147m258p369s1z"}, draws="6z", ruleset=ruleset, quiet=True)
    g.tsumogiri(0)
    g.do(2, Pon(pair("66z")))
    discards = {a.tile for a in g.legal(2) if isinstance(a, Discard)}
    assert (T("6z") not in discards) == banned


@pytest.mark.parametrize(("kuikae", "offered"), [(Kuikae.FULL, False), (Kuikae.SAME_TILE, True)])
def test_no_call_that_would_leave_only_banned_discards(kuikae: Kuikae, offered: bool) -> None:
    """A chi of 1m with 23m from 1234m (after three pons) would leave only 1m and 4m, both banned under
    ``full`` kuikae: the chi is not offered; under ``same_tile`` 4m could still be discarded."""
    ruleset = TENHOU.with_options(kuikae=kuikae)
    g = Game.start({1: "112233z1234m9p9s7z"}, draws="1z2z3z", late={5: "1m"}, ruleset=ruleset, quiet=True)
    g.tsumogiri(0)
    for honor, discard in (("1z", "9p"), ("2z", "9s"), ("3z", "7z")):
        g.do(1, Pon(pair(honor * 2)))
        g.discard(1, discard)
        if honor != "3z":
            g.tsumogiri(2)
    g.pass_all()
    assert g.hand(1) == "1234m"
    g.run_to(64)
    assert g.state.hand.turn == 0 and g.state.hand.players[0].drawn == T("1m")
    g.tsumogiri(0)
    assert (Chi(pair("23m")) in g.legal(1)) == offered


def test_kuikae_ends_with_the_callers_discard() -> None:
    """The ban covers only the discard right after the call."""
    g = Game.start({1: "1234m258p369s147z"}, draws="1m", quiet=True, late={4: "9p"})
    g.tsumogiri(0)
    g.do(1, Chi(pair("23m")))
    g.discard(1, "7z")
    g.pass_all()
    g.run_to(70 - 5)
    assert g.state.hand.turn == 1
    discards = {a.tile for a in g.legal(1) if isinstance(a, Discard)}
    assert {T("1m"), T("4m")} <= discards


# -- priority -------------------------------------------------------------------------------------

PRIORITY_HANDS = {1: "12m258p369s12367z", 2: "339m147p258s4567z", 3: "12m456p789s11122z"}


@pytest.mark.parametrize("order", list(itertools.permutations([1, 2, 3])))
def test_ron_beats_pon_beats_chi_whatever_the_answer_order(order: tuple[int, ...]) -> None:
    """Seat 1 may chi, seat 2 pon and seat 3 ron the same 3m: the ron wins in every answer order."""
    g = Game.start(PRIORITY_HANDS, draws="3m", quiet=True, dora="9p")
    g.tsumogiri(0)
    answers: dict[int, Action] = {1: Chi(pair("12m")), 2: Pon(pair("33m")), 3: Ron()}
    for seat in order:
        assert seat in g.pending()
        g.do(seat, answers[seat])
    assert not g.of(MeldCalled)
    (win,) = g.of(HandWon)
    assert win.seat == 3 and win.from_seat == 0


@pytest.mark.parametrize("order", [(1, 2), (2, 1)])
def test_pon_beats_chi_whatever_the_answer_order(order: tuple[int, int]) -> None:
    """Seat 1 chi and seat 2 pon on one discard: the pon is made, the chi is not."""
    hands = {1: PRIORITY_HANDS[1], 2: PRIORITY_HANDS[2]}
    g = Game.start(hands, draws="3m", quiet=True)
    g.tsumogiri(0)
    answers: dict[int, Action] = {1: Chi(pair("12m")), 2: Pon(pair("33m"))}
    for seat in order:
        g.do(seat, answers[seat])
    (called,) = g.of(MeldCalled)
    assert called.seat == 2 and called.type is MeldType.PON
    assert g.state.hand.turn == 2
    assert not g.state.hand.players[1].melds


def test_chi_is_made_when_the_pon_is_passed() -> None:
    """If the pon seat passes, the chi stands."""
    hands = {1: PRIORITY_HANDS[1], 2: PRIORITY_HANDS[2]}
    g = Game.start(hands, draws="3m", quiet=True)
    g.tsumogiri(0)
    g.do(2, Pass())
    g.do(1, Chi(pair("12m")))
    (called,) = g.of(MeldCalled)
    assert called.seat == 1 and called.type is MeldType.CHI


def test_daiminkan_beats_chi() -> None:
    """An open kan has pon priority over a chi."""
    g = Game.start({1: "12m258p369s12367z", 2: "333m147p258s4567z"}, draws="3m", quiet=True)
    g.tsumogiri(0)
    g.do(1, Chi(pair("12m")))
    g.do(2, Daiminkan(triple("333m")))
    (called,) = g.of(MeldCalled)
    assert called.seat == 2 and called.type is MeldType.DAIMINKAN


def test_the_window_waits_for_every_answer() -> None:
    """A ron answered first does not end the window while other seats may still answer."""
    g = Game.start(PRIORITY_HANDS, draws="3m", quiet=True, dora="9p")
    g.tsumogiri(0)
    g.do(3, Ron())
    assert g.state.hand.phase is Phase.CALLS
    assert g.pending() == (1, 2)
    assert not g.of(HandWon)
