"""The tournament modules' doctests run with the suite."""

from __future__ import annotations

import doctest

import pytest

import server.tournament.draws
import server.tournament.duplicate

MODULES = (server.tournament.draws, server.tournament.duplicate)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0 and result.attempted > 0
