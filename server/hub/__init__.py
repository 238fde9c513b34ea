"""The table hub: websocket sessions, lobby and one actor per table (``docs/hub.md``).

Accounts and authentication are a service (:mod:`server.services.auth`); the hub calls it.

* :mod:`server.hub.table`       ``TableActor``: one task and one inbox per match (commit, then broadcast)
* :mod:`server.hub.decisions`   who must decide, since when, with what; the one check of an act
* :mod:`server.hub.pacing`      when the seats and spectators see what was committed (call window, hand pause)
* :mod:`server.hub.commits`     a table's store calls: timeouts, the uncertain write, reconciliation
* :mod:`server.hub.botturns`    a built-in bot's answer, or the default for a seat whose time ran out
* :mod:`server.hub.seating`     which connection holds each seat; the spectators
* :mod:`server.hub.inbox`       the messages a table receives; ``SeatSpec``
* :mod:`server.hub.steplog`     the match and step-log records a table writes
* :mod:`server.hub.outputs`     what tables deliver to a ``Participant``: the protocol-adapter interface
* :mod:`server.hub.adapter`     a connection's protocol core without I/O (``SeatConnection``), rate limit
* :mod:`server.hub.session`     our protocol's core: ``ProtocolSession`` (one per connection)
* :mod:`server.hub.mjai`        mjai's core: ``MjaiSession`` (``/mjai``)
* :mod:`server.hub.connection`  the asyncio layer: ``WebSocketConnection``, the outbound queue and writer
* :mod:`server.hub.lobby`       quick match, private tables, spectating
* :mod:`server.hub.tables`      the table factory on this node (``LocalTables``), the registry of live tables
* :mod:`server.hub.tablesetup`  what a table is made of: ``TableSetup``, ``TableDeps``
* :mod:`server.hub.wakeup`      a table's next deadline, its one timer, retiring, pausing
* :mod:`server.hub.timing`      action time, time bank, grace; :mod:`server.hub.spectators` the delayed feed
* :mod:`server.hub.clock`       the injectable clock (``SystemClock``, ``ManualClock``)
* :mod:`server.hub.recovery`    crash recovery: replay a stored match from its seed, check it, rebuild it
* :mod:`server.hub.server`      ``Hub``: recovery at start, the websockets server, HTTP endpoints, shutdown
* :mod:`server.hub.wire`        engine values <-> wire messages of :mod:`client_protocol`
"""
