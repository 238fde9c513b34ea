"""Records written by other tools: Mahjong Soul conversions and other engines' mjai logs.

Each test takes records of our own matches (exported, so every hand is known to be right), rewrites
them the way another tool writes the same facts, and checks that they still read and verify:

* Mahjong Soul deals the dealer's fourteenth tile instead of drawing it, so its records mark the
  dealer's first discard as not the drawn tile (tenhou.net/6: the tile's code instead of 60; mjai:
  ``"tsumogiri": false``). Which copy left the hand is not a rule, so it is not a mismatch.
* Mahjong Soul conversions write its English yaku names ("Riichi(1飜)", "Dora(2飜)") and their own
  result labels ("Agari", "Exhaustive Draw", "Four Kan Abortion", "三家和").
* Other engines' mjai ``ryukyoku`` reasons (``exhaustive_draw``, ``kyushu_kyuhai``,
  ``suukansansen``, ``sufuurenta``, ``suurechi``, ``sanchaho``) are read as what they are, and a
  ``ryukyoku`` without a reason after a fourth kan whose discard was the last tile is a four-kan
  abort, not an exhaustive draw.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.bots.selfplay import play_events
from server.engine.actions import Ankan, Daiminkan
from server.engine.events import DrawReason, Event, HandDrawn, HandWon, RoundEnded
from server.engine.rules import MAHJONGSOUL, TENHOU, Ruleset
from server.engine.tiles import parse_tile
from server.records.draw_names import draw_name
from server.records.export import export_match
from server.records.mjai import read_mjai
from server.records.replay import Outcome, record_ruleset, replay_record
from server.records.tenhou6 import read_tenhou6
from server.records.yaku import engine_yaku_id, yaku_from_label
from tests.engine.scenario import Game

T = parse_tile
NAMES = ["A", "B", "C", "D"]

# Our record ids -> Mahjong Soul's English names (what its conversions write instead of Tenhou's).
MAHJONG_SOUL_ENGLISH = {
    "menzen_tsumo": "Fully Concealed Hand",
    "riichi": "Riichi",
    "ippatsu": "Ippatsu",
    "chankan": "Robbing a Kan",
    "rinshan_kaihou": "After a Kan",
    "haitei": "Under the Sea",
    "houtei": "Under the River",
    "pinfu": "Pinfu",
    "tanyao": "All Simples",
    "iipeikou": "Pure Double Sequence",
    "haku": "White Dragon",
    "hatsu": "Green Dragon",
    "chun": "Red Dragon",
    "double_riichi": "Double Riichi",
    "chiitoitsu": "Seven Pairs",
    "chanta": "Half Outside Hand",
    "ittsu": "Pure Straight",
    "sanshoku_doujun": "Mixed Triple Sequence",
    "sanshoku_doukou": "Triple Triplets",
    "sankantsu": "Three Quads",
    "toitoi": "All Triplets",
    "sanankou": "Three Concealed Triplets",
    "shousangen": "Little Three Dragons",
    "honroutou": "All Terminals and Honors",
    "ryanpeikou": "Twice Pure Double Sequence",
    "junchan": "Fully Outside Hand",
    "honitsu": "Half Flush",
    "chinitsu": "Full Flush",
    "dora": "Dora",
    "ura_dora": "Ura Dora",
    "aka_dora": "Red Five",
    **{f"seat_wind_{w}": "Seat Wind" for w in ("east", "south", "west", "north")},
    **{f"round_wind_{w}": "Prevalent Wind" for w in ("east", "south", "west", "north")},
}

# Tenhou's result labels -> the English labels of Mahjong Soul conversions.
ENGLISH_RESULTS = {
    "和了": "Agari",
    "流局": "Exhaustive Draw",
    "流し満貫": "Mangan at Draw",
    "九種九牌": "Nine Terminal Abortion",
    "四風連打": "Four Wind Abortion",
    "四家立直": "Four Riichi Abortion",
    "四槓散了": "Four Kan Abortion",
    "三家和了": "Three Ron Abortion",
}

# Our mjai reasons -> RiichiEnv's (and the mjai servers built on it).
OTHER_ENGINE_REASONS = {
    "exhaustive": "exhaustive_draw",
    "nagashi_mangan": "nagashimangan",
    "kyuushu_kyuuhai": "kyushu_kyuhai",
    "suufon_renda": "sufuurenta",
    "suucha_riichi": "suurechi",
    "suukaikan": "suukansansen",
    "sanchahou": "sanchaho",
}


def matches(ruleset: Ruleset, count: int = 2) -> list[list[Event]]:
    return [play_events(ruleset, f"other-tools/{i}".encode(), ["greedy"] * 4) for i in range(count)]


def assert_verifies(text: str, *, mjai: bool = False) -> None:
    record = read_mjai(text) if mjai else read_tenhou6(text)
    reports = replay_record(record, record_ruleset(record))
    problems = [str(m) for r in reports for m in r.mismatches]
    assert problems == []
    assert all(r.outcome is Outcome.VERIFIED for r in reports)


def _english_tenhou6(doc: dict[str, Any]) -> dict[str, Any]:
    """A tenhou.net/6 document as a Mahjong Soul conversion writes it (English names, 60 -> code
    for the dealer's first discard, no Jantaku ruleset)."""
    doc = {k: v for k, v in doc.items() if k != "ruleset"}
    for hand in doc["log"]:
        dealer = hand[0][0] % 4
        takes, discards = hand[5 + 3 * dealer], hand[6 + 3 * dealer]
        if discards and discards[0] == 60:
            discards[0] = takes[0]
        elif discards and discards[0] == "r60":
            discards[0] = f"r{takes[0]}"
        result = hand[16]
        result[0] = ENGLISH_RESULTS.get(result[0], result[0])
        for info in result[2::2]:
            for i, label in enumerate(info[4:], start=4):
                name, _, rest = label.partition("(")
                known = yaku_from_label(name)
                assert known is not None, label
                info[i] = f"{MAHJONG_SOUL_ENGLISH[known.id]}({rest}"
    return doc


@pytest.mark.parametrize("ruleset", [TENHOU, MAHJONGSOUL], ids=["tenhou", "mahjongsoul"])
def test_a_mahjong_soul_conversion_to_tenhou6_verifies(ruleset: Ruleset) -> None:
    for events in matches(ruleset):
        doc = _english_tenhou6(json.loads(export_match(events, "tenhou6", names=NAMES)))
        if ruleset is MAHJONGSOUL:  # no Jantaku ruleset in the file: name the rules it was played by
            doc["ruleset"] = MAHJONGSOUL.to_dict()
        text = json.dumps(doc, ensure_ascii=False)
        assert '"Agari"' in text or '"Exhaustive Draw"' in text
        assert_verifies(text)


def test_the_dealers_first_discard_marked_as_not_drawn_is_no_illegality() -> None:
    """The tenhou.net/6 reader gives a tile's code as a discard from the hand; the dealer's only copy
    is its fourteenth tile, which the engine deals as a draw."""
    events = matches(TENHOU, 1)[0]
    doc = json.loads(export_match(events, "tenhou6", names=NAMES))
    changed = 0
    for hand in doc["log"]:
        dealer = hand[0][0] % 4
        takes, discards = hand[5 + 3 * dealer], hand[6 + 3 * dealer]
        if discards and discards[0] == 60 and takes[0] not in hand[4 + 3 * dealer]:
            discards[0] = takes[0]
            changed += 1
    assert changed
    assert_verifies(json.dumps(doc, ensure_ascii=False))


def _mjai_lines(events: list[Event]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in export_match(events, "mjai", names=NAMES).splitlines()]


def test_other_engines_mjai_reasons_and_first_discard_flags_verify() -> None:
    seen: set[str] = set()
    for events in matches(TENHOU, 3):
        lines = _mjai_lines(events)
        first_of_hand = True
        oya = 0
        for line in lines:
            if line["type"] == "start_kyoku":
                first_of_hand, oya = True, line["oya"]
            elif line["type"] == "dahai" and first_of_hand and line["actor"] == oya:
                line["tsumogiri"] = False  # Mahjong Soul: the dealer's 14th tile was dealt, not drawn
                first_of_hand = False
            elif line["type"] == "ryukyoku":
                line["reason"] = OTHER_ENGINE_REASONS[line["reason"]]
                seen.add(line["reason"])
        text = "\n".join(json.dumps(line) for line in lines)
        record = read_mjai(text)
        assert not [p for h in record.hands for p in h.problems if "reason" in p]
        assert_verifies(text, mjai=True)
    assert "exhaustive_draw" in seen


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("exhaustive_draw", DrawReason.EXHAUSTIVE),
        ("kyushu_kyuhai", DrawReason.KYUUSHU_KYUUHAI),
        ("suukansansen", DrawReason.SUUKAIKAN),
        ("sufuurenta", DrawReason.SUUFON_RENDA),
        ("suufonrenda", DrawReason.SUUFON_RENDA),
        ("suuchariichi", DrawReason.SUUCHA_RIICHI),
        ("suurechi", DrawReason.SUUCHA_RIICHI),
        ("sanchaho", DrawReason.SANCHAHOU),
        ("三家和", DrawReason.SANCHAHOU),
        ("Ryuukyoku", DrawReason.EXHAUSTIVE),
        ("Four Riichi Abortion", DrawReason.SUUCHA_RIICHI),
        ("Nine Terminal Abortion", DrawReason.KYUUSHU_KYUUHAI),
    ],
)
def test_draw_names_other_tools_write(name: str, reason: DrawReason) -> None:
    found = draw_name(name)
    assert found is not None and found.reason is reason


@pytest.mark.parametrize(
    ("name", "ours"),
    [
        ("Riichi", "riichi"),
        ("Dora", "dora"),
        ("Red Five", "aka_dora"),
        ("Ura Dora", "ura_dora"),
        ("Fully Concealed Hand", "menzen_tsumo"),
        ("After a Kan", "rinshan"),
        ("Mixed Triple Sequence", "sanshoku"),
        ("Seat Wind", "yakuhai_seat_wind"),
        ("Prevalent Wind", "yakuhai_round_wind"),
        ("White Dragon", "yakuhai_haku"),
        ("Big Three Dragons", "daisangen"),
        ("Thirteen-wait Thirteen Orphans", "kokushi_13"),
    ],
)
def test_mahjong_soul_english_yaku_names_are_ours(name: str, ours: str) -> None:
    known = yaku_from_label(name)
    assert known is not None and engine_yaku_id(known.id) == ours


def four_kans_then_the_last_tile() -> list[Event]:
    """Seat 2 calls a daiminkan of 6z early; late in the hand seat 3 makes ankans of 1m, 2m and 3m,
    the third with one live tile left. Its replacement tile is discarded as the last tile of the
    wall, nobody wins, and four kans by two players abort the hand."""
    g = Game.start(
        {3: "111m222m333m19p19s", 2: "666z258p369s479m1z"},
        draws="6z",
        late={57: "1m", 61: "2m", 65: "3m"},
    )
    g.tsumogiri(0)  # 6z
    g.do(2, Daiminkan((T("6z"), T("6z"), T("6z"))))
    g.tsumogiri(2)
    g.pass_all()
    for tile in ("1m", "2m", "3m"):
        while not (g.state.hand.turn == 3 and g.state.hand.players[3].drawn == T(tile)):
            g.tsumogiri(g.state.hand.turn)
            g.pass_all()
        g.do(3, Ankan((T(tile), T(tile), T(tile), T(tile))))
        if tile != "3m":
            g.tsumogiri(3)
            g.pass_all()
    assert g.state.hand.live_remaining == 0
    g.tsumogiri(3)
    g.pass_all()
    end = next(i for i, e in enumerate(g.events) if isinstance(e, RoundEnded))
    return g.events[: end + 1]


def test_a_four_kan_abort_on_the_last_tile_is_not_guessed_an_exhaustive_draw() -> None:
    events = four_kans_then_the_last_tile()
    (drawn,) = [e for e in events if isinstance(e, HandDrawn)]
    assert drawn.reason is DrawReason.SUUKAIKAN
    assert not [e for e in events if isinstance(e, HandWon)]
    lines = _mjai_lines(events)
    for line in lines:
        if line["type"] == "ryukyoku":
            del line["reason"]  # the original mjai writes no reason
    text = "\n".join(json.dumps(line) for line in lines)
    record = read_mjai(text)
    draw = record.hands[0].draw
    assert draw is not None and draw.reason is DrawReason.SUUKAIKAN
    assert_verifies(text, mjai=True)
