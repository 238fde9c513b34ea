"""An mjai bot's tiles read for :mod:`server.hub.mjai`: a tile's kind, one tile or a list of tiles
of an answer, each refused with :class:`InvalidReplyError` (which names the field) when it is not an
mjai tile."""

from __future__ import annotations

from typing import Any

from server.engine.tiles import Tile, kind
from server.records.tiles import face_from_mjai


class InvalidReplyError(Exception):
    """The bot's answer cannot be played; the message says why."""


def kind_of(pai: str) -> int:
    face = face_from_mjai(pai)
    return -1 if face is None else kind(face)


def tile_of(data: dict[str, Any], field: str) -> Tile:
    face = face_from_mjai(data.get(field))  # type: ignore[arg-type]
    if face is None:
        raise InvalidReplyError(f"{field!r} must be an mjai tile ('5m', '5mr', 'E'); got {data.get(field)!r}")
    return face


def tiles_of(data: dict[str, Any], field: str) -> list[Tile]:
    raw = data.get(field)
    if not isinstance(raw, list):
        raise InvalidReplyError(f"{field!r} must be a list of mjai tiles; got {raw!r}")
    out = []
    for name in raw:
        face = face_from_mjai(name)
        if face is None:
            raise InvalidReplyError(f"{field!r}: {name!r} is not an mjai tile")
        out.append(face)
    return out
