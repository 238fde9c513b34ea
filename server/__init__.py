"""Jantaku: an authoritative online Riichi Mahjong server."""

__version__ = "0.1.0"

# Chooses the compiled or the pure Python engine before any engine module is imported.
from server import buildinfo as buildinfo
