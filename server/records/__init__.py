"""Game records: read tenhou.net/6 JSON, Tenhou mjlog XML and mjai JSONL into one neutral model,
write our matches as tenhou.net/6 JSON and mjai JSONL, and replay records through the engine.

:func:`read_record` sniffs the format; :mod:`server.records.model` describes what every reader
returns. Bad input raises :class:`RecordError` (never anything else); a record that is well formed
but unfinished comes back with ``complete=False`` and the reasons in ``problems``.
:func:`export_match` writes an event log (:mod:`server.records.export`);
:mod:`server.records.replay` and :mod:`server.records.verify` are ``jantaku verify``. See
docs/records.md.
"""

from __future__ import annotations

from server.records.detect import detect_format, read_record
from server.records.errors import RecordError, TruncatedRecordError, UnsupportedRecordError
from server.records.export import ExportFormat, export_match
from server.records.from_events import record_from_events
from server.records.model import (
    CallStep,
    DiscardStep,
    DoraStep,
    DrawResult,
    DrawStep,
    GameRecord,
    HandRecord,
    RecordedYaku,
    RecordFormat,
    RiichiAcceptedStep,
    Step,
    WallSpec,
    Win,
)

__all__ = [
    "CallStep",
    "DiscardStep",
    "DoraStep",
    "DrawResult",
    "DrawStep",
    "ExportFormat",
    "GameRecord",
    "HandRecord",
    "RecordError",
    "RecordFormat",
    "RecordedYaku",
    "RiichiAcceptedStep",
    "Step",
    "TruncatedRecordError",
    "UnsupportedRecordError",
    "WallSpec",
    "Win",
    "detect_format",
    "export_match",
    "read_record",
    "record_from_events",
]
