"""The event service's errors, its checks of an event's settings, the settings read from a JSON
document (``jantaku event create``) and the standings as CSV (``docs/tournaments.md``)."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any

from server.domain.records import MatchRecord
from server.domain.tournaments import (
    DuplicateMode,
    EntryMode,
    EventRecord,
    EventSettings,
    EventStore,
    RoundStatus,
    SpectatorMode,
)
from server.engine.errors import RulesError
from server.engine.rules import PRESETS, Ruleset
from server.ranking import CURRENT, Length, ranked_source
from server.services.tables import SettingsError, SpectatePolicy
from server.social.chat import TEXT_MODES
from server.tournament.seating import SeatingError, SeatingMethod, SeatingRules
from server.tournament.standings import Formula, Standing


class EventError(Exception):
    """A refused event action: ``code`` is ``not_found``, ``forbidden``, ``malformed``,
    ``conflict``, ``unsupported`` or ``busy``; nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_settings(s: EventSettings) -> Ruleset:
    """The ruleset of ``s``, or EventError (``malformed``) naming what is wrong with the settings."""
    if not s.name.strip() or len(s.name) > 100:
        raise EventError("malformed", "an event needs a name of 1 to 100 characters")
    try:
        ruleset = Ruleset.from_json(s.ruleset_json)
    except (RulesError, ValueError) as exc:
        raise EventError("malformed", f"ruleset: {exc}") from None
    if not 1 <= s.rounds <= 100:
        raise EventError("malformed", f"rounds must be 1..100, got {s.rounds}")
    if s.chat is not None and s.chat not in TEXT_MODES:
        raise EventError("malformed", f"chat must be one of {', '.join(TEXT_MODES)}, got {s.chat!r}")
    try:
        SeatingMethod(s.seating)
        Formula(s.formula)
        SeatingRules(seats=seats_of(ruleset), max_meetings=s.max_meetings, max_wind_spread=s.max_wind_spread)
    except (ValueError, SeatingError) as exc:
        raise EventError("malformed", str(exc)) from None
    if Formula(s.formula) is Formula.BEST_CONSECUTIVE and not (s.best_n and s.best_n >= 1):
        raise EventError("malformed", "the best_consecutive formula needs best_n >= 1")
    if Formula(s.formula) is Formula.TEAMS and not s.teams:
        raise EventError("malformed", "the teams formula needs the entrants' teams")
    if s.duplicate is DuplicateMode.SETS and not (s.set_size and s.set_size >= 1):
        raise EventError("malformed", "duplicate sets need set_size >= 1")
    if s.duplicate is DuplicateMode.ROTATIONS and s.rounds % seats_of(ruleset):
        n = seats_of(ruleset)
        raise EventError(
            "malformed",
            f"duplicate rotations play the rounds in cycles of {n} (one per seat): rounds {s.rounds}",
        )
    if s.cap is not None and s.cap < 1:
        raise EventError("malformed", f"cap must be at least 1, got {s.cap}")
    if s.signup_opens is not None and s.signup_closes is not None and s.signup_opens >= s.signup_closes:
        raise EventError("malformed", "the sign-up window closes before it opens")
    if s.min_dan is not None and not 1 <= s.min_dan <= 10:
        raise EventError("malformed", f"min_dan must be 1..10, got {s.min_dan}")
    if s.min_rating is not None and not 0 <= s.min_rating <= 10000:
        raise EventError("malformed", f"min_rating must be 0..10000, got {s.min_rating}")
    if s.ranked and seats_of(ruleset) != 4:
        raise EventError("malformed", "ranked event games are four-player games (the ranked tables are)")
    try:  # the tables' spectator policy: a caster view needs a delay, observers are names
        SpectatePolicy(
            delay_s=s.spectate_delay_s,
            delay_hands=s.spectate_delay_hands,
            caster=s.caster,
            observers=s.observers,
        )
    except SettingsError as exc:
        raise EventError("malformed", f"spectators: {exc}") from None
    return ruleset


# -- ranked play (docs/tournaments.md, "Entry" and "Rated event games") -----------------------------------

RATED_ROOM = "open"
"""The ranked room whose point table rates an event's games when its ``ranked`` option is on."""


def rank_length(s: EventSettings) -> str:
    """The ranked length an event's games count for (and its rank limits read): its game length."""
    return Length(Ruleset.from_json(s.ruleset_json).game_length.value).value


def event_source(event: EventRecord, number: int, table: int) -> str:
    """The ``source`` stored with a table of an event: ``event:<id>:r<n>:t<i>``, followed by
    ``:ranked:open:<length>`` when its games count for ranked stats (what makes the store rate it)."""
    base = f"event:{event.id}:r{number}:t{table}"
    if event.settings.ranked:
        return f"{base}:{ranked_source(RATED_ROOM, Length(rank_length(event.settings)))}"
    return base


def dan_rank(dan: int) -> int:
    """The ranking tables' index of ``dan`` dan."""
    return CURRENT.rank_index(f"{dan}d")


def rank_label(rank: int) -> str:
    return CURRENT.ranks[rank].label if 0 <= rank < len(CURRENT.ranks) else str(rank)


def rank_limit_text(s: EventSettings) -> str:
    parts = []
    if s.min_dan is not None:
        parts.append(f"{rank_label(dan_rank(s.min_dan))} or higher")
    if s.min_rating is not None:
        parts.append(f"R {s.min_rating:.0f} or higher")
    return " and ".join(parts)


def seats_of(ruleset: Ruleset) -> int:
    """Seats per table (3 or 4): the ruleset's, never assumed to be four."""
    return ruleset.seats


# What the JSON document of an event's settings may hold (the API's body: docs/tournaments.md).
_NOT_SETTABLE = {"ruleset_json"}
_ENUMS: dict[str, type[StrEnum]] = {
    "entry": EntryMode,
    "spectators": SpectatorMode,
    "duplicate": DuplicateMode,
}


_KINDS: dict[str, tuple[type, ...]] = {
    "min_dan": (int,),
    "min_rating": (int, float),
    "ranked": (bool,),
    "guests": (bool,),
    "checkin": (bool,),
    "cap": (int,),
}


def settings_from_dict(data: Mapping[str, Any]) -> EventSettings:
    """An event's settings from its JSON document: the fields of :class:`EventSettings` but
    ``ruleset`` (a preset's name, default ``tenhou``) or ``ruleset_json`` (a custom ruleset, as an
    object); EventError (``malformed``) for an unknown field or a value of the wrong kind."""
    fields = {f.name: f for f in dataclasses.fields(EventSettings)}
    allowed = (set(fields) - _NOT_SETTABLE) | {"ruleset", "ruleset_json", "reason"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise EventError("malformed", f"unknown settings: {', '.join(unknown)}")
    if data.get("ruleset_json") is not None:
        ruleset_json = json.dumps(data["ruleset_json"])
    else:
        preset = data.get("ruleset", "tenhou")
        if preset not in PRESETS:
            raise EventError("malformed", f"no ruleset preset {preset!r}; presets: {sorted(PRESETS)}")
        ruleset_json = PRESETS[preset].to_json()
    values: dict[str, Any] = {"ruleset_json": ruleset_json}
    for name, given in data.items():
        if name not in fields or name in _NOT_SETTABLE:
            continue
        value: Any = given
        try:
            if name in _ENUMS:
                value = _ENUMS[name](given)
            elif name in ("invited", "observers"):
                value = tuple(str(v) for v in given)
            elif name == "teams":
                value = {str(k): str(v) for k, v in dict(given).items()}
        except (TypeError, ValueError) as exc:
            raise EventError("malformed", f"{name}: {exc}") from None
        values[name] = value
    for name in ("name", "rounds"):
        if name not in values:
            raise EventError("malformed", f"the settings need {name!r}")
    if not isinstance(values["name"], str) or not isinstance(values["rounds"], int):
        raise EventError("malformed", "name is a string and rounds an integer")
    for name, kinds in _KINDS.items():
        value = values.get(name)
        if value is not None and (
            isinstance(value, bool) is not (kinds == (bool,)) or not isinstance(value, kinds)
        ):
            raise EventError("malformed", f"{name} must be {' or '.join(k.__name__ for k in kinds)}")
    settings = EventSettings(**values)
    check_settings(settings)
    return settings


def sealed_games(store: EventStore) -> Callable[[MatchRecord], Awaitable[bool]]:
    """Whether a finished game must stay sealed (the review serves its header only): it is a table
    of an event's round with duplicate walls (its source ``event:<id>:r<n>:t<i>``, set by the
    event service) and its walls' seed is not revealed yet (its round has not finished, or, with
    duplicate rotations, its cycle has not), so another table may still play its walls."""

    async def sealed(match: MatchRecord) -> bool:
        parts = match.source.split(":")
        if len(parts) < 4 or parts[0] != "event" or not parts[2].startswith("r"):
            return False
        event = await store.event(parts[1])
        if event is None or event.settings.duplicate is DuplicateMode.OFF:
            return False
        number = parts[2][1:]
        rounds = {str(r.number): r for r in await store.rounds(event.id)}
        rnd = rounds.get(number)
        if rnd is None:
            return False
        return rnd.status is not RoundStatus.FINISHED or any(p.seed_hex is None for p in rnd.sets)

    return sealed


def standings_csv(rows: Sequence[Standing], formula: str) -> str:
    """The standings as CSV: ``rank,name,total,games,places,adjustments`` (places as ``1st/2nd/...``
    counts, the total in the formula's unit as shown)."""
    f = Formula(formula)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rank", "name", "total", "games", "places", "adjustments"])
    for r in rows:
        writer.writerow([r.rank, r.name, r.shown(f), r.games, "/".join(map(str, r.places)), r.adjustments])
    return out.getvalue()
