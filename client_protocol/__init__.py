"""Jantaku client protocol: typed wire messages, codec and an async client (never imports ``server``).

Modules:

* :mod:`client_protocol.messages` every message (msgspec structs, tagged by ``"type"``)
* :mod:`client_protocol.events`   the wire events inside ``event`` messages
* :mod:`client_protocol.seatview` the view a ``snapshot`` carries
* :mod:`client_protocol.codec`    ``encode`` / ``decode_client`` / ``decode_server``
* :mod:`client_protocol.errors`   ``ErrorCode`` and the exception tree
* :mod:`client_protocol.tracker`  ``MatchTracker``: fold events into a seat's view
* :mod:`client_protocol.client`   ``Client``: the async websocket client for bots
* :mod:`client_protocol.schema`   the JSON Schema (``python -m client_protocol.schema``)

The protocol itself is described in ``docs/protocol.md``.
"""

PROTOCOL_VERSION = 1
