"""One entry point for writing a match's event log in a record format."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from server.engine.events import Event
from server.engine.views import Viewer
from server.records.export_mjai import export_mjai
from server.records.export_tenhou6 import export_tenhou6


class ExportFormat(StrEnum):
    TENHOU6 = "tenhou6"  # tenhou.net/6 JSON, one document
    MJAI = "mjai"  # mjai JSON lines, Mortal's schema


FILE_SUFFIX: dict[ExportFormat, str] = {ExportFormat.TENHOU6: ".json", ExportFormat.MJAI: ".jsonl"}


def export_match(
    events: Sequence[Event],
    format: ExportFormat | str,
    *,
    names: Sequence[str] | None = None,
    viewer: Viewer = None,
) -> str:
    """The match's omniscient ``events`` (e.g. from ``server.bots.selfplay.play_events`` or the
    store) as ``format`` text. ``viewer`` (mjai only) gives what that seat saw, hidden tiles ``"?"``.

    Raises ``ValueError`` for an unknown format, a viewer with tenhou6, or a redacted event log
    (:class:`~server.records.errors.RecordError`).
    """
    try:
        fmt = ExportFormat(format)
    except ValueError:
        choices = ", ".join(str(f) for f in ExportFormat)
        raise ValueError(f"unknown export format {format!r}; choose one of {choices}") from None
    if fmt is ExportFormat.MJAI:
        return export_mjai(events, names=names, viewer=viewer)
    if viewer is not None:
        raise ValueError("tenhou.net/6 JSON is omniscient: it has no per-seat view")
    return export_tenhou6(events, names=names)
