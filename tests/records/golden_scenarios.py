"""Hand-picked hands for the golden export tests, built with tests/engine/scenario.py.

Each function plays one hand from East 1 (unless it says otherwise) and returns the match's events up
to the end of that hand (``RoundEnded``): the exports of these events are pinned in ``golden/``.
"""

from __future__ import annotations

from collections.abc import Callable

from server.engine.actions import Ankan, Daiminkan, Kakan, KyuushuKyuuhai, Pon, Riichi, Ron, Tsumo
from server.engine.events import Event, RoundEnded
from server.engine.tiles import parse_tile, parse_tiles, tile_name
from tests.engine.scenario import Game

T = parse_tile


def _triple(text: str) -> tuple[int, int, int]:
    a, b, c = parse_tiles(text)
    return (a, b, c)


def _quad(text: str) -> tuple[int, int, int, int]:
    a, b, c, d = parse_tiles(text)
    return (a, b, c, d)


def first_hand(g: Game) -> list[Event]:
    """The events up to and including the first ``RoundEnded``."""
    for i, event in enumerate(g.events):
        if isinstance(event, RoundEnded):
            return g.events[: i + 1]
    raise AssertionError("the hand has not ended")


def double_ron() -> list[Event]:
    """East 1, honba 1, one stick: seat 1's 3m is ronned by seat 3 (haku) and seat 0 (double east);
    honba and stick go to seat 3, the first from the discarder's right."""
    hands = {0: "12m456p789s111z22z", 3: "12m456s789p555z66z"}
    g = Game.at(hands, "9m3m", honba=1, sticks=1, scores=(25000, 25000, 25000, 24000), dora="9p")
    g.tsumogiri(0)
    g.pass_all()
    g.tsumogiri(1)
    g.do(0, Ron())
    g.do(3, Ron())
    return first_hand(g)


def chankan() -> list[Event]:
    """Seat 1 pons 3m and later adds the fourth: seat 2 (penchan 12m) robs it."""
    g = Game.start(
        {1: "33m147p258s34567z", 2: "12m123456p789s11z"}, draws="3m", late={4: "3m"}, quiet=True, dora="9s"
    )
    g.tsumogiri(0)
    g.do(1, Pon((T("3m"), T("3m"))))
    g.discard(1, "7z")
    g.pass_all()
    g.run_to(65)
    g.do(1, Kakan(T("3m")))
    g.do(2, Ron())
    return first_hand(g)


def rinshan_after_each_kan() -> list[Event]:
    """The dealer's ankan (dora at once), seat 2's daiminkan on the replacement tile (dora after its
    discard), seat 1's pon then kakan of chun, whose replacement tile wins (rinshan kaihou; the
    kakan's dora is never turned)."""
    hands = {0: "1111m258p369s234z", 1: "77z234m456p789s12z", 2: "666z258m147p147s1z"}
    g = Game.start(hands, draws="9p7z", late={5: "7z"}, rinshan="6z9m1z", dora="9s1s2s", quiet=True)
    g.do(0, Ankan(_quad("1111m")))
    g.tsumogiri(0)  # the replacement 6z
    g.do(2, Daiminkan(_triple("666z")))
    g.tsumogiri(2)  # the replacement 9m; the daiminkan's dora is turned
    g.pass_all()
    g.tsumogiri(3)  # 7z
    g.do(1, Pon((T("7z"), T("7z"))))
    g.discard(1, "2z")
    g.pass_all()
    for seat in (2, 3, 0):
        g.tsumogiri(seat)
        g.pass_all()
    g.do(1, Kakan(T("7z")))
    g.do(1, Tsumo())
    return first_hand(g)


def riichi_tile_called() -> list[Event]:
    """The dealer's riichi tile 9m is ponned: its next discard is laid sideways instead; it then
    wins by tsumo (riichi, menzen tsumo, ura dora shown)."""
    g = Game.start(
        {0: "123m456p789s1122z", 1: "99m147p258s34567z"}, draws="9m", late={7: "1z"}, quiet=True, dora="9s"
    )
    g.do(0, Riichi(T("9m"), True))
    g.do(1, Pon((T("9m"), T("9m"))))
    g.discard(1, "7z")
    g.pass_all()
    for _ in range(4):  # seats 2, 3, 0 (the sideways replacement), 1
        g.tsumogiri(g.state.hand.turn)
        g.pass_all()
    g.tsumogiri(2)
    g.pass_all()
    g.tsumogiri(3)
    g.pass_all()
    g.do(0, Tsumo())
    return first_hand(g)


def kyuushu_kyuuhai() -> list[Event]:
    g = Game.start({0: "19m19p1s1234z2578s"}, draws="7p", quiet=True)
    g.do(0, KyuushuKyuuhai())
    return first_hand(g)


def suufon_renda() -> list[Event]:
    hands = {
        0: "1z147m258p369s567z",
        1: "1z258m369p147s567z",
        2: "1z369m147p258s567z",
        3: "1z258m258p258s234z",
    }
    g = Game.start(hands, draws="9m9p9s9m", quiet=True)
    for seat in range(4):
        g.discard(seat, "1z")
        g.pass_all()
    return first_hand(g)


def suucha_riichi() -> list[Event]:
    hands = {
        0: "123m456p789s1122z",
        1: "123p456s789m3344z",
        2: "123s456m789p5566z",
        3: "234m567p678s77z88m",
    }
    g = Game.start(hands, draws="9m9p9s1s", quiet=True)
    for seat, tile in enumerate(("9m", "9p", "9s", "1s")):
        g.do(seat, Riichi(T(tile), True))
        g.pass_all()
    return first_hand(g)


def suukaikan() -> list[Event]:
    """Three ankans by the dealer, then seat 1's daiminkan: aborted once its discard passes."""
    hands = {0: "111m222p333s4567z", 1: "555z258m147p147s1z"}
    g = Game.start(hands, draws="1m", rinshan="2p3s4z9p", quiet=True, dora="9m")
    for quad in ("1111m", "2222p", "3333s"):
        g.do(0, Ankan(_quad(quad)))
    g.discard(0, "5z")
    g.do(1, Daiminkan(_triple("555z")))
    g.discard(1, "9p")
    g.pass_all()
    return first_hand(g)


def sanchahou() -> list[Event]:
    hands = {1: "12m456p789s111z22z", 2: "12m456s789p333z44z", 3: "12m456p789s555z66z"}
    g = Game.start(hands, draws="3m", quiet=True)
    g.tsumogiri(0)
    for seat in (3, 1, 2):
        g.do(seat, Ron())
    return first_hand(g)


def nagashi_mangan() -> list[Event]:
    """Seat 1 draws and discards only terminals and honors; nobody calls them: nagashi mangan."""
    draws = [tile_name(t) for t in parse_tiles("1m9m1p9p1s9s5z6z7z1m9m1p9p1s9s5z6z7z")]
    g = Game.start({}, late=dict(zip(range(1, 70, 4), draws, strict=False)))
    g.run_to(0)
    g.tsumogiri(g.state.hand.turn)
    g.pass_all()
    return first_hand(g)


def pao_daisangen() -> list[Event]:
    """Seat 1 pons all three dragons, the third fed by seat 2, and wins by tsumo: seat 2 pays all."""
    g = Game.start({1: "55z66z77z123m9s123z"}, draws="5z6z7z", late={6: "9s"}, dora="9p")
    g.tsumogiri(0)
    g.do(1, Pon((T("5z"), T("5z"))))
    g.discard(1, "1z")
    g.tsumogiri(2)
    g.do(1, Pon((T("6z"), T("6z"))))
    g.discard(1, "2z")
    g.tsumogiri(2)
    g.do(1, Pon((T("7z"), T("7z"))))
    g.discard(1, "3z")
    g.pass_all()
    g.run_to(63)
    g.do(1, Tsumo())
    return first_hand(g)


SCENARIOS: dict[str, Callable[[], list[Event]]] = {
    "double_ron": double_ron,
    "chankan": chankan,
    "rinshan_after_each_kan": rinshan_after_each_kan,
    "riichi_tile_called": riichi_tile_called,
    "kyuushu_kyuuhai": kyuushu_kyuuhai,
    "suufon_renda": suufon_renda,
    "suucha_riichi": suucha_riichi,
    "suukaikan": suukaikan,
    "sanchahou": sanchahou,
    "nagashi_mangan": nagashi_mangan,
    "pao_daisangen": pao_daisangen,
}

__all__ = ["SCENARIOS", "first_hand"]
