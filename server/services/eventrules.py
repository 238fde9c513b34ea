"""The event service's errors and its checks of an event's settings (``docs/tournaments.md``)."""

from __future__ import annotations

from server.domain.tournaments import DuplicateMode, EventSettings
from server.engine.errors import RulesError
from server.engine.rules import Ruleset
from server.tournament.seating import SeatingError, SeatingMethod, SeatingRules
from server.tournament.standings import Formula


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
    if s.cap is not None and s.cap < 1:
        raise EventError("malformed", f"cap must be at least 1, got {s.cap}")
    return ruleset


def seats_of(ruleset: Ruleset) -> int:
    """Seats per table (3 or 4): never assumed to be four."""
    return int(getattr(ruleset, "seats", 4))
