"""Small pieces the readers share: checked hand assembly, rule hints, strict field access."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from server.engine.errors import RulesetError
from server.engine.melds import MeldType
from server.engine.rules import ALL_PRESETS, Ruleset
from server.engine.tiles import Tile
from server.engine.tiles import sorted_tiles as _sorted
from server.records.check import HandTracker, check_hand
from server.records.errors import RecordError
from server.records.model import CallStep, HandRecord, Step


def checked(hand: HandRecord, red_fives: Sequence[int]) -> HandRecord:
    """The hand with the problems :func:`check_hand` finds added to its own."""
    found = check_hand(hand, red_fives)
    if not found:
        return hand
    return dataclasses.replace(hand, problems=(*hand.problems, *found))


def replay_tracker(dealt: Sequence[Sequence[Tile]], dealer: int, steps: Sequence[Step]) -> HandTracker:
    """The tracker after ``steps`` (steps that do not fit are skipped; :func:`checked` reports them)."""
    tracker = HandTracker(dealt, dealer)
    for step in steps:
        tracker.apply(step)
    return tracker


def rule_hints(
    *, red_fives: tuple[int, int, int] | None, east_south: bool | None, open_tanyao: bool | None
) -> dict[str, Any]:
    """Ruleset option overrides for what a record states (``None`` = the record does not say)."""
    out: dict[str, Any] = {}
    if red_fives is not None:
        out["red_fives"] = red_fives
    if east_south is not None:
        out["game_length"] = "east_south" if east_south else "east"
    if open_tanyao is not None:
        out["open_tanyao"] = open_tanyao
    return out


def embedded_ruleset(value: Any, where: str) -> dict[str, Any]:
    """A whole ruleset written into a record by Jantaku's exports (``"ruleset": {...}``), checked."""
    if not isinstance(value, dict):
        raise RecordError(f"{where}: 'ruleset' must be an object, got {value!r:.60}")
    try:
        return Ruleset.from_dict(value).to_dict()
    except RulesetError as exc:
        raise RecordError(f"{where}: {exc}") from None


def ruleset_preset(rules: dict[str, Any]) -> str:
    """The preset to start from for an embedded ruleset (its own name when that is a preset)."""
    name = rules.get("name")
    if isinstance(name, str) and name in ALL_PRESETS:
        return name
    return "tenhou-sanma" if rules.get("seats") == 3 else "tenhou"


def call_step(
    seat: int,
    type_: MeldType,
    called: Tile | None,
    from_seat: int,
    consumed: Sequence[Tile],
    *,
    pon_tiles: Sequence[Tile] = (),
) -> CallStep:
    """A :class:`CallStep` with ``tiles`` filled in; a kakan needs the tiles of its pon."""
    if type_ is MeldType.KAKAN:
        tiles: tuple[Tile, ...] = (*pon_tiles, *consumed)
    elif called is not None and type_ is not MeldType.ANKAN:
        tiles = (*consumed, called)
    else:
        tiles = tuple(consumed)
    return CallStep(seat, type_, _sorted(tiles), called, from_seat, _sorted(consumed))


def get_int(
    data: dict[str, Any], key: str, where: str, *, low: int | None = None, high: int | None = None
) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{where}: '{key}' must be an integer, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise RecordError(f"{where}: '{key}' = {value} is out of range")
    return value


def int_list(value: Any, where: str, *, length: int | None = None) -> list[int]:
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise RecordError(f"{where}: expected a list of integers, got {value!r:.80}")
    if length is not None and len(value) != length:
        raise RecordError(f"{where}: expected {length} integers, got {len(value)}")
    return value
