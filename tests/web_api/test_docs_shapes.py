"""docs/admin.md states the shape of the game lists (``/api/admin/games``, ``/api/me/games``):
the fields it names are the response model's (which the API tests check the answers against)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from server.web.api import models as m

DOC = (Path(__file__).resolve().parents[2] / "docs" / "admin.md").read_text(encoding="utf-8")


def _documented() -> dict[str, set[str]]:
    block = DOC.split("Both game lists", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    shapes: dict[str, set[str]] = {}
    for name, body in re.findall(r"^(\w+)\s*=\s*\{(.*?)\}\s*$", block, flags=re.M | re.S):
        shapes[name] = set(re.findall(r'"(\w+)"', body))
    shapes["LIST"] = set(re.findall(r'"(\w+)"', block.splitlines()[0]))
    return shapes


def _fields(model: type[BaseModel]) -> set[str]:
    return set(model.model_fields)


def test_the_documented_game_list_is_the_api_model() -> None:
    shapes = _documented()
    assert shapes["LIST"] == _fields(m.GameList)
    assert shapes["GAME"] == _fields(m.GameSummary)
    assert shapes["SEAT"] == _fields(m.Seat)
    assert shapes["STANDING"] == _fields(m.Standing)
    statuses = (
        "`" + "`, `".join(s.value for s in list(m.GameStatus)[:-1]) + f"` or `{list(m.GameStatus)[-1].value}`"
    )
    assert f"`status` is {statuses}" in DOC
