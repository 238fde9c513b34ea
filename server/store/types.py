"""Portable column types: the same models run on SQLite and PostgreSQL.

* Timestamps are timezone-aware UTC ``datetime`` values everywhere (``TIMESTAMP WITH TIME ZONE`` on
  PostgreSQL; on SQLite, which has no such type, ISO text in UTC, so text order is time order).
  They are kept to the microsecond, which is what both databases store.
* JSON documents use :class:`sqlalchemy.JSON` (``json`` on PostgreSQL, text on SQLite).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware datetime, stored and returned in UTC; naive datetimes are refused."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: the store only takes timezone-aware values")
        value = value.astimezone(UTC)
        # SQLite's DATETIME keeps no offset: store UTC wall time, re-attached on the way out.
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def from_unix(seconds: float) -> datetime:
    """Unix seconds (the hub's clock) as an aware UTC datetime, rounded to the microsecond."""
    return datetime.fromtimestamp(seconds, UTC)


def from_unix_opt(seconds: float | None) -> datetime | None:
    return None if seconds is None else from_unix(seconds)


def to_unix(value: datetime) -> float:
    return value.timestamp()


def to_unix_opt(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def same_instant(a: float, b: float) -> bool:
    """Whether two unix times are equal at the microsecond precision the databases keep."""
    return from_unix(a) == from_unix(b)
