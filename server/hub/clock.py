"""The hub's clock: :mod:`server.domain.clock` (the store's writer measures its deadlines on the
same injectable clock, so it lives in the neutral layer). Re-exported here for the hub's modules."""

from __future__ import annotations

from server.domain.clock import Cancellable, Clock, ManualClock, SystemClock, sleep_until, with_deadline

__all__ = ["Cancellable", "Clock", "ManualClock", "SystemClock", "sleep_until", "with_deadline"]
