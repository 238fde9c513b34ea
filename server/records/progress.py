"""A one-line progress bar on a terminal's stderr (nothing at all when stderr is not a terminal)."""

from __future__ import annotations

import sys
from typing import TextIO

MIN_ITEMS = 8  # fewer items finish too fast for a bar to help


class Progress:
    """``with Progress(total, "files") as bar: ... bar.advance()``"""

    def __init__(self, total: int, unit: str, *, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total, self.unit, self.width, self.done = total, unit, width, 0
        self.enabled = total >= MIN_ITEMS and self.stream.isatty()

    def __enter__(self) -> Progress:
        self._draw()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * (self.width + 40) + "\r")
            self.stream.flush()

    def advance(self, label: str = "") -> None:
        self.done += 1
        self._draw(label)

    def _draw(self, label: str = "") -> None:
        if not self.enabled:
            return
        filled = self.width * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {self.unit} {label[:30]:<30}")
        self.stream.flush()
