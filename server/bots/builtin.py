"""Built-in bots: pure functions of a seat's view and its legal actions.

* ``tsumogiri`` always discards the drawn tile and passes every call (never wins).
* ``random`` picks a uniformly random legal action from a generator seeded by the caller.
* ``greedy`` takes every win, declares riichi when it can, never calls, and otherwise discards
  the tile that leaves the lowest shanten (ties: honors, then terminals, then the least connected).
  With three players it sets a north aside (a bonus dora and a free draw) whenever the north is as
  good a tile to give up as any other, which is nearly always; it never needs to know about chi,
  which three players are never offered.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from server.engine import hand as analysis
from server.engine.actions import Action, Discard, Nukidora, Pass, Riichi, Ron, Tsumo
from server.engine.errors import RulesError
from server.engine.tiles import NORTH, NUM_KINDS, kind, sort_key
from server.engine.views import SeatView

Bot = Callable[[SeatView, frozenset[Action]], Action]

# One instance each, made once: a bot asks "may I win / must I answer?" on every decision.
_TSUMO = Tsumo()
_RON = Ron()
_PASS = Pass()
_NUKIDORA = Nukidora()


def _ordered(legal: frozenset[Action]) -> list[Action]:
    """A deterministic order of a set of actions (sets of dataclasses have no stable order)."""
    return sorted(legal, key=repr)


def tsumogiri_bot(view: SeatView, legal: frozenset[Action]) -> Action:
    if _PASS in legal:
        return _PASS
    for a in legal:
        if isinstance(a, Discard) and a.tsumogiri:
            return a
    discards = sorted((a for a in legal if isinstance(a, Discard)), key=lambda a: sort_key(a.tile))
    if discards:
        return discards[-1]
    return _ordered(legal)[0]


def random_bot(view: SeatView, legal: frozenset[Action], *, salt: bytes = b"") -> Action:
    """Uniform over the legal actions; reproducible from (salt, seat, step)."""
    ordered = _ordered(legal)
    digest = hashlib.sha256(salt + bytes([view.seat]) + view.step.to_bytes(8, "big")).digest()
    return ordered[int.from_bytes(digest[:8], "big") % len(ordered)]


def _tie_break(k: int, counts: list[int]) -> tuple[int, int]:
    if k >= 27:
        return (0, counts[k])
    n = k % 9
    terminal = 1 if n in (0, 8) else 2
    # The tiles up to two ranks away in the same suit (an explicit loop: cheaper than a generator).
    neighbours = 0
    for j in range(k - min(n, 2), k + min(8 - n, 2) + 1):
        if j != k:
            neighbours += counts[j]
    return (terminal, neighbours)


def greedy_bot(view: SeatView, legal: frozenset[Action]) -> Action:
    if _TSUMO in legal:
        return _TSUMO
    if _RON in legal:
        return _RON
    if _PASS in legal:
        return _PASS
    counts = [0] * NUM_KINDS
    for t in view.hand:
        counts[kind(t)] += 1
    if _NUKIDORA in legal and _north_is_spare(counts, legal):
        return _NUKIDORA
    riichis = [a for a in legal if isinstance(a, Riichi)]
    if riichis:
        return min(riichis, key=lambda a: (not a.tsumogiri, sort_key(a.tile)))
    discards = [a for a in legal if isinstance(a, Discard)]
    if not discards:
        return _ordered(legal)[0]
    best: tuple[int, tuple[int, int], int, bool, tuple[int, int]] | None = None
    choice: Action = discards[0]
    # Shanten after discarding one tile of each kind, in one pass over the 14-tile hand.
    by_kind = analysis.shanten_after_discards(counts) if sum(counts) % 3 == 2 else {}
    for a in discards:
        k = kind(a.tile)
        if k not in by_kind:
            counts[k] -= 1
            by_kind[k] = analysis.shanten(counts)
            counts[k] += 1
        sh = by_kind[k]
        if best is not None and sh > best[0]:
            continue  # loses on shanten whatever the rest of its key (computed only when needed)
        # Lower shanten first, then the tie-break, then keep red fives, prefer tsumogiri.
        key = (sh, _tie_break(k, counts), 1 if a.tile >= NUM_KINDS else 0, not a.tsumogiri, sort_key(a.tile))
        if best is None or key < best:
            best, choice = key, a
    return choice


def _north_is_spare(counts: list[int], legal: frozenset[Action]) -> bool:
    """Setting the north aside leaves the hand no further from winning than the best discard would
    (in riichi only the drawn north can be set aside: it is always spare)."""
    if not any(isinstance(a, Discard) and not a.tsumogiri for a in legal):
        return True  # riichi: the hand is locked
    by_kind = analysis.shanten_after_discards(counts)
    return by_kind.get(NORTH, 99) <= min(by_kind.values())


BOTS: dict[str, Bot] = {"tsumogiri": tsumogiri_bot, "random": random_bot, "greedy": greedy_bot}


def get_bot(name: str) -> Bot:
    try:
        return BOTS[name]
    except KeyError:
        raise RulesError(f"unknown bot {name!r}; choose from {sorted(BOTS)}") from None
