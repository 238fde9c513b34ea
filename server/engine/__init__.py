"""The pure, deterministic Riichi Mahjong rules engine.

No asyncio, clock, randomness or I/O lives here: the same ruleset, seed and actions always produce
the same events. The public API::

    new_match(ruleset, seed, walls_=None) -> Transition
    legal_actions(state, seat) -> frozenset[Action]
    apply(state, seat, action) -> Transition      # raises IllegalActionError, state untouched
    default_action(state, seat) -> Action         # what a timeout means
    redact(event, viewer) -> Event                # per-seat views (server.engine.views)
"""

from server.engine.match import (
    ENGINE_VERSION,
    HandStart,
    apply,
    default_action,
    legal_actions,
    new_match,
    pending_seats,
)
from server.engine.state import MatchState, Phase, Transition
from server.engine.views import redact, redact_all

__all__ = [
    "ENGINE_VERSION",
    "HandStart",
    "MatchState",
    "Phase",
    "Transition",
    "apply",
    "default_action",
    "legal_actions",
    "new_match",
    "pending_seats",
    "redact",
    "redact_all",
]
