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
from server.engine.rules import Ruleset
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


class RulesFrom(StrEnum):
    """Where the rules a file was replayed under come from."""

    RECORD = "record"  # the record names them (an embedded ruleset, or Tenhou's own formats)
    ASSUMED = "assumed"  # the record names none: the Tenhou preset (choose with --ruleset)
    OPTION = "option"  # --ruleset (and --rule) chose them


@dataclass(frozen=True, slots=True)
class FileReport:
    path: str
    status: FileStatus
    hands: tuple[HandReport, ...] = ()
    reason: str = ""  # why the file is truncated or unreadable, or why its game is incomplete
    ruleset: Ruleset | None = None  # the rules it was replayed under (None: never replayed)
    rules_from: RulesFrom | None = None

    @property
    def rules(self) -> str:
        """``"tenhou (the record's)"``: the ruleset's name and where it came from."""
        if self.ruleset is None or self.rules_from is None:
            return ""
        return f"{self.ruleset.name} ({_RULES_FROM[self.rules_from]})"

    @property
    def game_incomplete(self) -> bool:
        """Every hand reached its result, but the game stops before its end."""
        return self.status is FileStatus.READ and bool(self.reason)


_RULES_FROM = {
    RulesFrom.RECORD: "the record's",
    RulesFrom.ASSUMED: "assumed: the record names none",
    RulesFrom.OPTION: "--ruleset/--rule",
}


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

    def rules_summary(self) -> str:
        """``"rules: tenhou (the record's) 12 files, ..."``: the rules the files were replayed under."""
        counts: dict[str, int] = {}
        for f in self.files:
            if f.rules:
                counts[f.rules] = counts.get(f.rules, 0) + 1
        parts = [f"{rules} {n} file{'s' if n != 1 else ''}" for rules, n in sorted(counts.items())]
        return "rules: " + (", ".join(parts) if parts else "none (no file was replayed)")

    def _rules_json(self) -> list[dict[str, Any]]:
        counts: dict[tuple[str, str], int] = {}
        for f in self.files:
            if f.ruleset is not None and f.rules_from is not None:
                key = (f.ruleset.name, str(f.rules_from))
                counts[key] = counts.get(key, 0) + 1
        return [{"ruleset": r, "rules_from": w, "files": n} for (r, w), n in sorted(counts.items())]

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": {
                "files": len(self.files),
                "verified": self.verified,
                "mismatches": self.mismatches,
                "incomplete": self.incomplete,
                "unreadable": self.unreadable,
                "rules": self._rules_json(),
            },
            "files": [
                {
                    "path": f.path,
                    "status": str(f.status),
                    "reason": f.reason,
                    "ruleset": None if f.ruleset is None else f.ruleset.name,
                    "ruleset_hash": None if f.ruleset is None else f.ruleset.hash,
                    "rules_from": None if f.rules_from is None else str(f.rules_from),
                    "hands": [
                        {
                            "index": h.index,
                            "hand": h.label,
                            "outcome": str(h.outcome),
                            "reason": h.reason,
                            "mismatches": [
                                {"step": m.step, "where": m.where, "message": m.message} for m in h.mismatches
                            ],
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
    if preset_name is not None or overrides:
        rules_from = RulesFrom.OPTION
    else:
        rules_from = RulesFrom.RECORD if record.rules_stated else RulesFrom.ASSUMED
    return FileReport(name, FileStatus.READ, hands, reason, ruleset, rules_from)


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


def file_lines(result: FileReport, *, verbose: bool = False) -> list[str]:
    """The lines ``jantaku verify`` prints for one file: its failures (an unreadable file, each
    mismatch, after the rules it was replayed under), one per line; ``verbose`` adds the rules of
    every file and what is incomplete (a record that stops early is reported, not failed)."""
    if result.status is FileStatus.UNREADABLE:
        return [f"{result.path}: unreadable: {result.reason}"]
    if result.status is FileStatus.TRUNCATED:
        return [f"{result.path}: incomplete: {result.reason}"] if verbose else []
    out: list[str] = []
    mismatched = any(hand.mismatches for hand in result.hands)
    if verbose or mismatched:
        out.append(f"{result.path}: rules {result.rules}")
    if verbose and result.game_incomplete:
        out.append(f"{result.path}: incomplete game: {result.reason}")
    for hand in result.hands:
        out.extend(str(m) for m in hand.mismatches)
        if verbose and hand.outcome is Outcome.INCOMPLETE:
            out.append(f"{result.path}: {hand.label}: incomplete: {hand.reason}")
    return out
