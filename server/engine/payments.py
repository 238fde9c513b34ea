"""Payments: hand values (:mod:`server.engine.scoring`) turned into score deltas.

:func:`settle_wins` pays one or several wins with honba, riichi sticks and pao (liability);
:func:`noten_payments` and :func:`nagashi_payments` settle an exhaustive draw. The figures follow
docs/rules.md#payments: a ron pays 4x basic points (6x for the dealer), a tsumo 1x from each
non-dealer and 2x from the dealer (2x from each for the dealer's own), each rounded up to 100.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from server.engine.errors import RulesError
from server.engine.rules import Pao, PaoScope, Ruleset, SanmaTsumo
from server.engine.scoring import LIMIT_BASE, HandValue

__all__ = [
    "Deltas",
    "WinSettlement",
    "hand_points",
    "nagashi_payments",
    "noten_payments",
    "ron_points",
    "settle_wins",
    "tsumo_points",
]

Deltas = tuple[int, ...]
"""One score change per seat."""


def _ceil100(points: int) -> int:
    return -(-points // 100) * 100


def ron_points(base: int, dealer: bool) -> int:
    """What the discarder pays for a ron: 6x (dealer) or 4x basic points, rounded up to 100.

    >>> ron_points(1920, dealer=False), ron_points(1920, dealer=True)
    (7700, 11600)
    """
    return _ceil100(base * (6 if dealer else 4))


def tsumo_points(base: int, dealer: bool, ruleset: Ruleset | None = None) -> tuple[int, int]:
    """``(from the dealer, from each non-dealer)`` for a tsumo; a dealer's win has no dealer payer.

    Three seats (docs/rules.md#sanma-tsumo): under ``SanmaTsumo.TSUMO_LOSS`` the two payers pay
    what they would with four seats; under ``NORTH_BISECTION`` the missing north seat's share is
    split evenly between them before rounding (a non-dealer's win: 2.5x and 1.5x basic points; a
    dealer's: 3x from each).

    >>> tsumo_points(240, dealer=False)
    (500, 300)
    >>> tsumo_points(2000, dealer=True)
    (0, 4000)
    """
    if ruleset is not None and ruleset.seats == 3 and ruleset.sanma_tsumo is SanmaTsumo.NORTH_BISECTION:
        if dealer:
            return 0, _ceil100(3 * base)
        return _ceil100(5 * base // 2), _ceil100(3 * base // 2)
    if dealer:
        return 0, _ceil100(2 * base)
    return _ceil100(2 * base), _ceil100(base)


def hand_points(value: HandValue, *, dealer: bool, tsumo: bool, ruleset: Ruleset) -> int:
    """What the winner receives for the hand itself, before honba and sticks (``HandWon.points``):
    with three seats a tsumo has two payers."""
    if not tsumo:
        return ron_points(value.base_points, dealer)
    from_dealer, from_other = tsumo_points(value.base_points, dealer, ruleset)
    others = ruleset.seats - 1
    return others * from_other if dealer else from_dealer + (others - 1) * from_other


@dataclass(frozen=True, slots=True)
class WinSettlement:
    """One winner's part of a settlement.

    ``loser`` is the discarder (the kan declarer for chankan), ``None`` for tsumo. ``pao_seat`` is
    the liable player, if any; ``pao_yakuman`` the yakuman that player fed (``None``: every
    liability yakuman of the hand that ``Ruleset.pao`` lists).
    """

    winner: int
    loser: int | None
    value: HandValue
    pao_seat: int | None = None
    pao_yakuman: Pao | None = None

    @property
    def is_tsumo(self) -> bool:
        return self.loser is None


def settle_wins(
    wins: Sequence[WinSettlement], *, dealer: int, honba: int, riichi_sticks: int, ruleset: Ruleset
) -> tuple[Deltas, ...]:
    """Score deltas of each win, in the order given (the caller orders winners from the
    discarder's right). Each tuple includes that win's honba and sticks.

    * Ron: the loser pays :func:`ron_points`. Tsumo: :func:`tsumo_points` from each other seat.
    * Honba (``honba * Ruleset.honba_value``) and all riichi sticks (1000 each) go to the *first*
      winner only (docs/rules.md#sticks-and-honba: "the player closest to the discarding player";
      Tenhou does the same with honba). On tsumo each loser pays a third of the honba.
    * Pao (docs/rules.md#pao; Tenhou's behaviour): on tsumo the liable player pays the
      liable value as if dealt in; on ron the discarder and the liable player pay half of it each.
      The liable player also pays the honba in both cases (Tenhou/Mahjong Soul records; riichi
      wiki "Sekinin barai"). ``PaoScope.FULL``: the liable value is the whole hand. ``PORTION``:
      only the fed yakuman's multiple; the rest of a composite yakuman is paid as usual.
    """
    if not wins:
        raise RulesError("settle_wins needs at least one win")
    n = ruleset.seats
    seats = [w.winner for w in wins]
    if len(set(seats)) != len(seats) or any(not 0 <= s < n for s in (*seats, dealer)):
        raise RulesError(f"bad winner seats {seats} (dealer {dealer})")
    if any(w.is_tsumo for w in wins) and len(wins) > 1:
        raise RulesError("a tsumo has exactly one winner")
    losers = {w.loser for w in wins}
    if len(losers) != 1:
        raise RulesError(f"a multiple ron has one discarder, got {[w.loser for w in wins]}")
    if any(w.loser is not None and (w.loser == w.winner or not 0 <= w.loser < n) for w in wins):
        raise RulesError(f"bad discarder in {[(w.winner, w.loser) for w in wins]}")
    if honba < 0 or riichi_sticks < 0:
        raise RulesError(f"honba and riichi sticks must not be negative: {honba}, {riichi_sticks}")
    return tuple(
        _settle_one(
            w,
            dealer=dealer,
            honba_points=honba * ruleset.honba_value if i == 0 else 0,
            sticks=riichi_sticks * 1000 if i == 0 else 0,
            ruleset=ruleset,
        )
        for i, w in enumerate(wins)
    )


def _liable_base(win: WinSettlement, ruleset: Ruleset) -> int:
    """Basic points the liable player answers for (0: no pao applies)."""
    if win.pao_seat is None:
        return 0
    if win.pao_seat == win.winner or not 0 <= win.pao_seat < ruleset.seats:
        raise RulesError(f"pao seat {win.pao_seat} cannot be liable for seat {win.winner}'s win")
    multiple = sum(
        m
        for name, m in win.value.pao_yakuman
        if name in ruleset.pao and (win.pao_yakuman is None or name == win.pao_yakuman)
    )
    if multiple == 0:
        return 0
    if ruleset.pao_scope is PaoScope.FULL:
        return win.value.base_points
    return min(8000 * multiple, win.value.base_points)


def _settle_one(
    win: WinSettlement, *, dealer: int, honba_points: int, sticks: int, ruleset: Ruleset
) -> Deltas:
    n = ruleset.seats
    deltas = [0] * n

    def pay(payer: int, amount: int) -> None:
        deltas[payer] -= amount
        deltas[win.winner] += amount

    dealer_win = win.winner == dealer
    liable = _liable_base(win, ruleset)
    rest = win.value.base_points - liable
    if win.loser is None:
        others = [s for s in range(n) if s != win.winner]
        if liable:
            assert win.pao_seat is not None
            pay(win.pao_seat, ron_points(liable, dealer_win) + honba_points)
        if rest:
            from_dealer, from_other = tsumo_points(rest, dealer_win, ruleset)
            for s in others:
                pay(s, from_dealer if s == dealer else from_other)
        if not liable:
            for s in others:
                pay(s, honba_points // len(others))
    elif liable:
        assert win.pao_seat is not None
        shared = ron_points(liable, dealer_win)
        pay(win.loser, ron_points(rest, dealer_win) + shared - shared // 2)
        pay(win.pao_seat, shared // 2 + honba_points)
    else:
        pay(win.loser, ron_points(rest, dealer_win) + honba_points)
    deltas[win.winner] += sticks
    return tuple(deltas)


def noten_payments(tenpai: Sequence[bool], ruleset: Ruleset) -> Deltas:
    """Exhaustive-draw payments: ``Ruleset.noten_payment_total`` flows from the noten seats to the
    tenpai seats, split evenly on both sides (3000: 1 tenpai +3000/-1000 each, 2 tenpai
    +1500/-1500, 3 tenpai +1000/-3000); nothing when all or none are tenpai.

    >>> noten_payments([True, False, False, False], Ruleset())
    (3000, -1000, -1000, -1000)
    """
    n = ruleset.seats
    if len(tenpai) != n:
        raise RulesError(f"need {n} tenpai flags, got {len(tenpai)}")
    ready = sum(1 for t in tenpai if t)
    if ready in (0, n):
        return (0,) * n
    total = ruleset.noten_payment_total
    if total % ready or total % (n - ready):
        raise RulesError(f"noten payment total {total} does not split among {ready} tenpai seats")
    gain, loss = total // ready, total // (n - ready)
    return tuple(gain if t else -loss for t in tenpai)


def nagashi_payments(seats: Iterable[int], dealer: int, ruleset: Ruleset) -> Deltas:
    """Nagashi mangan (docs/rules.md#option-nagashi_mangan): each seat is paid as a mangan tsumo,
    without honba or sticks."""
    if not ruleset.nagashi_mangan:
        raise RulesError(f"ruleset {ruleset.name!r} has no nagashi mangan")
    n = ruleset.seats
    deltas = [0] * n
    for seat in seats:
        if not 0 <= seat < n:
            raise RulesError(f"bad nagashi seat {seat}")
        from_dealer, from_other = tsumo_points(LIMIT_BASE["mangan"], seat == dealer, ruleset)
        for s in range(n):
            if s != seat:
                amount = from_dealer if s == dealer else from_other
                deltas[s] -= amount
                deltas[seat] += amount
    return tuple(deltas)
