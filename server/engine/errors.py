"""Exceptions raised by the rules engine.

Exception tree::

    ValueError
    └── RulesError              anything the engine refuses
        ├── NotationError       a tile / hand string that does not parse
        ├── RulesetError        an invalid ruleset value or JSON document
        ├── WallError           an injected wall that is not a valid 136-tile wall
        └── IllegalActionError  an action that is not legal in the current state
            └── NotYourTurnError  the seat has no decision to make right now
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error the engine raises on bad input."""


class NotationError(RulesError):
    """A tile or hand string is not valid mpsz notation."""


class RulesetError(RulesError):
    """A ruleset option has an invalid value, or a ruleset document is malformed."""


class WallError(RulesError):
    """An injected wall is not a permutation of the ruleset's 136 tiles."""


class IllegalActionError(RulesError):
    """The action is not among the seat's legal actions; the state is unchanged."""


class NotYourTurnError(IllegalActionError):
    """The seat has no pending decision in the current state."""
