"""The ruleset: every rule option of a match as one frozen, hashable, JSON-serialisable value.

Where the rules references disagree, the disagreement is an option here; each option,
its meaning and its value in every preset is documented in ``docs/rules.md``.

>>> Ruleset.from_json(TENHOU.to_json()) == TENHOU
True
>>> preset("ema").red_fives
(0, 0, 0)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from server.engine.errors import RulesetError


class GameLength(StrEnum):
    EAST = "east"  # tonpuusen: east round only
    EAST_SOUTH = "east_south"  # hanchan


class MultipleRon(StrEnum):
    HEAD_BUMP = "head_bump"  # atamahane: only the first claimant from the discarder's right wins
    DOUBLE = "double"  # up to two winners; see Ruleset.abort_sanchahou for three
    TRIPLE = "triple"  # up to three winners


class KanDuringRiichi(StrEnum):
    NEVER = "never"
    # Waits unchanged AND the three tiles can only be read as a triplet (EMA,
    # docs/rules.md#kan-during-riichi).
    STRICT = "strict"
    WAITS = "waits"  # waits unchanged (Tenhou)


class OpenKanDora(StrEnum):
    AFTER_DISCARD = "after_discard"  # open/added kan: indicator flipped once the kan player discards
    IMMEDIATE = "immediate"  # flipped right after the kan, before the replacement draw is used


class Kuikae(StrEnum):
    NONE = "none"  # swap-calling allowed
    SAME_TILE = "same_tile"  # may not discard the tile just called (genbutsu)
    FULL = "full"  # nor the tile at the other end of the chi sequence (suji)


class RenhouValue(StrEnum):
    NONE = "none"
    MANGAN = "mangan"  # not cumulative with other yaku or dora (EMA, docs/rules.md#option-renhou)
    BAIMAN = "baiman"
    YAKUMAN = "yakuman"


class KazoeLimit(StrEnum):
    YAKUMAN = "yakuman"  # 13+ han is a (single) yakuman
    SANBAIMAN = "sanbaiman"  # 13+ han is capped at sanbaiman
    NONE = "none"  # 13+ han yakuman, 26+ double, ...


class PaoScope(StrEnum):
    FULL = "full"  # the liable player pays (on tsumo) or shares (on ron) the whole hand value
    PORTION = "portion"  # liability covers only the yakuman the liable player fed; the rest as usual


class LeftoverSticks(StrEnum):
    TO_TOP = "to_top"  # riichi sticks on the table at the end go to the first-placed player
    LOST = "lost"  # they are removed from the game


class DoubleYakuman(StrEnum):
    """Hands that may count as double yakuman (each on only when listed in ``double_yakuman``)."""

    SUUANKOU_TANKI = "suuankou_tanki"
    KOKUSHI_13 = "kokushi_13"
    JUNSEI_CHUUREN = "junsei_chuuren"
    DAISUUSHII = "daisuushii"


class Karaten(StrEnum):
    """Which of a player's own tiles empty a wait at an exhaustive draw (docs/rules.md#karaten)."""

    CONCEALED = "concealed"  # all four copies in the concealed hand: noten (Tenhou, Mahjong Soul)
    CONCEALED_AND_MELDS = "concealed_and_melds"  # ... or in its melds too (EMA: "already has 4")


class SanmaTsumo(StrEnum):
    """What a three-player tsumo is paid (docs/rules.md#sanma-tsumo); no meaning with four seats."""

    TSUMO_LOSS = "tsumo_loss"  # the two others pay as in a four-player game; the north share is lost
    NORTH_BISECTION = "north_bisection"  # the missing north seat's share is split between the two


class Pao(StrEnum):
    DAISANGEN = "daisangen"
    DAISUUSHII = "daisuushii"
    SUUKANTSU = "suukantsu"


@dataclass(frozen=True, slots=True)
class Ruleset:
    """All options of a match. Defaults equal the ``tenhou`` preset (Tenhou's ranked 4-player rules)."""

    name: str = "tenhou"
    game_length: GameLength = GameLength.EAST_SOUTH
    start_points: int = 25000
    return_points: int = 30000
    uma: tuple[int, ...] = (20, 10, -10, -20)  # in thousands, 1st..last (one per seat)
    oka: bool = True  # (return_points - start_points) * seats goes to the first place
    red_fives: tuple[int, int, int] = (1, 1, 1)  # per suit m, p, s
    open_tanyao: bool = True
    multiple_ron: MultipleRon = MultipleRon.DOUBLE
    abort_sanchahou: bool = True  # three rons on one discard abort the hand
    kiriage_mangan: bool = False
    double_yakuman: frozenset[DoubleYakuman] = frozenset()
    composite_yakuman: bool = True
    kazoe_limit: KazoeLimit = KazoeLimit.YAKUMAN
    renhou: RenhouValue = RenhouValue.NONE
    nagashi_mangan: bool = True
    abort_kyuushu_kyuuhai: bool = True
    abort_suufon_renda: bool = True
    abort_suucha_riichi: bool = True
    abort_suukaikan: bool = True
    tobi: bool = True  # the match ends when a score falls below tobi_below
    tobi_below: int = 0
    agari_yame: bool = True  # all-last dealer in first place after a win: the match ends
    tenpai_yame: bool = False  # ... and likewise after a tenpai draw
    sudden_death: bool = True  # nobody at return_points after the last round: play on (west, north)
    riichi_min_points: int = 1000
    riichi_min_live_tiles: int = 4
    kan_during_riichi: KanDuringRiichi = KanDuringRiichi.WAITS
    open_kan_dora: OpenKanDora = OpenKanDora.AFTER_DISCARD
    kan_ura: bool = True
    chankan_ankan_kokushi: bool = False  # Tenhou: kokushi may not rob a closed kan
    kuikae: Kuikae = Kuikae.FULL
    noten_payment_total: int = 3000
    honba_value: int = 300  # per honba, paid in total by the loser(s)
    pao: frozenset[Pao] = frozenset({Pao.DAISANGEN, Pao.DAISUUSHII})
    pao_scope: PaoScope = PaoScope.FULL
    leftover_sticks: LeftoverSticks = LeftoverSticks.TO_TOP
    double_wind_pair_fu: int = 4
    pinfu_tsumo_fu: bool = False  # True: pinfu-shaped tsumo gets 2 fu and loses pinfu (30 fu, no pinfu)
    karaten: Karaten = Karaten.CONCEALED
    # Three-player mahjong (docs/rules.md#three-player-mahjong). Each holds its four-player value by
    # default and is then left out of the canonical JSON (ADDED_OPTIONS), so no four-player ruleset's
    # JSON or hash changed when they were added.
    seats: int = 4
    chi: bool = True  # sequences may be called from the seat on the left (three seats: never)
    north_bonus: bool = False  # north is a bonus tile: declared aside (nukidora) for a replacement draw
    north_ron: bool = True  # a declared north may be won on (like a robbed kan, without chankan)
    sanma_tsumo: SanmaTsumo = SanmaTsumo.TSUMO_LOSS
    _hash: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _validate(self)
        object.__setattr__(self, "_hash", hashlib.sha256(self.to_json().encode()).hexdigest())

    @property
    def hash(self) -> str:
        """A stable sha256 of the canonical JSON document: equal rulesets have equal hashes."""
        return self._hash

    def to_dict(self, *, complete: bool = False) -> dict[str, Any]:
        """Every option; the canonical document (the default) leaves out the :data:`ADDED_OPTIONS`
        that hold their earlier meaning, ``complete`` (what exports show people and other tools)
        names them too. Both read back as the same ruleset."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name.startswith("_"):
                continue
            value = getattr(self, f.name)
            if not complete and f.name in ADDED_OPTIONS and value == ADDED_OPTIONS[f.name]:
                continue
            if isinstance(value, frozenset):
                value = sorted(str(v) for v in value)
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, StrEnum):
                value = str(value)
            out[f.name] = value
        return out

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, no whitespace; the input of :attr:`hash`."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """Build a ruleset from a (possibly partial) dict; missing keys take the ``tenhou`` defaults.

        A document that names every option of the first version but not an option added since
        (:data:`ADDED_OPTIONS`) was written before that option existed: it gets the value that
        keeps its earlier meaning, so a stored match replays under the rules it was played by.
        """
        if not isinstance(data, dict):
            raise RulesetError(f"a ruleset must be a JSON object, got {type(data).__name__}")
        known = {f.name: f for f in dataclasses.fields(cls) if not f.name.startswith("_")}
        kwargs: dict[str, Any] = {}
        for key, raw in data.items():
            if key not in known:
                raise RulesetError(f"unknown ruleset option {key!r}")
            kwargs[key] = _coerce(key, raw, _DEFAULTS[key])
        if kwargs.keys() >= _FIRST_OPTIONS:
            for key, earlier in ADDED_OPTIONS.items():
                kwargs.setdefault(key, earlier)
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> Ruleset:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RulesetError(f"ruleset JSON does not parse: {exc}") from None
        return cls.from_dict(data)

    def with_options(self, **changes: Any) -> Ruleset:
        """A copy with some options changed (validated, values coerced like JSON input).

        The seat count is not an option to change: a three-player game starts from a three-player
        preset (a table is built for the seats of its preset; :data:`SANMA_PRESETS`)."""
        data = self.to_dict()
        data.update(changes)
        changed = Ruleset.from_dict(data)
        if changed.seats != self.seats:
            raise RulesetError(
                f"seats cannot be changed from {self.seats} to {changed.seats}: start from a "
                f"{changed.seats}-player preset"
            )
        return changed


def _coerce(key: str, raw: Any, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            if not isinstance(raw, bool):
                raise TypeError
            return raw
        if isinstance(default, int):
            if isinstance(raw, bool) or not isinstance(raw, int):
                raise TypeError
            return raw
        if isinstance(default, StrEnum):
            return type(default)(raw)
        if isinstance(default, str):
            if not isinstance(raw, str):
                raise TypeError
            return raw
        if isinstance(default, tuple):
            if not isinstance(raw, list | tuple) or any(
                isinstance(v, bool) or not isinstance(v, int) for v in raw
            ):
                raise TypeError
            return tuple(raw)
        if isinstance(default, frozenset):
            member_type = _SET_TYPES[key]
            if not isinstance(raw, list | tuple | set | frozenset):
                raise TypeError
            return frozenset(member_type(v) for v in raw)
    except (TypeError, ValueError):
        raise RulesetError(f"invalid value for ruleset option {key!r}: {raw!r}") from None
    raise RulesetError(f"unsupported ruleset option {key!r}")  # pragma: no cover


def _validate(r: Ruleset) -> None:
    def bad(msg: str) -> RulesetError:
        return RulesetError(f"invalid ruleset {r.name!r}: {msg}")

    if r.seats not in (3, 4):
        raise bad(f"seats must be 3 or 4, got {r.seats!r}")
    if len(r.uma) != r.seats:
        raise bad(f"uma must have one entry per seat ({r.seats}), got {r.uma!r}")
    if sum(r.uma) != 0:
        raise bad(f"uma must sum to zero, got {r.uma!r}")
    if len(r.red_fives) != 3 or any(not 0 <= n <= 4 for n in r.red_fives):
        raise bad(f"red_fives must be three counts 0..4, got {r.red_fives!r}")
    if r.seats == 3 and r.red_fives[0]:
        raise bad("a three-player set has no 5m (2m..8m are removed): red_fives[0] must be 0")
    if r.north_bonus and r.seats != 3:
        raise bad("north_bonus is a three-player rule")
    if r.start_points <= 0 or r.start_points % 100:
        raise bad(f"start_points must be a positive multiple of 100, got {r.start_points}")
    if r.return_points < r.start_points or r.return_points % 100:
        raise bad(f"return_points must be >= start_points and a multiple of 100, got {r.return_points}")
    if r.riichi_min_points < 0 or r.riichi_min_live_tiles < 0:
        raise bad("riichi minimums must not be negative")
    splits = range(1, r.seats)  # tenpai (and noten) seats at a draw with payments: 1..seats-1
    if r.noten_payment_total < 0 or any(r.noten_payment_total % n for n in splits):
        raise bad(f"noten_payment_total must split evenly (3000-style), got {r.noten_payment_total}")
    if r.honba_value < 0 or r.honba_value % (r.seats - 1):
        raise bad(f"honba_value must be a non-negative multiple of {r.seats - 1}, got {r.honba_value}")
    if r.double_wind_pair_fu not in (2, 4):
        raise bad(f"double_wind_pair_fu must be 2 or 4, got {r.double_wind_pair_fu}")
    for name in ("double_yakuman", "pao"):
        if not isinstance(getattr(r, name), frozenset):
            raise bad(f"{name} must be a frozenset")


_SET_TYPES: dict[str, type[StrEnum]] = {"double_yakuman": DoubleYakuman, "pao": Pao}

ADDED_OPTIONS: dict[str, Any] = {
    "karaten": Karaten.CONCEALED_AND_MELDS,
    "seats": 4,
    "chi": True,
    "north_bonus": False,
    "north_ron": True,
    "sanma_tsumo": SanmaTsumo.TSUMO_LOSS,
}
"""Options added after matches were first stored, each with the value that means the rules from
before it existed. A ruleset holding that value leaves the option out of its canonical JSON (so
its JSON and hash are what they were), and a complete document without it reads that value."""
_DEFAULTS: dict[str, Any] = {
    f.name: (f.default if f.default is not dataclasses.MISSING else None)
    for f in dataclasses.fields(Ruleset)
    if not f.name.startswith("_")
}

_FIRST_OPTIONS = frozenset(_DEFAULTS) - frozenset(ADDED_OPTIONS)

TENHOU = Ruleset()

MAHJONGSOUL = Ruleset(
    name="mahjongsoul",
    uma=(15, 5, -5, -15),
    double_yakuman=frozenset(DoubleYakuman),
    multiple_ron=MultipleRon.TRIPLE,  # Mahjong Soul scores all three rons (no sanchahou draw)
    abort_sanchahou=False,
    chankan_ankan_kokushi=True,
    kuikae=Kuikae.FULL,
    pao=frozenset({Pao.DAISANGEN, Pao.DAISUUSHII}),
    pao_scope=PaoScope.PORTION,
)

EMA = Ruleset(
    name="ema",
    start_points=30000,
    return_points=30000,
    uma=(15, 5, -5, -15),
    oka=False,
    red_fives=(0, 0, 0),
    multiple_ron=MultipleRon.HEAD_BUMP,
    abort_sanchahou=False,
    composite_yakuman=False,  # "Yakuman yaku are not cumulative" (docs/rules.md#option-composite_yakuman)
    kazoe_limit=KazoeLimit.SANBAIMAN,
    renhou=RenhouValue.MANGAN,  # a mangan, not cumulative (docs/rules.md#option-renhou)
    nagashi_mangan=False,
    abort_kyuushu_kyuuhai=False,
    abort_suufon_renda=False,
    abort_suucha_riichi=False,
    abort_suukaikan=False,
    tobi=False,
    agari_yame=False,
    tenpai_yame=False,
    sudden_death=False,
    kan_during_riichi=KanDuringRiichi.STRICT,  # only a pung (docs/rules.md#kan-during-riichi)
    open_kan_dora=OpenKanDora.IMMEDIATE,
    kan_ura=True,
    chankan_ankan_kokushi=True,  # kokushi may rob a concealed kong (docs/rules.md#chankan)
    pao=frozenset({Pao.DAISANGEN, Pao.DAISUUSHII}),
    pao_scope=PaoScope.FULL,
    leftover_sticks=LeftoverSticks.TO_TOP,
    double_wind_pair_fu=2,
    karaten=Karaten.CONCEALED_AND_MELDS,  # "waiting only for a tile of which he already has 4"
)

# Three-player presets (docs/rules.md#three-player-mahjong has each figure's source).
TENHOU_SANMA = Ruleset(
    name="tenhou-sanma",
    seats=3,
    chi=False,
    start_points=35000,
    return_points=40000,
    uma=(20, 0, -20),  # its records: first +35 with the oka, second 0, third -20
    red_fives=(0, 1, 1),
    north_bonus=True,
    sanma_tsumo=SanmaTsumo.TSUMO_LOSS,
    noten_payment_total=2000,
    tenpai_yame=True,  # its records: an all-last dealer in first place stops after a tenpai draw
    honba_value=200,  # Tenhou's three-player records: 200 per honba on a ron, 100 from each on a tsumo
    abort_suufon_renda=False,  # needs four discarders
    abort_suucha_riichi=False,  # needs four riichi
    multiple_ron=MultipleRon.DOUBLE,
    abort_sanchahou=False,  # three rons need three other seats
)

MAHJONGSOUL_SANMA = Ruleset(
    name="mahjongsoul-sanma",
    seats=3,
    chi=False,
    start_points=35000,
    return_points=40000,
    uma=(15, 0, -15),  # our choice: its ranked rooms settle rank points instead
    red_fives=(0, 1, 1),
    north_bonus=True,
    sanma_tsumo=SanmaTsumo.TSUMO_LOSS,  # its records: a non-dealer's baiman tsumo pays 8000 + 4000
    noten_payment_total=2000,
    honba_value=200,  # its records: 100 from each payer per honba on a tsumo
    double_yakuman=frozenset(DoubleYakuman),
    multiple_ron=MultipleRon.DOUBLE,
    abort_sanchahou=False,
    abort_suufon_renda=False,
    abort_suucha_riichi=False,
    chankan_ankan_kokushi=True,
    pao=frozenset({Pao.DAISANGEN, Pao.DAISUUSHII}),
    pao_scope=PaoScope.PORTION,
)

PRESETS: dict[str, Ruleset] = {"tenhou": TENHOU, "mahjongsoul": MAHJONGSOUL, "ema": EMA}
"""The four-player presets (the hub offers these and the three-player ones: ``QUEUE_PRESETS``)."""

SANMA_PRESETS: dict[str, Ruleset] = {"tenhou-sanma": TENHOU_SANMA, "mahjongsoul-sanma": MAHJONGSOUL_SANMA}
"""The three-player presets: the engine, the records, the bots and the command line (``jantaku
simulate``, ``play``, ``verify``) play them, and the hub's queues and private tables offer them
(``server.hub.lobby.QUEUE_PRESETS``)."""

ALL_PRESETS: dict[str, Ruleset] = {**PRESETS, **SANMA_PRESETS}


def preset(name: str) -> Ruleset:
    """A named preset: ``tenhou`` (default), ``mahjongsoul``, ``ema``, ``tenhou-sanma`` or
    ``mahjongsoul-sanma``."""
    try:
        return ALL_PRESETS[name]
    except KeyError:
        raise RulesetError(f"unknown ruleset preset {name!r}; choose from {sorted(ALL_PRESETS)}") from None
