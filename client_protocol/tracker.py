"""Fold a match's event stream into the receiver's :class:`~client_protocol.seatview.SeatView`.

The server's ``snapshot`` is defined as this fold, so a client that keeps a tracker can check a
snapshot against its own state, and a client that resumes from a snapshot continues from
:meth:`MatchTracker.from_snapshot` exactly as if it had seen every event.

>>> tracker = MatchTracker("m1", seat=0)
>>> tracker.version, tracker.view().round is None
(0, True)
"""

from __future__ import annotations

from typing import assert_never

import msgspec

from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.events import (
    DoraRevealed,
    Event,
    HandDrawn,
    HandWon,
    MatchEnded,
    MatchStarted,
    Meld,
    MeldCalled,
    MeldType,
    NorthDeclared,
    RiichiAccepted,
    RoundEnded,
    RoundStarted,
    TileDiscarded,
    TileDrawn,
    WallRevealed,
)
from client_protocol.messages import EventMessage, Snapshot
from client_protocol.seatview import RiverTile, RoundInfo, SeatState, SeatView

LIVE_WALL_DRAWS = 70  # 136 tiles - 4 x 13 dealt - 14 in the dead wall
LIVE_WALL_DRAWS_3 = 55  # three seats: 108 tiles (no 2m-8m) - 3 x 13 dealt - 14
"""Draws from the live wall in a hand without kans: 136 tiles - 14 in the dead wall - 4 x 13 dealt.
Each kan moves one more tile from the live wall's end to the dead wall, so it counts as one draw."""

_SUITS = "mpsz"


def tile_sort_key(tile: str) -> tuple[int, int, int]:
    """Display order: by suit (m, p, s, z), then number; a red five just after its plain fives.

    >>> sorted(["0p", "5p", "1z", "9m"], key=tile_sort_key)
    ['9m', '5p', '0p', '1z']
    """
    digit = int(tile[0])
    return (_SUITS.index(tile[1]), digit or 5, 1 if digit == 0 else 0)


def _kind(tile: str) -> str:
    """The tile with a red five read as its plain five."""
    return "5" + tile[1] if tile[0] == "0" else tile


class MatchTracker:
    """The receiver's view of one match, updated event by event (mutable; :meth:`view` copies out)."""

    def __init__(self, match_id: str, seat: int | None) -> None:
        self.match_id = match_id
        self.seat = seat
        self.version = 0
        self._match: MatchStarted | None = None
        self._scores: tuple[int, ...] = ()
        self._round: RoundInfo | None = None
        self._dora: list[str] = []
        self._tiles_left = 0
        self._turn: int | None = None
        self._hands: list[list[str] | None] = []
        self._drawn: list[str | None] = []
        self._hand_sizes: list[int] = []
        self._melds: list[list[Meld]] = []
        self._rivers: list[list[RiverTile]] = []
        self._riichi: list[bool] = []
        self._norths: list[int] = []  # norths set aside this hand, per seat (three players)
        self._results: list[HandWon | HandDrawn] = []
        self._match_result: MatchEnded | None = None

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot) -> MatchTracker:
        """A tracker that continues from a snapshot."""
        view = snapshot.view
        tracker = cls(snapshot.match_id, view.seat)
        tracker.version = snapshot.version
        tracker._match = view.match
        tracker._scores = view.scores
        tracker._round = view.round
        tracker._dora = list(view.dora_indicators)
        tracker._tiles_left = view.tiles_left
        tracker._turn = view.turn
        tracker._hands = [None if s.hand is None else list(s.hand) for s in view.seats]
        tracker._drawn = [s.drawn for s in view.seats]
        tracker._hand_sizes = [s.hand_size for s in view.seats]
        tracker._melds = [list(s.melds) for s in view.seats]
        tracker._rivers = [list(s.river) for s in view.seats]
        tracker._riichi = [s.riichi for s in view.seats]
        tracker._norths = [s.norths for s in view.seats]
        tracker._results = list(view.results)
        tracker._match_result = view.match_result
        return tracker

    def view(self) -> SeatView:
        seats = tuple(
            SeatState(
                seat=s,
                hand=None if hand is None else tuple(hand),
                drawn=self._drawn[s],
                hand_size=self._hand_sizes[s],
                melds=tuple(self._melds[s]),
                river=tuple(self._rivers[s]),
                riichi=self._riichi[s],
                norths=self._norths[s],
            )
            for s, hand in enumerate(self._hands)
        )
        return SeatView(
            seat=self.seat,
            match=self._match,
            scores=self._scores,
            round=self._round,
            dora_indicators=tuple(self._dora),
            tiles_left=self._tiles_left,
            turn=self._turn,
            seats=seats,
            results=tuple(self._results),
            match_result=self._match_result,
        )

    def snapshot(self) -> Snapshot:
        """The ``snapshot`` message of the current state."""
        return Snapshot(match_id=self.match_id, version=self.version, view=self.view())

    def apply(self, message: EventMessage) -> bool:
        """Fold one event message; returns False (and changes nothing) for an already seen version.

        Raises :class:`ProtocolError` for another match's event or a gap in the versions (the client
        should then ``resume``).
        """
        if message.match_id != self.match_id:
            raise ProtocolError(
                ErrorCode.MALFORMED,
                f"event of match {message.match_id!r} given to tracker of {self.match_id!r}",
            )
        if message.version <= self.version:
            return False
        if message.version != self.version + 1:
            raise ProtocolError(
                ErrorCode.MALFORMED,
                f"event version {message.version} after {self.version}: events are missing",
            )
        self.fold(message.event)
        self.version = message.version
        return True

    def fold(self, event: Event) -> None:
        """Update the view with one event (no version bookkeeping).

        Raises :class:`ProtocolError` for an event that cannot follow the ones before it.
        """
        seat_ = getattr(event, "seat", None)
        if seat_ is not None and not 0 <= seat_ < len(self._hands):
            raise ProtocolError(
                ErrorCode.MALFORMED, f"{type(event).__name__} for seat {seat_} outside a dealt hand"
            )
        match event:
            case MatchStarted():
                self._match = event
                self._scores = event.scores
            case RoundStarted():
                self._start_round(event)
            case TileDrawn(seat=seat, tile=tile):
                if not event.rinshan:  # a kan already paid for its replacement tile
                    self._tiles_left -= 1
                self._turn = seat
                self._hand_sizes[seat] += 1
                self._drawn[seat] = tile
                hand = self._hands[seat]
                if hand is not None and tile is not None:
                    hand.append(tile)
                    hand.sort(key=tile_sort_key)
            case TileDiscarded(seat=seat, tile=tile):
                self._turn = seat
                self._hand_sizes[seat] -= 1
                self._drawn[seat] = None
                self._take(seat, (tile,))
                river = self._rivers[seat]
                sideways = event.riichi or (
                    any(t.riichi and t.called for t in river) and not any(t.sideways for t in river)
                )
                river.append(
                    RiverTile(
                        tile=tile,
                        tsumogiri=event.tsumogiri,
                        riichi=event.riichi,
                        sideways=sideways,
                        called=False,
                    )
                )
            case RiichiAccepted(seat=seat):
                self._riichi[seat] = True
                self._scores = event.scores
                if self._round is not None:
                    self._round = msgspec.structs.replace(self._round, riichi_sticks=event.riichi_sticks)
            case MeldCalled():
                self._meld(event)
            case NorthDeclared(seat=seat, tile=tile):
                self._tiles_left -= 1  # its replacement comes from the dead wall, which takes one
                self._hand_sizes[seat] -= 1
                self._drawn[seat] = None
                self._take(seat, (tile,))
                self._norths[seat] += 1
            case DoraRevealed(indicator=indicator):
                self._dora.append(indicator)
            case HandWon() | HandDrawn():
                self._results.append(event)
                self._scores = event.scores
            case WallRevealed():
                pass  # public proof of the deal; nothing in the view changes
            case RoundEnded():
                self._scores = event.scores
                if self._round is not None:
                    self._round = msgspec.structs.replace(self._round, riichi_sticks=event.riichi_sticks)
            case MatchEnded():
                self._match_result = event
                self._scores = event.scores
            case _:
                assert_never(event)

    def _start_round(self, event: RoundStarted) -> None:
        n = len(event.hands)
        self._round = RoundInfo(
            hand_index=event.hand_index,
            round_wind=event.round_wind,
            kyoku=event.kyoku,
            honba=event.honba,
            riichi_sticks=event.riichi_sticks,
            dealer=event.dealer,
            wall_commitment=event.wall_commitment,
        )
        self._scores = event.scores
        self._dora = [event.dora_indicator]
        self._tiles_left = LIVE_WALL_DRAWS if n == 4 else LIVE_WALL_DRAWS_3
        self._turn = None
        self._hands = [None if h is None else sorted(h, key=tile_sort_key) for h in event.hands]
        self._drawn = [None] * n
        self._hand_sizes = [13 if h is None else len(h) for h in event.hands]
        self._melds = [[] for _ in range(n)]
        self._rivers = [[] for _ in range(n)]
        self._riichi = [False] * n
        self._norths = [0] * n
        self._results = []

    def _meld(self, event: MeldCalled) -> None:
        seat, meld = event.seat, event.meld
        self._turn = seat
        if event.meld_type in (MeldType.DAIMINKAN, MeldType.ANKAN, MeldType.KAKAN):
            self._tiles_left -= 1
        self._hand_sizes[seat] -= len(event.consumed)
        self._drawn[seat] = None
        self._take(seat, event.consumed)
        melds = self._melds[seat]
        if event.meld_type is MeldType.KAKAN:
            kind = _kind(meld.tiles[0])
            for i, old in enumerate(melds):
                if old.type is MeldType.PON and _kind(old.tiles[0]) == kind:
                    melds[i] = meld
                    break
            else:
                raise ProtocolError(ErrorCode.MALFORMED, f"kakan by seat {seat} without a pon of {kind}")
        else:
            melds.append(meld)
        if event.meld_type in (MeldType.CHI, MeldType.PON, MeldType.DAIMINKAN):
            if not 0 <= meld.from_seat < len(self._rivers):
                raise ProtocolError(ErrorCode.MALFORMED, f"call from seat {meld.from_seat} outside the table")
            river = self._rivers[meld.from_seat]
            if not river:
                raise ProtocolError(
                    ErrorCode.MALFORMED, f"call from seat {meld.from_seat}, whose river is empty"
                )
            river[-1] = msgspec.structs.replace(river[-1], called=True, sideways=False)

    def _take(self, seat: int, tiles: tuple[str, ...]) -> None:
        hand = self._hands[seat]
        if hand is None:
            return
        for tile in tiles:
            try:
                hand.remove(tile)
            except ValueError:
                raise ProtocolError(
                    ErrorCode.MALFORMED, f"seat {seat} gives up {tile} that is not in its hand {hand}"
                ) from None
