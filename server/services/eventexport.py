"""The archive of an event (``docs/tournaments.md``, "Exports"): one zip file with every exportable
game of the event in tenhou.net/6 JSON and mjai JSON lines (the review's exporters,
:mod:`server.records`), the standings as CSV and JSON, and a manifest.

The archive holds (``<game>`` is ``r<round>-t<table>-<match id>``):

* ``event.json``: the event (name, settings, organizers, entrants with their start points, rounds
  with their tables, entrants of record, stand-ins, locked seats, start scores, the wall sets'
  commitments and revealed seeds) and ``games``: for each game its file names, or why it is not in
  the archive (not finished, or its round's walls not yet revealed);
* ``standings.csv`` and ``standings.json``;
* ``games/<game>.tenhou6.json`` and ``games/<game>.mjai.jsonl``;
* ``games/<game>.moves.json`` for a game a substitute played in: every move, marked with who played
  it (``substitute`` true for the substitute's).

Only finished games whose walls may be shown are written (a duplicate round's games once it has
finished); the archive is the same for the same stored event (its entries carry a fixed date).
"""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from typing import Any

from server.services.eventbase import Actor
from server.services.eventrules import EventError, standings_csv
from server.services.tournaments import EventService
from server.tournament.standings import Formula, Standing

FORMATS = (("tenhou6", "tenhou6.json"), ("mjai", "mjai.jsonl"))
_DATE = (2000, 1, 1, 0, 0, 0)


def standings_json(rows: list[Standing], formula: str) -> list[dict[str, Any]]:
    f = Formula(formula)
    return [
        {
            "rank": r.rank,
            "name": r.name,
            "total": r.total,
            "shown": r.shown(f),
            "games": r.games,
            "places": list(r.places),
            "adjustments": r.adjustments,
            "members": list(r.members),
        }
        for r in rows
    ]


async def event_archive(service: EventService, actor: Actor, event_id: str) -> bytes:
    """The event's archive as zip bytes (organizers; see the module docstring)."""
    await service.log(actor, event_id)  # organizers only: EventError forbidden otherwise
    view = await service.view(event_id)
    event = view.event
    formula = event.settings.formula
    rows = await service.standings(event_id)
    files: dict[str, bytes] = {}
    games: list[dict[str, Any]] = []
    for rnd in view.rounds:
        for t in rnd.tables:
            if t.match_id is None:
                continue
            base = f"r{rnd.number}-t{t.index}-{t.match_id}"
            entry: dict[str, Any] = {"round": rnd.number, "table": t.index, "match": t.match_id}
            try:
                for fmt, suffix in FORMATS:
                    text = await service.game_text(t.match_id, fmt)
                    files[f"games/{base}.{suffix}"] = text.encode()
                    entry.setdefault("files", []).append(f"games/{base}.{suffix}")
            except EventError as exc:
                entry = entry | {"files": [], "not_included": exc.message}
                for _, suffix in FORMATS:
                    files.pop(f"games/{base}.{suffix}", None)
            if t.stand_ins and entry["files"]:
                moves = [dataclasses.asdict(m) for m in await service.marked_moves(event, t.match_id)]
                files[f"games/{base}.moves.json"] = json.dumps(moves, indent=1).encode()
                entry["files"].append(f"games/{base}.moves.json")
            games.append(entry)
    manifest = {
        "id": event.id,
        "name": event.settings.name,
        "status": event.status.value,
        "organizers": list(event.organizers),
        "settings": {k: v for k, v in dataclasses.asdict(event.settings).items() if k != "teams"}
        | {"teams": dict(event.settings.teams)},
        "entrants": [
            {
                "id": e.entrant_id,
                "name": e.name,
                "kind": e.kind,
                "status": e.status.value,
                "start_points": e.start_points,
            }
            for e in view.entrants
        ],
        "rounds": [
            {
                "number": r.number,
                "status": r.status.value,
                "tables": [dataclasses.asdict(t) for t in r.tables],
                "sets": [dataclasses.asdict(p) for p in r.sets],
            }
            for r in view.rounds
        ],
        "games": games,
    }
    files["event.json"] = json.dumps(manifest, indent=1, default=str).encode()
    files["standings.csv"] = standings_csv(rows, formula).encode()
    files["standings.json"] = json.dumps(standings_json(rows, formula), indent=1).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(files):
            z.writestr(zipfile.ZipInfo(name, _DATE), files[name], zipfile.ZIP_DEFLATED)
    return out.getvalue()
