"""Jantaku client protocol: typed wire messages, codec and an async client (never imports ``server``)."""

PROTOCOL_VERSION = 1
