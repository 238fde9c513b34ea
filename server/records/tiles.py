"""Tile codes of the record formats, to and from our faces (see :mod:`server.engine.tiles`).

* tenhou.net/6 JSON: ``11``-``19`` man, ``21``-``29`` pin, ``31``-``39`` sou, ``41``-``47`` honors
  (E S W N haku hatsu chun), ``51``/``52``/``53`` the red fives.
* mjai: ``"1m"``..``"9m"`` (likewise p, s), ``"5mr"``/``"5pr"``/``"5sr"`` red, ``"E" "S" "W" "N"``
  winds, ``"P"`` haku, ``"F"`` hatsu, ``"C"`` chun.
* Tenhou 136-ids (mjlog): ``id // 4`` is the kind; with red fives on, ids 16, 52 and 88 are the red
  5m, 5p and 5s.

>>> face_from_tenhou6(52), tenhou6_from_face(35)
(35, 52)
>>> face_from_mjai("5sr"), mjai_from_face(33)
(36, 'C')
>>> face_from_id136(52, red=True), face_from_id136(52, red=False), face_from_id136(135, red=True)
(35, 13, 33)
"""

from __future__ import annotations

from server.engine.tiles import NUM_FACES, NUM_KINDS, RED_FIVES, Tile

TSUMOGIRI_CODE = 60
"""In a tenhou.net/6 discard list, 60 means "the tile just drawn"."""

RED_IDS: tuple[int, int, int] = (16, 52, 88)
"""The 136-ids Tenhou uses for the red 5m, 5p and 5s."""

_HONOR_LETTERS = "ESWNPFC"


def face_from_tenhou6(code: int) -> Tile | None:
    """The face of a tenhou.net/6 tile code, or ``None`` if ``code`` is not one."""
    if isinstance(code, bool) or not isinstance(code, int):
        return None
    tens, units = divmod(code, 10)
    if 1 <= tens <= 3 and 1 <= units <= 9:
        return (tens - 1) * 9 + units - 1
    if tens == 4 and 1 <= units <= 7:
        return 26 + units
    if tens == 5 and 1 <= units <= 3:
        return RED_FIVES[units - 1]
    return None


def tenhou6_from_face(tile: Tile) -> int:
    if not 0 <= tile < NUM_FACES:
        raise ValueError(f"not a tile face: {tile!r}")
    if tile >= NUM_KINDS:
        return 51 + tile - NUM_KINDS
    if tile >= 27:
        return 41 + tile - 27
    suit, index = divmod(tile, 9)
    return (suit + 1) * 10 + index + 1


def face_from_mjai(name: str) -> Tile | None:
    """The face of an mjai tile name, or ``None`` (also for the hidden tile ``"?"``)."""
    if not isinstance(name, str):
        return None
    if len(name) == 1:
        index = _HONOR_LETTERS.find(name)
        return 27 + index if index >= 0 else None
    if len(name) == 3 and name[0] == "5" and name[2] == "r":
        suit = "mps".find(name[1])
        return RED_FIVES[suit] if suit >= 0 else None
    if len(name) == 2 and "1" <= name[0] <= "9":
        suit = "mps".find(name[1])
        return suit * 9 + int(name[0]) - 1 if suit >= 0 else None
    return None


def mjai_from_face(tile: Tile) -> str:
    if not 0 <= tile < NUM_FACES:
        raise ValueError(f"not a tile face: {tile!r}")
    if tile >= NUM_KINDS:
        return "5" + "mps"[tile - NUM_KINDS] + "r"
    if tile >= 27:
        return _HONOR_LETTERS[tile - 27]
    suit, index = divmod(tile, 9)
    return f"{index + 1}{'mps'[suit]}"


def face_from_id136(tile_id: int, *, red: bool) -> Tile:
    """The face of a Tenhou 136-id; ``red`` says whether the game plays with red fives."""
    if not 0 <= tile_id < 136:
        raise ValueError(f"not a 136-tile id: {tile_id!r}")
    if red and tile_id in RED_IDS:
        return RED_FIVES[RED_IDS.index(tile_id)]
    return tile_id // 4
