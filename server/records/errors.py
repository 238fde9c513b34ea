"""Exceptions raised by the game-record readers.

Exception tree::

    ValueError
    └── RecordError                 input that is not a readable game record
        ├── TruncatedRecordError    the input stops in the middle of its syntax (cut JSON, XML or gzip)
        └── UnsupportedRecordError  a valid record of a kind we do not handle (e.g. three-player)

A record that is syntactically whole but stops before the game (or a hand) ends is *not* an error:
the readers return it with ``complete=False`` and the reason in ``problems``.
"""

from __future__ import annotations


class RecordError(ValueError):
    """The input is not a readable game record; the message says where and why."""


class TruncatedRecordError(RecordError):
    """The input ends in the middle of a token, tag, line or compressed stream."""


class UnsupportedRecordError(RecordError):
    """The record is well formed but describes something Jantaku does not play (e.g. sanma)."""
