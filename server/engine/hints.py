"""What a seat may be told about its own hand: its waits, how many of each it cannot see, furiten.

The table comforts of Tenhou and Mahjong Soul (``docs/protocol.md``, "Hints"). Everything here is
computed from what the seat itself knows, and nothing else: :func:`seat_hints` builds the seat's
:class:`~server.engine.views.SeatView` (its own concealed tiles and the public ones) and reads only
the seat's own furiten flags, which follow from what it saw (a winning tile it passed). Another
seat's concealed tiles, the wall and the ura indicators never enter the computation, so the hints
cannot leak them (``tests/engine/test_hints.py`` checks two walls that differ only there).

* ``left``: the copies of a kind the seat cannot see: 4 less those in its own hand, in any meld, in
  any river (a called discard counted once, in its meld) and among the dora indicators.
* ``waits`` and ``furiten``: the hand as it is. With 13 tiles (a call window), its own waits and
  furiten (:func:`server.engine.options.is_furiten`); on its own turn with a drawn tile, those of
  the hand without the drawn tile (the hand as it was before the draw: drawing a winning tile does
  not make it furiten; discarding it would, which its ``discards`` entry says); after a call (no
  drawn tile), none.
* ``discards``: on its own turn, one entry per legal discard (also the riichi discards) that
  leaves the hand tenpai: the waits after it, and whether it would be furiten (a wait among the
  seat's own discards, that one included, or a winning tile passed after riichi).

>>> from server.engine import new_match, pending_seats
>>> from server.engine.rules import TENHOU
>>> state = new_match(TENHOU, b"doc").state
>>> hints = seat_hints(state, 0, ())
>>> isinstance(hints.furiten, bool), all(0 <= w.left <= 4 for w in hints.waits)
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from server.engine import hand as analysis
from server.engine.actions import Action, Discard, Riichi
from server.engine.options import counts_of, remove_one
from server.engine.state import MatchState
from server.engine.tiles import NORTH, NUM_KINDS, Tile, kind
from server.engine.views import SeatView, seat_view


@dataclass(frozen=True, slots=True)
class Wait:
    """A kind (0..33) that completes the hand, and how many of its copies the seat cannot see."""

    kind: int
    left: int


@dataclass(frozen=True, slots=True)
class DiscardHint:
    """After discarding ``tile`` (a face; ``tsumogiri``: the drawn one) the hand waits on ``waits``."""

    tile: Tile
    tsumogiri: bool
    waits: tuple[Wait, ...]
    furiten: bool


@dataclass(frozen=True, slots=True)
class Hints:
    waits: tuple[Wait, ...]
    furiten: bool
    discards: tuple[DiscardHint, ...]


@dataclass(frozen=True, slots=True)
class OwnFuriten:
    """The seat's own furiten memory: the kinds it discarded and the winning tiles it passed."""

    discarded_kinds: frozenset[int]
    passed: bool  # passed a winning tile since its last discard (temporary furiten)
    riichi_passed: bool  # passed a winning tile after riichi (furiten for the rest of the hand)


def seat_hints(state: MatchState, seat: int, legal: Iterable[Action]) -> Hints:
    """The hints for ``seat``, whose prompt offers ``legal`` (see the module docstring)."""
    p = state.hand.players[seat]
    own = OwnFuriten(
        discarded_kinds=frozenset(kind(r.tile) for r in p.river),
        passed=p.furiten_temp,
        riichi_passed=p.furiten_riichi,
    )
    return hints_from_view(seat_view(state, seat), own, legal)


def visible_counts(view: SeatView) -> tuple[int, ...]:
    """How many copies of each kind ``view``'s seat can see (its hand, melds, rivers, indicators)."""
    counts = [0] * NUM_KINDS
    seen: list[Tile] = [*view.hand, *view.dora_indicators]
    for public in view.seats:
        seen.extend(t for m in public.melds for t in m.tiles)
        seen.extend(r.tile for r in public.river if not r.called)
        seen.extend([NORTH] * public.norths)  # norths set aside (three players)
    for t in seen:
        counts[kind(t)] += 1
    return tuple(counts)


def hints_from_view(view: SeatView, own: OwnFuriten, legal: Iterable[Action]) -> Hints:
    """The hints from what one seat knows: its view and its own furiten memory."""
    visible = visible_counts(view)
    hand = view.hand
    discards: dict[tuple[Tile, bool], DiscardHint] = {}
    kinds: frozenset[int] = frozenset()
    if len(hand) % 3 == 2:
        # The kinds whose discard leaves it tenpai (one shanten check when there is none: the usual case).
        keep = analysis.discards_keeping_tenpai(counts_of(hand))
        for action in legal:
            if (
                isinstance(action, Discard | Riichi)
                and kind(action.tile) in keep
                and (action.tile, action.tsumogiri) not in discards
            ):
                after = _after_discard(hand, action.tile, visible, own)
                if after is not None:
                    waits, furiten = after
                    discards[(action.tile, action.tsumogiri)] = DiscardHint(
                        action.tile, action.tsumogiri, waits, furiten
                    )
        # The hand as it was before the draw (no drawn tile after a call: nothing to wait on).
        if view.drawn is not None and kind(view.drawn) in keep:
            kinds = analysis.waits(counts_of(remove_one(hand, view.drawn)))
    else:
        counts = counts_of(hand)
        if analysis.shanten(counts) == 0:
            kinds = analysis.waits(counts)
    waits = _waits(kinds, visible)
    furiten = own.passed or own.riichi_passed or bool(kinds & own.discarded_kinds)
    ordered = tuple(sorted(discards.values(), key=lambda d: (kind(d.tile), d.tile, d.tsumogiri)))
    return Hints(waits=waits, furiten=furiten, discards=ordered)


def _waits(kinds: frozenset[int], visible: tuple[int, ...]) -> tuple[Wait, ...]:
    return tuple(Wait(k, max(0, 4 - visible[k])) for k in sorted(kinds))


def _after_discard(
    hand: tuple[Tile, ...], tile: Tile, visible: tuple[int, ...], own: OwnFuriten
) -> tuple[tuple[Wait, ...], bool] | None:
    """The waits and furiten after discarding ``tile``; None when that leaves the hand not tenpai.
    The discarded tile stays visible (in the river), so ``left`` does not change."""
    if tile not in hand:
        return None
    kinds = analysis.waits(counts_of(remove_one(hand, tile)))
    if not kinds:
        return None
    furiten = own.riichi_passed or bool(kinds & (own.discarded_kinds | {kind(tile)}))
    return _waits(kinds, visible), furiten
