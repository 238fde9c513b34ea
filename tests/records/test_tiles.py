from __future__ import annotations

import doctest

import pytest

from server.engine.tiles import NUM_FACES, kind, parse_tile
from server.records import mjlog as mjlog_module
from server.records import tiles as tiles_module
from server.records import yaku as yaku_module
from server.records.tiles import (
    face_from_id136,
    face_from_mjai,
    face_from_tenhou6,
    mjai_from_face,
    tenhou6_from_face,
)
from server.records.yaku import TENHOU_YAKU, yaku_from_id, yaku_from_label


@pytest.mark.parametrize("module", [tiles_module, yaku_module, mjlog_module])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0


@pytest.mark.parametrize("face", range(NUM_FACES))
def test_codes_round_trip(face: int) -> None:
    assert face_from_tenhou6(tenhou6_from_face(face)) == face
    assert face_from_mjai(mjai_from_face(face)) == face


@pytest.mark.parametrize(
    ("code", "name", "mpsz"),
    [(11, "1m", "1m"), (19, "9m", "9m"), (25, "5p", "5p"), (39, "9s", "9s"), (41, "E", "1z"),
     (44, "N", "4z"), (45, "P", "5z"), (46, "F", "6z"), (47, "C", "7z"), (51, "5mr", "0m"),
     (52, "5pr", "0p"), (53, "5sr", "0s")],
)  # fmt: skip
def test_codes_name_the_same_tile(code: int, name: str, mpsz: str) -> None:
    assert face_from_tenhou6(code) == face_from_mjai(name) == parse_tile(mpsz)


@pytest.mark.parametrize("code", [0, 10, 20, 40, 48, 50, 54, 60, 99, -1, True, "11", None, 1.0])
def test_bad_tenhou6_codes(code: object) -> None:
    assert face_from_tenhou6(code) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["?", "0m", "5zr", "5r", "10m", "Z", "", "1z", 5, None])
def test_bad_mjai_names(name: object) -> None:
    assert face_from_mjai(name) is None  # type: ignore[arg-type]


def test_136_ids() -> None:
    for tile_id in range(136):
        assert kind(face_from_id136(tile_id, red=True)) == tile_id // 4
        assert face_from_id136(tile_id, red=False) == tile_id // 4
    assert [face_from_id136(i, red=True) for i in (16, 52, 88)] == [34, 35, 36]
    assert [face_from_id136(i, red=True) for i in (17, 53, 89)] == [4, 13, 22]
    with pytest.raises(ValueError):
        face_from_id136(136, red=True)


def test_yaku_table() -> None:
    assert len(TENHOU_YAKU) == 55
    assert len({y.id for y in TENHOU_YAKU}) == 55
    assert [y.tenhou_id for y in TENHOU_YAKU] == list(range(55))
    assert yaku_from_id(1) is not None and yaku_from_id(1).id == "riichi"  # type: ignore[union-attr]
    assert yaku_from_id(55) is None
    assert all(y.yakuman == (37 <= y.tenhou_id <= 51) for y in TENHOU_YAKU)
    for y in TENHOU_YAKU:
        assert yaku_from_label(y.label) == y
    assert yaku_from_label("国士無双13面") == TENHOU_YAKU[48]
    assert yaku_from_label("no such yaku") is None
