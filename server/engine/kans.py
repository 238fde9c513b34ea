"""Kans declared in turn (ankan, kakan), the chankan window on them, and a kan that stands; and a
north set aside (three seats), which takes a replacement draw the same way.

A declared kan is not complete until nobody robs it (docs/rules.md#chankan); only then do ippatsu
end, the kan count and its dora indicator change and the replacement tile is drawn. A north set
aside may likewise be won on before its replacement draw (docs/rules.md#north-bonus).
"""

from __future__ import annotations

import dataclasses

from server.engine import hand as analysis
from server.engine.actions import Ankan, Kakan, Ron
from server.engine.builder import Builder
from server.engine.endings import ron
from server.engine.events import MeldCalled, NorthDeclared
from server.engine.melds import Meld, MeldType
from server.engine.options import (
    chankan_options,
    counts_of,
    hand_waits,
    north_options,
    remove_all,
    remove_one,
)
from server.engine.rules import OpenKanDora
from server.engine.state import Phase, Window
from server.engine.tiles import NORTH, Tile, kind, sort_key


def declare_kan(b: Builder, seat: int, action: Ankan | Kakan) -> None:
    if isinstance(action, Ankan):
        # Only kokushi may rob a closed kan, and not on Tenhou: the indicator still pending from
        # the player's open kan is turned before the closed kan, as Mortal's table does. An added
        # kan waits until nobody robs it (complete_kan, docs/rules.md#kan-dora).
        b.flush_pending_dora()
    p = b.players[seat]
    if isinstance(action, Ankan):
        consumed: tuple[Tile, ...] = action.consumed
        meld = Meld(type=MeldType.ANKAN, tiles=consumed, called=None, from_seat=seat)
        melds = (*p.melds, meld)
        tile = consumed[0]
        event_tile: Tile | None = None
    else:
        tile = action.tile
        consumed = (tile,)
        pon = next(m for m in p.melds if m.type is MeldType.PON and m.kind == kind(tile))
        meld = dataclasses.replace(
            pon,
            type=MeldType.KAKAN,
            tiles=tuple(sorted((*pon.tiles, tile), key=sort_key)),
            added=tile,
        )
        melds = tuple(meld if m is pon else m for m in p.melds)
        event_tile = tile
    b.set_player(seat, hand=remove_all(p.hand, consumed), melds=melds, drawn=None)
    b.emit(MeldCalled(seat=seat, type=meld.type, meld=meld, tile=event_tile, consumed=consumed))
    h = b.frozen_hand()
    closed = isinstance(action, Ankan)
    options = []
    n = b.seats
    for off in range(1, n):
        s = (seat + off) % n
        opts = chankan_options(h, b.ruleset, s, tile, closed_kan=closed)
        if opts:
            options.append((s, opts))
    window = Window(options=tuple(options), tile=tile, from_seat=seat, kan=meld, kan_consumed=consumed)
    if options:
        b.open_window(window, Phase.CHANKAN, seat)
    else:
        b.set_hand(window=window)
        kan_passed(b, window)


def resolve_chankan(b: Builder) -> None:
    """Every seat that could rob the kan has answered: a ron ends the hand, else the kan stands."""
    window = b.hand.window
    assert window is not None
    answers = dict(window.answers)
    n = b.seats
    order = [(window.from_seat + off) % n for off in range(1, n)]
    rons = [s for s in order if isinstance(answers.get(s), Ron)]
    if rons:
        # A north set aside has no kan meld: a win on it is not chankan.
        ron(b, rons, window, chankan=window.kan is not None)
    elif window.kan is None:
        north_passed(b, window)
    else:
        kan_passed(b, window)


def declare_north(b: Builder, seat: int) -> None:
    """Set a north aside (``Nukidora``): the other seats may win on it (``Ruleset.north_ron``),
    else the replacement is drawn (docs/rules.md#north-bonus)."""
    p = b.players[seat]
    b.set_player(seat, hand=remove_one(p.hand, NORTH), drawn=None, norths=p.norths + 1)
    b.emit(NorthDeclared(seat=seat, tile=NORTH))
    h = b.frozen_hand()
    options = []
    n = b.seats
    for off in range(1, n):
        s = (seat + off) % n
        opts = north_options(h, b.ruleset, s)
        if opts:
            options.append((s, opts))
    window = Window(options=tuple(options), tile=NORTH, from_seat=seat)
    if options:
        b.open_window(window, Phase.CHANKAN, seat)
    else:
        b.set_hand(window=window)
        north_passed(b, window)


def north_passed(b: Builder, window: Window) -> None:
    """Nobody won on the north: the replacement is drawn. Like a call, the north ends every ippatsu
    and the first go-around (no double riichi, tenhou or chiihou after it; Tenhou's records,
    docs/rules.md#north-bonus)."""
    b.mark_passed_winning_tile(window.tile, window.from_seat)
    b.end_every_ippatsu()
    # A pending open-kan indicator is turned once the north stands, as for a following kan
    # (Tenhou's records; docs/rules.md#kan-dora).
    b.flush_pending_dora()
    b.set_hand(norths=(*b.hand.norths, window.from_seat), no_calls=False)
    b.draw(window.from_seat, rinshan=True)


def kan_passed(b: Builder, window: Window) -> None:
    assert window.kan is not None
    if window.kan.type is MeldType.ANKAN:
        _closed_kan_passed(b, window)
    else:
        b.mark_passed_winning_tile(window.tile, window.from_seat)
    complete_kan(b, window.from_seat, window.kan)


def _closed_kan_passed(b: Builder, window: Window) -> None:
    """Only a kokushi hand may rob a closed kan, so only a kokushi hand waiting on its tile has seen
    a winning tile (docs/rules.md#furiten); an ordinary hand waiting on it stays as it was. A riichi
    hand is furiten for the rest of the hand only if it was offered the ron and passed
    (``chankan_ankan_kokushi``); otherwise, riichi or not, until its next discard."""
    k = kind(window.tile)
    offered = {s for s, _ in window.options}
    for s, p in enumerate(b.players):
        if s == window.from_seat:
            continue
        if k not in hand_waits(p.hand) or not analysis.is_kokushi_tenpai_on(counts_of(p.hand), k):
            continue
        if p.riichi and s in offered:
            b.set_player(s, furiten_riichi=True)
        else:
            b.set_player(s, furiten_temp=True)


def complete_kan(b: Builder, seat: int, meld: Meld) -> None:
    """The kan stands: ippatsu ends for all, the indicator of the player's previous open kan is
    turned if still pending, this kan's is turned (or will be), and the replacement is drawn.

    Tenhou's records turn an open kan's pending indicator only once the next kan stands: a second
    added kan that is robbed never shows the first one's (docs/rules.md#kan-dora)."""
    b.end_every_ippatsu()
    b.flush_pending_dora()
    b.set_hand(no_calls=False, kans=(*b.hand.kans, seat))
    if meld.type is MeldType.ANKAN or b.ruleset.open_kan_dora is OpenKanDora.IMMEDIATE:
        b.reveal_dora()
    else:
        b.set_hand(pending_dora=b.hand.pending_dora + 1)
    b.draw(seat, rinshan=True)
