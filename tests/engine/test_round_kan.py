"""Round flow: rinshan kaihou, chankan, kokushi robbing a closed kan, kan dora timing, kan ura and
the suukaikan abort.

Rules (docs/rules.md#kans, docs/rules.md#chankan, docs/rules.md#kan-dora): a win on the replacement tile is
rinshan kaihou; chankan is a ron on the tile of an added kan, and "it's possible to rob a concealed
kong to win on Thirteen Orphans" (``chankan_ankan_kokushi``; not on Tenhou); a robbed kan is not
complete, so it flips no kan dora. A closed kan flips its kan-dora indicator at once; an open or
added kan after the kan player's discard (``open_kan_dora = after_discard``) or at once
(``immediate``). A riichi winner also gets the ura indicators under the kan-dora indicators
(``kan_ura``). Suukaikan: four kans by more than one player abort the hand once the fourth kan's
discard is not won on.
"""

from __future__ import annotations

import pytest

from server.engine.actions import Ankan, Daiminkan, Kakan, Pass, Pon, Riichi, Ron, Tsumo
from server.engine.events import (
    DoraRevealed,
    DrawReason,
    Event,
    HandDrawn,
    HandWon,
    TileDrawn,
)
from server.engine.rules import EMA, MAHJONGSOUL, TENHOU, OpenKanDora, Ruleset
from server.engine.state import Phase
from server.engine.tiles import parse_tile, parse_tiles
from tests.engine.scenario import Game

T = parse_tile


def triple(text: str) -> tuple[int, int, int]:
    a, b, c = parse_tiles(text)
    return (a, b, c)


def quad(text: str) -> tuple[int, int, int, int]:
    a, b, c, d = parse_tiles(text)
    return (a, b, c, d)


def yaku(win: HandWon) -> dict[str, int]:
    return {y.name: y.han for y in win.yaku}


def kinds(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


# -- rinshan kaihou -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "indicators", "dora"),
    [(TENHOU, "9p", 0), (EMA, "9p5z", 4)],
    ids=["after_discard", "immediate"],
)
def test_rinshan_kaihou_after_an_open_kan_and_its_kan_dora(
    ruleset: Ruleset, indicators: str, dora: int
) -> None:
    """docs/rules.md#kans: rinshan kaihou on the replacement tile of a daiminkan. The kan dora (5z
    -> 6z, the kanned hatsu: 4 dora) counts only if open-kan dora flips at once (EMA), not after the
    discard (Tenhou)."""
    g = Game.start(
        {2: "666z123m456p789s1z"}, draws="6z", rinshan="1z", dora="9p5z", quiet=True, ruleset=ruleset
    )
    g.tsumogiri(0)
    g.do(2, Daiminkan(triple("666z")))
    assert Tsumo() in g.legal(2)
    g.do(2, Tsumo())
    (win,) = g.wins()
    assert "rinshan" in yaku(win)
    assert win.dora_indicators == parse_tiles(indicators)
    assert yaku(win).get("dora", 0) == dora


def test_rinshan_kaihou_after_an_added_kan() -> None:
    """docs/rules.md#kans: rinshan kaihou after a kakan."""
    g = Game.start({1: "66z123m456p789s12z"}, draws="6z", late={4: "6z"}, rinshan="1z", quiet=True, dora="9p")
    g.tsumogiri(0)
    g.do(1, Pon((T("6z"), T("6z"))))
    g.discard(1, "2z")
    g.pass_all()
    g.run_to(65)
    g.do(1, Kakan(T("6z")))
    g.do(1, Tsumo())
    (win,) = g.wins()
    assert "rinshan" in yaku(win)


# -- chankan --------------------------------------------------------------------------------------

CHANKAN_HANDS = {1: "33m147p258s34567z", 2: "12m123456p789s11z"}  # seat 2 waits on 3m (penchan)
NO_DORA = "9s"  # points at 1s, which nobody in CHANKAN_HANDS holds


def _to_kakan() -> Game:
    """Seat 1 pons 3m, later draws the fourth 3m and adds it: seat 2 (waiting on 3m) may rob it."""
    g = Game.start(CHANKAN_HANDS, draws="3m", late={4: "3m"}, quiet=True, dora=NO_DORA)
    g.tsumogiri(0)
    g.do(1, Pon((T("3m"), T("3m"))))
    g.discard(1, "7z")
    g.pass_all()
    g.run_to(65)
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("3m")
    g.do(1, Kakan(T("3m")))
    return g


def test_chankan_robs_an_added_kan() -> None:
    """docs/rules.md#chankan: chankan - ron on the tile added to a pon. Chankan is the yaku (the
    hand has no other); the kan never completes: no kan dora and no replacement draw."""
    g = _to_kakan()
    assert g.state.hand.phase is Phase.CHANKAN
    assert g.legal(2) == frozenset({Ron(), Pass()})
    g.do(2, Ron())
    (win,) = g.wins()
    assert win.seat == 2 and win.from_seat == 1 and win.win_tile == T("3m")
    assert yaku(win) == {"chankan": 1}
    assert win.deltas[1] == -win.points and win.deltas[2] == win.points
    assert not g.of(DoraRevealed)
    assert not any(d.rinshan for d in g.of(TileDrawn))


def test_passing_a_chankan_completes_the_kan_and_is_furiten() -> None:
    """A passed chankan lets the kan stand (replacement draw) and the passer is temporarily furiten."""
    g = _to_kakan()
    g.do(2, Pass())
    assert g.of(TileDrawn)[-1].rinshan and g.of(TileDrawn)[-1].seat == 1
    assert g.state.hand.players[2].furiten_temp
    assert g.state.hand.players[1].melds[0].is_kan


def _to_ankan(ruleset: Ruleset, robber: str) -> Game:
    g = Game.start({0: "1111m258p369s147z", 1: robber}, draws="9s", rinshan="9p", quiet=True, ruleset=ruleset)
    g.do(0, Ankan(quad("1111m")))
    return g


KOKUSHI_ON_1M = "9m19p19s12345677z"


@pytest.mark.parametrize(("ruleset", "robbed"), [(TENHOU, False), (MAHJONGSOUL, True), (EMA, True)])
def test_kokushi_robs_a_closed_kan_only_when_enabled(ruleset: Ruleset, robbed: bool) -> None:
    """docs/rules.md#chankan: "it's possible to rob a concealed kong to win on Thirteen Orphans" -
    an option (``chankan_ankan_kokushi``), off on Tenhou."""
    g = _to_ankan(ruleset, KOKUSHI_ON_1M)
    if not robbed:
        assert g.state.hand.phase is Phase.TURN
        assert g.of(TileDrawn)[-1] == TileDrawn(seat=0, tile=T("9p"), rinshan=True)
        return
    assert g.state.hand.phase is Phase.CHANKAN
    assert g.legal(1) == frozenset({Ron(), Pass()})
    g.do(1, Ron())
    (win,) = g.wins()
    assert win.yakuman == 1 and "kokushi" in yaku(win)
    assert win.from_seat == 0


def test_only_kokushi_may_rob_a_closed_kan() -> None:
    """docs/rules.md#chankan: an ordinary hand waiting on the kanned tile may not rob a closed kan,
    even when enabled."""
    g = _to_ankan(MAHJONGSOUL, "23m456p789s11122z")
    assert g.state.hand.phase is Phase.TURN
    assert g.legal(1) == frozenset()


# -- kan dora timing ------------------------------------------------------------------------------


def test_closed_kan_flips_its_dora_at_once() -> None:
    """docs/rules.md: "A closed kan always flips right away" - before the replacement draw."""
    g = Game.start({0: "1111m258p369s147z"}, draws="9s", rinshan="9p", dora="1p2p", quiet=True)
    events = g.do(0, Ankan(quad("1111m")))
    assert kinds(events) == ["MeldCalled", "DoraRevealed", "TileDrawn"]
    assert events[1] == DoraRevealed(indicator=T("2p"))
    assert g.state.hand.dora_revealed == 2


@pytest.mark.parametrize("ruleset", [TENHOU, MAHJONGSOUL], ids=["tenhou", "mahjongsoul"])
def test_open_kan_dora_after_the_discard(ruleset: Ruleset) -> None:
    """open_kan_dora = after_discard: the daiminkan's indicator flips once the kan player discards,
    before anyone may answer that discard."""
    g = Game.start(
        {2: "666z147m258p369s1z"}, draws="6z", rinshan="9m", dora="1p2p", quiet=True, ruleset=ruleset
    )
    g.tsumogiri(0)
    events = g.do(2, Daiminkan(triple("666z")))
    assert "DoraRevealed" not in kinds(events)
    assert g.state.hand.dora_revealed == 1
    events = g.discard(2, "9m")
    assert kinds(events)[:2] == ["TileDiscarded", "DoraRevealed"]
    assert events[1] == DoraRevealed(indicator=T("2p"))


def test_open_kan_dora_counts_for_a_ron_on_the_kan_players_discard() -> None:
    """after_discard: the indicator is flipped as the discard is made, so a ron on that very discard
    already counts it (HandWon lists both indicators)."""
    g = Game.start(
        {2: "666z147m258p369s1z", 3: "78m123p456s11122z"}, draws="6z", rinshan="9m", dora="1p2p", quiet=True
    )
    g.tsumogiri(0)
    g.do(2, Daiminkan(triple("666z")))
    g.discard(2, "9m")
    g.do(3, Ron())
    (win,) = g.wins()
    assert win.dora_indicators == parse_tiles("1p2p")


def test_open_kan_dora_immediate() -> None:
    """open_kan_dora = immediate (EMA): flipped right after the kan, before the replacement draw."""
    g = Game.start({2: "666z147m258p369s1z"}, draws="6z", rinshan="9m", dora="1p2p", quiet=True, ruleset=EMA)
    g.tsumogiri(0)
    events = g.do(2, Daiminkan(triple("666z")))
    assert kinds(events) == ["MeldCalled", "DoraRevealed", "TileDrawn"]
    events = g.discard(2, "9m")
    assert "DoraRevealed" not in kinds(events)


def test_added_kan_dora_after_the_discard() -> None:
    """A kakan is an open kan for the dora timing: its indicator waits for the discard (Tenhou)."""
    g = Game.start(
        {1: "66z123m456p789s12z"}, draws="6z", late={4: "6z"}, rinshan="9m", quiet=True, dora="1p2p"
    )
    g.tsumogiri(0)
    g.do(1, Pon((T("6z"), T("6z"))))
    g.discard(1, "2z")
    g.pass_all()
    g.run_to(65)
    events = g.do(1, Kakan(T("6z")))
    assert "DoraRevealed" not in kinds(events)
    events = g.discard(1, "9m")
    assert kinds(events)[:2] == ["TileDiscarded", "DoraRevealed"]


def test_pending_open_kan_dora_flips_before_a_following_kan() -> None:
    """A second kan declared on the replacement tile first flips the open kan's pending indicator,
    then its own (closed kan: at once): 2p, then 3p, both before the second replacement draw."""
    g = Game.start({2: "666z111m258p369s1z"}, draws="6z", rinshan="1m9m", dora="1p2p3p", quiet=True)
    g.tsumogiri(0)
    g.do(2, Daiminkan(triple("666z")))
    events = g.do(2, Ankan(quad("1111m")))
    assert kinds(events) == ["DoraRevealed", "MeldCalled", "DoraRevealed", "TileDrawn"]
    assert [e.indicator for e in events if isinstance(e, DoraRevealed)] == [T("2p"), T("3p")]


def test_a_robbed_kan_flips_no_dora() -> None:
    """docs/rules.md#chankan: the robbed kan is not complete, so no kan-dora indicator is revealed
    (even immediate)."""
    ruleset = TENHOU.with_options(open_kan_dora=OpenKanDora.IMMEDIATE)
    g = Game.start(CHANKAN_HANDS, draws="3m", late={4: "3m"}, quiet=True, dora=NO_DORA, ruleset=ruleset)
    g.tsumogiri(0)
    g.do(1, Pon((T("3m"), T("3m"))))
    g.discard(1, "7z")
    g.pass_all()
    g.run_to(65)
    g.do(1, Kakan(T("3m")))
    g.do(2, Ron())
    assert not g.of(DoraRevealed)
    (win,) = g.wins()
    assert win.dora_indicators == (T(NO_DORA),)


# -- kan ura --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kan_ura", [True, False])
def test_kan_ura_for_a_riichi_winner(kan_ura: bool) -> None:
    """docs/rules.md#option-kan_ura: a riichi winner flips "the tiles underneath the dora and kan
    dora indicators" (``kan_ura``); without kan ura only the first ura indicator counts. Ura 2m
    points at 3m (held)."""
    ruleset = TENHOU.with_options(kan_ura=kan_ura)
    g = Game.start(
        {0: "123m456p789s1122z", 1: "666z147m258p369s7z"},
        draws="9m6z",
        rinshan="9p",
        late={4: "1z"},
        dora="3z4z",
        ura="3z2m",
        quiet=True,
        ruleset=ruleset,
    )
    g.do(0, Riichi(T("9m"), True))
    g.do(1, Ankan(quad("6666z")))
    g.tsumogiri(1)
    g.pass_all()
    g.run_to(64)
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert win.dora_indicators == parse_tiles("3z4z")
    assert win.ura_indicators == (parse_tiles("3z2m") if kan_ura else parse_tiles("3z"))
    assert yaku(win).get("ura_dora", 0) == (1 if kan_ura else 0)


def test_no_ura_for_a_winner_without_riichi() -> None:
    """docs/rules.md#option-kan_ura: ura dora are flipped only "when a riichi declarer wins"."""
    g = Game.start({1: "123m456p789s1122z"}, draws="9p9m", late={5: "1z"}, ura="2m", quiet=True, dora="3z")
    g.tsumogiri(0)
    g.tsumogiri(1)
    g.pass_all()
    g.run_to(64)
    g.do(1, Tsumo())
    (win,) = g.wins()
    assert win.ura_indicators == ()
    assert "ura_dora" not in yaku(win)


# -- suukaikan ------------------------------------------------------------------------------------

FOUR_KANS = {0: "111m222p333s4567z", 1: "555z258m147p147s1z"}


def _four_kans_by_two(ruleset: Ruleset = TENHOU, seat2: str | None = None) -> Game:
    """Seat 0 makes three closed kans, seat 1 an open kan on seat 0's 5z (the fourth kan)."""
    hands = dict(FOUR_KANS)
    if seat2 is not None:
        hands[2] = seat2
    g = Game.start(hands, draws="1m", rinshan="2p3s4z9p", quiet=True, ruleset=ruleset, dora="9m")
    for q in ("1111m", "2222p", "3333s"):
        g.do(0, Ankan(quad(q)))
    g.discard(0, "5z")
    g.do(1, Daiminkan(triple("555z")))
    assert len(g.state.hand.kans) == 4 and set(g.state.hand.kans) == {0, 1}
    return g


def test_suukaikan_aborts_after_the_fourth_kans_discard() -> None:
    """Four kans by two players: once the fourth kan's discard passes, the hand is aborted."""
    g = _four_kans_by_two()
    assert not g.of(HandDrawn)
    g.discard(1, "9p")
    g.pass_all()
    (drawn,) = g.of(HandDrawn)
    assert drawn.reason is DrawReason.SUUKAIKAN
    assert drawn.deltas == (0, 0, 0, 0)


def test_no_suukaikan_when_the_fourth_kans_discard_is_won_on() -> None:
    """A ron on that discard is a win, not an abort."""
    g = _four_kans_by_two(seat2="78p234m456s777z99s")
    g.discard(1, "9p")
    g.do(2, Ron())
    assert not g.of(HandDrawn)
    (win,) = g.wins()
    assert win.seat == 2 and win.from_seat == 1


def test_no_suukaikan_when_one_player_made_all_four_kans() -> None:
    """Four kans by one player (suukantsu tenpai) do not abort the hand."""
    g = Game.start({0: "111m222p333s444s5z"}, draws="1m", rinshan="2p3s4s6z", quiet=True)
    for q in ("1111m", "2222p", "3333s", "4444s"):
        g.do(0, Ankan(quad(q)))
    g.discard(0, "6z")
    g.pass_all()
    assert not g.of(HandDrawn)
    assert g.state.hand.turn == 1


def test_suukaikan_off_plays_on() -> None:
    """abort_suukaikan = false (EMA): play continues after the fourth kan by a second player."""
    g = _four_kans_by_two(EMA)
    g.discard(1, "9p")
    g.pass_all()
    assert not g.of(HandDrawn)
    assert g.state.hand.turn == 2 and g.of(TileDrawn)[-1].seat == 2
