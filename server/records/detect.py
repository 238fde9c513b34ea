"""Recognise a record's format from its first bytes and read it with the right reader."""

from __future__ import annotations

from server.records.errors import RecordError
from server.records.model import GameRecord, RecordFormat


def detect_format(data: bytes | str) -> RecordFormat:
    """Which reader fits: gzip or ``<`` → mjlog, ``{"type"`` lines → mjai, else tenhou.net/6 JSON.

    (:func:`read_record` inflates gzip before asking, so a compressed JSON record is read too.)"""
    head = data[:4096]
    if isinstance(head, str):
        head = head.encode("utf-8", "replace")
    if head[:2] == b"\x1f\x8b":
        return RecordFormat.MJLOG
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped[:1] == b"<":
        return RecordFormat.MJLOG
    if stripped[:1] == b"{":
        first_line = stripped.split(b"\n", 1)[0]
        if b'"type"' in first_line and b'"log"' not in first_line:
            return RecordFormat.MJAI
        return RecordFormat.TENHOU6
    raise RecordError(f"not a game record: starts with {bytes(stripped[:16])!r}")


def read_record(data: bytes | str) -> GameRecord:
    """Read a record of any supported format (see :func:`detect_format`); gzip-compressed input of
    any format is inflated first."""
    from server.records.mjlog import inflate, read_mjlog

    if isinstance(data, bytes | bytearray):
        data = inflate(bytes(data), "gzip")
    fmt = detect_format(data)
    if fmt is RecordFormat.MJLOG:
        return read_mjlog(data)
    if fmt is RecordFormat.MJAI:
        from server.records.mjai import read_mjai

        return read_mjai(data)
    from server.records.tenhou6 import read_tenhou6

    return read_tenhou6(data)
