"""The event loop ``jantaku serve`` runs on (server/app/loops.py, ``--loop`` / ``JANTAKU_LOOP``)."""

from __future__ import annotations

import asyncio
import os

import pytest

from server.app import loops
from server.app.loops import LoopUnavailableError, choose_loop
from tests.hub.conftest import TEST_LOOP_ENV


def test_asyncio_is_asyncios_own_loop() -> None:
    name, factory = choose_loop("asyncio")
    loop = factory()
    try:
        assert name == "asyncio"
        assert type(loop).__module__.startswith("asyncio")
    finally:
        loop.close()


def test_auto_and_uvloop_run_uvloop_where_it_is_installed() -> None:
    pytest.importorskip("uvloop")
    for kind in ("auto", "uvloop"):
        name, factory = choose_loop(kind)
        loop = factory()
        try:
            assert name == "uvloop"
            assert type(loop).__module__.startswith("uvloop")
        finally:
            loop.close()


def test_without_uvloop_auto_falls_back_and_uvloop_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loops, "uvloop_factory", lambda: None)
    assert choose_loop("auto")[0] == "asyncio"
    with pytest.raises(LoopUnavailableError):
        choose_loop("uvloop")
    with pytest.raises(ValueError, match="unknown event loop"):
        choose_loop("trio")


@pytest.mark.asyncio
async def test_the_hub_tests_run_on_the_loop_they_were_asked_for() -> None:
    wanted = os.environ.get(TEST_LOOP_ENV, "asyncio")
    module = type(asyncio.get_running_loop()).__module__
    assert module.startswith("uvloop" if wanted == "uvloop" else "asyncio"), module
