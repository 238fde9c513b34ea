from __future__ import annotations

import json
from typing import Any

import pytest

from server.engine.events import DrawReason
from server.engine.melds import MeldType
from server.engine.tiles import parse_tile, parse_tiles
from server.records import (
    CallStep,
    DiscardStep,
    DrawStep,
    RecordError,
    RiichiAcceptedStep,
    TruncatedRecordError,
    UnsupportedRecordError,
)
from server.records.tenhou6 import read_tenhou6
from tests.records.corpus import TENHOU6_DIR, needs_corpus, tenhou6_bytes

E, HAKU, HATSU, CHUN = 41, 45, 46, 47
M19 = list(range(11, 20))
M19_RED = [11, 12, 13, 14, 51, 16, 17, 18, 19]  # one of the four 5m is the red one


def game(*hands: list[Any], rule: Any = None, **extra: Any) -> str:
    obj = {"title": ["", ""], "name": ["A", "B", "C", "D"], "rule": rule or {"disp": "般南喰赤", "aka": 1}}
    return json.dumps({**obj, "log": list(hands), **extra}, ensure_ascii=False)


def hand(seats: list[tuple[list[Any], list[Any], list[Any]]], result: list[Any], dora: int = 32) -> list[Any]:
    out: list[Any] = [[0, 0, 0], [25000] * 4, [dora], []]
    for dealt, takes, discards in seats:
        out += [dealt, takes, discards]
    return [*out, result]


def kyuushu_hand() -> list[Any]:
    return hand(
        [
            ([*M19_RED, 21, 22, 23, 24], [39], []),
            ([*M19, 25, 26, 27, 28], [], []),
            ([*M19, 29, 31, 33, 34], [], []),
            ([*M19, 35, 36, 37, 38], [], []),
        ],
        ["九種九牌"],
    )


def delayed_pon_hand() -> list[Any]:
    """Seat 2's pon of east is not on seat 0's first east but on its second (seat 3's pon skips seat 2)."""
    return hand(
        [
            ([E, E, *M19_RED, 21, 22], [23, 24], [E, E]),
            ([HAKU, *M19, 25, 26, 27], [28], [HAKU]),
            ([E, E, CHUN, *M19, 29], ["41p4141"], [CHUN]),
            ([HAKU, HAKU, HATSU, *M19, 31], ["45p4545"], [HATSU]),
        ],
        ["和了", [0, 0, -1000, 1000], [3, 2, 3, "30符1飜1000点", "役牌 白(1飜)"]],
    )


def test_kyuushu_kyuuhai() -> None:
    record = read_tenhou6(game(kyuushu_hand()))
    assert record.complete and not record.all_problems
    (only,) = record.hands
    assert only.steps == (DrawStep(0, parse_tile("9s")),)
    assert (
        only.draw is not None and only.draw.reason is DrawReason.KYUUSHU_KYUUHAI and only.draw.declarer == 0
    )
    assert record.rules == {"red_fives": (1, 1, 1), "game_length": "east_south", "open_tanyao": True}
    assert record.names == ("A", "B", "C", "D")


def test_a_call_that_waits_for_a_later_discard() -> None:
    record = read_tenhou6(game(delayed_pon_hand()))
    assert record.complete and not record.all_problems
    east, haku, hatsu, chun = parse_tiles("1z5z6z7z")
    steps = record.hands[0].steps
    assert steps == (
        DrawStep(0, parse_tile("3p")),
        DiscardStep(0, east, tsumogiri=False),
        DrawStep(1, parse_tile("8p")),
        DiscardStep(1, haku, tsumogiri=False),
        CallStep(3, MeldType.PON, (haku, haku, haku), haku, 1, (haku, haku)),
        DiscardStep(3, hatsu, tsumogiri=False),
        DrawStep(0, parse_tile("4p")),
        DiscardStep(0, east, tsumogiri=False),
        CallStep(2, MeldType.PON, (east, east, east), east, 0, (east, east)),
        DiscardStep(2, chun, tsumogiri=False),
    )
    (win,) = record.hands[0].wins
    assert (win.seat, win.from_seat, win.win_tile, win.points, win.fu, win.han) == (3, 2, chun, 1000, 30, 1)
    assert [(y.id, y.han, y.label) for y in win.yaku] == [("haku", 1, "役牌 白")]
    assert win.pao_seat is None


def test_lists_that_do_not_fit_make_an_incomplete_hand() -> None:
    broken = delayed_pon_hand()
    broken[5 + 3 * 3] = ["45p4545", 39]  # seat 3 takes one tile too many
    record = read_tenhou6(game(broken))
    assert not record.complete and not record.hands[0].complete
    assert any("cannot replay" in p for p in record.hands[0].problems)


def test_riichi_accepted_and_tsumogiri() -> None:
    riichi = kyuushu_hand()
    riichi[5] = [39]  # seat 0: draw 9s, riichi with it (r60), then seat 1 draws 8s and wins
    riichi[6] = ["r60"]
    riichi[8] = [38]
    riichi[-1] = ["和了", [0, 3000, 0, 0], [1, 1, 1, "満貫1000-2000点", "門前清自摸和(1飜)"]]
    record = read_tenhou6(game(riichi))
    nine_s = parse_tile("9s")
    assert record.hands[0].steps[:3] == (
        DrawStep(0, nine_s),
        DiscardStep(0, nine_s, tsumogiri=True, riichi=True),
        RiichiAcceptedStep(0),
    )
    assert record.hands[0].wins[0].points == 4000  # 1000 + 1000 + 2000


@pytest.mark.parametrize(
    ("summary", "fu", "han", "points", "limit"),
    [
        ("30符4飜7700点", 30, 4, 7700, ""),
        ("30符1飜300-500点", 30, 1, 1100, ""),
        ("40符2飜1300点∀", 40, 2, 3900, ""),
        ("満貫2000-4000点", None, 2, 8000, "mangan"),
        ("倍満8000点∀", None, 2, 24000, "baiman"),
        ("三倍満24000点", None, 2, 24000, "sanbaiman"),
        ("役満16000点∀", None, 2, 48000, "kazoe_yakuman"),
    ],
)
def test_win_summaries(summary: str, fu: int | None, han: int, points: int, limit: str) -> None:
    ron = delayed_pon_hand()
    ron[-1] = ["和了", [0, 0, -1000, 1000], [3, 2, 3, summary, "役牌 白(1飜)", "ドラ(1飜)"]]
    (win,) = read_tenhou6(game(ron)).hands[0].wins
    assert (win.fu, win.points, win.limit) == (fu, points, limit)
    assert win.han == (han if fu is not None else 2)


def test_yakuman_labels() -> None:
    ron = delayed_pon_hand()
    ron[-1] = ["和了", [0, 0, -32000, 32000], [3, 2, 0, "役満32000点", "大三元(役満)", "字一色(役満)"]]
    (win,) = read_tenhou6(game(ron)).hands[0].wins
    assert [(y.id, y.han, y.yakuman) for y in win.yaku] == [("daisangen", 13, True), ("tsuuiisou", 13, True)]
    assert (win.yakuman, win.han, win.limit, win.pao_seat) == (2, 26, "yakuman", 0)


@pytest.mark.parametrize(
    ("rule", "hints"),
    [
        ({"disp": "般東", "aka": 0}, {"red_fives": (0, 0, 0), "game_length": "east", "open_tanyao": False}),
        ({"disp": "上南喰赤"}, {"red_fives": (1, 1, 1), "game_length": "east_south", "open_tanyao": True}),
        ({"disp": "", "aka51": 2, "aka52": 1, "aka53": 0}, {"red_fives": (2, 1, 0)}),
        ({"disp": "Friendly"}, {}),
    ],
)
def test_rule_hints(rule: dict[str, Any], hints: dict[str, Any]) -> None:
    record = read_tenhou6(game(kyuushu_hand(), rule=rule))
    assert record.rules == hints
    record.ruleset()  # the hints are valid options


def test_final_scores() -> None:
    record = read_tenhou6(game(kyuushu_hand(), sc=[420, 62.0, 250, 5.0, 200, -20.0, 130, -47.0]))
    assert record.final_scores == (42000, 25000, 20000, 13000)
    assert record.final_points == (62.0, 5.0, -20.0, -47.0)


def test_one_object_per_line_and_one_object_agree() -> None:
    lines = "\n".join(game(h) for h in (kyuushu_hand(), delayed_pon_hand()))
    assert read_tenhou6(lines) == read_tenhou6(game(kyuushu_hand(), delayed_pon_hand()))


@needs_corpus
def test_corpus_lines_and_one_object_agree() -> None:
    path = next(p for p in sorted(TENHOU6_DIR.glob("*.json")) if len(p.read_text().splitlines()) > 3)
    objects = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    merged = {**objects[0], "log": [h for o in objects for h in o["log"]]}
    assert read_tenhou6(json.dumps(merged, ensure_ascii=False)) == read_tenhou6(path.read_bytes())


@needs_corpus
def test_golden_first_example() -> None:
    record = read_tenhou6(tenhou6_bytes("first-example"))
    (only,) = record.hands
    assert record.names == ("Aさん", "私", "Cさん", "Dさん")
    assert only.draw is not None and only.draw.reason is DrawReason.EXHAUSTIVE
    assert only.draw.tenpai == (1,) and only.deltas == (-1000, 3000, -1000, -1000)
    assert len(only.live_draws) == 70 and only.rinshan_draws == ()
    assert only.riichi_seats == (1,)
    assert only.end_scores == (24000, 27000, 24000, 24000)


@needs_corpus
def test_golden_riichi_ippatsu_tsumo() -> None:
    record = read_tenhou6(tenhou6_bytes("2020081220gm-00a9-0000-9ee6ab3b"))
    first = record.hands[0]
    (win,) = first.wins
    assert (win.seat, win.tsumo, win.limit, win.points, win.han, win.fu) == (
        0,
        True,
        "baiman",
        24000,
        8,
        None,
    )
    assert [y.id for y in win.yaku] == [
        "riichi", "ippatsu", "menzen_tsumo", "pinfu", "sanshoku_doujun", "tanyao", "dora",
    ]  # fmt: skip
    assert first.riichi_seats == (0, 2)
    assert win.ura_indicators == (parse_tile("5z"),)
    assert first.end_scores == record.hands[1].start_scores == (50000, 17000, 16000, 17000)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xff\xfe\x00",
        b"[1, 2, 3]",
        b"null",
        b'{"log": []}',
        game().encode(),
        b'{"name": ["A","B","C","D"], "log": 5}',
        b'{"name": "A", "log": []}',
        b'{"name": ["A","B","C","D"], "rule": 3, "log": []}',
        b'{"name": ["A","B","C","D"], "rule": {"disp": 5}, "log": []}',
        b'{"name": ["A","B","C","D"], "log": [[1, 2, 3]]}',
        b'{"name": ["A","B","C","D"], "log": [5]}',
        b'{"name": ["A","B","C","D"]} garbage',
        b'{"name": ["A","B","C","D"], "log": []}\n{oops}\n',
        b"[" * 100000,
        game(kyuushu_hand(), sc=[1, 2]).encode(),
        game(kyuushu_hand(), rule={"disp": "", "aka51": 9, "aka52": 0, "aka53": 0}).encode(),
    ],
)
def test_malformed_input_raises_record_error(data: bytes) -> None:
    with pytest.raises(RecordError):
        read_tenhou6(data)


def _mutated(index: int, value: Any) -> str:
    entry = kyuushu_hand()
    entry[index] = value
    return game(entry)


@pytest.mark.parametrize(
    ("index", "value"),
    [
        (0, [0, 0]),
        (0, [16, 0, 0]),
        (0, [0, -1, 0]),
        (1, [25000, 25000, 25000]),
        (1, "25000"),
        (2, []),
        (2, [99]),
        (3, [0]),
        (4, [11, 12]),
        (4, [*M19_RED, 21, 22, 23, 10]),
        (4, None),
        (5, [True]),
        (5, ["x11"]),
        (5, ["11p111111"]),  # four tiles for a pon
        (5, ["c1112p13"]),  # two letters
        (5, ["1112c13"]),  # chi not from the left
        (5, ["11a111111"]),  # ankan among the takes
        (6, ["p111111"]),  # pon among the discards
        (6, [61]),
        (6, ["rxx"]),
        (6, {}),
        (16, []),
        (16, [5]),
        (16, "和了"),
    ],
)
def test_wrong_types_raise_record_error(index: int, value: Any) -> None:
    with pytest.raises(RecordError):
        read_tenhou6(_mutated(index, value))


def test_win_result_with_wrong_shape() -> None:
    ron = delayed_pon_hand()
    for result in (
        ["和了", [0, 0, -1000, 1000]],
        ["和了", [0, 0, -1000, 1000], [3, 2]],
        ["和了", [0, 0, -1000, 1000], [3, 9, 3, "30符1飜1000点"]],
        ["和了", [0, 0, -1000], [3, 2, 3, "30符1飜1000点"]],
        ["和了", [0, 0, -1000, 1000], [3, 2, 3, 7]],
    ):
        ron[-1] = result
        text = game(ron)
        try:
            record = read_tenhou6(text)
        except RecordError:
            continue
        assert not record.hands[0].complete or record.hands[0].problems


@pytest.mark.parametrize("cut", [5, 100, -3])
def test_cut_json_is_truncated(cut: int) -> None:
    text = game(kyuushu_hand())
    with pytest.raises(TruncatedRecordError):
        read_tenhou6(text[:cut])


def test_three_player_rules_with_four_hands_are_refused() -> None:
    with pytest.raises(RecordError, match="three-player"):
        read_tenhou6(game(kyuushu_hand(), rule={"disp": "三鳳南喰赤", "aka": 1}))


def test_a_hand_with_an_empty_fourth_seat_is_three_player() -> None:
    sanma = kyuushu_hand()
    sanma[13:16] = [[], [], []]
    sanma[1] = [35000, 35000, 35000, 0]
    record = read_tenhou6(game(sanma))
    assert record.preset == "tenhou-sanma" and record.ruleset().seats == 3
    assert record.hands[0].seats == 3 and record.hands[0].start_scores == (35000,) * 3


def test_unknown_result_label_is_a_problem() -> None:
    odd = kyuushu_hand()
    odd[-1] = ["謎"]
    record = read_tenhou6(game(odd))
    assert any("unknown result" in p for p in record.hands[0].problems)


def test_a_chip_lobby_is_unsupported() -> None:
    with pytest.raises(UnsupportedRecordError, match="chip lobby"):
        read_tenhou6(game(kyuushu_hand(), rule={"disp": "般南喰赤祝5", "aka": 1}))
