"""The neutral layer: the records Jantaku persists, the errors and the ports that move them.

It imports nothing of the hub, the store or the web layer (only the engine's event types, which
the step log's records may carry), so all three can depend on it:

* :mod:`server.domain.records`  accounts, sessions, matches, the step log, results
* :mod:`server.domain.reads`    the read side's records: match queries and pages, hands, audit entries
* :mod:`server.domain.errors`   ``RepositoryError`` and its subclasses
* :mod:`server.domain.ports`    ``Repository`` (the hub writes through it), ``ReadModel`` (the admin
  review reads through it) and ``Store``, both
* :mod:`server.domain.clock`    the injectable clock the hub and the store's writer measure time on
"""
