"""Cluster mode: many ``jantaku serve`` nodes on one PostgreSQL database and one Redis
(``docs/scaling.md``).

PostgreSQL is the one truth (steps, matches, accounts, the fencing token of each match's owner);
Redis is soft state (the node registry and the tables' leases), everything in it rebuildable from
PostgreSQL and the live nodes. The hub never imports this package: the composition root
(``server.app``) wires it in only when ``--redis-url`` is given.
"""
