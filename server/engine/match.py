"""The match state machine: ``new_match``, ``legal_actions``, ``apply``, ``default_action``.

``apply`` validates an action against the seat's legal set, then advances the match (draws, call
resolution, dora flips, hand ends, the next deal) until some seat must decide, returning the new
immutable state and every event produced, omniscient. Redaction is :mod:`server.engine.views`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TypeVar

from server.engine import hand as analysis
from server.engine import wall as walls
from server.engine.actions import (
    Action,
    Ankan,
    Chi,
    Daiminkan,
    Discard,
    Kakan,
    KyuushuKyuuhai,
    Pass,
    Pon,
    Riichi,
    Ron,
    Tsumo,
)
from server.engine.errors import IllegalActionError, NotYourTurnError, RulesError, WallError
from server.engine.events import (
    DoraRevealed,
    DrawReason,
    Event,
    HandDrawn,
    HandWon,
    MatchEnded,
    MatchStarted,
    MeldCalled,
    RiichiAccepted,
    RoundEnded,
    RoundStarted,
    TileDiscarded,
    TileDrawn,
    WallRevealed,
)
from server.engine.melds import Meld, MeldType
from server.engine.options import (
    call_options,
    chankan_options,
    counts_of,
    evaluate,
    held_counts,
    insert_sorted,
    kuikae_kinds,
    remove_all,
    remove_one,
    turn_options,
)
from server.engine.rules import GameLength, LeftoverSticks, Pao, Ruleset
from server.engine.scoring import WinSettlement, nagashi_payments, noten_payments, settle_wins
from server.engine.state import HandState, MatchState, Phase, Player, RiverTile, Transition, Window
from server.engine.tiles import DRAGONS, WINDS, Tile, is_terminal_or_honor, kind, sort_key, tile_name

ENGINE_VERSION = "1"


# ---------------------------------------------------------------------------------------------- API


@dataclasses.dataclass(frozen=True, slots=True)
class HandStart:
    """Where a match starts when it does not start at East 1 (replays of recorded hands)."""

    round_wind: int = 0
    kyoku: int = 0
    honba: int = 0
    riichi_sticks: int = 0
    scores: tuple[int, int, int, int] | None = None


def new_match(
    ruleset: Ruleset,
    seed: bytes,
    *,
    walls_: Sequence[Sequence[Tile]] | None = None,
    start: HandStart | None = None,
) -> Transition:
    """Start a match: the first hand is dealt and the dealer has drawn.

    ``walls_`` injects the wall of each hand in order (tests, tournaments, replays); a match that
    plays more hands than were injected raises :class:`WallError` when it runs out. ``start`` begins
    at another hand with given scores and sticks (replaying one recorded hand).
    """
    injected = None
    if walls_ is not None:
        injected = tuple(walls.validate_wall(w, ruleset.red_fives) for w in walls_)
    start = start or HandStart()
    if not (
        0 <= start.round_wind < 4 and 0 <= start.kyoku < 4 and start.honba >= 0 and start.riichi_sticks >= 0
    ):
        raise RulesError(f"invalid hand start {start!r}")
    scores = start.scores if start.scores is not None else (ruleset.start_points,) * 4
    if len(scores) != 4:
        raise RulesError(f"a hand start needs four scores, got {scores!r}")
    placeholder = HandState(
        hand_index=-1,
        round_wind=0,
        kyoku=0,
        honba=0,
        wall=(),
        salt=b"",
        commitment="",
        players=(Player(), Player(), Player(), Player()),
        phase=Phase.TURN,
        turn=0,
    )
    state = MatchState(
        ruleset=ruleset,
        seed=seed,
        injected_walls=injected,
        scores=(scores[0], scores[1], scores[2], scores[3]),
        riichi_sticks=start.riichi_sticks,
        step=0,
        hand=placeholder,
    )
    b = _Builder(state)
    b.emit(
        MatchStarted(
            ruleset_json=ruleset.to_json(),
            ruleset_hash=ruleset.hash,
            seed_commitment=walls.seed_commitment(seed),
            engine_version=ENGINE_VERSION,
            wall_algorithm=walls.WALL_ALGORITHM,
            scores=tuple(b.scores),
        )
    )
    b.start_hand(0, start.round_wind, start.kyoku, start.honba)
    return b.finish(step=0)


def legal_actions(state: MatchState, seat: int) -> frozenset[Action]:
    """Everything ``seat`` may do now (empty when it has no decision to make)."""
    window = state.hand.window
    if state.finished or window is None:
        return frozenset()
    answered = {s for s, _ in window.answers}
    for s, opts in window.options:
        if s == seat and s not in answered:
            return opts
    return frozenset()


def pending_seats(state: MatchState) -> tuple[int, ...]:
    """Seats that must still decide, in seat order."""
    window = state.hand.window
    if state.finished or window is None:
        return ()
    answered = {s for s, _ in window.answers}
    return tuple(s for s, _ in window.options if s not in answered)


def default_action(state: MatchState, seat: int) -> Action:
    """What a timeout means: tsumogiri (or the last legal discard) on a turn, pass in a window."""
    opts = legal_actions(state, seat)
    if not opts:
        raise NotYourTurnError(f"seat {seat} has no decision at step {state.step}")
    if Pass() in opts:
        return Pass()
    discards = sorted(
        (a for a in opts if isinstance(a, Discard)), key=lambda a: (a.tsumogiri, sort_key(a.tile))
    )
    return discards[-1]


def apply(state: MatchState, seat: int, action: Action) -> Transition:
    """Apply one seat's action; raises :class:`IllegalActionError` (state untouched) if not legal."""
    if not 0 <= seat < 4:
        raise NotYourTurnError(f"no seat {seat!r}")
    opts = legal_actions(state, seat)
    if not opts:
        raise NotYourTurnError(f"seat {seat} has no decision at step {state.step}")
    if action not in opts:
        raise IllegalActionError(f"illegal action {action!r} for seat {seat} at step {state.step}")
    b = _Builder(state)
    window = state.hand.window
    assert window is not None
    if state.hand.phase is Phase.TURN:
        b.turn_action(seat, action)
    else:
        answers = (*window.answers, (seat, action))
        b.hand = dataclasses.replace(b.hand, window=dataclasses.replace(window, answers=answers))
        if len(answers) == len(window.options):
            if state.hand.phase is Phase.CALLS:
                b.resolve_calls()
            else:
                b.resolve_chankan()
    return b.finish(step=state.step + 1)


# ------------------------------------------------------------------------------------------ builder

_SETATTR = object.__setattr__
_Slotted = TypeVar("_Slotted", HandState, Player)


def _clone(obj: _Slotted) -> _Slotted:
    """A shallow copy of a frozen slotted dataclass that only the builder will write to."""
    new = object.__new__(type(obj))
    for name in type(obj).__slots__:
        _SETATTR(new, name, getattr(obj, name))
    return new


class _Builder:
    """Scratch space for one transition; ``finish`` freezes it into the next state."""

    def __init__(self, state: MatchState) -> None:
        self.ruleset = state.ruleset
        self.state = state
        self.scores = list(state.scores)
        self.sticks = state.riichi_sticks
        # Copy-on-first-write: the builder mutates only its private copies (never the input state's
        # objects), and the copies escape only through ``finish``, frozen from then on. This avoids
        # a dataclasses.replace per field change, which was half of the engine's time.
        self.hand = _clone(state.hand)
        self.players = list(state.hand.players)
        self.owned = [False, False, False, False]
        self.finished = state.finished
        self.events: list[Event] = []

    # -- plumbing

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def set_hand(self, **changes: object) -> None:
        for name, value in changes.items():
            _SETATTR(self.hand, name, value)

    def set_player(self, seat: int, **changes: object) -> None:
        if not self.owned[seat]:
            self.players[seat] = _clone(self.players[seat])
            self.owned[seat] = True
        player = self.players[seat]
        for name, value in changes.items():
            _SETATTR(player, name, value)

    def new_players(self, players: list[Player]) -> None:
        self.players = players
        self.owned = [True, True, True, True]

    def frozen_hand(self) -> HandState:
        """The hand as options code reads it (the builder's own copy, with current players)."""
        p = self.players
        _SETATTR(self.hand, "players", (p[0], p[1], p[2], p[3]))
        return self.hand

    def finish(self, step: int) -> Transition:
        s = self.scores
        state = dataclasses.replace(
            self.state,
            scores=(s[0], s[1], s[2], s[3]),
            riichi_sticks=self.sticks,
            step=step,
            hand=self.frozen_hand(),
            finished=self.finished,
        )
        return Transition(state=state, events=tuple(self.events), step=step)

    def open_window(self, window: Window, phase: Phase, turn: int) -> None:
        self.set_hand(window=window, phase=phase, turn=turn)

    # -- dealing and drawing

    def start_hand(self, hand_index: int, round_wind: int, kyoku: int, honba: int) -> None:
        r = self.ruleset
        injected = self.state.injected_walls
        if injected is not None:
            if hand_index >= len(injected):
                raise WallError(f"hand {hand_index} needs a wall but only {len(injected)} were injected")
            wall = injected[hand_index]
        else:
            wall = walls.make_wall(self.state.seed, hand_index, r.red_fives)
        salt = walls.make_salt(self.state.seed, hand_index)
        commitment = walls.commitment(salt, wall)
        dealer = kyoku
        hands = walls.dealt_hands(wall, dealer)
        self.new_players([Player(hand=tuple(sorted(hands[s], key=sort_key))) for s in range(4)])
        self.hand = HandState(
            hand_index=hand_index,
            round_wind=round_wind,
            kyoku=kyoku,
            honba=honba,
            wall=wall,
            salt=salt,
            commitment=commitment,
            players=(Player(), Player(), Player(), Player()),
            phase=Phase.TURN,
            turn=dealer,
        )
        self.emit(
            RoundStarted(
                hand_index=hand_index,
                round_wind=round_wind,
                kyoku=kyoku,
                honba=honba,
                riichi_sticks=self.sticks,
                dealer=dealer,
                scores=tuple(self.scores),
                dora_indicator=wall[126],
                wall_commitment=commitment,
                hands=tuple(tuple(hands[s]) for s in range(4)),
            )
        )
        self.draw(dealer, rinshan=False)

    def draw(self, seat: int, *, rinshan: bool) -> None:
        h = self.hand
        if rinshan:
            tile = h.wall[122 + len(h.kans) - 1]
        else:
            tile = h.wall[52 + h.live_drawn]
            self.set_hand(live_drawn=h.live_drawn + 1)
        p = self.players[seat]
        self.set_player(seat, hand=insert_sorted(p.hand, tile), drawn=tile)
        self.set_hand(rinshan=rinshan, after_call=False, turn=seat)
        self.emit(TileDrawn(seat=seat, tile=tile, rinshan=rinshan))
        self.prompt_turn(seat)

    def prompt_turn(self, seat: int) -> None:
        opts = turn_options(self.frozen_hand(), self.ruleset, seat, self.scores[seat])
        self.open_window(Window(options=((seat, opts),)), Phase.TURN, seat)

    def reveal_dora(self, count: int = 1) -> None:
        for _ in range(count):
            n = self.hand.dora_revealed
            self.set_hand(dora_revealed=n + 1)
            self.emit(DoraRevealed(indicator=self.hand.wall[126 + n]))

    def flush_pending_dora(self) -> None:
        if self.hand.pending_dora:
            pending = self.hand.pending_dora
            self.set_hand(pending_dora=0)
            self.reveal_dora(pending)

    # -- a seat's own turn

    def turn_action(self, seat: int, action: Action) -> None:
        match action:
            case Discard(tile, tsumogiri):
                self.discard(seat, tile, tsumogiri, riichi=False)
            case Riichi(tile, tsumogiri):
                self.discard(seat, tile, tsumogiri, riichi=True)
            case Tsumo():
                drawn = self.players[seat].drawn
                assert drawn is not None
                self.win([(seat, seat, drawn, False)])
            case Ankan() | Kakan():
                self.declare_kan(seat, action)
            case KyuushuKyuuhai():
                p = self.players[seat]
                hands: list[tuple[Tile, ...] | None] = [None] * 4
                hands[seat] = p.hand
                self.abort(DrawReason.KYUUSHU_KYUUHAI, hands)
            case _:  # pragma: no cover - turn options contain nothing else
                raise IllegalActionError(f"{action!r} is not a turn action")

    def discard(self, seat: int, tile: Tile, tsumogiri: bool, *, riichi: bool) -> None:
        p = self.players[seat]
        sideways = riichi or p.sideways_pending
        self.set_player(
            seat,
            hand=remove_one(p.hand, tile),
            drawn=None,
            river=(*p.river, RiverTile(tile=tile, tsumogiri=tsumogiri, sideways=sideways)),
            discarded_kinds=p.discarded_kinds | {kind(tile)},
            furiten_temp=False,
            kuikae=frozenset(),
            sideways_pending=p.sideways_pending and not sideways,
            # Ippatsu lasts until the declarer's next discard (000).
            ippatsu=False,
        )
        self.emit(TileDiscarded(seat=seat, tile=tile, tsumogiri=tsumogiri, riichi=riichi))
        # Open-kan dora flip after the kan player's discard, before anyone may claim it.
        self.flush_pending_dora()
        h = self.frozen_hand()
        options = []
        for off in (1, 2, 3):
            s = (seat + off) % 4
            opts = call_options(h, self.ruleset, s, tile, seat)
            if opts:
                options.append((s, opts))
        window = Window(options=tuple(options), tile=tile, from_seat=seat, riichi=riichi)
        if options:
            self.open_window(window, Phase.CALLS, seat)
        else:
            self.set_hand(window=window)
            self.discard_passed(window, ())

    # -- call windows

    def resolve_calls(self) -> None:
        window = self.hand.window
        assert window is not None
        answers = dict(window.answers)
        order = [(window.from_seat + off) % 4 for off in (1, 2, 3)]
        rons = [s for s in order if isinstance(answers.get(s), Ron)]
        if rons:
            self.ron(rons, window, chankan=False)
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
        self.discard_passed(window, () if call is None else (call,))

    def ron(self, rons: list[int], window: Window, *, chankan: bool) -> None:
        r = self.ruleset
        if len(rons) == 3 and r.abort_sanchahou:
            hands: list[tuple[Tile, ...] | None] = [None] * 4
            for s in rons:
                hands[s] = self.players[s].hand
            self.abort(DrawReason.SANCHAHOU, hands)
            return
        limit = {"head_bump": 1, "double": 2, "triple": 3}[str(r.multiple_ron)]
        self.win([(s, window.from_seat, window.tile, chankan) for s in rons[:limit]])

    def mark_passed_winning_tile(self, tile: Tile, discarder: int) -> None:
        """Seats for which ``tile`` completes the hand and who did not win become furiten (002)."""
        for s in range(4):
            if s == discarder:
                continue
            p = self.players[s]
            if kind(tile) in analysis.waits(counts_of(p.hand)):
                if p.riichi:
                    self.set_player(s, furiten_riichi=True)
                else:
                    self.set_player(s, furiten_temp=True)

    def discard_passed(self, window: Window, calls: tuple[tuple[int, Action], ...]) -> None:
        """Nobody won on the discard: accept riichi, check aborts, perform a call or draw on."""
        r = self.ruleset
        seat = window.from_seat
        self.mark_passed_winning_tile(window.tile, seat)
        if window.riichi:
            p = self.players[seat]
            double = self.hand.no_calls and len(p.river) == 1
            self.scores[seat] -= 1000
            self.sticks += 1
            self.set_player(seat, riichi=True, double_riichi=double, ippatsu=True)
            self.emit(RiichiAccepted(seat=seat, scores=tuple(self.scores), riichi_sticks=self.sticks))
            if r.abort_suucha_riichi and all(pl.riichi for pl in self.players):
                self.abort(DrawReason.SUUCHA_RIICHI, [pl.hand for pl in self.players])
                return
        h = self.hand
        if r.abort_suukaikan and len(h.kans) == 4 and len(set(h.kans)) > 1:
            self.abort(DrawReason.SUUKAIKAN, [None] * 4)
            return
        if (
            r.abort_suufon_renda
            and h.no_calls
            and all(len(pl.river) == 1 for pl in self.players)
            and len({pl.river[0].tile for pl in self.players}) == 1
            and self.players[0].river[0].tile in WINDS
        ):
            self.abort(DrawReason.SUUFON_RENDA, [None] * 4)
            return
        if calls:
            caller, action = calls[0]
            self.call(caller, action, window)
            return
        if h.live_remaining == 0:
            self.exhaustive_draw()
            return
        self.draw((seat + 1) % 4, rinshan=False)

    def call(self, seat: int, action: Action, window: Window) -> None:
        r = self.ruleset
        tile, discarder = window.tile, window.from_seat
        assert isinstance(action, Chi | Pon | Daiminkan)
        consumed: tuple[Tile, ...] = action.consumed
        mtype = {Chi: MeldType.CHI, Pon: MeldType.PON, Daiminkan: MeldType.DAIMINKAN}[type(action)]
        meld = Meld(
            type=mtype,
            tiles=tuple(sorted((*consumed, tile), key=sort_key)),
            called=tile,
            from_seat=discarder,
        )
        d = self.players[discarder]
        last = d.river[-1]
        self.set_player(
            discarder,
            river=(*d.river[:-1], dataclasses.replace(last, called=True)),
            # A called riichi tile: the declarer's next discard is laid sideways instead (002).
            sideways_pending=d.sideways_pending or last.sideways,
        )
        p = self.players[seat]
        self.set_player(seat, hand=remove_all(p.hand, consumed), melds=(*p.melds, meld), drawn=None)
        for s in range(4):  # any call ends every ippatsu (000)
            if self.players[s].ippatsu:
                self.set_player(s, ippatsu=False)
        self.set_hand(no_calls=False)
        self.check_pao(seat, discarder, meld)
        self.emit(MeldCalled(seat=seat, type=mtype, meld=meld, tile=tile, consumed=consumed))
        if mtype is MeldType.DAIMINKAN:
            self.complete_kan(seat, meld)
            return
        self.set_player(seat, kuikae=kuikae_kinds(r, tile, consumed, mtype is MeldType.CHI))
        self.set_hand(after_call=True, rinshan=False)
        self.prompt_turn(seat)

    def check_pao(self, seat: int, discarder: int, meld: Meld) -> None:
        """Feeding the last dragon/wind set (or the fourth kan) makes the discarder liable."""
        r = self.ruleset
        melds = self.players[seat].melds
        triplets = [m.kind for m in melds if m.type is not MeldType.CHI]
        liable: str | None = None
        if Pao.DAISANGEN in r.pao and meld.kind in DRAGONS and sum(k in DRAGONS for k in triplets) == 3:
            liable = "daisangen"
        elif Pao.DAISUUSHII in r.pao and meld.kind in WINDS and sum(k in WINDS for k in triplets) == 4:
            liable = "daisuushii"
        elif Pao.SUUKANTSU in r.pao and meld.type is MeldType.DAIMINKAN and sum(m.is_kan for m in melds) == 4:
            liable = "suukantsu"
        if liable is not None:
            self.set_player(seat, pao_seat=discarder, pao_yakuman=liable)

    # -- kans

    def declare_kan(self, seat: int, action: Ankan | Kakan) -> None:
        self.flush_pending_dora()
        p = self.players[seat]
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
        self.set_player(seat, hand=remove_all(p.hand, consumed), melds=melds, drawn=None)
        self.emit(MeldCalled(seat=seat, type=meld.type, meld=meld, tile=event_tile, consumed=consumed))
        h = self.frozen_hand()
        closed = isinstance(action, Ankan)
        options = []
        for off in (1, 2, 3):
            s = (seat + off) % 4
            opts = chankan_options(h, self.ruleset, s, tile, closed_kan=closed)
            if opts:
                options.append((s, opts))
        window = Window(options=tuple(options), tile=tile, from_seat=seat, kan=meld, kan_consumed=consumed)
        if options:
            self.open_window(window, Phase.CHANKAN, seat)
        else:
            self.set_hand(window=window)
            self.kan_passed(window)

    def resolve_chankan(self) -> None:
        window = self.hand.window
        assert window is not None
        answers = dict(window.answers)
        order = [(window.from_seat + off) % 4 for off in (1, 2, 3)]
        rons = [s for s in order if isinstance(answers.get(s), Ron)]
        if rons:
            self.ron(rons, window, chankan=True)
        else:
            self.kan_passed(window)

    def kan_passed(self, window: Window) -> None:
        self.mark_passed_winning_tile(window.tile, window.from_seat)
        assert window.kan is not None
        self.complete_kan(window.from_seat, window.kan)

    def complete_kan(self, seat: int, meld: Meld) -> None:
        """The kan stands: ippatsu ends for all, a dora is (or will be) flipped, rinshan draw."""
        for s in range(4):
            if self.players[s].ippatsu:
                self.set_player(s, ippatsu=False)
        self.set_hand(no_calls=False, kans=(*self.hand.kans, seat))
        if meld.type is MeldType.ANKAN or str(self.ruleset.open_kan_dora) == "immediate":
            self.reveal_dora()
        else:
            self.set_hand(pending_dora=self.hand.pending_dora + 1)
        self.draw(seat, rinshan=True)

    # -- hand endings

    def win(self, wins: list[tuple[int, int, Tile, bool]]) -> None:
        """``wins``: (winner, from seat, tile, chankan) ordered from the discarder's right."""
        h = self.frozen_hand()
        settlements: list[WinSettlement] = []
        details = []
        for winner, from_seat, tile, chankan in wins:
            tsumo = winner == from_seat
            value = evaluate(h, self.ruleset, winner, tile, tsumo=tsumo, chankan=chankan)
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
            settlements, dealer=h.dealer, honba=h.honba, riichi_sticks=self.sticks, ruleset=self.ruleset
        )
        self.sticks = 0
        n_ind = h.dora_revealed
        for (winner, from_seat, tile, value, pao, tsumo), deltas in zip(details, all_deltas, strict=True):
            for s in range(4):
                self.scores[s] += deltas[s]
            p = h.players[winner]
            shown = p.hand if tsumo else insert_sorted(p.hand, tile)
            ura: tuple[Tile, ...] = ()
            if p.riichi:
                ura = tuple(h.wall[131 + i] for i in range(n_ind if self.ruleset.kan_ura else 1))
            self.emit(
                HandWon(
                    seat=winner,
                    from_seat=from_seat,
                    win_tile=tile,
                    hand=shown,
                    melds=p.melds,
                    yaku=value.yaku,
                    han=value.han,
                    fu=value.fu,
                    points=_hand_points(value.base_points, winner == h.dealer, tsumo),
                    limit=value.limit,
                    yakuman=value.yakuman,
                    dora_indicators=tuple(h.wall[126 + i] for i in range(n_ind)),
                    ura_indicators=ura,
                    pao_seat=pao,
                    deltas=tuple(deltas),
                    scores=tuple(self.scores),
                )
            )
        dealer_won = any(w[0] == h.dealer for w in wins)
        self.end_hand(renchan=dealer_won, honba_up=dealer_won, won=True)

    def exhaustive_draw(self) -> None:
        r = self.ruleset
        tenpai = []
        shown: list[tuple[Tile, ...] | None] = []
        for p in self.players:
            t = analysis.tenpai_for_draw(counts_of(p.hand), held_counts(p))
            tenpai.append(t)
            shown.append(p.hand if t else None)
        nagashi = tuple(
            s
            for s, p in enumerate(self.players)
            if r.nagashi_mangan
            and p.river
            and all(is_terminal_or_honor(kind(rt.tile)) and not rt.called for rt in p.river)
        )
        if nagashi:
            deltas = nagashi_payments(nagashi, dealer=self.hand.dealer, ruleset=r)
        else:
            deltas = noten_payments(tenpai, ruleset=r)
        for s in range(4):
            self.scores[s] += deltas[s]
        self.emit(
            HandDrawn(
                reason=DrawReason.EXHAUSTIVE,
                tenpai=tuple(tenpai),
                hands=tuple(shown),
                nagashi=nagashi,
                deltas=tuple(deltas),
                scores=tuple(self.scores),
            )
        )
        dealer_tenpai = tenpai[self.hand.dealer]
        self.end_hand(renchan=dealer_tenpai, honba_up=True, won=False, tenpai_draw=dealer_tenpai)

    def abort(self, reason: DrawReason, hands: Sequence[tuple[Tile, ...] | None]) -> None:
        self.emit(
            HandDrawn(
                reason=reason,
                tenpai=(False,) * 4,
                hands=tuple(hands),
                nagashi=(),
                deltas=(0, 0, 0, 0),
                scores=tuple(self.scores),
            )
        )
        self.end_hand(renchan=True, honba_up=True, won=False, aborted=True)

    def end_hand(
        self,
        *,
        renchan: bool,
        honba_up: bool,
        won: bool,
        tenpai_draw: bool = False,
        aborted: bool = False,
    ) -> None:
        h = self.hand
        self.emit(WallRevealed(salt=h.salt.hex(), wall=h.wall, wall_commitment=h.commitment))
        self.emit(RoundEnded(scores=tuple(self.scores), riichi_sticks=self.sticks))
        self.set_hand(window=None)
        nxt = _next_hand(self.ruleset, self.scores, h, renchan=renchan, won=won, tenpai=tenpai_draw)
        if aborted:
            nxt = (h.round_wind, h.kyoku)
        if nxt is None:
            self.end_match()
            return
        round_wind, kyoku = nxt
        honba = h.honba + 1 if honba_up else 0
        self.start_hand(h.hand_index + 1, round_wind, kyoku, honba)

    def end_match(self) -> None:
        r = self.ruleset
        order = sorted(range(4), key=lambda s: (-self.scores[s], s))
        if self.sticks and r.leftover_sticks is LeftoverSticks.TO_TOP:
            self.scores[order[0]] += 1000 * self.sticks
        self.sticks = 0
        order = sorted(range(4), key=lambda s: (-self.scores[s], s))
        ranks = [0] * 4
        for rank, s in enumerate(order):
            ranks[s] = rank + 1
        oka = (r.return_points - r.start_points) * 4 / 1000 if r.oka else 0.0
        final = []
        for s in range(4):
            pts = (self.scores[s] - r.return_points) / 1000 + r.uma[ranks[s] - 1]
            if ranks[s] == 1:
                pts += oka
            final.append(round(pts, 1))
        self.emit(
            MatchEnded(
                scores=tuple(self.scores),
                ranks=tuple(ranks),
                final_points=tuple(final),
                seed=self.state.seed.hex(),
            )
        )
        self.finished = True
        self.set_hand(phase=Phase.FINISHED, window=None)


def _hand_points(base: int, dealer: bool, tsumo: bool) -> int:
    """The nominal value of a hand (what a ron would pay, or the tsumo total), before honba/sticks."""

    def up(x: int) -> int:
        return -(-x // 100) * 100

    if not tsumo:
        return up(base * (6 if dealer else 4))
    if dealer:
        return up(base * 2) * 3
    return up(base * 2) + up(base) * 2


def _next_hand(
    r: Ruleset, scores: Sequence[int], h: HandState, *, renchan: bool, won: bool, tenpai: bool
) -> tuple[int, int] | None:
    """(round wind, kyoku) of the next hand, or None when the match is over."""
    if r.tobi and any(s < r.tobi_below for s in scores):
        return None
    last_wind = 0 if r.game_length is GameLength.EAST else 1
    current = h.round_wind * 4 + h.kyoku
    last = last_wind * 4 + 3
    dealer = h.dealer
    top = min(range(4), key=lambda s: (-scores[s], s))
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
            if current >= last + 4:  # the extension (one more round wind) is over
                return None
        if current > last and renchan and over_target and dealer_top:
            return None
    if renchan:
        return (h.round_wind, h.kyoku)
    nxt = current + 1
    return (nxt // 4, nxt % 4)


__all__ = [
    "ENGINE_VERSION",
    "apply",
    "default_action",
    "legal_actions",
    "new_match",
    "pending_seats",
    "tile_name",
]
