"""One or more sample values of every wire event and every message, for round-trip tests."""

from __future__ import annotations

from client_protocol import PROTOCOL_VERSION
from client_protocol import events as w
from client_protocol.errors import ErrorCode
from client_protocol.messages import (
    Ack,
    Act,
    Action,
    ActionType,
    Chat,
    ChatLine,
    ChatRole,
    ClientMessage,
    ErrorMessage,
    EventMessage,
    EventNotice,
    FriendPresence,
    FriendsChanged,
    GuestAuth,
    Hello,
    Invite,
    Invited,
    InviteSent,
    Join,
    Leave,
    Left,
    LineRef,
    LobbyHistory,
    LobbyJoin,
    LobbyLeave,
    LobbyLeft,
    LobbyLine,
    LobbySay,
    MatchEnd,
    MatchEndReason,
    MatchResult,
    Ping,
    PlayedFor,
    PlayedMove,
    Player,
    PlayerKind,
    Pong,
    PresenceState,
    PrivateTarget,
    Prompt,
    Queued,
    QueueTarget,
    Report,
    Reported,
    ReportPlace,
    Resume,
    Seated,
    SeatInfo,
    ServerMessage,
    SessionAuth,
    Snapshot,
    SpectateTarget,
    Stamp,
    TablePlayer,
    TokenAuth,
    Welcome,
)
from client_protocol.seatview import RiverTile, RoundInfo, SeatState, SeatView

SCORES = (25000, 25000, 25000, 25000)
PON = w.Meld(type=w.MeldType.PON, tiles=("5p", "5p", "0p"), called="0p", from_seat=2)
KAKAN = w.Meld(type=w.MeldType.KAKAN, tiles=("5p", "5p", "5p", "0p"), called="0p", from_seat=2, added="5p")
ANKAN = w.Meld(type=w.MeldType.ANKAN, tiles=("1z", "1z", "1z", "1z"), called=None, from_seat=1)

MATCH_STARTED = w.MatchStarted(
    ruleset_json='{"name":"tenhou"}',
    ruleset_hash="ab" * 32,
    seed_commitment="cd" * 32,
    engine_version="0.1.0",
    wall_algorithm="shake256-fy-v1",
    scores=SCORES,
)
HAND_WON = w.HandWon(
    seat=1,
    from_seat=3,
    win_tile="3s",
    hand=("1m", "2m", "3m", "4p", "0p", "6p", "3s", "3s", "3s", "7z"),
    melds=(ANKAN,),
    yaku=(w.Yaku(name="riichi", han=1), w.Yaku(name="dora", han=2)),
    han=3,
    fu=70,
    points=8000,
    limit="mangan",
    yakuman=0,
    dora_indicators=("4p",),
    ura_indicators=("9m",),
    pao_seat=None,
    deltas=(0, 9000, 0, -8000),
    scores=(25000, 34000, 25000, 16000),
)
HAND_DRAWN = w.HandDrawn(
    reason=w.DrawReason.EXHAUSTIVE,
    tenpai=(True, False, False, True),
    hands=(("1m", "1m", "2p", "3p"), None, None, ("7z", "7z", "4s", "5s")),
    nagashi=(),
    deltas=(1500, -1500, -1500, 1500),
    scores=(26500, 23500, 23500, 26500),
)

EVENTS: list[w.Event] = [
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
        hands=(
            ("1m", "2m", "3m", "4m", "5m", "0m", "1p", "1p", "2p", "3s", "4s", "1z", "1z"),
            None,
            None,
            None,
        ),
    ),
    w.TileDrawn(seat=0, tile="7z", rinshan=False),
    w.TileDrawn(seat=1, tile=None, rinshan=True),
    w.TileDiscarded(seat=0, tile="0p", tsumogiri=True, riichi=True),
    w.RiichiAccepted(seat=0, scores=(24000, 25000, 25000, 25000), riichi_sticks=1),
    w.MeldCalled(seat=1, meld_type=w.MeldType.PON, meld=PON, tile="0p", consumed=("5p", "5p")),
    w.MeldCalled(seat=1, meld_type=w.MeldType.KAKAN, meld=KAKAN, tile="5p", consumed=("5p",)),
    w.MeldCalled(seat=1, meld_type=w.MeldType.ANKAN, meld=ANKAN, tile=None, consumed=("1z",) * 4),
    w.NorthDeclared(seat=2, tile="4z"),
    w.DoraRevealed(indicator="3z"),
    HAND_WON,
    HAND_DRAWN,
    w.WallRevealed(salt="00" * 16, wall=("1m",) * 136, wall_commitment="ef" * 32),
    w.RoundEnded(scores=SCORES, riichi_sticks=0),
    w.MatchEnded(
        scores=(40000, 30000, 20000, 10000),
        ranks=(1, 2, 3, 4),
        final_points=(50.0, 10.0, -20.0, -40.0),
        seed="12" * 32,
    ),
]

LEGAL = (
    Action(type=ActionType.DISCARD, tile="0p", tsumogiri=False),
    Action(type=ActionType.RIICHI, tile="7z", tsumogiri=True),
    Action(type=ActionType.CHI, consumed=("4p", "6p")),
    Action(type=ActionType.PON, consumed=("5p", "5p")),
    Action(type=ActionType.DAIMINKAN, consumed=("5p", "5p", "0p")),
    Action(type=ActionType.ANKAN, consumed=("1z", "1z", "1z", "1z")),
    Action(type=ActionType.KAKAN, tile="5p"),
    Action(type=ActionType.TSUMO),
    Action(type=ActionType.RON),
    Action(type=ActionType.PASS),
    Action(type=ActionType.KYUUSHU_KYUUHAI),
    Action(type=ActionType.NUKIDORA),
)

VIEW = SeatView(
    seat=0,
    match=MATCH_STARTED,
    scores=SCORES,
    round=RoundInfo(
        hand_index=0, round_wind=0, kyoku=0, honba=0, riichi_sticks=1, dealer=0, wall_commitment="ef" * 32
    ),
    dora_indicators=("9s", "3z"),
    tiles_left=55,
    turn=1,
    seats=(
        SeatState(
            seat=0,
            hand=("1m", "2m", "0p"),
            drawn="0p",
            hand_size=3,
            melds=(),
            river=(RiverTile(tile="1z", tsumogiri=False, riichi=True, sideways=True, called=False),),
            riichi=True,
        ),
        SeatState(seat=1, hand=None, drawn=None, hand_size=10, melds=(PON,), river=(), riichi=False),
    ),
    results=(HAND_WON, HAND_DRAWN),
    match_result=None,
)

CLIENT_MESSAGES: list[ClientMessage] = [
    Hello(protocol=PROTOCOL_VERSION, auth=TokenAuth(token="t0ken"), client="tests/1"),
    Hello(protocol=PROTOCOL_VERSION, auth=GuestAuth(name="guest")),
    Hello(protocol=PROTOCOL_VERSION, auth=GuestAuth()),
    Hello(protocol=PROTOCOL_VERSION, auth=SessionAuth(session_token="s3ssion")),
    Join(target=QueueTarget(preset="tenhou"), request_id=1),
    Join(target=PrivateTarget(code="ABCD-1234")),
    Join(target=SpectateTarget(match_id="m-1")),
    *(Act(request_id=10 + i, step=57, action=action) for i, action in enumerate(LEGAL)),
    Resume(match_id="m-1", since_version=42, request_id=3),
    Ping(nonce=7),
    Ping(),
    Leave(match_id="m-1", request_id=4),
    Leave(),
    Chat(text="gg wp", request_id=5),
    Stamp(stamp="thanks"),
    LobbyJoin(channel="general", request_id=6),
    LobbyLeave(channel="queue:tenhou"),
    LobbySay(channel="general", text="anyone for a game?", request_id=7),
    LobbySay(channel="general", stamp="hello"),
    Report(account_id="p-9", reason="spam", line=LineRef(place=ReportPlace.LOBBY, id=12), request_id=8),
    Report(account_id="p-9", reason="rude"),
    Invite(to="acc-2", code="K7QP2M", request_id=9),
]

_LOBBY_LINE = LobbyLine(
    channel="general", id=12, account_id="p-9", name="bob", at=1700000000.5, text="<i>hi</i>"
)


SERVER_MESSAGES: list[ServerMessage] = [
    Welcome(
        protocol=PROTOCOL_VERSION,
        session_id="sess-1",
        session_token="s3ssion",
        player=Player(id="p-1", name="guest", kind=PlayerKind.GUEST),
        seats=(SeatInfo(match_id="m-1", seat=2),),
        max_message_bytes=4096,
    ),
    ErrorMessage(code=ErrorCode.STALE_STEP, message="step 56 is over; the current step is 57", request_id=9),
    ErrorMessage(code=ErrorCode.MALFORMED, message="not valid JSON"),
    Queued(preset="tenhou", players_waiting=3),
    Seated(
        match_id="m-1",
        seat=2,
        players=tuple(TablePlayer(name=f"p{i}", kind=PlayerKind.BOT) for i in range(4)),
    ),
    Seated(match_id="m-2", seat=None, players=()),
    Ack(request_id=9, step=57, duplicate=False),
    Ack(request_id=9, step=57, duplicate=True),
    Prompt(
        match_id="m-1", step=57, seat=2, version=130, legal_actions=LEGAL, deadline_ms=5000, bank_ms=10000
    ),
    *(EventMessage(match_id="m-1", version=i + 1, event=event) for i, event in enumerate(EVENTS)),
    Snapshot(match_id="m-1", version=130, view=VIEW),
    MatchEnd(
        match_id="m-1",
        reason=MatchEndReason.COMPLETED,
        result=MatchResult(
            scores=(40000, 30000, 20000, 10000), ranks=(1, 2, 3, 4), final_points=(50.0, 10.0, -20.0, -40.0)
        ),
    ),
    MatchEnd(match_id="m-1", reason=MatchEndReason.ABORTED, result=None),
    Pong(nonce=7),
    Pong(),
    Left(match_id="m-1"),
    Left(),
    ChatLine(match_id="m-1", role=ChatRole.SEATED, sender=2, name="alice", text="gg <b>wp</b>"),
    ChatLine(match_id="m-1", role=ChatRole.SPECTATOR, sender="bob", name="bob", stamp="nice", id=3),
    ChatLine(match_id="m-1", role=ChatRole.SEATED, sender=1, name="carol", text="gg", id=4, account_id="p-3"),
    _LOBBY_LINE,
    LobbyLine(channel="general", id=13, account_id="p-2", name="al", at=1700000001.0, stamp="wow"),
    LobbyHistory(channel="general", lines=[_LOBBY_LINE], request_id=6),
    LobbyLeft(channel="queue:tenhou"),
    Reported(report_id=4, request_id=8),
    FriendPresence(account_id="acc-2", name="bob", presence=PresenceState.AT_TABLE, match_id="m-1"),
    FriendPresence(account_id="acc-2", name="bob", presence=PresenceState.OFFLINE),
    Invited(account_id="acc-1", name="alice", code="K7QP2M", preset="tenhou"),
    InviteSent(to="acc-2", code="K7QP2M", request_id=6),
    FriendsChanged(),
    EventNotice(
        event_id="ev-0123456789ab", name="Club night", text="round 2 starts at 20:00", at=1764950400.5
    ),
    PlayedFor(
        match_id="m-1",
        moves=(
            PlayedMove(step=41, action=Action(type=ActionType.DISCARD, tile="7p", tsumogiri=True)),
            PlayedMove(step=44, action=Action(type=ActionType.PASS)),
        ),
    ),
]
