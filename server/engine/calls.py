"""The call window on a discard: resolving the answers (ron, then pon/kan, then chi), accepting a
riichi deposit, the aborts decided by a discard, performing a call, and pao.
"""

from __future__ import annotations

import dataclasses

from server.engine.actions import Action, Chi, Daiminkan, Pon, Ron
from server.engine.builder import Builder
from server.engine.endings import abort, exhaustive_draw, ron
from server.engine.events import DrawReason, MeldCalled, RiichiAccepted
from server.engine.kans import complete_kan
from server.engine.melds import Meld, MeldType
from server.engine.options import kuikae_kinds, remove_all
from server.engine.rules import Pao
from server.engine.state import Window
from server.engine.tiles import DRAGONS, WINDS, Tile, sort_key

_MELD_TYPES: dict[type, MeldType] = {Chi: MeldType.CHI, Pon: MeldType.PON, Daiminkan: MeldType.DAIMINKAN}


def resolve_calls(b: Builder) -> None:
    """Every seat has answered the discard: ron first, then pon or kan, then chi, else nothing."""
    window = b.hand.window
    assert window is not None
    answers = dict(window.answers)
    n = b.seats
    order = [(window.from_seat + off) % n for off in range(1, n)]
    rons = [s for s in order if isinstance(answers.get(s), Ron)]
    if rons:
        ron(b, rons, window, chankan=False)
        return
    call: tuple[int, Action] | None = None
    for s in order:  # pon / kan beat chi whatever the answer order (a seat has at most one)
        a = answers.get(s)
        if isinstance(a, Pon | Daiminkan):
            call = (s, a)
    if call is None:
        for s in order:
            a = answers.get(s)
            if isinstance(a, Chi):
                call = (s, a)
    discard_passed(b, window, () if call is None else (call,))


def discard_passed(b: Builder, window: Window, calls: tuple[tuple[int, Action], ...]) -> None:
    """Nobody won on the discard: accept riichi, check aborts, perform a call or draw on."""
    r = b.ruleset
    seat = window.from_seat
    b.mark_passed_winning_tile(window.tile, seat)
    if window.riichi:
        p = b.players[seat]
        double = b.hand.no_calls and len(p.river) == 1
        b.scores[seat] -= 1000
        b.sticks += 1
        b.set_player(seat, riichi=True, double_riichi=double, ippatsu=True)
        b.emit(RiichiAccepted(seat=seat, scores=tuple(b.scores), riichi_sticks=b.sticks))
        if r.abort_suucha_riichi and all(pl.riichi for pl in b.players):
            abort(b, DrawReason.SUUCHA_RIICHI, [pl.hand for pl in b.players])
            return
    h = b.hand
    if r.abort_suukaikan and len(h.kans) == 4 and len(set(h.kans)) > 1:
        abort(b, DrawReason.SUUKAIKAN, [None] * b.seats)
        return
    if (
        r.abort_suufon_renda
        and h.no_calls
        and all(len(pl.river) == 1 for pl in b.players)
        and len({pl.river[0].tile for pl in b.players}) == 1
        and b.players[0].river[0].tile in WINDS
    ):
        abort(b, DrawReason.SUUFON_RENDA, [None] * b.seats)
        return
    if calls:
        caller, action = calls[0]
        call(b, caller, action, window)
        return
    if h.live_remaining == 0:
        exhaustive_draw(b)
        return
    b.draw((seat + 1) % b.seats, rinshan=False)


def call(b: Builder, seat: int, action: Action, window: Window) -> None:
    tile, discarder = window.tile, window.from_seat
    assert isinstance(action, Chi | Pon | Daiminkan)
    consumed: tuple[Tile, ...] = action.consumed
    mtype = _MELD_TYPES[type(action)]
    meld = Meld(
        type=mtype,
        tiles=tuple(sorted((*consumed, tile), key=sort_key)),
        called=tile,
        from_seat=discarder,
    )
    d = b.players[discarder]
    last = d.river[-1]
    b.set_player(
        discarder,
        river=(*d.river[:-1], dataclasses.replace(last, called=True)),
        # A called riichi tile: the declarer's next discard is laid sideways instead
        # (docs/rules.md#riichi).
        sideways_pending=d.sideways_pending or last.sideways,
    )
    p = b.players[seat]
    b.set_player(seat, hand=remove_all(p.hand, consumed), melds=(*p.melds, meld), drawn=None)
    b.end_every_ippatsu()
    b.set_hand(no_calls=False)
    check_pao(b, seat, discarder, meld)
    b.emit(MeldCalled(seat=seat, type=mtype, meld=meld, tile=tile, consumed=consumed))
    if mtype is MeldType.DAIMINKAN:
        complete_kan(b, seat, meld)
        return
    b.set_player(seat, kuikae=kuikae_kinds(b.ruleset, tile, consumed, mtype is MeldType.CHI))
    b.set_hand(after_call=True, rinshan=False)
    b.prompt_turn(seat)


def check_pao(b: Builder, seat: int, discarder: int, meld: Meld) -> None:
    """Feeding the last dragon/wind set (or the fourth kan) makes the discarder liable
    (docs/rules.md#pao)."""
    r = b.ruleset
    melds = b.players[seat].melds
    triplets = [m.kind for m in melds if m.type is not MeldType.CHI]
    liable: Pao | None = None
    if Pao.DAISANGEN in r.pao and meld.kind in DRAGONS and sum(k in DRAGONS for k in triplets) == 3:
        liable = Pao.DAISANGEN
    elif Pao.DAISUUSHII in r.pao and meld.kind in WINDS and sum(k in WINDS for k in triplets) == 4:
        liable = Pao.DAISUUSHII
    elif Pao.SUUKANTSU in r.pao and meld.type is MeldType.DAIMINKAN and sum(m.is_kan for m in melds) == 4:
        liable = Pao.SUUKANTSU
    if liable is not None:
        b.set_player(seat, pao_seat=discarder, pao_yakuman=liable)
