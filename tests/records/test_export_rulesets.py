"""Exports name every rule option of their ruleset, also those the canonical document (and so the
hash) leaves out because they hold their earlier meaning (docs/rules.md, ``karaten``)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from server.engine.rules import PRESETS, Ruleset, preset
from server.records.export_mjai import write_mjai
from server.records.export_tenhou6 import write_tenhou6
from server.records.model import GameRecord, RecordFormat

OPTIONS = {f.name for f in dataclasses.fields(Ruleset) if not f.name.startswith("_")}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_presets_export_names_every_option(name: str) -> None:
    record = GameRecord(
        source=RecordFormat.EVENTS, preset=name, rules={}, rule_text="", names=("A", "B", "C", "D"), hands=()
    )
    tenhou6 = json.loads(write_tenhou6(record))["ruleset"]
    start_game = json.loads(write_mjai(record).splitlines()[0])["ruleset"]
    for document in (tenhou6, start_game):
        assert set(document) == OPTIONS
        assert Ruleset.from_dict(document) == preset(name)
    assert "karaten" in tenhou6
