"""Hand value: the one adapter over the ``mahjong`` package.

:func:`evaluate_win` turns a complete hand (:class:`WinContext`) into a :class:`HandValue`: yaku,
han, fu, limit and basic points. Yaku detection, fu and the choice of the most valuable
decomposition come from the ``mahjong`` package (``HandCalculator.estimate_hand_value``); every
rule option it does not model, or models differently, is applied here. Turning values into score
changes (honba, sticks, pao, multiple ron, draws) is :mod:`server.engine.payments`; the package's
own payment figures are never used.

Traps of the package this adapter works around (each pinned by a test):

* 136-ids: the package reads ids 16/52/88 as the red fives when ``has_aka_dora`` is on (and its
  string converter turns every "5" into one). We build ids ourselves (red fives on copy 0, plain
  fives on copies 1..3) and replace its red-five count with ours, so four plain fives or a suit
  with several red fives (``Ruleset.red_fives``) are scored right.
* Double yakuman is all-or-nothing there; we ask for every double and keep only the patterns
  listed in ``Ruleset.double_yakuman``.
* It adds honba for every winner of a multiple ron and has no pao: payments are ours.
* It always gives a double wind pair 4 fu: ``double_wind_pair_fu = 2`` is applied afterwards.
* It refuses haitei together with rinshan: only rinshan is scored (docs/rules.md#haitei-houtei),
  so haitei is dropped.

Values are in points; *basic points* are ``fu * 2 ** (han + 2)`` below the limits (mangan 2000,
haneman 3000, baiman 4000, sanbaiman 6000, yakuman 8000 per multiple).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from mahjong.hand_calculating import yaku_list as _yl
from mahjong.hand_calculating.fu import FuCalculator
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.hand_calculating.yaku_config import YAKU_ID_TO_TENHOU_ID
from mahjong.hand_calculating.yaku_list import yakuman as _ym
from mahjong.meld import Meld as _PkgMeld

from server.engine.errors import RulesError
from server.engine.events import YakuScore
from server.engine.melds import Meld, MeldType
from server.engine.rules import KazoeLimit, Pao, RenhouValue, Ruleset
from server.engine.tiles import (
    EAST,
    FIVE_KINDS,
    NORTH,
    NUM_FACES,
    WINDS,
    Tile,
    dora_of_indicator,
    format_tiles,
    is_red,
    kind,
)

__all__ = [
    "LIMIT_BASE",
    "PAO_YAKUMAN",
    "HandValue",
    "WinContext",
    "evaluate_win",
    "has_yaku",
    "points_limit",
]

LIMIT_BASE: Mapping[str, int] = MappingProxyType(
    {"mangan": 2000, "haneman": 3000, "baiman": 4000, "sanbaiman": 6000, "yakuman": 8000}
)
"""Basic points of each limit (yakuman: per multiple)."""

PAO_YAKUMAN: frozenset[Pao] = frozenset(Pao)
"""Yakuman that can carry liability (daisangen, daisuushii; suukantsu as a rule option;
docs/rules.md#pao)."""


@dataclass(frozen=True, slots=True)
class WinContext:
    """Everything about one win that its value depends on (the engine fills it in).

    ``concealed`` holds the concealed tiles *including* the winning tile (for a ron or chankan, the
    claimed tile); ``melds`` the called and declared sets (an ankan is a meld). Winds are tile kinds
    27..30. ``ura_indicators`` may always be passed: they count only for a riichi winner, and only
    the first one unless ``Ruleset.kan_ura``.
    """

    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    win_tile: Tile
    is_tsumo: bool
    seat_wind: int
    round_wind: int
    is_dealer: bool
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False
    chankan: bool = False
    haitei: bool = False
    houtei: bool = False
    tenhou: bool = False
    chiihou: bool = False
    renhou: bool = False
    dora_indicators: tuple[Tile, ...] = ()
    ura_indicators: tuple[Tile, ...] = ()
    norths: int = 0  # north tiles the winner set aside (three seats: bonus dora, "nukidora")


@dataclass(frozen=True, slots=True)
class HandValue:
    """The value of one winning hand, before honba, sticks and pao.

    ``yaku`` lists yaku then dora (``dora``, ``ura_dora``, ``aka_dora``) in Tenhou's order, yakuman
    at 13 han per multiple. ``fu`` is 0 where no fu applies (kokushi, renhou valued alone).
    ``pao_yakuman`` names the counted yakuman that can carry liability, with their multiple.
    """

    han: int
    fu: int
    yaku: tuple[YakuScore, ...]
    yakuman: int
    limit: str
    base_points: int
    pao_yakuman: tuple[tuple[Pao, int], ...] = ()

    @property
    def is_yakuman(self) -> bool:
        """A real (not counted) yakuman."""
        return self.limit == "yakuman"


def points_limit(han: int, fu: int, ruleset: Ruleset) -> tuple[str, int]:
    """``(limit, basic points)`` of an ordinary (non-yakuman) hand of ``han`` and ``fu``.

    >>> points_limit(4, 30, Ruleset())
    ('', 1920)
    >>> points_limit(4, 30, Ruleset(kiriage_mangan=True))
    ('mangan', 2000)
    >>> points_limit(13, 30, Ruleset())
    ('kazoe_yakuman', 8000)
    """
    if han >= 13:
        # 13+ han is kazoe yakuman; EMA caps it at sanbaiman (docs/rules.md#option-kazoe_limit).
        match ruleset.kazoe_limit:
            case KazoeLimit.YAKUMAN:
                return "kazoe_yakuman", 8000
            case KazoeLimit.NONE:
                return "kazoe_yakuman", 8000 * (han // 13)
            case KazoeLimit.SANBAIMAN:
                return "sanbaiman", 6000
    if han >= 11:
        return "sanbaiman", 6000
    if han >= 8:
        return "baiman", 4000
    if han >= 6:
        return "haneman", 3000
    if han == 5:
        return "mangan", 2000
    base = fu * 2 ** (han + 2)
    if base >= 2000 or (ruleset.kiriage_mangan and (han, fu) in ((4, 30), (3, 60))):
        return "mangan", 2000
    return "", base


def _indicator_id(tile: Tile, sanma: bool) -> int:
    """The package's 136-id for a dora indicator. Three seats have no 2m..8m, so a 1m indicator
    points at 9m (docs/rules.md#three-player-mahjong): the package is shown an 8m instead."""
    k = kind(tile)
    if sanma and k == 0:
        k = 7
    return k * 4


def _north_hits(indicators: Sequence[Tile]) -> int:
    return sum(1 for t in indicators if dora_of_indicator(kind(t)) == NORTH)


def _with_norths(
    ordinary: list[tuple[int, YakuScore]], ctx: WinContext, ura: Sequence[Tile]
) -> list[tuple[int, YakuScore]]:
    """Each north set aside is one han ("nukidora"), and a dora (or, for riichi, ura dora) like
    any north tile for each indicator that points at north (docs/rules.md#north-bonus)."""
    extra = {"dora": ctx.norths * _north_hits(ctx.dora_indicators)}
    if ctx.riichi or ctx.double_riichi:
        extra["ura_dora"] = ctx.norths * _north_hits(ura)
    out: list[tuple[int, YakuScore]] = []
    for order, score in ordinary:
        more = extra.pop(score.name, 0)
        out.append((order, YakuScore(score.name, score.han + more) if more else score))
    for name, han in extra.items():
        if han:
            out.append((_DORA_ORDER[name], YakuScore(name, han)))
    out.append((_AKA_ORDER + 1, YakuScore("nukidora", ctx.norths)))
    return out


def _kazoe_multiple(limit: str, base: int) -> int:
    return base // 8000 if limit == "kazoe_yakuman" else 0


# --- the package's yaku ids -> our stable English ids ------------------------------------------

_YAKU_NAMES: Mapping[int, str] = MappingProxyType(
    {
        _yl.Tsumo.yaku_id: "menzen_tsumo",
        _yl.Riichi.yaku_id: "riichi",
        _yl.DaburuRiichi.yaku_id: "double_riichi",
        _yl.Ippatsu.yaku_id: "ippatsu",
        _yl.Chankan.yaku_id: "chankan",
        _yl.Rinshan.yaku_id: "rinshan",
        _yl.Haitei.yaku_id: "haitei",
        _yl.Houtei.yaku_id: "houtei",
        _yl.Pinfu.yaku_id: "pinfu",
        _yl.Tanyao.yaku_id: "tanyao",
        _yl.Iipeiko.yaku_id: "iipeikou",
        _yl.Haku.yaku_id: "yakuhai_haku",
        _yl.Hatsu.yaku_id: "yakuhai_hatsu",
        _yl.Chun.yaku_id: "yakuhai_chun",
        _yl.SeatWindEast.yaku_id: "yakuhai_seat_wind",
        _yl.SeatWindSouth.yaku_id: "yakuhai_seat_wind",
        _yl.SeatWindWest.yaku_id: "yakuhai_seat_wind",
        _yl.SeatWindNorth.yaku_id: "yakuhai_seat_wind",
        _yl.RoundWindEast.yaku_id: "yakuhai_round_wind",
        _yl.RoundWindSouth.yaku_id: "yakuhai_round_wind",
        _yl.RoundWindWest.yaku_id: "yakuhai_round_wind",
        _yl.RoundWindNorth.yaku_id: "yakuhai_round_wind",
        _yl.Chiitoitsu.yaku_id: "chiitoitsu",
        _yl.Sanshoku.yaku_id: "sanshoku",
        _yl.Ittsu.yaku_id: "ittsu",
        _yl.Chantai.yaku_id: "chanta",
        _yl.Honroto.yaku_id: "honroutou",
        _yl.Toitoi.yaku_id: "toitoi",
        _yl.Sanankou.yaku_id: "sanankou",
        _yl.SanKantsu.yaku_id: "sankantsu",
        _yl.SanshokuDoukou.yaku_id: "sanshoku_doukou",
        _yl.Shosangen.yaku_id: "shousangen",
        _yl.Honitsu.yaku_id: "honitsu",
        _yl.Junchan.yaku_id: "junchan",
        _yl.Ryanpeikou.yaku_id: "ryanpeikou",
        _yl.Chinitsu.yaku_id: "chinitsu",
        _yl.Dora.yaku_id: "dora",
        _yl.UraDora.yaku_id: "ura_dora",
        _yl.AkaDora.yaku_id: "aka_dora",
        # Yakuman. The four double-capable patterns carry the DoubleYakuman option names.
        _ym.KokushiMusou.yaku_id: "kokushi",
        _ym.DaburuKokushiMusou.yaku_id: "kokushi_13",
        _ym.ChuurenPoutou.yaku_id: "chuuren",
        _ym.DaburuChuurenPoutou.yaku_id: "junsei_chuuren",
        _ym.Suuankou.yaku_id: "suuankou",
        _ym.SuuankouTanki.yaku_id: "suuankou_tanki",
        _ym.Daisangen.yaku_id: "daisangen",
        _ym.Shousuushii.yaku_id: "shousuushii",
        _ym.DaiSuushii.yaku_id: "daisuushii",
        _ym.Ryuuiisou.yaku_id: "ryuuiisou",
        _ym.Tsuuiisou.yaku_id: "tsuuiisou",
        _ym.Chinroutou.yaku_id: "chinroutou",
        _ym.Suukantsu.yaku_id: "suukantsu",
        _ym.Tenhou.yaku_id: "tenhou",
        _ym.Chiihou.yaku_id: "chiihou",
        _ym.RenhouYakuman.yaku_id: "renhou",
    }
)

# Display order: Tenhou's yaku numbering (renhou as yakuman sits where renhou does).
_ORDER: Mapping[int, int] = MappingProxyType(
    {**YAKU_ID_TO_TENHOU_ID, _ym.RenhouYakuman.yaku_id: YAKU_ID_TO_TENHOU_ID[_yl.Renhou.yaku_id]}
)
_AKA_IDS = frozenset({16, 52, 88})  # the package's red fives: copy 0 of 5m, 5p, 5s
_AKA_ORDER = YAKU_ID_TO_TENHOU_ID[_yl.AkaDora.yaku_id]
_DORA_ORDER: Mapping[str, int] = MappingProxyType(
    {"dora": YAKU_ID_TO_TENHOU_ID[_yl.Dora.yaku_id], "ura_dora": YAKU_ID_TO_TENHOU_ID[_yl.UraDora.yaku_id]}
)

_KAZOE: Mapping[KazoeLimit, int] = MappingProxyType(
    {
        KazoeLimit.YAKUMAN: HandConstants.KAZOE_LIMITED,
        KazoeLimit.SANBAIMAN: HandConstants.KAZOE_SANBAIMAN,
        KazoeLimit.NONE: HandConstants.KAZOE_NO_LIMIT,
    }
)


def evaluate_win(ctx: WinContext, ruleset: Ruleset) -> HandValue | None:
    """The value of a complete hand, or ``None`` when it has no yaku (dora alone are not yaku).

    Raises :class:`RulesError` when the context is not a complete hand or contradicts itself
    (e.g. tenhou for a non-dealer): the engine only calls this for complete hands.

    Renhou (``Ruleset.renhou``): as ``yakuman`` it is a yakuman like any other. As ``mangan`` or
    ``baiman`` it is a fixed value "not cumulative with other yaku and dora"
    (docs/rules.md#option-renhou): the hand is worth the greater of renhou alone and its ordinary
    value without renhou (ordinary on a tie).
    """
    _check_context(ctx)
    renhou_as_limit = ctx.renhou and ruleset.renhou in (RenhouValue.MANGAN, RenhouValue.BAIMAN)
    ordinary = _evaluate(ctx, ruleset)
    if not renhou_as_limit:
        return ordinary
    limit, han = ("mangan", 5) if ruleset.renhou is RenhouValue.MANGAN else ("baiman", 8)
    alone = HandValue(han, 0, (YakuScore("renhou", han),), 0, limit, LIMIT_BASE[limit])
    if ordinary is None or alone.base_points > ordinary.base_points:
        return alone
    return ordinary


def has_yaku(ctx: WinContext, ruleset: Ruleset) -> bool:
    """Whether a complete hand may be declared (it has at least one yaku)."""
    return evaluate_win(ctx, ruleset) is not None


def _check_context(ctx: WinContext) -> None:
    if ctx.seat_wind not in WINDS or ctx.round_wind not in WINDS:
        raise RulesError(f"seat and round wind must be kinds 27..30, got {ctx.seat_wind}, {ctx.round_wind}")
    if ctx.is_dealer != (ctx.seat_wind == EAST):
        raise RulesError(f"is_dealer={ctx.is_dealer} contradicts seat wind {ctx.seat_wind}")
    meld_tiles = (t for m in ctx.melds for t in m.tiles)
    for tile in (*ctx.concealed, *meld_tiles, ctx.win_tile, *ctx.dora_indicators, *ctx.ura_indicators):
        if not isinstance(tile, int) or not 0 <= tile < NUM_FACES:
            raise RulesError(f"not a tile face: {tile!r}")
    if ctx.win_tile not in ctx.concealed:
        raise RulesError(f"win tile {ctx.win_tile} is not among the concealed tiles {ctx.concealed}")
    if ((ctx.tenhou or ctx.chiihou) and not ctx.is_tsumo) or (ctx.renhou and ctx.is_tsumo):
        raise RulesError("tenhou/chiihou are won by tsumo and renhou by ron")
    if (ctx.tenhou and not ctx.is_dealer) or ((ctx.chiihou or ctx.renhou) and ctx.is_dealer):
        raise RulesError("tenhou is the dealer's; chiihou and renhou are a non-dealer's")


def _assign_ids(groups: Sequence[Sequence[Tile]]) -> list[list[int]]:
    """136-ids for faces: a red five takes copy 0 of its kind (the package's red id), plain fives
    copies 1..3 first. Only a suit with four plain fives puts one on copy 0, which the package would
    count as red; red fives are counted here anyway, so its count is always replaced."""
    free: list[list[int]] = [[1, 2, 3, 0] if k in FIVE_KINDS else [0, 1, 2, 3] for k in range(34)]
    out = [[-1] * len(group) for group in groups]
    for reds in (True, False):
        for gi, group in enumerate(groups):
            for ti, face in enumerate(group):
                if is_red(face) != reds:
                    continue
                pool = free[kind(face)]
                if not pool:
                    raise RulesError(f"more than four tiles of kind {kind(face)} in the hand")
                copy = 0 if reds and 0 in pool else pool[0]
                pool.remove(copy)
                out[gi][ti] = kind(face) * 4 + copy
    return out


_PKG_MELD_TYPE: Mapping[MeldType, str] = MappingProxyType(
    {
        MeldType.CHI: _PkgMeld.CHI,
        MeldType.PON: _PkgMeld.PON,
        MeldType.DAIMINKAN: _PkgMeld.KAN,
        MeldType.ANKAN: _PkgMeld.KAN,
        MeldType.KAKAN: _PkgMeld.SHOUMINKAN,
    }
)


def _evaluate(ctx: WinContext, ruleset: Ruleset) -> HandValue | None:
    ids = _assign_ids([ctx.concealed, *(m.tiles for m in ctx.melds)])
    concealed_ids, meld_ids = ids[0], ids[1:]
    win_id = concealed_ids[ctx.concealed.index(ctx.win_tile)]
    pkg_melds = [
        _PkgMeld(meld_type=_PKG_MELD_TYPE[m.type], tiles=sorted(mids), opened=m.is_open)
        for m, mids in zip(ctx.melds, meld_ids, strict=True)
    ]
    all_faces = [*ctx.concealed, *(t for m in ctx.melds for t in m.tiles)]
    red_count = sum(1 for t in all_faces if is_red(t)) if any(ruleset.red_fives) else 0
    riichi = ctx.riichi or ctx.double_riichi
    options = OptionalRules(
        has_open_tanyao=ruleset.open_tanyao,
        has_aka_dora=red_count > 0,
        has_double_yakuman=True,  # every double is detected; Ruleset.double_yakuman filters below
        kazoe_limit=_KAZOE[ruleset.kazoe_limit],
        kiriage=ruleset.kiriage_mangan,
        fu_for_open_pinfu=True,  # an open pinfu-shaped ron is 30 fu (Tenhou, EMA): no 1-han 20-fu
        fu_for_pinfu_tsumo=ruleset.pinfu_tsumo_fu,
        renhou_as_yakuman=True,
    )
    config = HandConfig(
        is_tsumo=ctx.is_tsumo,
        is_riichi=ctx.riichi and not ctx.double_riichi,
        is_daburu_riichi=ctx.double_riichi,
        is_ippatsu=ctx.ippatsu and riichi,  # only with riichi (docs/rules.md#ippatsu)
        is_rinshan=ctx.rinshan,
        is_chankan=ctx.chankan,
        # A last-tile rinshan scores only rinshan (docs/rules.md#haitei-houtei).
        is_haitei=ctx.haitei and not ctx.rinshan,
        is_houtei=ctx.houtei and not ctx.chankan,
        is_tenhou=ctx.tenhou,
        is_chiihou=ctx.chiihou,
        is_renhou=ctx.renhou and ruleset.renhou is RenhouValue.YAKUMAN,
        player_wind=ctx.seat_wind,
        round_wind=ctx.round_wind,
        options=options,
    )
    # Ura dora under every revealed indicator, or only the first without kan ura
    # (docs/rules.md#option-kan_ura).
    ura = ctx.ura_indicators if ruleset.kan_ura else ctx.ura_indicators[:1]
    sanma = ruleset.seats == 3
    response: Any = HandCalculator.estimate_hand_value(
        [*concealed_ids, *(i for mids in meld_ids for i in mids)],
        win_id,
        melds=pkg_melds,
        dora_indicators=[_indicator_id(t, sanma) for t in ctx.dora_indicators],
        config=config,
        ura_dora_indicators=[_indicator_id(t, sanma) for t in ura],
    )
    if response.error == HandCalculator.ERR_NO_YAKU:
        return None
    if response.error:
        melds = " ".join(str(m) for m in ctx.melds)
        raise RulesError(f"cannot score {format_tiles(ctx.concealed)} {melds}: {response.error}")

    is_open: bool = response.is_open_hand
    yakuman: list[tuple[int, str, int]] = []  # (order, name, multiple)
    ordinary: list[tuple[int, YakuScore]] = []
    for y in response.yaku:
        name = _YAKU_NAMES[y.yaku_id]
        order = _ORDER[y.yaku_id]
        if y.is_yakuman:
            yakuman.append((order, name, 2 if name in ruleset.double_yakuman else 1))
        elif name != "aka_dora":  # red fives are counted below
            ordinary.append((order, YakuScore(name, y.han_open if is_open and y.han_open else y.han_closed)))

    if yakuman:
        if not ruleset.composite_yakuman:
            # "Yakuman yaku are not cumulative" (docs/rules.md#option-composite_yakuman): the single
            # most valuable one counts; on a tie the one that can carry liability, so that pao
            # still applies.
            yakuman = [max(yakuman, key=lambda item: (item[2], item[1] in PAO_YAKUMAN, -item[0]))]
        multiple = sum(m for _, _, m in yakuman)
        return HandValue(
            han=13 * multiple,
            fu=response.fu,
            yaku=tuple(YakuScore(name, 13 * m) for _, name, m in sorted(yakuman)),
            yakuman=multiple,
            limit="yakuman",
            base_points=8000 * multiple,
            pao_yakuman=tuple((Pao(name), m) for _, name, m in yakuman if name in PAO_YAKUMAN),
        )

    if red_count:
        ordinary.append((_AKA_ORDER, YakuScore("aka_dora", red_count)))
    if ctx.norths:
        ordinary = _with_norths(ordinary, ctx, ura)
    yaku = tuple(score for _, score in sorted(ordinary, key=lambda item: item[0]))
    han = sum(score.han for score in yaku)
    fu: int = response.fu
    if ruleset.double_wind_pair_fu == 2 and any(
        d["reason"] == FuCalculator.DOUBLE_VALUED_PAIR for d in response.fu_details
    ):
        # EMA: a pair that is both seat and round wind is 2 fu, not 4.
        fu = (sum(d["fu"] for d in response.fu_details) - 2 + 9) // 10 * 10
    limit, base = points_limit(han, fu, ruleset)
    return HandValue(han, fu, yaku, _kazoe_multiple(limit, base), limit, base)
