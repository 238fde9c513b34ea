"""How hands and the match end: wins (one or several), the exhaustive draw, aborts, and what comes
next (renchan, the next dealer, the end of the match and its final points).
"""

from __future__ import annotations

from collections.abc import Sequence

from server.engine import hand as analysis
from server.engine.builder import Builder
from server.engine.events import DrawReason, HandDrawn, HandWon, MatchEnded, RoundEnded, WallRevealed
from server.engine.options import counts_of, evaluate, insert_sorted, own_counts
from server.engine.payments import WinSettlement, hand_points, nagashi_payments, noten_payments, settle_wins
from server.engine.rules import GameLength, LeftoverSticks, MultipleRon, Ruleset
from server.engine.state import HandState, Phase, Window
from server.engine.tiles import Tile, is_terminal_or_honor, kind
from server.engine.wall import dora_indicators, ura_indicators

_MAX_WINNERS: dict[MultipleRon, int] = {
    MultipleRon.HEAD_BUMP: 1,
    MultipleRon.DOUBLE: 2,
    MultipleRon.TRIPLE: 3,
}


def ron(b: Builder, rons: list[int], window: Window, *, chankan: bool) -> None:
    """``rons``: the seats that called ron, from the discarder's right (docs/rules.md#multiple-ron)."""
    r = b.ruleset
    if len(rons) == 3 and r.abort_sanchahou:
        hands: list[tuple[Tile, ...] | None] = [None] * b.seats
        for s in rons:
            hands[s] = b.players[s].hand
        abort(b, DrawReason.SANCHAHOU, hands)
        return
    limit = _MAX_WINNERS[r.multiple_ron]
    win(b, [(s, window.from_seat, window.tile, chankan) for s in rons[:limit]])


def win(b: Builder, wins: list[tuple[int, int, Tile, bool]]) -> None:
    """``wins``: (winner, from seat, tile, chankan) ordered from the discarder's right."""
    h = b.frozen_hand()
    settlements: list[WinSettlement] = []
    details = []
    for winner, from_seat, tile, chankan in wins:
        tsumo = winner == from_seat
        value = evaluate(h, b.ruleset, winner, tile, tsumo=tsumo, chankan=chankan)
        assert value is not None, "a win is only offered with a yaku"
        p = h.players[winner]
        pao = p.pao_seat if p.pao_yakuman and p.pao_yakuman in dict(value.pao_yakuman) else None
        settlements.append(
            WinSettlement(
                winner=winner,
                loser=None if tsumo else from_seat,
                value=value,
                pao_seat=pao,
                pao_yakuman=p.pao_yakuman if pao is not None else None,
            )
        )
        details.append((winner, from_seat, tile, value, pao, tsumo))
    all_deltas = settle_wins(
        settlements, dealer=h.dealer, honba=h.honba, riichi_sticks=b.sticks, ruleset=b.ruleset
    )
    b.sticks = 0
    n_ind = h.dora_revealed
    for (winner, from_seat, tile, value, pao, tsumo), deltas in zip(details, all_deltas, strict=True):
        for s in range(b.seats):
            b.scores[s] += deltas[s]
        p = h.players[winner]
        shown = p.hand if tsumo else insert_sorted(p.hand, tile)
        ura: tuple[Tile, ...] = ()
        if p.riichi:
            ura = ura_indicators(h.wall, n_ind if b.ruleset.kan_ura else 1)
        b.emit(
            HandWon(
                seat=winner,
                from_seat=from_seat,
                win_tile=tile,
                hand=shown,
                melds=p.melds,
                yaku=value.yaku,
                han=value.han,
                fu=value.fu,
                points=hand_points(value, dealer=winner == h.dealer, tsumo=tsumo, ruleset=b.ruleset),
                limit=value.limit,
                yakuman=value.yakuman,
                dora_indicators=dora_indicators(h.wall, n_ind),
                ura_indicators=ura,
                pao_seat=pao,
                deltas=tuple(deltas),
                scores=tuple(b.scores),
            )
        )
    dealer_won = any(w[0] == h.dealer for w in wins)
    end_hand(b, renchan=dealer_won, honba_up=dealer_won, won=True)


def exhaustive_draw(b: Builder) -> None:
    r = b.ruleset
    tenpai = []
    shown: list[tuple[Tile, ...] | None] = []
    for p in b.players:
        t = analysis.tenpai_for_draw(counts_of(p.hand), own_counts(p, r))
        tenpai.append(t)
        shown.append(p.hand if t else None)
    nagashi = tuple(
        s
        for s, p in enumerate(b.players)
        if r.nagashi_mangan
        and p.river
        and all(is_terminal_or_honor(kind(rt.tile)) and not rt.called for rt in p.river)
    )
    if nagashi:
        deltas = nagashi_payments(nagashi, dealer=b.hand.dealer, ruleset=r)
    else:
        deltas = noten_payments(tenpai, ruleset=r)
    for s in range(b.seats):
        b.scores[s] += deltas[s]
    b.emit(
        HandDrawn(
            reason=DrawReason.EXHAUSTIVE,
            tenpai=tuple(tenpai),
            hands=tuple(shown),
            nagashi=nagashi,
            deltas=tuple(deltas),
            scores=tuple(b.scores),
        )
    )
    dealer_tenpai = tenpai[b.hand.dealer]
    end_hand(b, renchan=dealer_tenpai, honba_up=True, won=False, tenpai_draw=dealer_tenpai)


def abort(b: Builder, reason: DrawReason, hands: Sequence[tuple[Tile, ...] | None]) -> None:
    b.emit(
        HandDrawn(
            reason=reason,
            tenpai=(False,) * b.seats,
            hands=tuple(hands),
            nagashi=(),
            deltas=(0,) * b.seats,
            scores=tuple(b.scores),
        )
    )
    end_hand(b, renchan=True, honba_up=True, won=False, aborted=True)


def end_hand(
    b: Builder,
    *,
    renchan: bool,
    honba_up: bool,
    won: bool,
    tenpai_draw: bool = False,
    aborted: bool = False,
) -> None:
    h = b.hand
    b.emit(WallRevealed(salt=h.salt.hex(), wall=h.wall, wall_commitment=h.commitment))
    b.emit(RoundEnded(scores=tuple(b.scores), riichi_sticks=b.sticks))
    b.set_hand(window=None)
    nxt = next_hand(b.ruleset, b.scores, h, renchan=renchan, won=won, tenpai=tenpai_draw)
    if aborted:
        nxt = (h.round_wind, h.kyoku)
    if nxt is None:
        end_match(b)
        return
    round_wind, kyoku = nxt
    honba = h.honba + 1 if honba_up else 0
    b.start_hand(h.hand_index + 1, round_wind, kyoku, honba)


def end_match(b: Builder) -> None:
    r = b.ruleset
    n = b.seats
    order = sorted(range(n), key=lambda s: (-b.scores[s], s))
    if b.sticks and r.leftover_sticks is LeftoverSticks.TO_TOP:
        b.scores[order[0]] += 1000 * b.sticks
    b.sticks = 0
    order = sorted(range(n), key=lambda s: (-b.scores[s], s))
    ranks = [0] * n
    for rank, s in enumerate(order):
        ranks[s] = rank + 1
    oka = (r.return_points - r.start_points) * n / 1000 if r.oka else 0.0
    final = []
    for s in range(n):
        pts = (b.scores[s] - r.return_points) / 1000 + r.uma[ranks[s] - 1]
        if ranks[s] == 1:
            pts += oka
        final.append(round(pts, 1))
    b.emit(
        MatchEnded(
            scores=tuple(b.scores),
            ranks=tuple(ranks),
            final_points=tuple(final),
            seed=b.state.seed.hex(),
        )
    )
    b.finished = True
    b.set_hand(phase=Phase.FINISHED, window=None)


def next_hand(
    r: Ruleset, scores: Sequence[int], h: HandState, *, renchan: bool, won: bool, tenpai: bool
) -> tuple[int, int] | None:
    """(round wind, kyoku) of the next hand, or None when the match is over."""
    if r.tobi and any(s < r.tobi_below for s in scores):
        return None
    n = r.seats  # kyoku per round wind: each seat deals once
    last_wind = 0 if r.game_length is GameLength.EAST else 1
    current = h.round_wind * n + h.kyoku
    last = last_wind * n + n - 1
    dealer = h.dealer
    top = min(range(n), key=lambda s: (-scores[s], s))
    over_target = any(s >= r.return_points for s in scores)
    if current >= last:
        dealer_top = top == dealer and (scores[dealer] >= r.return_points or not r.sudden_death)
        if renchan:
            yame = (won and r.agari_yame) or (tenpai and r.tenpai_yame)
            if yame and dealer_top:
                return None
        else:
            if over_target or not r.sudden_death:
                return None
            if current >= last + n:  # the extension (one more round wind) is over
                return None
        if current > last and renchan and over_target and dealer_top:
            return None
    if renchan:
        return (h.round_wind, h.kyoku)
    nxt = current + 1
    return (nxt // n, nxt % n)
