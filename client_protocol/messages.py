"""Every message of the Jantaku protocol, as msgspec structs.

A message is one JSON object in one websocket text frame; its ``"type"`` field names it. The version
of the protocol is agreed once per connection: the client's ``hello`` carries ``protocol`` and the
server's ``welcome`` confirms it (a mismatch is answered with the ``bad_version`` error).

Client to server (unknown fields are rejected as ``malformed``)::

    hello   {protocol, auth: {type: token|guest|session, ...}, client?}
    join    {target: {type: queue|private|spectate, ...}, request_id?}
    act     {request_id, step, action: {type, tile?, tsumogiri?, consumed?}}
    resume  {match_id, since_version, request_id?}
    ping    {nonce?}
    leave   {match_id?, request_id?}
    chat    {text, request_id?}
    stamp   {stamp, request_id?}
    lobby_join   {channel, request_id?}
    lobby_leave  {channel, request_id?}
    lobby_say    {channel, text? | stamp?, request_id?}
    report       {account_id, reason, line?: {place: lobby|table, id}, request_id?}

Server to client (unknown fields must be ignored by clients)::

    welcome, error, queued, seated, ack, prompt, event, snapshot, match_end, pong, left, chat,
    lobby_history, lobby_line, lobby_left, reported

``docs/protocol.md`` describes each message, the step/ack rules and a complete example session.
"""

from __future__ import annotations

import typing
from enum import StrEnum
from typing import Annotated, Literal

import msgspec

from client_protocol.errors import ErrorCode
from client_protocol.events import Event, Seat, Tile
from client_protocol.seatview import SeatView

MAX_CLIENT_MESSAGE_BYTES = 4096
"""Size cap of one client-to-server frame; the server closes a connection that sends a larger one."""

MAX_SERVER_MESSAGE_BYTES = 256 * 1024
"""Upper bound of one server-to-client frame (a snapshot is the largest, a few KiB)."""

RequestId = Annotated[
    int,
    msgspec.Meta(
        ge=0,
        le=2**53 - 1,
        description="Chosen by the client, unique per seat and match (also across reconnections).",
    ),
]
Step = Annotated[int, msgspec.Meta(ge=0, description="The table's decision counter, from the prompt.")]
Version = Annotated[int, msgspec.Meta(ge=0, description="Position in the match's event stream.")]
MatchId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Milliseconds = Annotated[int, msgspec.Meta(ge=0)]


class ActionType(StrEnum):
    """What a seat may decide (the engine's action vocabulary)."""

    DISCARD = "discard"
    RIICHI = "riichi"  # declare riichi and discard ``tile`` in one decision
    TSUMO = "tsumo"
    RON = "ron"
    PASS = "pass"
    CHI = "chi"
    PON = "pon"
    DAIMINKAN = "daiminkan"
    ANKAN = "ankan"
    KAKAN = "kakan"  # add ``tile`` to an existing pon
    KYUUSHU_KYUUHAI = "kyuushu_kyuuhai"
    NUKIDORA = "nukidora"  # three seats: set a north aside as a bonus dora (docs/rules.md#north-bonus)


class PlayerKind(StrEnum):
    GUEST = "guest"
    PLAYER = "player"  # a registered account
    BOT = "bot"


class MatchEndReason(StrEnum):
    COMPLETED = "completed"
    ABORTED = "aborted"  # stopped by the server (e.g. by an administrator); no result


class _ClientStruct(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of client-to-server values: strict, unknown fields are an error."""


class _ClientMessage(_ClientStruct, frozen=True, tag_field="type"):
    """Base of the tagged client-to-server messages."""


class _ServerStruct(msgspec.Struct, frozen=True, kw_only=True):
    """Base of server-to-client values: lenient, unknown fields are ignored."""


class _ServerMessage(_ServerStruct, frozen=True, tag_field="type"):
    """Base of the tagged server-to-client messages."""


# ---------------------------------------------------------------------------------------------------
# Values shared by both directions


class Action(_ClientStruct, frozen=True, omit_defaults=True):
    """One decision. Fields by type: ``discard``/``riichi``: ``tile`` and ``tsumogiri`` (true when the
    tile is the one just drawn); ``kakan``: ``tile``; ``chi``/``pon`` (2), ``daiminkan`` (3),
    ``ankan`` (4): ``consumed``, the tiles taken from the hand; the others: no field.

    A client should echo one of the prompt's ``legal_actions`` unchanged.
    """

    type: ActionType
    tile: Tile | None = None
    tsumogiri: bool | None = None
    consumed: tuple[Tile, ...] | None = None


# ---------------------------------------------------------------------------------------------------
# Client to server


class TokenAuth(_ClientStruct, frozen=True, tag_field="type", tag="token"):
    """A registered player's or bot's API token."""

    token: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class GuestAuth(_ClientStruct, frozen=True, tag_field="type", tag="guest"):
    """Play as a guest, without an account; the server picks a name when none is given."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=32)] | None = None


class SessionAuth(_ClientStruct, frozen=True, tag_field="type", tag="session"):
    """Come back as the same player after a disconnection: ``session_token`` is from ``welcome``."""

    session_token: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


Auth = TokenAuth | GuestAuth | SessionAuth


class QueueTarget(_ClientStruct, frozen=True, tag_field="type", tag="queue"):
    """Quick match: wait for a table of the ruleset ``preset`` (e.g. "tenhou")."""

    preset: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class PrivateTarget(_ClientStruct, frozen=True, tag_field="type", tag="private"):
    """Take a seat at a private table by its invite code."""

    code: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class SpectateTarget(_ClientStruct, frozen=True, tag_field="type", tag="spectate", omit_defaults=True):
    """Watch a match (public information only, possibly delayed); ``view`` ``caster``: every hand
    open, where the table's spectator policy offers a caster view (docs/social.md)."""

    match_id: MatchId
    view: Literal["public", "caster"] = "public"


JoinTarget = QueueTarget | PrivateTarget | SpectateTarget


class Hello(_ClientMessage, frozen=True, tag="hello", omit_defaults=True):
    """The first message of every connection: the protocol version and the credentials; ``hints``
    asks for the hints in every prompt (a browser wants them, a bot rarely does)."""

    protocol: Annotated[int, msgspec.Meta(ge=1, description="PROTOCOL_VERSION the client speaks.")]
    auth: Auth
    client: Annotated[str, msgspec.Meta(max_length=64, description="Client software, for logs.")] | None = (
        None
    )
    hints: Annotated[
        bool, msgspec.Meta(description="Send hints (waits, tiles left, furiten) with every prompt.")
    ] = False


class Join(_ClientMessage, frozen=True, tag="join"):
    """Queue for a quick match, sit at a private table, or spectate."""

    target: JoinTarget
    request_id: RequestId | None = None


class Act(_ClientMessage, frozen=True, tag="act"):
    """Answer a prompt: ``step`` echoes the prompt's step, ``action`` is one of its legal actions."""

    request_id: RequestId
    step: Step
    action: Action


class Resume(_ClientMessage, frozen=True, tag="resume"):
    """After a reconnection: send the events of ``match_id`` with a version above ``since_version``
    (or a snapshot), then the pending prompt, if any."""

    match_id: MatchId
    since_version: Version
    request_id: RequestId | None = None


class Ping(_ClientMessage, frozen=True, tag="ping"):
    """Application-level ping (browsers cannot send websocket pings); answered by ``pong``."""

    nonce: Annotated[int, msgspec.Meta(ge=0, le=2**53 - 1)] | None = None


class Leave(_ClientMessage, frozen=True, tag="leave"):
    """Leave the queue or stop following a match (a seated player's seat is then auto-played)."""

    match_id: MatchId | None = None
    request_id: RequestId | None = None


class Chat(_ClientMessage, frozen=True, tag="chat"):
    """Say ``text`` at the table this connection follows (seated or watching). The server
    normalises it and checks the room's rules (docs/social.md); it is never interpreted."""

    text: Annotated[str, msgspec.Meta(max_length=1000)]
    request_id: RequestId | None = None


class Stamp(_ClientMessage, frozen=True, tag="stamp"):
    """Send one of the fixed reactions (docs/social.md) to the table this connection follows."""

    stamp: Annotated[str, msgspec.Meta(max_length=32)]
    request_id: RequestId | None = None


Channel = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class LobbyJoin(_ClientMessage, frozen=True, tag="lobby_join"):
    """Follow a lobby channel (``general``, ``queue:<preset>``, ``ranked:<room>:<length>``): the
    server answers ``lobby_history`` and then sends every ``lobby_line`` said there."""

    channel: Channel
    request_id: RequestId | None = None


class LobbyLeave(_ClientMessage, frozen=True, tag="lobby_leave"):
    """Stop following a lobby channel (answered ``lobby_left``)."""

    channel: Channel
    request_id: RequestId | None = None


class LobbySay(_ClientMessage, frozen=True, tag="lobby_say"):
    """Say ``text`` (or send ``stamp``) in a lobby channel this connection follows; it comes back as
    a ``lobby_line`` (the confirmation), a refusal as an ``error`` with the ``request_id``."""

    channel: Channel
    text: Annotated[str, msgspec.Meta(max_length=1000)] | None = None
    stamp: Annotated[str, msgspec.Meta(max_length=32)] | None = None
    request_id: RequestId | None = None


class ReportPlace(StrEnum):
    LOBBY = "lobby"
    TABLE = "table"


class LineRef(_ClientStruct, frozen=True):
    """A chat line: a lobby line's ``id`` (``lobby_line``) or a table line's (``chat``)."""

    place: ReportPlace
    id: Annotated[int, msgspec.Meta(ge=1, le=2**53 - 1)]


class Report(_ClientMessage, frozen=True, tag="report"):
    """Report a player (``account_id``), or a chat line (``line``: its sender is the one reported;
    ``account_id``, if given, must be the sender), to the moderators with a ``reason``; answered
    ``reported``."""

    account_id: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | None = None
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=1000)] = ""
    line: LineRef | None = None
    request_id: RequestId | None = None


AccountId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class Invite(_ClientMessage, frozen=True, tag="invite"):
    """Invite the friend ``to`` (an account id) to the private table ``code``, which this player
    opened or waits at (docs/social.md#invitations); answered by ``invite_sent`` or an error."""

    to: AccountId
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    request_id: RequestId | None = None


ClientMessage = (
    Hello
    | Join
    | Act
    | Resume
    | Ping
    | Leave
    | Chat
    | Stamp
    | LobbyJoin
    | LobbyLeave
    | LobbySay
    | Report
    | Invite
)
"""Any client-to-server message."""

CLIENT_MESSAGE_TYPES: tuple[type[ClientMessage], ...] = typing.get_args(ClientMessage)  # each struct


# ---------------------------------------------------------------------------------------------------
# Server to client


class Player(_ServerStruct, frozen=True):
    """The authenticated player of this connection."""

    id: str
    name: str
    kind: PlayerKind


class TablePlayer(_ServerStruct, frozen=True):
    """Who sits at one seat of a table."""

    name: str
    kind: PlayerKind


class SeatInfo(_ServerStruct, frozen=True):
    """A live match in which the player holds a seat (resume it after a reconnection).

    ``last_request_id``: the highest ``request_id`` of this player's acts the server applied in this
    match (null: none yet); a client that lost its state picks its next ids above it. ``players``:
    who sits at each seat, as in ``seated`` (null when this node cannot say: the table runs on
    another node), so that a client coming back without its saved state can name them."""

    match_id: MatchId
    seat: Seat
    last_request_id: RequestId | None = None
    players: tuple[TablePlayer, ...] | None = None


class MatchResult(_ServerStruct, frozen=True):
    """Final standing per seat: raw scores, ranks 1..4, and final points (with uma and oka)."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    final_points: tuple[float, ...]


class Welcome(_ServerMessage, frozen=True, tag="welcome"):
    """The answer to a good ``hello``. ``session_token`` lets this player ``hello`` again with
    ``{"type": "session"}`` auth after a disconnection; ``seats`` lists the player's live matches."""

    protocol: int
    session_id: str
    session_token: str
    player: Player
    seats: tuple[SeatInfo, ...]
    max_message_bytes: int


class ErrorMessage(_ServerMessage, frozen=True, tag="error"):
    """A request was refused and changed nothing. ``request_id`` is the offending request's, if known."""

    code: ErrorCode
    message: str
    request_id: RequestId | None = None


class Queued(_ServerMessage, frozen=True, tag="queued"):
    """The player waits in the quick-match queue of ``preset``."""

    preset: str
    players_waiting: int


class Seated(_ServerMessage, frozen=True, tag="seated"):
    """The player has a seat in ``match_id`` (or, with ``seat`` null, spectates it); the match's
    events follow."""

    match_id: MatchId
    seat: Seat | None
    players: tuple[TablePlayer, ...]


class Ack(_ServerMessage, frozen=True, tag="ack"):
    """The action of request ``request_id`` was applied at ``step``; ``duplicate`` when this
    request_id had already been applied (the action is applied once)."""

    request_id: RequestId
    step: Step
    duplicate: bool


class WaitHint(_ServerStruct, frozen=True):
    """A tile kind that completes the hand, and how many of its copies the seat cannot see."""

    tile: Tile
    left: Annotated[int, msgspec.Meta(ge=0, le=4)]


class DiscardHint(_ServerStruct, frozen=True):
    """After discarding ``tile`` (``tsumogiri``: the drawn one) the hand waits on ``waits``."""

    tile: Tile
    tsumogiri: bool
    waits: tuple[WaitHint, ...]
    furiten: bool


class PromptHints(_ServerStruct, frozen=True):
    """What the seat may see of its own hand (only for a connection whose ``hello`` asked for
    ``hints``): the waits and furiten of the hand as it is, and on its own turn the waits after each
    discard that leaves it tenpai. Computed from the seat's own view only."""

    waits: tuple[WaitHint, ...]
    furiten: bool
    discards: tuple[DiscardHint, ...]


class Prompt(_ServerMessage, frozen=True, tag="prompt", omit_defaults=True):
    """``seat`` must decide: answer with ``act`` echoing ``step`` and one of ``legal_actions``.

    ``version`` is the last event version the decision is based on. The seat has ``deadline_ms`` of
    per-action time, then ``bank_ms`` of time bank, both counted on the server from when it sent the
    prompt; when both run out the server plays the default action (tsumogiri or pass). ``hints``
    only when the connection's ``hello`` asked for them.
    """

    match_id: MatchId
    step: Step
    seat: Seat
    version: Version
    legal_actions: tuple[Action, ...]
    deadline_ms: Milliseconds
    bank_ms: Milliseconds
    hints: PromptHints | None = None


class PlayedMove(_ServerStruct, frozen=True):
    """One decision the server made for the seat: the prompt's ``step`` and the ``action`` played."""

    step: Step
    action: Action


class PlayedFor(_ServerMessage, frozen=True, tag="played_for"):
    """Sent to a seat that comes back (``resume``) after the server played for it while it had no
    connection (its time and bank had run out): those moves, oldest first, each with the step of
    its decision. Only the seat's own moves; sent after the catch-up, before the pending prompt."""

    match_id: MatchId
    moves: tuple[PlayedMove, ...]


class EventMessage(_ServerMessage, frozen=True, tag="event"):
    """One event of ``match_id``. Versions are consecutive per match stream: 1, 2, 3, ..."""

    match_id: MatchId
    version: Annotated[int, msgspec.Meta(ge=1)]
    event: Event


class Snapshot(_ServerMessage, frozen=True, tag="snapshot"):
    """The receiver's full view of ``match_id`` after the events up to ``version``: exactly what it
    would have built by folding those events itself (see :class:`client_protocol.tracker.MatchTracker`)."""

    match_id: MatchId
    version: Version
    view: SeatView


class MatchEnd(_ServerMessage, frozen=True, tag="match_end"):
    """No more events of ``match_id`` will come; ``result`` is null for an aborted match."""

    match_id: MatchId
    reason: MatchEndReason
    result: MatchResult | None


class Pong(_ServerMessage, frozen=True, tag="pong"):
    """The answer to ``ping``, echoing its nonce."""

    nonce: int | None = None


class Left(_ServerMessage, frozen=True, tag="left"):
    """The player left the queue (``match_id`` null) or stopped following ``match_id``."""

    match_id: MatchId | None = None


class ChatRole(StrEnum):
    SEATED = "seated"
    SPECTATOR = "spectator"


class ChatLine(_ServerMessage, frozen=True, tag="chat", omit_defaults=True):
    """A chat line or a stamp at ``match_id``. ``from`` is the seat of a seated sender or the name
    of a watching one (``role``); ``name`` is the sender's name either way, ``account_id`` its
    account's id when it has one (a registered player or a bot; never a guest's: to mute it). Exactly
    one of ``text`` and ``stamp`` is set. The text is plain text: show it as text, never as markup."""

    match_id: MatchId
    role: ChatRole
    sender: Seat | str = msgspec.field(name="from")
    name: str
    text: str | None = None
    stamp: str | None = None
    id: int | None = None  # the line's id on the server (to report it)
    account_id: str | None = None  # the sender's account, unless a guest (to mute it)


class LobbyLine(_ServerMessage, frozen=True, tag="lobby_line", omit_defaults=True):
    """A line said in lobby ``channel`` by ``name`` (``account_id``), at ``at`` (seconds since the
    epoch); exactly one of ``text`` and ``stamp`` is set. Plain text: show it as text."""

    channel: str
    id: int
    account_id: str
    name: str
    at: float
    text: str | None = None
    stamp: str | None = None


class LobbyHistory(_ServerMessage, frozen=True, tag="lobby_history"):
    """The answer to ``lobby_join``: the channel's last lines, oldest first (a line may also come
    as a ``lobby_line`` just after: the same ``id``)."""

    channel: str
    lines: list[LobbyLine]
    request_id: RequestId | None = None


class LobbyLeft(_ServerMessage, frozen=True, tag="lobby_left"):
    """This connection no longer follows lobby ``channel``."""

    channel: str
    request_id: RequestId | None = None


class Reported(_ServerMessage, frozen=True, tag="reported"):
    """The report was stored for the moderators (``report_id``)."""

    report_id: int
    request_id: RequestId | None = None


class PresenceState(StrEnum):
    OFFLINE = "offline"
    ONLINE = "online"
    LOBBY = "lobby"
    AT_TABLE = "at_table"


class FriendPresence(_ServerMessage, frozen=True, tag="presence", omit_defaults=True):
    """A friend's presence changed (docs/social.md#presence). ``match_id``: the table the friend
    plays or watches (``watching``), only when that table may be watched."""

    account_id: AccountId
    name: str
    presence: PresenceState
    match_id: MatchId | None = None
    watching: bool = False


class Invited(_ServerMessage, frozen=True, tag="invited"):
    """The friend ``account_id`` (``name``) invites this player to the private table ``code``
    (``preset``); join it with ``join`` ``{"type": "private", "code"}``."""

    account_id: AccountId
    name: str
    code: str
    preset: str


class InviteSent(_ServerMessage, frozen=True, tag="invite_sent"):
    """An ``invite`` was sent (whether the friend is online is not said)."""

    to: AccountId
    code: str
    request_id: RequestId | None = None


class FriendsChanged(_ServerMessage, frozen=True, tag="friends_changed"):
    """This player's friends, requests or blocks changed (read them again: ``GET /api/me/friends``)."""


class EventNotice(_ServerMessage, frozen=True, tag="event_notice"):
    """An organizer's notice to every entrant of the event ``event_id`` (``name``), pushed to each
    entrant's connection as it is posted (docs/tournaments.md); the event's page lists them all.
    ``at``: when it was posted, seconds since the epoch."""

    event_id: str
    name: str
    text: str
    at: float


ServerMessage = (
    Welcome
    | ErrorMessage
    | Queued
    | Seated
    | Ack
    | Prompt
    | EventMessage
    | Snapshot
    | MatchEnd
    | Pong
    | Left
    | PlayedFor
    | ChatLine
    | LobbyLine
    | LobbyHistory
    | LobbyLeft
    | Reported
    | FriendPresence
    | Invited
    | InviteSent
    | FriendsChanged
    | EventNotice
)
"""Any server-to-client message."""

SERVER_MESSAGE_TYPES: tuple[type[ServerMessage], ...] = typing.get_args(ServerMessage)  # each struct
