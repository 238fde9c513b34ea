"""``jantaku verify``: replay records through the engine (``jantaku simulate``, which needs the
built-in bots, is :mod:`server.app.simulate`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from server.engine.errors import RulesError
from server.engine.rules import ALL_PRESETS, preset
from server.records.progress import Progress
from server.records.verify import FileReport, file_lines, find_records, verify_paths

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_USAGE = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``jantaku verify``."""
    v = sub.add_parser(
        "verify",
        help="replay game records through the engine and report every difference",
        description=(
            "Replay every hand of tenhou.net/6 JSON, Tenhou mjlog XML and mjai JSONL (.jsonl, .mjson) "
            "records (plain or gzip; directories are searched recursively) through the engine. Exit "
            "status 0 only when no hand mismatches (and every file could be read)."
        ),
    )
    v.add_argument("paths", nargs="+", metavar="PATH", help="record files or directories")
    v.add_argument(
        "--ruleset", choices=sorted(ALL_PRESETS), help="preset to start from (default: the record's)"
    )
    v.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a rule option (VALUE is JSON, else a string), e.g. --rule red_fives=[0,0,0]",
    )
    v.add_argument("--json", action="store_true", help="print a machine-readable report instead")
    v.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also print the rules each file was replayed under and every incomplete record or hand",
    )
    v.set_defaults(handler=run_verify)


def parse_rules(items: list[str]) -> dict[str, Any]:
    """``["red_fives=[0,0,0]", "name=house"]`` → options; raises ``ValueError`` for a bad item."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--rule needs KEY=VALUE, got {item!r}")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[key.strip()] = value
    return out


def run_verify(args: argparse.Namespace) -> int:
    try:
        overrides = parse_rules(args.rule)
        preset(args.ruleset or "tenhou").with_options(**overrides)
    except (ValueError, RulesError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    files, missing = find_records(args.paths)
    for path in missing:
        print(f"error: no such file or directory: {path}", file=sys.stderr)
    if missing:
        return EXIT_USAGE
    if not files:
        print("error: no record files (*.xml, *.mjlog, *.json, *.jsonl, also .gz) found", file=sys.stderr)
        return EXIT_USAGE
    with Progress(len(files), "files") as bar:

        def show(result: FileReport) -> None:
            if not args.json:
                lines = file_lines(result, verbose=args.verbose)
                if lines and bar.enabled:
                    sys.stderr.write("\r\x1b[K")
                for line in lines:
                    print(line, flush=True)
            bar.advance(Path(result.path).name)

        report = verify_paths(files, preset_name=args.ruleset, overrides=overrides, on_file=show)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(report.rules_summary())
        if report.incomplete and not args.verbose:
            print(
                f"{report.incomplete} incomplete: records or hands that stop before their end are "
                "reported, not failed (--verbose lists them)"
            )
        print(report.summary())
    return EXIT_MISMATCH if report.mismatches or report.unreadable else EXIT_OK
