"""The JSON of the per-hand summaries the store projects from the log (``hand_results``).

The projection keeps, per hand, each win without its hand (the *win summary*) and the revealed wall
as tile names: the same spelling as the events they come from, so the admin pages show both alike.

>>> from server.engine.events import HandWon, YakuScore
>>> win = HandWon(seat=2, from_seat=0, win_tile=4, hand=(), melds=(), yaku=(YakuScore("riichi", 1),),
...               han=1, fu=30, points=1000, limit="", yakuman=0, dora_indicators=(), ura_indicators=(),
...               pao_seat=None, deltas=(-1000, 0, 1000, 0), scores=())
>>> win_summary(win)["win_tile"]
'5m'
>>> win_from_summary(win_summary(win)) == win
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from client_protocol import events as wire
from server.domain.records import JSON
from server.engine import events as ev
from server.engine.errors import NotationError
from server.engine.tiles import Tile
from server.eventlog.codec import StoredEventError
from server.eventlog.convert import TILE_NAMES, tile_from_wire, tiles_from_wire


class _WinSummary(msgspec.Struct, frozen=True, kw_only=True):
    seat: wire.Seat
    from_seat: wire.Seat
    win_tile: wire.Tile
    yaku: tuple[wire.Yaku, ...]
    han: int
    fu: int
    points: int
    limit: str
    yakuman: int
    pao_seat: wire.Seat | None
    deltas: tuple[int, ...]


def win_summary(win: ev.HandWon) -> dict[str, JSON]:
    """One win as the projection keeps it: who, from whom, the tile, yaku, value and score changes."""
    return {
        "seat": win.seat,
        "from_seat": win.from_seat,
        "win_tile": TILE_NAMES[win.win_tile],
        "yaku": [{"name": y.name, "han": y.han} for y in win.yaku],
        "han": win.han,
        "fu": win.fu,
        "points": win.points,
        "limit": win.limit,
        "yakuman": win.yakuman,
        "pao_seat": win.pao_seat,
        "deltas": list(win.deltas),
    }


def win_from_summary(data: Any) -> ev.HandWon:
    """A win summary as a :class:`~server.engine.events.HandWon` whose hand, melds, indicators and
    scores are empty (the summary does not keep them); :class:`StoredEventError` if it is not one."""
    try:
        s = msgspec.convert(data, _WinSummary)
        win_tile = tile_from_wire(s.win_tile)
    except (msgspec.ValidationError, NotationError) as exc:
        raise StoredEventError(f"not a win summary: {exc}") from None
    return ev.HandWon(
        seat=s.seat,
        from_seat=s.from_seat,
        win_tile=win_tile,
        hand=(),
        melds=(),
        yaku=tuple(ev.YakuScore(name=y.name, han=y.han) for y in s.yaku),
        han=s.han,
        fu=s.fu,
        points=s.points,
        limit=s.limit,
        yakuman=s.yakuman,
        dora_indicators=(),
        ura_indicators=(),
        pao_seat=s.pao_seat,
        deltas=s.deltas,
        scores=(),
    )


def tiles_json(tiles: Iterable[Tile]) -> list[str]:
    """Tiles as the projection keeps them (a revealed wall): mpsz names."""
    names = TILE_NAMES
    return [names[t] for t in tiles]


def tiles_from_json(names: Iterable[str]) -> tuple[Tile, ...]:
    """The inverse of :func:`tiles_json`; :class:`~server.engine.errors.NotationError` for a name that
    is not a tile."""
    return tiles_from_wire(names)
