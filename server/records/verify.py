"""Verify record files: find them, read them, replay every hand (:mod:`server.records.replay`).

A file is *unreadable* when no reader accepts it (the reason says why), *truncated* when it stops in
the middle of its syntax (cut JSON, XML or gzip: counted as incomplete); otherwise every hand is
verified, a mismatch or incomplete.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from server.engine.errors import RulesError
from server.records.detect import read_record
from server.records.errors import RecordError, TruncatedRecordError
from server.records.replay import HandReport, Outcome, record_ruleset, replay_record

RECORD_SUFFIXES = (".xml", ".mjlog", ".json", ".jsonl", ".mjson")
"""File names verify picks up in directories (each also with ``.gz``); ``.mjson`` is what the mjai
reference implementation names its logs."""


def is_record_name(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(RECORD_SUFFIXES)


def find_records(paths: Iterable[str | Path]) -> tuple[list[Path], list[str]]:
    """The record files under ``paths`` (files as given, directories searched recursively, sorted),
    and the paths that do not exist."""
    found: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and is_record_name(p)))
        elif path.is_file():
            found.append(path)
        else:
            missing.append(str(raw))
    return found, missing


class FileStatus(StrEnum):
    READ = "read"
    TRUNCATED = "truncated"
    UNREADABLE = "unreadable"


@dataclass(frozen=True, slots=True)
class FileReport:
    path: str
    status: FileStatus
    hands: tuple[HandReport, ...] = ()
    reason: str = ""  # why the file is truncated or unreadable, or why its game is incomplete

    @property
    def game_incomplete(self) -> bool:
        """Every hand reached its result, but the game stops before its end."""
        return self.status is FileStatus.READ and bool(self.reason)


@dataclass
class VerifyReport:
    files: list[FileReport] = field(default_factory=list)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for f in self.files for h in f.hands if h.outcome is outcome)

    @property
    def verified(self) -> int:
        return self.count(Outcome.VERIFIED)

    @property
    def mismatches(self) -> int:
        """Hands whose replay differs from the record."""
        return self.count(Outcome.MISMATCH)

    @property
    def incomplete(self) -> int:
        """Hands that stop before their result, files cut short, and games that stop between hands."""
        files = sum(1 for f in self.files if f.status is FileStatus.TRUNCATED or f.game_incomplete)
        return self.count(Outcome.INCOMPLETE) + files

    @property
    def unreadable(self) -> int:
        return sum(1 for f in self.files if f.status is FileStatus.UNREADABLE)

    def summary(self) -> str:
        text = f"{self.verified} hands verified, {self.mismatches} mismatches, {self.incomplete} incomplete"
        if self.unreadable:
            text += f", {self.unreadable} unreadable files"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": {
                "files": len(self.files),
                "verified": self.verified,
                "mismatches": self.mismatches,
                "incomplete": self.incomplete,
                "unreadable": self.unreadable,
            },
            "files": [
                {
                    "path": f.path,
                    "status": str(f.status),
                    "reason": f.reason,
                    "hands": [
                        {
                            "index": h.index,
                            "hand": h.label,
                            "outcome": str(h.outcome),
                            "reason": h.reason,
                            "mismatches": [{"step": m.step, "message": m.message} for m in h.mismatches],
                        }
                        for h in f.hands
                    ],
                }
                for f in self.files
            ],
        }


def verify_file(
    path: Path, *, preset_name: str | None = None, overrides: Mapping[str, Any] | None = None
) -> FileReport:
    """Read and replay one file; never raises for a bad file (the report says what is wrong)."""
    name = str(path)
    try:
        record = read_record(path.read_bytes())
    except TruncatedRecordError as exc:
        return FileReport(name, FileStatus.TRUNCATED, reason=str(exc))
    except RecordError as exc:
        return FileReport(name, FileStatus.UNREADABLE, reason=str(exc))
    except OSError as exc:
        return FileReport(name, FileStatus.UNREADABLE, reason=f"cannot read: {exc.strerror or exc}")
    try:
        ruleset = record_ruleset(record, preset_name=preset_name, overrides=overrides)
    except RulesError as exc:
        return FileReport(name, FileStatus.UNREADABLE, reason=f"rules: {exc}")
    hands = tuple(replay_record(record, ruleset, file=name))
    reason = ""
    if not record.complete and all(h.outcome is not Outcome.INCOMPLETE for h in hands):
        reason = "; ".join(record.problems) or "the record stops before the end of the game"
    return FileReport(name, FileStatus.READ, hands, reason)


def verify_paths(
    files: Iterable[Path],
    *,
    preset_name: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    on_file: Callable[[FileReport], None] | None = None,
) -> VerifyReport:
    report = VerifyReport()
    for path in files:
        result = verify_file(path, preset_name=preset_name, overrides=overrides)
        report.files.append(result)
        if on_file is not None:
            on_file(result)
    return report


def file_lines(result: FileReport) -> list[str]:
    """The lines ``jantaku verify`` prints for one file: its problems, one per line."""
    if result.status is FileStatus.UNREADABLE:
        return [f"{result.path}: unreadable: {result.reason}"]
    if result.status is FileStatus.TRUNCATED:
        return [f"{result.path}: incomplete: {result.reason}"]
    out: list[str] = []
    if result.game_incomplete:
        out.append(f"{result.path}: incomplete game: {result.reason}")
    for hand in result.hands:
        out.extend(str(m) for m in hand.mismatches)
        if hand.outcome is Outcome.INCOMPLETE:
            out.append(f"{result.path}: {hand.label}: incomplete: {hand.reason}")
    return out
