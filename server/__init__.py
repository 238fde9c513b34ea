"""Jantaku: an authoritative online Riichi Mahjong server."""

__version__ = "0.1.0"
