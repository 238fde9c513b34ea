"""MatchTracker: folding a seat's event stream into the view a snapshot carries."""

from __future__ import annotations

import msgspec
import pytest

from client_protocol import events as w
from client_protocol.codec import decode_server, encode
from client_protocol.errors import ProtocolError
from client_protocol.messages import EventMessage, Snapshot
from client_protocol.seatview import RiverTile
from client_protocol.tracker import LIVE_WALL_DRAWS, MatchTracker, tile_sort_key
from tests.protocol.samples import MATCH_STARTED

SCORES = (25000, 25000, 25000, 25000)
OWN_HAND = ("9m", "1z", "5p", "0p", "5p", "1m", "2m", "3m", "7s", "8s", "9s", "2z", "2z")
PON = w.Meld(type=w.MeldType.PON, tiles=("5p", "5p", "0p"), called="0p", from_seat=0)
KAKAN = w.Meld(type=w.MeldType.KAKAN, tiles=("5p", "5p", "5p", "0p"), called="0p", from_seat=0, added="5p")


def _stream() -> list[w.Event]:
    """Seat 0 declares riichi with the red five; seat 1 pons it, later upgrades to a kan; seat 0 wins."""
    return [
        MATCH_STARTED,
        w.RoundStarted(
            hand_index=0,
            round_wind=0,
            kyoku=0,
            honba=0,
            riichi_sticks=0,
            dealer=0,
            scores=SCORES,
            dora_indicator="9s",
            wall_commitment="ef" * 32,
            hands=(OWN_HAND, None, None, None),
        ),
        w.TileDrawn(seat=0, tile="4z", rinshan=False),
        w.TileDiscarded(seat=0, tile="4z", tsumogiri=True, riichi=False),
        w.TileDrawn(seat=1, tile=None, rinshan=False),
        w.TileDiscarded(seat=1, tile="1s", tsumogiri=False, riichi=False),
        w.TileDrawn(seat=2, tile=None, rinshan=False),
        w.TileDiscarded(seat=2, tile="2s", tsumogiri=False, riichi=False),
        w.TileDrawn(seat=3, tile=None, rinshan=False),
        w.TileDiscarded(seat=3, tile="3s", tsumogiri=True, riichi=False),
        w.TileDrawn(seat=0, tile="6p", rinshan=False),
        w.TileDiscarded(seat=0, tile="0p", tsumogiri=False, riichi=True),
        w.RiichiAccepted(seat=0, scores=(24000, 25000, 25000, 25000), riichi_sticks=1),
        w.MeldCalled(seat=1, meld_type=w.MeldType.PON, meld=PON, tile="0p", consumed=("5p", "5p")),
        w.TileDiscarded(seat=1, tile="9p", tsumogiri=False, riichi=False),
        w.TileDrawn(seat=2, tile=None, rinshan=False),
        w.TileDiscarded(seat=2, tile="9p", tsumogiri=True, riichi=False),
        w.TileDrawn(seat=3, tile=None, rinshan=False),
        w.TileDiscarded(seat=3, tile="9p", tsumogiri=True, riichi=False),
        w.TileDrawn(seat=0, tile="7z", rinshan=False),
        w.TileDiscarded(seat=0, tile="7z", tsumogiri=True, riichi=False),
        w.TileDrawn(seat=1, tile=None, rinshan=False),
        w.MeldCalled(seat=1, meld_type=w.MeldType.KAKAN, meld=KAKAN, tile="5p", consumed=("5p",)),
        w.TileDrawn(seat=1, tile=None, rinshan=True),
        w.DoraRevealed(indicator="3z"),
        w.TileDiscarded(seat=1, tile="4m", tsumogiri=True, riichi=False),
        w.TileDrawn(seat=2, tile=None, rinshan=False),
        w.TileDiscarded(seat=2, tile="4m", tsumogiri=False, riichi=False),
        w.TileDrawn(seat=3, tile=None, rinshan=False),
        w.TileDiscarded(seat=3, tile="4m", tsumogiri=False, riichi=False),
        w.TileDrawn(seat=0, tile="4p", rinshan=False),
        w.HandWon(
            seat=0,
            from_seat=0,
            win_tile="4p",
            hand=("1m", "2m", "3m", "9m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "2z", "2z"),
            melds=(),
            yaku=(w.Yaku(name="riichi", han=1), w.Yaku(name="menzen_tsumo", han=1)),
            han=2,
            fu=40,
            points=3900,
            limit="",
            yakuman=0,
            dora_indicators=("9s", "3z"),
            ura_indicators=("1m", "1m"),
            pao_seat=None,
            deltas=(4900, -1300, -1300, -1300),
            scores=(28900, 23700, 23700, 23700),
        ),
        w.WallRevealed(salt="00", wall=("1m",) * 136, wall_commitment="ef" * 32),
        w.RoundEnded(scores=(28900, 23700, 23700, 23700), riichi_sticks=0),
        w.MatchEnded(
            scores=(28900, 23700, 23700, 23700),
            ranks=(1, 2, 3, 4),
            final_points=(19.9, -1.3, -6.3, -11.3),
            seed="5e",
        ),
    ]


def _messages(match_id: str = "m") -> list[EventMessage]:
    return [EventMessage(match_id=match_id, version=i + 1, event=e) for i, e in enumerate(_stream())]


def _fold(upto: int | None = None, seat: int | None = 0) -> MatchTracker:
    tracker = MatchTracker("m", seat)
    for message in _messages()[:upto]:
        assert tracker.apply(message)
    return tracker


def _index(predicate: type[w.Event], nth: int = 0) -> int:
    """1 + the position of the nth event of a type: the number of events to fold to include it."""
    hits = [i for i, e in enumerate(_stream()) if isinstance(e, predicate)]
    return hits[nth] + 1


def test_initial_view_is_empty() -> None:
    view = MatchTracker("m", 2).view()
    assert view.seat == 2 and view.round is None and view.seats == () and view.tiles_left == 0


def test_deal_sorts_own_hand_and_hides_others() -> None:
    view = _fold(2).view()
    assert view.seats[0].hand == (
        "1m",
        "2m",
        "3m",
        "9m",
        "5p",
        "5p",
        "0p",
        "7s",
        "8s",
        "9s",
        "1z",
        "2z",
        "2z",
    )
    assert [s.hand for s in view.seats[1:]] == [None, None, None]
    assert [s.hand_size for s in view.seats] == [13, 13, 13, 13]
    assert view.tiles_left == LIVE_WALL_DRAWS and view.turn is None
    assert view.dora_indicators == ("9s",)
    assert view.round is not None and view.round.dealer == 0


def test_draw_and_discard() -> None:
    view = _fold(3).view()
    assert view.seats[0].drawn == "4z" and "4z" in (view.seats[0].hand or ())
    assert view.seats[0].hand_size == 14 and view.tiles_left == LIVE_WALL_DRAWS - 1 and view.turn == 0
    view = _fold(5).view()
    assert view.seats[0].drawn is None and view.seats[0].hand_size == 13
    assert view.seats[0].river == (
        RiverTile(tile="4z", tsumogiri=True, riichi=False, sideways=False, called=False),
    )
    assert view.seats[1].drawn is None and view.seats[1].hand_size == 14 and view.turn == 1


def test_called_riichi_tile_moves_sideways_to_the_next_discard() -> None:
    view = _fold(_index(w.MeldCalled)).view()
    riichi_tile = view.seats[0].river[-1]
    assert riichi_tile == RiverTile(tile="0p", tsumogiri=False, riichi=True, sideways=False, called=True)
    assert view.seats[0].riichi
    assert view.round is not None and view.round.riichi_sticks == 1
    assert view.scores == (24000, 25000, 25000, 25000)
    assert view.seats[1].melds == (PON,) and view.seats[1].hand_size == 11 and view.turn == 1
    view = _fold(_index(w.TileDiscarded, 8)).view()  # seat 0's discard after the call
    assert view.seats[0].river[-1] == RiverTile(
        tile="7z", tsumogiri=True, riichi=False, sideways=True, called=False
    )
    later = _fold().view()
    assert [t.sideways for t in later.seats[0].river] == [False, False, True]


def test_kakan_replaces_the_pon_in_place() -> None:
    view = _fold(_index(w.MeldCalled, 1)).view()
    assert view.seats[1].melds == (KAKAN,)
    assert view.seats[1].hand_size == 10
    view = _fold(_index(w.DoraRevealed)).view()
    assert view.dora_indicators == ("9s", "3z") and view.seats[1].hand_size == 11


def test_results_and_match_end() -> None:
    view = _fold().view()
    assert [type(r) for r in view.results] == [w.HandWon]
    assert view.scores == (28900, 23700, 23700, 23700)
    assert view.round is not None and view.round.riichi_sticks == 0
    assert view.match_result is not None and view.match_result.ranks == (1, 2, 3, 4)
    assert view.match == MATCH_STARTED


def test_spectator_sees_no_hand() -> None:
    tracker = MatchTracker("m", None)
    for message in _messages():
        public = message.event
        if isinstance(public, w.RoundStarted):
            public = msgspec.structs.replace(public, hands=(None, None, None, None))
        elif isinstance(public, w.TileDrawn):
            public = msgspec.structs.replace(public, tile=None)
        tracker.apply(msgspec.structs.replace(message, event=public))
    view = tracker.view()
    assert view.seat is None and all(s.hand is None for s in view.seats)
    assert [s.hand_size for s in view.seats] == [14, 10, 13, 13]


@pytest.mark.parametrize("cut", range(len(_stream()) + 1))
def test_resuming_from_a_snapshot_equals_folding_everything(cut: int) -> None:
    snapshot = _fold(cut).snapshot()
    # What the server sends, the client reads back unchanged...
    received = decode_server(encode(snapshot))
    assert received == snapshot and isinstance(received, Snapshot)
    # ...and continues from exactly where the server's fold was.
    tracker = MatchTracker.from_snapshot(received)
    assert tracker.version == cut
    for message in _messages()[cut:]:
        assert tracker.apply(message)
    assert tracker.snapshot() == _fold().snapshot()


def test_versions_duplicates_gaps_and_other_matches() -> None:
    tracker = _fold(3)
    messages = _messages()
    assert tracker.apply(messages[1]) is False  # already seen: ignored
    assert tracker.version == 3
    with pytest.raises(ProtocolError, match="missing"):
        tracker.apply(messages[4])
    with pytest.raises(ProtocolError, match="match"):
        tracker.apply(_messages("other")[3])
    assert tracker.apply(messages[3]) is True


def test_inconsistent_streams_raise_protocol_error() -> None:
    tracker = _fold(2)
    with pytest.raises(ProtocolError, match="not in its hand"):
        tracker.fold(w.TileDiscarded(seat=0, tile="7z", tsumogiri=False, riichi=False))
    with pytest.raises(ProtocolError, match="without a pon"):
        tracker.fold(
            w.MeldCalled(seat=2, meld_type=w.MeldType.KAKAN, meld=KAKAN, tile="5p", consumed=("5p",))
        )
    with pytest.raises(ProtocolError, match="river is empty"):
        tracker.fold(
            w.MeldCalled(seat=1, meld_type=w.MeldType.PON, meld=PON, tile="0p", consumed=("5p", "5p"))
        )


def test_tile_sort_key_matches_the_engine_order() -> None:
    tiles = ["7z", "0s", "5s", "1p", "0m", "5m", "4m", "6m", "9p", "1z"]
    assert sorted(tiles, key=tile_sort_key) == ["4m", "5m", "0m", "6m", "1p", "9p", "5s", "0s", "1z", "7z"]
