"""The event log's one codec: engine events and actions <-> the JSON the store keeps, versioned.

It sits above the engine and :mod:`client_protocol` and below the store, the hub and the web layer:
every writer encodes through it and every reader (the store's hand projection, crash recovery, the
admin review, the exports) decodes through it; no other code reads a stored event's fields.

* :mod:`server.eventlog.convert`  engine events <-> the wire vocabulary (:mod:`client_protocol.events`),
  both directions: what the hub sends to seats and spectators, and format 1 of the log
* :mod:`server.eventlog.codec`    the stored JSON: ``FORMAT_VERSION``, encode and decode (typed),
  ``stored_kind`` to pick the few events a reader needs without decoding the rest
* :mod:`server.eventlog.summary`  the JSON of the per-hand summaries projected from the log
"""
