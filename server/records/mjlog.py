"""Tenhou's mjlog XML (``<mjloggm ver="2.3">``), plain or gzip-compressed.

Format facts used here (Tenhou's own records; see also the notes in ``docs/`` and the corpus README):

* ``<GO type=>`` is a bit set: 0x01 vs humans, 0x02 *no* red fives, 0x04 *no* open tanyao,
  0x08 east-south (else east only), 0x10 three players, 0x20/0x80 lobby level, 0x40 fast,
  0x200 a chip lobby (祝儀: chips paid beside the points; the results' ``sc`` then holds 16 values).
  ``169`` (0b10101001) is the four-player east-south game with red fives and open tanyao.
* ``<INIT seed="round,honba,sticks,dice0,dice1,dora" ten= oya= hai0..3>``: ``round`` counts kyoku
  from east 1 (0) to north 4 (15); scores are in hundreds; tiles are 136-ids.
* ``<T..>``/``<U..>``/``<V..>``/``<W..>`` are draws of seats 0..3, ``<D..>``..``<G..>`` discards.
  A discard of the same id the seat has just drawn is tsumogiri.
* ``<N who m>``: a call, ``m`` a bit field (see :func:`decode_meld`).
* ``<REACH step="1">`` precedes the riichi discard; ``step="2"`` (with the new scores) follows it
  once it passed without a ron, before any call on it.
* ``<DORA hai>``: a kan indicator. Tenhou turns it right after an ankan (before the replacement
  draw) but after the replacement draw of a daiminkan/kakan, just before that seat's next discard
  or next kan (so never when the replacement tile wins or the kakan is robbed).
* ``<AGARI>``/``<RYUUKYOKU>`` end a hand (a double ron gives two ``AGARI`` in a row); ``sc`` holds
  each seat's score before the result and its change, in hundreds; the last one of the game carries
  ``owari`` (final scores in hundreds and the final points).
"""

from __future__ import annotations

import html
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from urllib.parse import unquote

from server.engine.events import DrawReason
from server.engine.melds import Meld, MeldType
from server.engine.tiles import NORTH, Tile
from server.engine.tiles import sorted_tiles as _sorted
from server.records.assemble import call_step, checked, replay_tracker, rule_hints
from server.records.errors import RecordError, TruncatedRecordError, UnsupportedRecordError
from server.records.model import (
    CallStep,
    DiscardStep,
    DoraStep,
    DrawResult,
    DrawStep,
    GameRecord,
    HandRecord,
    NorthStep,
    RecordedYaku,
    RecordFormat,
    RiichiAcceptedStep,
    Step,
    Win,
)
from server.records.tiles import face_from_id136
from server.records.yaku import LIMITS, yaku_from_id

GO_NO_RED = 0x02
GO_NO_KUITAN = 0x04
GO_EAST_SOUTH = 0x08
GO_SANMA = 0x10
GO_CHIPS = 0x200  # chip lobbies (祝儀): GO 553 and 1569 among them
_CHIPS = (
    "mjlog: {} is a chip lobby (祝儀): its results pay chips beside the points, which Jantaku does not "
    "score, so the record is not replayed"
)

MAX_INFLATED = 32 * 1024 * 1024  # no real record comes near; refuse gzip bombs

_TAG = re.compile(r'<(/?)([A-Za-z][A-Za-z0-9_]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*"[^"<]*")*)\s*(/?)>')
_ATTR = re.compile(r'([A-Za-z_][\w.:-]*)\s*=\s*"([^"<]*)"')
_SKIP = re.compile(r"<\?.*?\?>|<!--.*?-->", re.S)
_TILE_TAG = re.compile(r"([TUVWDEFG])(\d{1,3})")
_ABORTS: dict[str, DrawReason] = {
    "yao9": DrawReason.KYUUSHU_KYUUHAI,
    "reach4": DrawReason.SUUCHA_RIICHI,
    "ron3": DrawReason.SANCHAHOU,
    "kan4": DrawReason.SUUKAIKAN,
    "kaze4": DrawReason.SUUFON_RENDA,
    "nm": DrawReason.EXHAUSTIVE,  # nagashi mangan
}


@dataclass(frozen=True, slots=True)
class MeldBits:
    """A decoded ``<N m=>`` value. ``from_rel``: 0 self, 1 right (shimocha), 2 across, 3 left."""

    type: MeldType
    ids: tuple[int, ...]  # every tile of the meld (a kakan: all four)
    called: int | None  # the id taken from a discard (a kakan: the pon's); None for an ankan
    from_rel: int
    added: int | None = None  # kakan: the id added to the pon


NUKIDORA = "nukidora"  # the "type" of a north set aside (three players): no meld, only a NorthStep


def decode_meld(m: int) -> MeldBits:
    """Decode Tenhou's meld bit field.

    Bits 0-1 are the relative seat the tile came from. Bit 2 set: chi (bits 3-8 pick the copy of each
    of the three kinds; bits 10+ are ``(base * 3 + called)`` with ``base`` the lowest kind counted
    over 7 starts per suit). Else bit 3: pon, bit 4: kakan (bits 5-6 the copy left out of the pon,
    i.e. the one added; bits 9+ ``kind * 3 + called``). Bit 5: nukidora (three players). Else a kan
    whose bits 8+ are the called (daiminkan) or first (ankan) tile id.

    >>> decode_meld(60559)  # chi of 6-7-8s, the 8s (id 101) taken from the seat to the left
    MeldBits(type=<MeldType.CHI: 'chi'>, ids=(93, 96, 101), called=101, from_rel=3, added=None)
    >>> decode_meld(24576)  # ankan of 7s
    MeldBits(type=<MeldType.ANKAN: 'ankan'>, ids=(96, 97, 98, 99), called=None, from_rel=0, added=None)
    """
    from_rel = m & 3
    if m & 0x4:
        copies = ((m >> 3) & 3, (m >> 5) & 3, (m >> 7) & 3)
        base, called = divmod(m >> 10, 3)
        low = base // 7 * 9 + base % 7
        if base >= 21:
            raise RecordError(f"meld {m}: chi base {base} is not a suited run")
        ids = tuple((low + i) * 4 + copies[i] for i in range(3))
        return MeldBits(MeldType.CHI, ids, ids[called], from_rel)
    if m & 0x18:
        left_out = (m >> 5) & 3
        kind_, called = divmod(m >> 9, 3)
        if kind_ >= 34:
            raise RecordError(f"meld {m}: kind {kind_} is not a tile")
        pon = tuple(kind_ * 4 + i for i in range(4) if i != left_out)
        if m & 0x8:
            return MeldBits(MeldType.PON, pon, pon[called], from_rel)
        added = kind_ * 4 + left_out
        return MeldBits(MeldType.KAKAN, (*pon, added), pon[called], from_rel, added)
    if m & 0x20:
        raise RecordError(f"meld {m} is a north set aside (three players), not a meld")
    tile_id = m >> 8
    if tile_id >= 136:
        raise RecordError(f"meld {m}: tile id {tile_id} is out of range")
    ids = tuple(tile_id // 4 * 4 + i for i in range(4))
    if from_rel == 0:
        return MeldBits(MeldType.ANKAN, ids, None, 0)
    return MeldBits(MeldType.DAIMINKAN, ids, tile_id, from_rel)


def read_mjlog(data: bytes | str) -> GameRecord:
    """Read an mjlog record; raises :class:`RecordError` for anything that is not one."""
    text = _decode(data)
    reader = _Reader()
    for number, (name, attrs) in enumerate(_tags(text), start=1):
        hand = reader.hand
        reader.tag(name, attrs)
        if hand is not None and hand is reader.hand:
            hand.note_source(f"tag {number} <{name}>")
    return reader.finish()


def _decode(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    if not isinstance(data, bytes | bytearray):
        raise RecordError(f"mjlog: expected bytes or text, got {type(data).__name__}")
    raw = inflate(bytes(data), "mjlog")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordError(f"mjlog: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def inflate(raw: bytes, what: str) -> bytes:
    """``raw`` itself, or its gzip content (at most ``MAX_INFLATED`` bytes)."""
    if raw[:2] != b"\x1f\x8b":
        return raw
    inflater = zlib.decompressobj(wbits=31)
    try:
        out = inflater.decompress(raw, MAX_INFLATED)
    except zlib.error as exc:
        raise RecordError(f"{what}: corrupt gzip stream: {exc}") from None
    if inflater.unconsumed_tail:
        raise RecordError(f"{what}: gzip stream inflates beyond {MAX_INFLATED} bytes")
    if not inflater.eof:
        raise TruncatedRecordError(f"{what}: the gzip stream is cut short")
    return out


def _tags(text: str) -> list[tuple[str, dict[str, str]]]:
    out: list[tuple[str, dict[str, str]]] = []
    pos, end = 0, len(text)
    while True:
        lt = text.find("<", pos)
        between = text[pos:] if lt < 0 else text[pos:lt]
        if between.strip():
            raise RecordError(f"mjlog: unexpected text {between.strip()[:30]!r} at offset {pos}")
        if lt < 0:
            return out
        skip = _SKIP.match(text, lt)
        if skip:
            pos = skip.end()
            continue
        match = _TAG.match(text, lt)
        if match is None:
            if ">" not in text[lt:]:
                raise TruncatedRecordError(f"mjlog: the record is cut inside a tag at offset {lt}")
            raise RecordError(f"mjlog: malformed tag {text[lt : lt + 40]!r} at offset {lt}")
        closing, name, attr_text, _self_closing = match.groups()
        attrs = {k: html.unescape(v) for k, v in _ATTR.findall(attr_text)}
        out.append(("/" + name if closing else name, attrs))
        pos = match.end()
        if pos >= end:
            return out


def _ints(attrs: dict[str, str], key: str, where: str, length: int | None = None) -> list[int]:
    raw = attrs.get(key)
    if raw is None:
        raise RecordError(f"mjlog: <{where}> has no '{key}'")
    try:
        values = [int(v) for v in raw.split(",")] if raw.strip() else []
    except ValueError:
        raise RecordError(f"mjlog: <{where} {key}={raw[:40]!r}> is not a list of integers") from None
    if length is not None and len(values) != length:
        raise RecordError(f"mjlog: <{where} {key}> needs {length} values, got {len(values)}")
    return values


def _int(attrs: dict[str, str], key: str, where: str, high: int | None = None) -> int:
    value = _ints(attrs, key, where, 1)[0]
    if value < 0 or (high is not None and value > high):
        raise RecordError(f"mjlog: <{where} {key}={value}> is out of range")
    return value


@dataclass
class _Hand:
    seed: list[int]
    dealer: int
    scores: tuple[int, ...]
    dealt_ids: list[list[int]]
    red: bool
    steps: list[Step] = field(default_factory=list)
    dora_ids: list[int] = field(default_factory=list)
    ura: tuple[Tile, ...] = ()
    wins: list[Win] = field(default_factory=list)
    draw: DrawResult | None = None
    problems: list[str] = field(default_factory=list)
    seen_ids: set[int] = field(default_factory=set)
    drawn_id: list[int | None] = field(default_factory=lambda: [None] * 4)
    discard: tuple[int, int] | None = None  # (seat, id) of the last discard
    riichi_declared: int | None = None
    kan_seat: int | None = None  # the next draw of this seat is a rinshan draw
    paid: list[int] = field(default_factory=list)  # scores as the result's sc should show them
    sources: list[str] = field(default_factory=list)  # the tag of each step, then the result's

    def note_source(self, where: str) -> None:
        """``where`` for every step the last tag added (and for the result, once there is one)."""
        self.sources.extend([where] * (len(self.steps) - len(self.sources)))
        if (self.wins or self.draw is not None) and len(self.sources) == len(self.steps):
            self.sources.append(where)

    def face(self, tile_id: int) -> Tile:
        if not 0 <= tile_id < 136:
            raise RecordError(f"mjlog: tile id {tile_id} is out of range")
        return face_from_id136(tile_id, red=self.red)

    def record(self) -> HandRecord:
        kyoku_index, honba, sticks = self.seed[0], self.seed[1], self.seed[2]
        return HandRecord(
            round_wind=kyoku_index // 4,
            kyoku=kyoku_index % 4,
            honba=honba,
            riichi_sticks=sticks,
            dealer=self.dealer,
            start_scores=self.scores,
            dealt=tuple(tuple(self.face(i) for i in ids) for ids in self.dealt_ids),
            dora_indicators=tuple(self.face(i) for i in self.dora_ids),
            ura_indicators=self.ura,
            steps=tuple(self.steps),
            wins=tuple(self.wins),
            draw=self.draw,
            complete=bool(self.wins) or self.draw is not None,
            problems=tuple(self.problems),
            sources=tuple(self.sources),
        )


class _Reader:
    def __init__(self) -> None:
        self.root = False
        self.closed = False
        self.go_type: int | None = None
        self.names: tuple[str, ...] = ("", "", "", "")
        self.hands: list[HandRecord] = []
        self.hand: _Hand | None = None
        self.owari: list[str] | None = None
        self.problems: list[str] = []
        self._handlers: dict[str, Callable[[dict[str, str]], None]] = {
            "SHUFFLE": self._on_shuffle,
            "TAIKYOKU": self._on_taikyoku,
            "BYE": self._on_bye,
            "GO": self._on_go,
            "UN": self._on_un,
            "INIT": self._on_init,
            "N": self._on_n,
            "REACH": self._on_reach,
            "DORA": self._on_dora,
            "AGARI": self._on_agari,
            "RYUUKYOKU": self._on_ryuukyoku,
        }

    def tag(self, name: str, attrs: dict[str, str]) -> None:
        if not self.root:
            if name != "mjloggm":
                raise RecordError(f"mjlog: the document starts with <{name}>, not <mjloggm>")
            self.root = True
            return
        if self.closed:
            raise RecordError(f"mjlog: <{name}> after </mjloggm>")
        if name == "/mjloggm":
            self.closed = True
            return
        tile = _TILE_TAG.fullmatch(name)
        if tile is not None:
            self._tile(tile.group(1), int(tile.group(2)))
            return
        handler = self._handlers.get(name)
        if handler is None:
            self.problems.append(f"unknown tag <{name}> ignored")
        else:
            handler(attrs)

    def _on_shuffle(self, attrs: dict[str, str]) -> None:
        pass

    def _on_taikyoku(self, attrs: dict[str, str]) -> None:
        pass

    def _on_bye(self, attrs: dict[str, str]) -> None:
        pass  # a disconnection: Tenhou plays tsumogiri for the seat, the tags show what happened

    @property
    def seats(self) -> int:
        """3 for a three-player game (``GO`` bit 0x10), else 4."""
        return 3 if self.go_type is not None and self.go_type & GO_SANMA else 4

    def _on_go(self, attrs: dict[str, str]) -> None:
        self.go_type = _int(attrs, "type", "GO")
        if self.go_type & GO_CHIPS:
            raise UnsupportedRecordError(_CHIPS.format(f"GO type {self.go_type}"))

    def _on_un(self, attrs: dict[str, str]) -> None:
        if "dan" not in attrs:
            return  # a reconnection
        if self.seats == 4 and ("n3" not in attrs or not attrs["n3"]):
            raise UnsupportedRecordError("mjlog: three players in <UN> of a four-player game")
        self.names = tuple(unquote(attrs.get(f"n{i}", "")) for i in range(self.seats))

    def _on_init(self, attrs: dict[str, str]) -> None:
        self._close_hand()
        if self.owari is not None:
            self.problems.append("a hand starts after the final result")
        seed = _ints(attrs, "seed", "INIT", 6)
        if not 0 <= seed[0] < 16 or seed[1] < 0 or seed[2] < 0 or not 0 <= seed[5] < 136:
            raise RecordError(f"mjlog: <INIT seed={attrs['seed']!r}> is out of range")
        n = self.seats
        dealt = [_ints(attrs, f"hai{i}", "INIT") for i in range(4)]
        if n == 3 and dealt[3]:
            raise RecordError("mjlog: <INIT> deals a fourth hand in a three-player game")
        dealt = dealt[:n]
        if any(len(h) != 13 for h in dealt):
            if not dealt[-1]:
                raise UnsupportedRecordError("mjlog: no hand for a fourth seat (three-player mahjong)")
            raise RecordError(f"mjlog: <INIT> deals {[len(h) for h in dealt]} tiles, not 13 each")
        scores = tuple(v * 100 for v in _ints(attrs, "ten", "INIT", 4))
        if any(scores[n:]):
            raise RecordError(f"mjlog: <INIT ten> scores an empty fourth seat: {attrs['ten']!r}")
        scores = scores[:n]
        red = self.go_type is None or not self.go_type & GO_NO_RED
        hand = _Hand(seed, _int(attrs, "oya", "INIT", n - 1), scores, dealt, red, dora_ids=[seed[5]])
        hand.paid = list(scores)
        if hand.dealer != seed[0] % 4:
            hand.problems.append(f"dealer {hand.dealer} is not seat {seed[0] % 4} of kyoku {seed[0]}")
        for tile_id in (seed[5], *(i for h in dealt for i in h)):
            self._see(hand, tile_id)
        self.hand = hand

    def _see(self, hand: _Hand, tile_id: int) -> None:
        if not 0 <= tile_id < 136:
            raise RecordError(f"mjlog: tile id {tile_id} is out of range")
        if tile_id in hand.seen_ids:
            hand.problems.append(f"tile id {tile_id} appears twice")
        hand.seen_ids.add(tile_id)

    def _live(self, what: str) -> _Hand:
        if self.hand is None:
            raise RecordError(f"mjlog: {what} before the first <INIT>")
        hand = self.hand
        # A second AGARI after an AGARI is a double ron; anything else after a result is out of place.
        if hand.draw is not None or (hand.wins and what != "AGARI"):
            hand.problems.append(f"{what} after the hand's result")
        return hand

    def _tile(self, letter: str, tile_id: int) -> None:
        hand = self._live(f"<{letter}{tile_id}>")
        face = hand.face(tile_id)
        if letter in "TUVW":
            seat = "TUVW".index(letter)
            self._see(hand, tile_id)
            hand.steps.append(DrawStep(seat, face, rinshan=hand.kan_seat == seat))
            hand.kan_seat, hand.drawn_id[seat] = None, tile_id
            return
        seat = "DEFG".index(letter)
        riichi = hand.riichi_declared == seat
        hand.steps.append(DiscardStep(seat, face, tsumogiri=hand.drawn_id[seat] == tile_id, riichi=riichi))
        hand.drawn_id[seat], hand.discard = None, (seat, tile_id)
        if riichi:
            hand.riichi_declared = None

    def _on_n(self, attrs: dict[str, str]) -> None:
        hand = self._live("<N>")
        seat = _int(attrs, "who", "N", self.seats - 1)
        m = _int(attrs, "m", "N")
        if m & 0x20 and not m & 0x1C:  # a north set aside (three players): bits 8+ are its id
            if self.seats != 3 or hand.face(m >> 8) != NORTH:
                raise RecordError(f"mjlog: <N m={m}> sets a north aside outside a three-player game")
            hand.steps.append(NorthStep(seat))
            hand.drawn_id[seat] = None
            hand.kan_seat = seat
            return
        bits = decode_meld(m)
        step = _call_step(seat, bits, hand.face)
        from_discard = bits.called is not None and bits.type is not MeldType.KAKAN
        if from_discard and hand.discard != (step.from_seat, bits.called):
            hand.problems.append(
                f"seat {seat} calls id {bits.called} of seat {step.from_seat}, not the discard"
            )
        hand.steps.append(step)
        hand.drawn_id[seat] = None
        hand.kan_seat = seat if step.is_kan else None

    def _on_reach(self, attrs: dict[str, str]) -> None:
        hand = self._live("<REACH>")
        seat, stage = _int(attrs, "who", "REACH", self.seats - 1), _int(attrs, "step", "REACH", 2)
        if stage == 1:
            hand.riichi_declared = seat
        else:
            hand.steps.append(RiichiAcceptedStep(seat))
            hand.paid[seat] -= 1000
            if (
                "ten" in attrs
                and [v * 100 for v in _ints(attrs, "ten", "REACH", 4)][: self.seats] != hand.paid
            ):
                hand.problems.append(f"scores after the riichi of seat {seat} are {attrs['ten']}")

    def _on_dora(self, attrs: dict[str, str]) -> None:
        hand = self._live("<DORA>")
        tile_id = _int(attrs, "hai", "DORA", 135)
        self._see(hand, tile_id)
        hand.dora_ids.append(tile_id)
        hand.steps.append(DoraStep(hand.face(tile_id)))

    def _result_scores(self, hand: _Hand, attrs: dict[str, str], where: str) -> tuple[int, ...]:
        if len(attrs.get("sc", "").split(",")) == 16:
            raise UnsupportedRecordError(_CHIPS.format(f"<{where} sc> with 16 values"))
        sc = _ints(attrs, "sc", where, 8)
        n = self.seats
        if any(sc[2 * n :]):
            hand.problems.append(f"<{where} sc> scores an empty fourth seat")
        before, deltas = [v * 100 for v in sc[0 : 2 * n : 2]], tuple(v * 100 for v in sc[1 : 2 * n : 2])
        if before != hand.paid:
            hand.problems.append(f"<{where}> starts from scores {before}, expected {hand.paid}")
        hand.paid = [b + d for b, d in zip(before, deltas, strict=True)]
        if "owari" in attrs:
            self.owari = attrs["owari"].split(",")
        return deltas

    def _on_agari(self, attrs: dict[str, str]) -> None:
        hand = self._live("AGARI")
        last = self.seats - 1
        seat, from_seat = _int(attrs, "who", "AGARI", last), _int(attrs, "fromWho", "AGARI", last)
        fu, points, limit_code = _ints(attrs, "ten", "AGARI", 3)
        yaku: list[RecordedYaku] = []
        pairs = _ints(attrs, "yaku", "AGARI") if "yaku" in attrs else []
        if len(pairs) % 2:
            raise RecordError(f"mjlog: <AGARI yaku={attrs['yaku']!r}> is not id,han pairs")
        for tenhou_id, han in zip(pairs[0::2], pairs[1::2], strict=True):
            yaku.append(self._yaku(hand, tenhou_id, han, yakuman=False))
        yakuman_ids = _ints(attrs, "yakuman", "AGARI") if "yakuman" in attrs else []
        yaku.extend(self._yaku(hand, i, 13, yakuman=True) for i in yakuman_ids)
        ura_ids = _ints(attrs, "doraHaiUra", "AGARI") if "doraHaiUra" in attrs else []
        for tile_id in ura_ids:
            if tile_id not in hand.seen_ids:
                self._see(hand, tile_id)
        ura = tuple(hand.face(i) for i in ura_ids)
        if len(ura) > len(hand.ura):
            hand.ura = ura
        dora_ids = _ints(attrs, "doraHai", "AGARI")
        if dora_ids != hand.dora_ids:
            hand.problems.append(f"AGARI shows dora indicators {dora_ids}, the hand revealed {hand.dora_ids}")
        codes = [int(m) for m in attrs.get("m", "").split(",") if m.strip().isdigit()]
        # A north set aside is listed with the melds but is none.
        melds = [self._meld(hand, seat, m) for m in codes if not (m & 0x20 and not m & 0x1C)]
        limit = LIMITS[limit_code] if 0 <= limit_code < len(LIMITS) else ""
        if limit == "yakuman" and not yakuman_ids:
            limit = "kazoe_yakuman"
        pao = _int(attrs, "paoWho", "AGARI", last) if "paoWho" in attrs else None
        hand.wins.append(
            Win(
                seat=seat,
                from_seat=from_seat,
                win_tile=hand.face(_int(attrs, "machi", "AGARI", 135)),
                hand=_sorted(hand.face(i) for i in _ints(attrs, "hai", "AGARI")),
                melds=tuple(melds),
                han=sum(y.han for y in yaku),
                fu=fu,
                points=points,
                limit=limit,
                yaku=tuple(yaku),
                yakuman=len(yakuman_ids),
                dora_indicators=tuple(hand.face(i) for i in dora_ids),
                ura_indicators=ura,
                deltas=self._result_scores(hand, attrs, "AGARI"),
                pao_seat=pao,
            )
        )

    def _yaku(self, hand: _Hand, tenhou_id: int, han: int, *, yakuman: bool) -> RecordedYaku:
        known = yaku_from_id(tenhou_id)
        if known is None:
            hand.problems.append(f"unknown Tenhou yaku id {tenhou_id}")
            return RecordedYaku(f"tenhou_{tenhou_id}", han, f"#{tenhou_id}", yakuman)
        return RecordedYaku(known.id, han, known.label, yakuman)

    def _meld(self, hand: _Hand, seat: int, m: int) -> Meld:
        bits = decode_meld(m)
        from_seat = (seat + bits.from_rel) % 4
        tiles = _sorted(hand.face(i) for i in bits.ids)
        called = None if bits.called is None else hand.face(bits.called)
        added = None if bits.added is None else hand.face(bits.added)
        return Meld(bits.type, tiles, called, seat if bits.type is MeldType.ANKAN else from_seat, added)

    def _on_ryuukyoku(self, attrs: dict[str, str]) -> None:
        hand = self._live("RYUUKYOKU")
        kind_ = attrs.get("type")
        reason = DrawReason.EXHAUSTIVE if kind_ is None else _ABORTS.get(kind_)
        if reason is None:
            hand.problems.append(f"unknown RYUUKYOKU type {kind_!r}")
            reason = DrawReason.EXHAUSTIVE
        revealed: list[tuple[Tile, ...] | None] = [None] * self.seats
        for seat in range(self.seats):
            if f"hai{seat}" in attrs:
                revealed[seat] = _sorted(hand.face(i) for i in _ints(attrs, f"hai{seat}", "RYUUKYOKU"))
        shown = tuple(seat for seat in range(self.seats) if revealed[seat] is not None)
        nagashi: tuple[int, ...] = ()
        if kind_ == "nm":
            nagashi = replay_tracker(hand.record().dealt, hand.dealer, hand.steps).nagashi_seats()
        hand.draw = DrawResult(
            reason=reason,
            deltas=self._result_scores(hand, attrs, "RYUUKYOKU"),
            tenpai=shown if reason is DrawReason.EXHAUSTIVE else None,
            nagashi=nagashi,
            revealed=tuple(revealed),
            declarer=shown[0] if reason is DrawReason.KYUUSHU_KYUUHAI and shown else None,
        )

    def _close_hand(self) -> None:
        if self.hand is not None:
            record = self.hand.record()
            if not record.complete:
                record = _incomplete(record, "the record stops before the hand's result")
            self.hands.append(checked(record, self.red_fives(self.hand.red)))
            self.hand = None

    def red_fives(self, red: bool) -> tuple[int, int, int]:
        """Tenhou's red fives: one per suit, none of characters with three players (no 5m)."""
        if not red:
            return (0, 0, 0)
        return (0, 1, 1) if self.seats == 3 else (1, 1, 1)

    def finish(self) -> GameRecord:
        if not self.root:
            raise RecordError("mjlog: no <mjloggm> element")
        self._close_hand()
        problems = list(self.problems)
        if not self.closed:
            problems.append("the document has no closing </mjloggm>")
        final_scores: tuple[int, ...] | None = None
        final_points: tuple[float, ...] | None = None
        if self.owari is None:
            problems.append("the record stops before the end of the game (no final scores)")
        else:
            try:
                final_scores = tuple(int(v) * 100 for v in self.owari[0::2])
                final_points = tuple(float(v) for v in self.owari[1::2])
            except ValueError:
                raise RecordError(f"mjlog: owari={','.join(self.owari)!r} is not scores and points") from None
            if len(final_scores) != 4 or len(final_points) != 4:
                raise RecordError(f"mjlog: owari={','.join(self.owari)!r} needs four scores and points")
            final_scores, final_points = final_scores[: self.seats], final_points[: self.seats]
        if self.hands and not self.hands[-1].complete:
            problems.append(f"the record stops in the middle of hand {len(self.hands) - 1}")
        go = self.go_type if self.go_type is not None else 0
        rules = rule_hints(
            red_fives=self.red_fives(not go & GO_NO_RED),
            east_south=bool(go & GO_EAST_SOUTH),
            open_tanyao=not go & GO_NO_KUITAN,
        )
        if self.go_type is None:
            problems.append("no <GO> element: rules unknown")
            rules = {}
        complete = self.owari is not None and self.closed and all(h.complete for h in self.hands)
        return GameRecord(
            source=RecordFormat.MJLOG,
            preset="tenhou-sanma" if self.seats == 3 else "tenhou",
            rules=rules,
            rule_text="" if self.go_type is None else f"GO type={self.go_type}",
            names=self.names,
            hands=tuple(self.hands),
            final_scores=final_scores,
            final_points=final_points,
            complete=complete,
            problems=tuple(problems),
        )


def _incomplete(record: HandRecord, why: str) -> HandRecord:
    return replace(record, complete=False, problems=(*record.problems, why))


def call_from_meld(seat: int, m: int, *, red: bool = True) -> CallStep:
    """The :class:`CallStep` that ``<N who="seat" m="m"/>`` stands for."""
    return _call_step(seat, decode_meld(m), lambda i: face_from_id136(i, red=red))


def _call_step(seat: int, bits: MeldBits, face: Callable[[int], Tile]) -> CallStep:
    if bits.type is MeldType.ANKAN:
        return call_step(seat, bits.type, None, seat, [face(i) for i in bits.ids])
    if bits.type is MeldType.KAKAN:
        assert bits.added is not None
        pon = [face(i) for i in bits.ids if i != bits.added]
        return call_step(seat, bits.type, face(bits.added), seat, [face(bits.added)], pon_tiles=pon)
    assert bits.called is not None
    consumed = [face(i) for i in bits.ids if i != bits.called]
    return call_step(seat, bits.type, face(bits.called), (seat + bits.from_rel) % 4, consumed)
