from __future__ import annotations

import gzip

import pytest

from server.engine.events import DrawReason
from server.engine.melds import MeldType
from server.engine.tiles import parse_tile, parse_tiles, sorted_tiles
from server.records import (
    CallStep,
    DiscardStep,
    DrawStep,
    RecordError,
    RiichiAcceptedStep,
    TruncatedRecordError,
    UnsupportedRecordError,
)
from server.records.mjlog import call_from_meld, decode_meld, read_mjlog
from tests.records.corpus import mjlog_bytes, needs_corpus


def tiny_game(go_type: int = 169, tail: str = "</mjloggm>") -> str:
    """One hand: ids 0..51 dealt, the dealer draws id 53 and declares kyuushu kyuuhai."""
    hands = " ".join(f'hai{s}="{",".join(str(13 * s + i) for i in range(13))}"' for s in range(4))
    return (
        f'<mjloggm ver="2.3"><GO type="{go_type}" lobby="0"/>'
        '<UN n0="%41" n1="B" n2="C" n3="D" dan="0,0,0,0" rate="1500,1500,1500,1500" sx="M,M,M,M"/>'
        f'<TAIKYOKU oya="0"/><INIT seed="0,0,0,1,2,52" ten="250,250,250,250" oya="0" {hands}/>'
        '<T53/><RYUUKYOKU type="yao9" ba="0,0" sc="250,0,250,0,250,0,250,0" '
        'hai0="0,1,2,3,4,5,6,7,8,9,10,11,12,53" owari="250,0.0,250,0.0,250,0.0,250,0.0" />' + tail
    )


def test_tiny_game() -> None:
    record = read_mjlog(tiny_game())
    assert record.complete and not record.all_problems
    assert record.names == ("A", "B", "C", "D")
    assert record.rules == {"red_fives": (1, 1, 1), "game_length": "east_south", "open_tanyao": True}
    assert record.final_scores == (25000,) * 4 and record.final_points == (0.0,) * 4
    hand = record.hands[0]
    assert hand.steps == (DrawStep(0, 13),)
    assert hand.draw is not None and hand.draw.reason is DrawReason.KYUUSHU_KYUUHAI
    assert hand.draw.declarer == 0
    assert hand.dealt[0] == (0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3)
    assert hand.dealt[1] == (3, 3, 3, 34, 4, 4, 4, 5, 5, 5, 5, 6, 6)  # id 16 is the red 5m
    assert hand.dora_indicators == (35,)  # id 52: the red 5p


@pytest.mark.parametrize(
    ("go_type", "rules"),
    [
        (169, {"red_fives": (1, 1, 1), "game_length": "east_south", "open_tanyao": True}),
        (0x01 | 0x02 | 0x04, {"red_fives": (0, 0, 0), "game_length": "east", "open_tanyao": False}),
        (0x41, {"red_fives": (1, 1, 1), "game_length": "east", "open_tanyao": True}),
    ],
)
def test_go_type_rules(go_type: int, rules: dict[str, object]) -> None:
    record = read_mjlog(tiny_game(go_type))
    assert record.rules == rules
    assert record.rule_text == f"GO type={go_type}"
    if go_type & 0x02:
        assert record.hands[0].dealt[1][3] == 4  # id 16 is a plain 5m without red fives
    assert record.ruleset().red_fives == rules["red_fives"]


def test_gzip_reads_the_same() -> None:
    plain = tiny_game().encode()
    assert read_mjlog(gzip.compress(plain)) == read_mjlog(plain)


def test_without_end_tag_is_incomplete() -> None:
    record = read_mjlog(tiny_game(tail=""))
    assert not record.complete
    assert any("</mjloggm>" in p for p in record.problems)


def test_three_player_game_dealing_four_hands_is_refused() -> None:
    with pytest.raises(RecordError, match="fourth hand in a three-player game"):
        read_mjlog(tiny_game(go_type=169 | 0x10))


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00\x01garbage\xff",
        b"\xff\xfe<\x00m\x00",
        b"hello",
        b"<root/>",
        b'<mjloggm ver="2.3"><T12/></mjloggm>',
        b'<mjloggm ver="2.3"><INIT seed="0,0,0" ten="250,250,250,250" oya="0"/></mjloggm>',
        b'<mjloggm ver="2.3"><INIT seed="a,b,c,d,e,f"/></mjloggm>',
        b'<mjloggm ver="2.3"></mjloggm><GO type="1"/>',
        b'<mjloggm ver="2.3">text<GO type="1"/></mjloggm>',
        b'<mjloggm ver="2.3"><GO type="x"/></mjloggm>',
        b'<mjloggm ver="2.3"><GO type=1/></mjloggm>',
        tiny_game().replace('seed="0,0,0,1,2,52"', 'seed="0,0,0,1,2,999"').encode(),
        tiny_game().replace("<T53/>", "<T999/>").encode(),
        tiny_game().replace('hai0="0,', 'hai0="').encode(),
        tiny_game().replace('owari="250,', 'owari="x,').encode(),
        tiny_game().replace("<T53/>", '<T53/><N who="0" m="99999999"/>').encode(),
        tiny_game().replace("<T53/>", '<T53/><N who="7" m="1"/>').encode(),
        tiny_game().replace('sc="250,0,250,0,250,0,250,0"', 'sc="1,2"').encode(),
        gzip.compress(b"not xml at all", mtime=0),
        b"\x1f\x8b\x08\x00garbage",
    ],
)
def test_malformed_input_raises_record_error(data: bytes) -> None:
    with pytest.raises(RecordError):
        read_mjlog(data)


@pytest.mark.parametrize("cut", [1, 10, 200, -30])
def test_cut_inside_a_tag_is_truncated(cut: int) -> None:
    data = tiny_game().encode()
    text = data[:cut] if cut > 0 else data[: data.rindex(b"owari") + 5]
    with pytest.raises(TruncatedRecordError):
        read_mjlog(text)


def test_cut_gzip_is_truncated() -> None:
    with pytest.raises(TruncatedRecordError):
        read_mjlog(gzip.compress(tiny_game().encode())[:-12])


def test_not_bytes() -> None:
    with pytest.raises(RecordError):
        read_mjlog(12)  # type: ignore[arg-type]


# Meld bit fields, values from the corpus (checked against the hands they were called from):
# (who, m) -> (type, meld tiles, called tile, from seat, tiles taken from the hand).
MELDS: list[tuple[tuple[int, int], tuple[MeldType, str, str | None, int, str]]] = [
    ((1, 60559), (MeldType.CHI, "678s", "8s", 0, "67s")),
    ((3, 9439), (MeldType.CHI, "456m", "4m", 2, "56m")),
    ((1, 24576), (MeldType.ANKAN, "7777s", None, 1, "7777s")),
    ((0, 4608), (MeldType.ANKAN, "5550m", None, 0, "5550m")),
    ((2, 27139), (MeldType.DAIMINKAN, "9999s", "9s", 1, "999s")),
    ((1, 3155), (MeldType.KAKAN, "3333m", "3m", 1, "3m")),
    ((1, 48658), (MeldType.KAKAN, "5555z", "5z", 1, "5z")),
]


@pytest.mark.parametrize(("tag", "expected"), MELDS)
def test_meld_decoding(tag: tuple[int, int], expected: tuple[MeldType, str, str | None, int, str]) -> None:
    seat, m = tag
    type_, tiles, called, from_seat, consumed = expected
    assert call_from_meld(seat, m) == CallStep(
        seat,
        type_,
        sorted_tiles(parse_tiles(tiles)),
        None if called is None else parse_tile(called),
        from_seat,
        sorted_tiles(parse_tiles(consumed)),
    )


def test_meld_pon_and_kakan_share_the_layout() -> None:
    pon = decode_meld(50793)
    kakan = decode_meld(50801)
    assert pon.type is MeldType.PON and kakan.type is MeldType.KAKAN
    assert set(pon.ids) < set(kakan.ids) and kakan.added not in pon.ids
    assert pon.called == kakan.called and pon.from_rel == kakan.from_rel


def test_a_north_set_aside_is_no_meld() -> None:
    with pytest.raises(RecordError, match="north set aside"):
        decode_meld(0x20)


@needs_corpus
def test_tsumogiri_is_the_id_just_drawn() -> None:
    hand = read_mjlog(mjlog_bytes("first-example")).hands[0]
    # <T107/><D39/> ... <T122/><D122/>
    assert hand.steps[:2] == (DrawStep(0, 26), DiscardStep(0, 9, tsumogiri=False))
    assert DiscardStep(0, 30, tsumogiri=True) in hand.steps


@needs_corpus
def test_double_ron() -> None:
    hand = read_mjlog(mjlog_bytes("double-ron")).hands[3]
    first, second = hand.wins
    # Tenhou: honba and riichi sticks go to the first winner from the discarder's right only.
    assert (first.seat, first.from_seat, first.points, first.deltas) == (0, 3, 7700, (9700, 0, 0, -7700))
    assert (second.seat, second.from_seat, second.points, second.deltas) == (2, 3, 8000, (0, 0, 8000, -8000))
    assert first.win_tile == second.win_tile == parse_tile("1m")
    assert first.ura_indicators == second.ura_indicators == (parse_tile("1p"),)
    assert hand.deltas == (9700, 0, 8000, -15700)
    assert hand.riichi_sticks == 0 and hand.riichi_seats == (0, 2)  # both deposits go to seat 0


@needs_corpus
def test_chankan_keeps_ippatsu() -> None:
    hand = read_mjlog(mjlog_bytes("encdec-chankan-ippatsu")).hands[1]
    (win,) = hand.wins
    kakan = hand.steps[-1]
    assert isinstance(kakan, CallStep) and kakan.type is MeldType.KAKAN and kakan.seat == win.from_seat == 3
    assert win.win_tile == kakan.called == parse_tile("8s")
    assert [y.id for y in win.yaku][:3] == ["riichi", "ippatsu", "chankan"]
    assert (win.fu, win.points, win.limit) == (30, 12000, "haneman")


@needs_corpus
def test_pao() -> None:
    hand = read_mjlog(mjlog_bytes("pao-tsumo")).hands[4]
    (win,) = hand.wins
    assert (win.seat, win.from_seat, win.pao_seat) == (2, 2, 0)
    assert win.tsumo and win.yakuman == 1 and win.limit == "yakuman"
    assert [(y.id, y.han, y.yakuman) for y in win.yaku] == [("daisangen", 13, True)]
    assert win.deltas == (-32000, 0, 32000, 0)


@needs_corpus
@pytest.mark.parametrize(
    ("name", "index", "reason"),
    [
        ("upd-aft-draw-kyuusyu-kyuusyu", 4, DrawReason.KYUUSHU_KYUUHAI),
        ("upd-aft-kan4", 2, DrawReason.SUUKAIKAN),
        ("upd-aft-reach4", 2, DrawReason.SUUCHA_RIICHI),
        ("upd-aft-ron3", 6, DrawReason.SANCHAHOU),
        ("encdec-four-winds-no-winner", 9, DrawReason.SUUFON_RENDA),
    ],
)
def test_aborts(name: str, index: int, reason: DrawReason) -> None:
    hand = read_mjlog(mjlog_bytes(name)).hands[index]
    assert hand.complete and not hand.problems and not hand.wins
    assert hand.draw is not None and hand.draw.reason is reason and hand.deltas == (0, 0, 0, 0)
    if reason is DrawReason.KYUUSHU_KYUUHAI:
        assert hand.draw.declarer == 3 and isinstance(hand.steps[-1], DrawStep)
    if reason is DrawReason.SUUCHA_RIICHI:
        assert hand.steps[-1] == RiichiAcceptedStep(1)  # the fourth deposit is placed
        assert len(hand.riichi_seats) == 4


@needs_corpus
def test_nagashi_mangan() -> None:
    hand = read_mjlog(mjlog_bytes("upd-aft-nm")).hands[3]
    assert hand.draw is not None and hand.draw.reason is DrawReason.EXHAUSTIVE
    assert hand.draw.nagashi == (2,) and hand.draw.tenpai == (0, 3)
    assert hand.deltas == (-2000, -2000, 8000, -4000)


@needs_corpus
def test_truncated_fixtures() -> None:
    full = read_mjlog(mjlog_bytes("2011020401gm-00a9-0000-f6eff225"))
    no_game_end = read_mjlog(mjlog_bytes("2011020401gm-00a9-0000-f6eff225-no-game-end"))
    no_round_end = read_mjlog(mjlog_bytes("2011020401gm-00a9-0000-f6eff225-no-round-end"))
    assert full.complete and not no_game_end.complete and not no_round_end.complete
    assert no_game_end.final_scores is None
    assert any("end of the game" in p for p in no_game_end.problems)
    assert all(h.complete for h in no_game_end.hands)
    assert no_game_end.hands == full.hands[: len(no_game_end.hands)]
    last = no_round_end.hands[-1]
    assert not last.complete and not last.wins and last.draw is None
    assert any("before the hand's result" in p for p in last.problems)
    assert last.steps == full.hands[len(no_round_end.hands) - 1].steps[: len(last.steps)]


@pytest.mark.parametrize("go_type", [553, 1569])
def test_a_chip_lobby_is_refused_with_a_clear_message(go_type: int) -> None:
    """Tenhou's chip lobbies (祝儀, GO type bit 0x200) pay chips beside the points: their results
    carry 16 values where the reader expects 8. They are refused like three-player records."""
    with pytest.raises(UnsupportedRecordError, match="chip lobby"):
        read_mjlog(tiny_game(go_type=go_type))


def test_a_result_with_chip_values_is_refused_even_without_the_lobby_bit() -> None:
    chips = tiny_game().replace(
        'sc="250,0,250,0,250,0,250,0"', 'sc="250,0,0,0,250,0,0,0,250,0,0,0,250,0,0,0"'
    )
    with pytest.raises(UnsupportedRecordError, match="chip lobby"):
        read_mjlog(chips)
