"""A seat's own turn: discard (or declare riichi with it), tsumo, kan, kyuushu kyuuhai.

A discard opens the call window on it (:func:`server.engine.options.call_options` for each other
seat); nobody able to answer means the window passes at once (:func:`server.engine.calls.discard_passed`).
"""

from __future__ import annotations

from server.engine.actions import (
    Action,
    Ankan,
    Discard,
    Kakan,
    KyuushuKyuuhai,
    Nukidora,
    Riichi,
    Tsumo,
)
from server.engine.builder import Builder
from server.engine.calls import discard_passed
from server.engine.endings import abort, win
from server.engine.errors import IllegalActionError
from server.engine.events import DrawReason, TileDiscarded
from server.engine.kans import declare_kan, declare_north
from server.engine.options import call_options, remove_one
from server.engine.state import Phase, Player, RiverTile, Window
from server.engine.tiles import Tile, kind


def turn_action(b: Builder, seat: int, action: Action) -> None:
    match action:
        case Discard(tile, tsumogiri):
            discard(b, seat, tile, tsumogiri, riichi=False)
        case Riichi(tile, tsumogiri):
            discard(b, seat, tile, tsumogiri, riichi=True)
        case Tsumo():
            drawn = b.players[seat].drawn
            assert drawn is not None
            win(b, [(seat, seat, drawn, False)])
        case Ankan() | Kakan():
            declare_kan(b, seat, action)
        case Nukidora():
            declare_north(b, seat)
        case KyuushuKyuuhai():
            p = b.players[seat]
            hands: list[tuple[Tile, ...] | None] = [None] * b.seats
            hands[seat] = p.hand
            abort(b, DrawReason.KYUUSHU_KYUUHAI, hands)
        case _:  # pragma: no cover - turn options contain nothing else
            raise IllegalActionError(f"{action!r} is not a turn action")


def discard(b: Builder, seat: int, tile: Tile, tsumogiri: bool, *, riichi: bool) -> None:
    p = b.players[seat]
    sideways = riichi or p.sideways_pending
    # The player built whole through its compiled constructor (every field by name; cheaper than a
    # copy and nine stores by name).
    b.put_player(
        seat,
        Player(
            hand=remove_one(p.hand, tile),
            drawn=None,
            melds=p.melds,
            river=(*p.river, RiverTile(tile=tile, tsumogiri=tsumogiri, sideways=sideways)),
            discarded_kinds=p.discarded_kinds | {kind(tile)},
            riichi=p.riichi,
            double_riichi=p.double_riichi,
            # Ippatsu lasts until the declarer's next discard (docs/rules.md#ippatsu).
            ippatsu=False,
            furiten_temp=False,
            furiten_riichi=p.furiten_riichi,
            kuikae=frozenset(),
            sideways_pending=p.sideways_pending and not sideways,
            pao_seat=p.pao_seat,
            pao_yakuman=p.pao_yakuman,
            norths=p.norths,
        ),
    )
    b.emit(TileDiscarded(seat=seat, tile=tile, tsumogiri=tsumogiri, riichi=riichi))
    # An open kan's indicator is turned after the kan player's discard, before anyone may claim it
    # (docs/rules.md#kan-dora).
    b.flush_pending_dora()
    h = b.frozen_hand()
    options = []
    n = b.seats
    for off in range(1, n):
        s = (seat + off) % n
        opts = call_options(h, b.ruleset, s, tile, seat)
        if opts:
            options.append((s, opts))
    window = Window(options=tuple(options), tile=tile, from_seat=seat, riichi=riichi)
    if options:
        b.open_window(window, Phase.CALLS, seat)
    else:
        b.set_hand(window=window)
        discard_passed(b, window, ())
