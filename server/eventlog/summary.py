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

from server.domain.records import JSON
from server.engine import events as ev
from server.engine.tiles import Tile
from server.eventlog.codec import FORMAT_VERSION, EventKind, StoredEventError, decode_event, encode_event
from server.eventlog.convert import TILE_NAMES, tiles_from_wire

WIN_SUMMARY_FIELDS = (
    "seat",
    "from_seat",
    "win_tile",
    "yaku",
    "han",
    "fu",
    "points",
    "limit",
    "yakuman",
    "pao_seat",
    "deltas",
)
"""What the projection keeps of a ``hand_won`` event, in this order: its stored JSON without the hand,
the melds, the indicators and the scores (which the hand's row keeps once for all its wins)."""
_LEFT_OUT: dict[str, JSON] = {
    "hand": [],
    "melds": [],
    "dora_indicators": [],
    "ura_indicators": [],
    "scores": [],
}


def win_summary(win: ev.HandWon) -> dict[str, JSON]:
    """One win as the projection keeps it: who, from whom, the tile, yaku, value and score changes
    (the event's own stored JSON, :func:`~server.eventlog.codec.encode_event`, cut to
    :data:`WIN_SUMMARY_FIELDS`: the one mapping of a win)."""
    stored = encode_event(win)
    return {k: stored[k] for k in WIN_SUMMARY_FIELDS}


def win_from_summary(data: Any) -> ev.HandWon:
    """A win summary as a :class:`~server.engine.events.HandWon` whose hand, melds, indicators and
    scores are empty (the summary does not keep them); :class:`StoredEventError` if it is not one."""
    if not isinstance(data, dict):
        raise StoredEventError(f"not a win summary: {type(data).__name__}")
    won = decode_event({**_LEFT_OUT, **data, "type": EventKind.HAND_WON.value}, FORMAT_VERSION)
    assert isinstance(won, ev.HandWon)
    return won


def tiles_json(tiles: Iterable[Tile]) -> list[str]:
    """Tiles as the projection keeps them (a revealed wall): mpsz names."""
    names = TILE_NAMES
    return [names[t] for t in tiles]


def tiles_from_json(names: Iterable[str]) -> tuple[Tile, ...]:
    """The inverse of :func:`tiles_json`; :class:`~server.engine.errors.NotationError` for a name that
    is not a tile."""
    return tiles_from_wire(names)
