"""The hub's tests run on the event loop ``JANTAKU_TEST_LOOP`` names (``asyncio``, the default, or
``uvloop``): ``make test`` runs them once on each (issue 17: the hub serves on either)."""

from __future__ import annotations

import os
from collections.abc import Mapping

import pytest

from server.app.loops import LoopFactory, choose_loop

TEST_LOOP_ENV = "JANTAKU_TEST_LOOP"


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> Mapping[str, LoopFactory]:
    name, factory = choose_loop(os.environ.get(TEST_LOOP_ENV, "asyncio"))
    return {name: factory}
