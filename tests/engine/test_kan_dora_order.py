"""When each kan's dora indicator is turned, for every kan sequence (docs/rules.md#kan-dora).

A closed kan turns its indicator as soon as it stands. An open or added kan turns it after the kan
player's discard (``open_kan_dora = after_discard``, Tenhou, Mahjong Soul) or as soon as it stands
(``immediate``, EMA). A kan stands once nobody robs it: a robbed added kan turns nothing, and an
indicator still pending from the kan player's earlier open kan is turned only when the next kan
stands. Tenhou's records show it (a second added kan is followed by the first one's ``DORA``, then
the replacement draw); before that rule, a second added kan that was robbed still showed the first
one's indicator and paid one dora too many.

Every sequence starts from one position (``base``): seat 0, the dealer, has pon'd 7p and is tenpai
on a 2s tanki (an east triplet as yaku); seat 3 waits on 4p/7p (pinfu), so it may rob an added
7p; seat 1 holds the fourth 3z for a daiminkan.
"""

from __future__ import annotations

import pytest

from server.engine.actions import Ankan, Daiminkan, Kakan, Pass, Pon, Ron, Tsumo
from server.engine.events import (
    DoraRevealed,
    Event,
    HandWon,
    MeldCalled,
    RoundStarted,
    TileDiscarded,
    TileDrawn,
)
from server.engine.rules import EMA, MAHJONGSOUL, TENHOU, OpenKanDora, Ruleset
from server.engine.state import Phase
from server.engine.tiles import parse_tile, parse_tiles
from tests.engine.scenario import Game

T = parse_tile
AFTER = TENHOU
IMMEDIATE = TENHOU.with_options(open_kan_dora=OpenKanDora.IMMEDIATE)


def _chain(events: list[Event]) -> str:
    """The events from the first kan on, in short: kan types, dora, rinshan, discard, draw, win."""
    out: list[str] = []
    started = False
    for e in events:
        if isinstance(e, MeldCalled) and e.meld.is_kan:
            started = True
        if not started:
            continue
        match e:
            case MeldCalled():
                out.append(str(e.type))
            case DoraRevealed():
                out.append("dora")
            case TileDrawn(rinshan=True):
                out.append("rinshan")
            case TileDrawn():
                out.append("draw")
                break
            case TileDiscarded():
                out.append("discard")
            case HandWon():
                out.append("win")
                break
    return " ".join(out)


def base(ruleset: Ruleset, *, start: str, rinshan: str, daiminkan: bool = False) -> Game:
    """Seat 0 pons seat 1's 7p and discards 1s; one go-around later it draws ``start``. With
    ``daiminkan`` it discards that tile and calls daiminkan on the 3z seat 1 discards next."""
    g = Game.start(
        {
            0: "456m77p12s111z333z",
            1: "18m379p589s34567z",
            3: "123m99m56p456s789s",
        },
        draws="2m4z6z2p8m" + start + "5z",
        rinshan=rinshan,
        quiet=True,
        ruleset=ruleset,
    )
    g.tsumogiri(0)  # 2m
    g.discard(1, "7p")
    assert set(g.pending()) == {0, 3}
    g.do(3, Pass())  # seat 3 could ron 7p (pinfu); furiten until its own next discard
    g.do(0, Pon((T("7p"), T("7p"))))
    g.play(0, "1s")
    g.tsumogiri(1)  # 6z
    g.pass_all()
    g.tsumogiri(2)  # 2p
    g.pass_all()
    g.tsumogiri(3)  # 8m: seat 3 is no longer furiten
    g.pass_all()
    if daiminkan:
        g.tsumogiri(0)
        g.pass_all()
        g.discard(1, "3z")  # seat 1 drew 5z
        g.do(0, Daiminkan((T("3z"), T("3z"), T("3z"))))
    return g


def _kakan_7p(g: Game, *, robbed: bool = False) -> None:
    g.do(0, Kakan(T("7p")))
    assert g.state.hand.phase is Phase.CHANKAN and g.pending() == (3,)
    g.do(3, Ron() if robbed else Pass())


def _ankan_1z(g: Game) -> None:
    g.do(0, Ankan((T("1z"), T("1z"), T("1z"), T("1z"))))


def _finish(g: Game, follow: str) -> None:
    match follow:
        case "discard":
            g.tsumogiri(0)
            g.pass_all()
        case "tsumo":
            g.do(0, Tsumo())
        case _:
            raise AssertionError(follow)


# (first kan, what follows it) -> the rinshan tiles and the chain for after_discard / immediate
SEQUENCES: dict[str, tuple[str, str, str]] = {
    "ankan, discard": (
        "9p",
        "ankan dora rinshan discard draw",
        "ankan dora rinshan discard draw",
    ),
    "ankan, rinshan tsumo": (
        "2s",
        "ankan dora rinshan win",
        "ankan dora rinshan win",
    ),
    "ankan, kakan, discard": (
        "7p9p",
        "ankan dora rinshan kakan rinshan discard dora draw",
        "ankan dora rinshan kakan dora rinshan discard draw",
    ),
    "ankan, kakan robbed": (
        "7p",
        "ankan dora rinshan kakan win",
        "ankan dora rinshan kakan win",
    ),
    "kakan, discard": (
        "9p",
        "kakan rinshan discard dora draw",
        "kakan dora rinshan discard draw",
    ),
    "kakan, rinshan tsumo": (
        "2s",
        "kakan rinshan win",
        "kakan dora rinshan win",
    ),
    "kakan robbed": (
        "",
        "kakan win",
        "kakan win",
    ),
    "kakan, ankan, discard": (
        "1z9p",
        "kakan rinshan dora ankan dora rinshan discard draw",
        "kakan dora rinshan ankan dora rinshan discard draw",
    ),
    "daiminkan, discard": (
        "9p",
        "daiminkan rinshan discard dora draw",
        "daiminkan dora rinshan discard draw",
    ),
    "daiminkan, rinshan tsumo": (
        "2s",
        "daiminkan rinshan win",
        "daiminkan dora rinshan win",
    ),
    "daiminkan, ankan, discard": (
        "1z9p",
        "daiminkan rinshan dora ankan dora rinshan discard draw",
        "daiminkan dora rinshan ankan dora rinshan discard draw",
    ),
    "daiminkan, kakan, discard": (
        "7p9p",
        "daiminkan rinshan kakan dora rinshan discard dora draw",
        "daiminkan dora rinshan kakan dora rinshan discard draw",
    ),
    "daiminkan, kakan robbed": (
        "7p",
        "daiminkan rinshan kakan win",
        "daiminkan dora rinshan kakan win",
    ),
}


def play(name: str, ruleset: Ruleset) -> Game:
    rinshan = SEQUENCES[name][0]
    steps = name.split(", ")
    first = steps[0]
    start = {"ankan": "1z", "kakan": "7p", "kakan robbed": "7p"}.get(first, "9s")
    g = base(ruleset, start=start, rinshan=rinshan, daiminkan=first == "daiminkan")
    if first == "ankan":
        _ankan_1z(g)
    elif first.startswith("kakan"):
        _kakan_7p(g, robbed=first == "kakan robbed")
    for step in steps[1:]:
        match step:
            case "ankan":
                _ankan_1z(g)
            case "kakan" | "kakan robbed":
                _kakan_7p(g, robbed=step == "kakan robbed")
            case "discard":
                _finish(g, "discard")
            case "rinshan tsumo":
                _finish(g, "tsumo")
            case _:
                raise AssertionError(step)
    return g


@pytest.mark.parametrize("name", sorted(SEQUENCES))
@pytest.mark.parametrize("ruleset", [AFTER, IMMEDIATE], ids=["after_discard", "immediate"])
def test_dora_reveal_order_for_every_kan_sequence(name: str, ruleset: Ruleset) -> None:
    g = play(name, ruleset)
    expected = SEQUENCES[name][1 if ruleset is AFTER else 2]
    assert _chain(g.events) == expected
    first = g.of(RoundStarted)[0].dora_indicator
    shown = [e.indicator for e in g.of(DoraRevealed)]
    for win in g.wins():  # a win counts exactly the indicators turned before it
        assert win.dora_indicators == (first, *shown)


def test_the_presets_turn_open_kan_dora_as_documented() -> None:
    assert TENHOU.open_kan_dora is MAHJONGSOUL.open_kan_dora is OpenKanDora.AFTER_DISCARD
    assert EMA.open_kan_dora is OpenKanDora.IMMEDIATE


def test_a_robbed_second_added_kan_leaves_the_first_ones_indicator_unturned() -> None:
    """The issue's case: seat 0 adds 2p to its pon, draws the replacement 1m and adds it too; seat
    3 robs the 1m. Only 7p is turned, so the ron is chankan + pinfu, 30 fu 2 han: 2,000. (Turning
    the 2p kan's 7s too would make the 8s in seat 3's hand a dora: 3,900.)"""
    g = Game.start(
        {
            0: "11579m1223p1234z",
            1: "1468m247p129s567z",
            3: "23m456p345s678s9p9m",
        },
        draws="2z3z4z6z7z9p2p",
        rinshan="1m",
        dora="7p7s",
        quiet=True,
    )
    g.tsumogiri(0)  # 2z
    g.pass_all()
    g.discard(1, "2p")
    g.pass_all(except_seat=0)
    g.do(0, Pon((T("2p"), T("2p"))))
    g.play(0, "1z")
    g.discard(1, "1m")
    g.pass_all(except_seat=0)
    g.do(0, Pon((T("1m"), T("1m"))))
    g.play(0, "2z")
    g.tsumogiri(1)  # 6z
    g.pass_all()
    g.tsumogiri(2)  # 7z
    g.pass_all()
    g.discard(3, "9m")  # seat 3 draws 9p: tenpai on 1m / 4m
    g.pass_all()
    g.do(0, Kakan(T("2p")))  # drawn 2p
    g.pass_all()
    g.do(0, Kakan(T("1m")))  # the replacement 1m
    assert g.pending() == (3,)
    g.do(3, Ron())
    (win,) = g.wins()
    assert win.dora_indicators == parse_tiles("7p")
    assert not g.of(DoraRevealed)
    assert {y.name: y.han for y in win.yaku} == {"chankan": 1, "pinfu": 1}
    assert (win.han, win.fu, win.points) == (2, 30, 2000)
    assert win.deltas == (-2000, 0, 0, 2000)
