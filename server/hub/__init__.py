"""The table hub: websocket sessions, lobby and one actor per table (see issue 4 and DESIGN.md).

:mod:`server.hub.wire` converts between engine values and the wire messages of :mod:`client_protocol`.
"""
