"""The consistency checks themselves: a broken record must be reported, not accepted."""

from __future__ import annotations

import dataclasses

import pytest

from server.engine.events import DrawReason
from server.engine.melds import MeldType
from server.engine.tiles import parse_tile, parse_tiles
from server.records import (
    CallStep,
    DiscardStep,
    DoraStep,
    DrawResult,
    DrawStep,
    HandRecord,
    RiichiAcceptedStep,
)
from server.records.check import check_hand, conservation_problems

DEALT = (
    parse_tiles("123406789m1234p"),
    parse_tiles("123456789m5678p"),
    parse_tiles("123456789m9p134s"),
    parse_tiles("123456789m6s255z"),
)
EAST, HAKU = parse_tile("1z"), parse_tile("5z")


def base(*steps: object, **changes: object) -> HandRecord:
    hand = HandRecord(
        round_wind=0,
        kyoku=0,
        honba=0,
        riichi_sticks=0,
        dealer=0,
        start_scores=(25000,) * 4,
        dealt=DEALT,
        dora_indicators=(parse_tile("9s"),),
        ura_indicators=(),
        steps=tuple(steps),  # type: ignore[arg-type]
        complete=False,
    )
    return dataclasses.replace(hand, **changes)  # type: ignore[arg-type]


def test_dealt_fixture_is_sane() -> None:
    assert all(len(h) == 13 for h in DEALT)
    assert conservation_problems(base(), (1, 1, 1)) == []


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ((DrawStep(1, EAST),), "out of turn"),
        ((DrawStep(0, EAST), DiscardStep(0, HAKU, tsumogiri=False)), "not in hand"),
        ((DrawStep(0, EAST), DiscardStep(0, parse_tile("1m"), tsumogiri=True)), "not the tile drawn"),
        ((DrawStep(0, EAST, rinshan=True),), "without a kan"),
        ((DoraStep(EAST),), "without a kan"),
        ((RiichiAcceptedStep(0),), "without its riichi discard"),
        (
            (DrawStep(0, EAST), DiscardStep(0, EAST, tsumogiri=True, riichi=True), DrawStep(1, EAST)),
            "neither accepted nor ronned",
        ),
        (
            (
                DrawStep(0, EAST),
                DiscardStep(0, EAST, tsumogiri=True),
                CallStep(2, MeldType.CHI, (0, 1, 2), 0, 0, (1, 2)),
            ),
            "chi",
        ),
        (
            (
                DrawStep(0, EAST),
                DiscardStep(0, EAST, tsumogiri=True),
                CallStep(3, MeldType.PON, (EAST,) * 3, EAST, 0, (EAST, HAKU)),
            ),
            "wrong shape",
        ),
        (
            (DrawStep(0, EAST), CallStep(0, MeldType.ANKAN, (EAST,) * 4, None, 0, (EAST,) * 4)),
            "no 1z",
        ),
    ],
)
def test_broken_steps_are_reported(steps: tuple[object, ...], expected: str) -> None:
    problems = check_hand(base(*steps))
    assert problems and expected in problems[-1], problems


def test_exhaustive_draw_needs_an_empty_wall() -> None:
    hand = base(
        DrawStep(0, EAST),
        DiscardStep(0, EAST, tsumogiri=True),
        complete=True,
        draw=DrawResult(DrawReason.EXHAUSTIVE, (0, 0, 0, 0), nagashi=()),
    )
    assert any("live tiles left" in p for p in check_hand(hand))


def test_too_many_tiles_of_a_kind() -> None:
    hand = base(DrawStep(0, parse_tile("1m")))
    assert any("5 tiles of 1m" in p for p in check_hand(hand))
    red = base(DrawStep(0, parse_tile("0m")))
    assert any("red 5m" in p for p in check_hand(red))
    assert not any("but the rules have" in p for p in check_hand(red, (2, 1, 1)))


def test_derived_wall_parts() -> None:
    hand = base(
        DrawStep(0, EAST),
        CallStep(0, MeldType.ANKAN, (EAST,) * 4, None, 0, (EAST,) * 4),
        DoraStep(parse_tile("2s")),
        DrawStep(0, HAKU, rinshan=True),
        DiscardStep(0, HAKU, tsumogiri=True),
        dealt=(parse_tiles("111z123406789m1p"), *DEALT[1:]),
        dora_indicators=(parse_tile("9s"), parse_tile("2s")),
    )
    spec = hand.wall_spec()
    assert spec.live_draws == (EAST,) and spec.rinshan_draws == (HAKU,)
    assert spec.dora_indicators == hand.revealed_dora == (parse_tile("9s"), parse_tile("2s"))
    assert spec.hands_by_seat == hand.dealt and spec.dealer == 0
