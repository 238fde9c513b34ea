"""Called and declared sets (melds)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server.engine.tiles import Tile, format_tiles, kind


class MeldType(StrEnum):
    CHI = "chi"
    PON = "pon"
    DAIMINKAN = "daiminkan"  # open kan on a discard
    ANKAN = "ankan"  # closed kan from four concealed tiles
    KAKAN = "kakan"  # added kan: a fourth tile added to an earlier pon


@dataclass(frozen=True, slots=True)
class Meld:
    """One meld as it lies on the table.

    ``tiles`` holds every tile of the meld (3 or 4) in sorted order. ``called`` is the tile taken from
    ``from_seat``'s discard (``None`` for an ankan, whose ``from_seat`` is the owner). For a kakan,
    ``called`` and ``from_seat`` are those of the original pon and ``added`` is the fourth tile.
    """

    type: MeldType
    tiles: tuple[Tile, ...]
    called: Tile | None
    from_seat: int
    added: Tile | None = None

    @property
    def kind(self) -> int:
        """The kind of the lowest tile (the triplet's kind for pon/kan)."""
        return kind(self.tiles[0])

    @property
    def is_kan(self) -> bool:
        return self.type in (MeldType.DAIMINKAN, MeldType.ANKAN, MeldType.KAKAN)

    @property
    def is_open(self) -> bool:
        return self.type is not MeldType.ANKAN

    def __str__(self) -> str:
        return f"{self.type}({format_tiles(self.tiles)})"
