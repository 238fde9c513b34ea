"""Every record of the shared corpus reads cleanly; the two Tenhou formats of one game agree."""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from server.engine.tiles import kind, sorted_tiles
from server.records import (
    HandRecord,
    RecordError,
    RecordFormat,
    detect_format,
    read_record,
)
from server.records.check import LIVE_WALL, check_hand, conservation_problems
from server.records.mjlog import read_mjlog
from server.records.tenhou6 import read_tenhou6
from tests.records.corpus import (
    MJLOG_DIR,
    mjlog_bytes,
    mjlog_files,
    needs_corpus,
    paired_games,
    reaches_game_end,
    tenhou6_bytes,
    tenhou6_files,
)


def assert_hand_is_sound(hand: HandRecord, red_fives: tuple[int, int, int]) -> None:
    assert check_hand(hand, red_fives) == []
    assert conservation_problems(hand, red_fives) == []
    assert [len(h) for h in hand.dealt] == [13] * 4
    spec = hand.wall_spec()
    kans = sum(1 for s in hand.steps if getattr(s, "is_kan", False))
    assert len(spec.rinshan_draws) <= kans <= 4
    assert len(spec.live_draws) + kans <= LIVE_WALL
    assert len(spec.dora_indicators) <= 1 + kans and len(spec.ura_indicators) <= len(spec.dora_indicators)
    dealt_and_drawn = Counter(kind(t) for t in (*(t for h in hand.dealt for t in h), *spec.live_draws))
    assert max(dealt_and_drawn.values()) <= 4
    if hand.complete:
        assert hand.wins or hand.draw is not None
        # A win collects the sticks on the table and this hand's deposits; a draw moves points only.
        collected = 1000 * (hand.riichi_sticks + len(hand.riichi_seats)) if hand.wins else 0
        assert sum(hand.deltas) == collected


@pytest.mark.parametrize("path", mjlog_files())
def test_mjlog_file(path: Path) -> None:
    data = path.read_bytes()
    assert detect_format(data) is RecordFormat.MJLOG
    record = read_mjlog(data)
    assert record.source is RecordFormat.MJLOG and record.hands
    red = record.ruleset().red_fives
    for hand in record.hands[:-1]:
        assert hand.complete and not hand.problems
        assert_hand_is_sound(hand, red)
    last = record.hands[-1]
    assert_hand_is_sound(last, red)
    if reaches_game_end(path):
        assert record.complete and not record.all_problems
        assert last.complete
        assert record.final_scores is not None and record.final_points is not None
        assert sum(record.final_scores) == 100000  # Tenhou: sticks left at the end go to the top
    else:
        # A fixture cut before the end of the game: read, reported incomplete, with the reason.
        assert not record.complete and record.final_scores is None
        assert any("stops before the end of the game" in p for p in record.problems)
        if not last.complete:
            assert not last.wins and last.draw is None
            assert any("before the hand's result" in p for p in last.problems)
        assert all("stops" in p for p in record.all_problems)


@pytest.mark.parametrize("path", tenhou6_files())
def test_tenhou6_file(path: Path) -> None:
    data = path.read_bytes()
    assert detect_format(data) is RecordFormat.TENHOU6
    record = read_tenhou6(data)
    assert record.complete and not record.all_problems
    assert record.rules == {"red_fives": (1, 1, 1), "game_length": "east_south", "open_tanyao": True}
    for hand in record.hands:
        assert_hand_is_sound(hand, (1, 1, 1))
    for before, after in zip(record.hands, record.hands[1:], strict=False):
        assert before.end_scores == after.start_scores


@needs_corpus
def test_scores_chain_through_every_mjlog_game() -> None:
    for path in sorted(MJLOG_DIR.glob("*.xml")):
        record = read_mjlog(path.read_bytes())
        for before, after in zip(record.hands, record.hands[1:], strict=False):
            assert before.end_scores == after.start_scores, (path.name, before.label)


def _win_view(hand: HandRecord, with_fu: bool) -> list[Any]:
    out = []
    for w in hand.wins:
        yaku = [(y.id, y.han, y.label, y.yakuman) for y in w.yaku if y.han]
        melds = sorted((str(m.type), sorted_tiles(m.tiles), m.called, m.from_seat) for m in w.melds)
        fu = w.fu if with_fu else None
        out.append(
            (w.seat, w.from_seat, w.win_tile, w.hand, melds, w.han, fu, w.points, w.limit, yaku,
             w.yakuman, w.dora_indicators, w.ura_indicators, w.deltas, w.pao_seat)
        )  # fmt: skip
    return out


def _hand_view(hand: HandRecord) -> list[Any]:
    draw = hand.draw
    return [
        hand.label, hand.round_wind, hand.kyoku, hand.honba, hand.riichi_sticks, hand.dealer,
        hand.start_scores, [sorted_tiles(h) for h in hand.dealt], hand.dora_indicators,
        hand.ura_indicators, hand.steps, hand.complete,
        draw and (draw.reason, draw.deltas, draw.nagashi, draw.declarer),
    ]  # fmt: skip


@pytest.mark.parametrize("name", paired_games())
def test_same_game_in_both_formats(name: str) -> None:
    """Same deal, same steps in the same order (incl. kan dora and riichi deposits), same results."""
    from_json = read_tenhou6(tenhou6_bytes(name))
    from_xml = read_mjlog(mjlog_bytes(name))
    assert 0 < len(from_json.hands) <= len(from_xml.hands)
    assert from_json.rules == from_xml.rules
    for json_hand, xml_hand in zip(from_json.hands, from_xml.hands, strict=False):
        assert _hand_view(json_hand) == _hand_view(xml_hand)
        with_fu = all(w.fu is not None for w in json_hand.wins)
        assert _win_view(json_hand, with_fu) == _win_view(xml_hand, with_fu)
        if xml_hand.draw and json_hand.draw and json_hand.draw.tenpai is not None:
            assert json_hand.draw.tenpai == xml_hand.draw.tenpai


@needs_corpus
def test_corrupted_corpus_files_never_crash() -> None:
    """Cut, flipped or re-valued bytes give a record or a RecordError, never another exception."""
    rng = random.Random(20240601)
    files = sorted(MJLOG_DIR.parent.glob("*/*.xml")) + sorted(MJLOG_DIR.parent.glob("*/*.json"))
    for _ in range(300):
        data = bytearray(rng.choice(files).read_bytes())
        for _ in range(rng.randint(1, 3)):
            where = rng.randrange(len(data))
            match rng.randrange(3):
                case 0:
                    del data[where:]
                case 1:
                    data[where] = rng.randrange(256)
                case _:
                    data[where : where + 1] = rng.choice([b"9", b"-", b",", b'"', b"r", b"[", b"]"])
            if not data:
                break
        with contextlib.suppress(RecordError):
            read_record(bytes(data))


@needs_corpus
def test_every_hand_builds_an_injected_wall() -> None:
    """The derived wall parts fit the engine's wall layout (``server.engine.wall.build_wall``)."""
    from server.engine.wall import build_wall

    files = sorted(MJLOG_DIR.parent.glob("*/*.xml")) + sorted(MJLOG_DIR.parent.glob("*/*.json"))
    for path in files:
        record = read_record(path.read_bytes())
        for hand in record.hands:
            spec = hand.wall_spec()
            build_wall(
                spec.hands_by_seat,
                spec.dealer,
                live_draws=spec.live_draws,
                rinshan_draws=spec.rinshan_draws,
                dora_indicators=spec.dora_indicators,
                ura_indicators=spec.ura_indicators,
                red_fives=record.ruleset().red_fives,
            )
