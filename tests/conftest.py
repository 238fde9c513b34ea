"""Shared fixtures for the whole suite."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

# Property tests assert what is generated, not how fast: on a loaded CI machine Hypothesis's
# generation-speed health check and per-example deadline fail tests that are correct. Both are
# timing, which tests must not assert (the guide: performance lives in bench/).
settings.register_profile("jantaku", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("jantaku")


@pytest.fixture(autouse=True)
def root_logging() -> Iterator[None]:
    """Give every test the logging set-up it found: ``jantaku serve`` run in-process
    (``server.app.cli.main``) configures the root logger onto the test's captured stderr, which is
    closed once the test ends."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    ws_level = logging.getLogger("websockets").level
    yield
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)
    logging.getLogger("websockets").setLevel(ws_level)
