"""A table's stream overlay: a small read-only JSON document for a broadcast's on-screen graphics.

``GET /tables/{match_id}/overlay`` (docs/social.md#spectating-for-streams) answers it: the
round, the scores, each seat's discards, melds, riichi and north bonus tiles, the dora indicators
and the last hand's result. It is projected only from the events the table's spectator delay has
released (:class:`server.hub.spectators.SpectatorFeed`), redacted as for any spectator, so it holds
nothing a spectator could not see at the same moment: no concealed tile, no draw, no wall.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from server.engine.events import (
    DoraRevealed,
    Event,
    HandDrawn,
    HandWon,
    MatchEnded,
    MeldCalled,
    NorthDeclared,
    RiichiAccepted,
    RoundEnded,
    RoundStarted,
    TileDiscarded,
)
from server.engine.melds import MeldType
from server.engine.tiles import kind, tile_name

if TYPE_CHECKING:
    from server.services.tables import SpectatePolicy

WINDS = ("east", "south", "west", "north")


class _Seat:
    __slots__ = ("discards", "melds", "norths", "riichi")

    def __init__(self) -> None:
        self.discards: list[dict[str, Any]] = []
        self.melds: list[dict[str, Any]] = []
        self.norths = 0
        self.riichi = False


class Overlay:
    """The overlay's state, moved on by the released public events (:meth:`apply`)."""

    __slots__ = ("_dora", "_final", "_last", "_round", "_scores", "_seats", "match_id", "players", "version")

    def __init__(self, match_id: str, players: tuple[str, ...]) -> None:
        self.match_id = match_id
        self.players = players
        self.version = 0
        self._seats = [_Seat() for _ in players]
        self._scores: list[int] = []
        self._round: dict[str, Any] | None = None
        self._dora: list[str] = []
        self._last: dict[str, Any] | None = None
        self._final: dict[str, Any] | None = None

    def apply(self, events: Iterable[Event], version: int) -> None:
        for event in events:
            self._apply(event)
        self.version = version

    def _apply(self, event: Event) -> None:
        if isinstance(event, RoundStarted):
            self._seats = [_Seat() for _ in self.players]
            self._scores = list(event.scores)
            self._dora = [tile_name(event.dora_indicator)]
            self._round = {
                "wind": WINDS[event.round_wind],
                "kyoku": event.kyoku + 1,
                "honba": event.honba,
                "riichi_sticks": event.riichi_sticks,
                "dealer": event.dealer,
            }
        elif isinstance(event, TileDiscarded):
            self._seats[event.seat].discards.append(
                {
                    "tile": tile_name(event.tile),
                    "tsumogiri": event.tsumogiri,
                    "riichi": event.riichi,
                    "called": False,
                }
            )
        elif isinstance(event, RiichiAccepted):
            self._seats[event.seat].riichi = True
            self._scores = list(event.scores)
            if self._round is not None:
                self._round["riichi_sticks"] = event.riichi_sticks
        elif isinstance(event, MeldCalled):
            self._meld(event)
        elif isinstance(event, NorthDeclared):
            self._seats[event.seat].norths += 1
        elif isinstance(event, DoraRevealed):
            self._dora.append(tile_name(event.indicator))
        elif isinstance(event, HandWon):
            self._scores = list(event.scores)
            self._last = {
                "result": "win",
                "seat": event.seat,
                "from_seat": event.from_seat,
                "han": event.han,
                "fu": event.fu,
                "points": event.points,
                "limit": event.limit,
                "yaku": [y.name for y in event.yaku],
                "deltas": list(event.deltas),
            }
        elif isinstance(event, HandDrawn):
            self._scores = list(event.scores)
            self._last = {"result": "draw", "reason": str(event.reason), "deltas": list(event.deltas)}
        elif isinstance(event, RoundEnded):
            self._scores = list(event.scores)
            if self._round is not None:
                self._round["riichi_sticks"] = event.riichi_sticks
        elif isinstance(event, MatchEnded):
            self._scores = list(event.scores)
            self._final = {
                "scores": list(event.scores),
                "ranks": list(event.ranks),
                "final_points": list(event.final_points),
            }

    def _meld(self, event: MeldCalled) -> None:
        meld = event.meld
        owner = self._seats[event.seat]
        if event.type is MeldType.KAKAN:  # the pon it upgrades becomes the four-tile meld
            upgraded = {kind(t) for t in meld.tiles}
            for i, shown in enumerate(owner.melds):
                if shown["type"] == MeldType.PON.value and shown["kind"] == upgraded:
                    del owner.melds[i]
                    break
        owner.melds.append(
            {
                "type": event.type.value,
                "tiles": [tile_name(t) for t in meld.tiles],
                "from_seat": meld.from_seat,
                "kind": {kind(t) for t in meld.tiles},
            }
        )
        if meld.called is not None and event.type is not MeldType.KAKAN and meld.from_seat != event.seat:
            river = self._seats[meld.from_seat].discards
            if river:
                river[-1]["called"] = True

    def document(self, policy: SpectatePolicy) -> dict[str, Any]:
        scores: list[int | None] = list(self._scores) or [None] * len(self.players)
        return {
            "match_id": self.match_id,
            "version": self.version,
            "delay": {"steps": policy.delay_steps, "seconds": policy.delay_s, "hands": policy.delay_hands},
            "round": self._round,
            "dora_indicators": list(self._dora),
            "seats": [
                {
                    "seat": i,
                    "name": name,
                    "score": scores[i],
                    "riichi": seat.riichi,
                    "discards": [dict(d) for d in seat.discards],
                    "melds": [{k: v for k, v in m.items() if k != "kind"} for m in seat.melds],
                    "norths": seat.norths,
                }
                for i, (name, seat) in enumerate(zip(self.players, self._seats, strict=True))
            ],
            "last_hand": self._last,
            "final": self._final,
        }
