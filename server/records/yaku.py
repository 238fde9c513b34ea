"""Tenhou's yaku: the numeric ids of mjlog ``AGARI yaku=``/``yakuman=`` and the Japanese labels of
tenhou.net/6 JSON, mapped to our yaku ids (snake_case romaji, the names ``YakuScore.name`` uses).
Mahjong Soul's English names, which its conversions to tenhou.net/6 write, are read too.

>>> TENHOU_YAKU[39].id, TENHOU_YAKU[39].label, TENHOU_YAKU[39].yakuman
('daisangen', '大三元', True)
>>> yaku_from_label("役牌 中").id
'chun'
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TenhouYaku:
    tenhou_id: int
    id: str  # our id
    label: str  # Tenhou's Japanese label, as tenhou.net/6 JSON writes it
    yakuman: bool = False


_TABLE: tuple[tuple[str, str], ...] = (
    ("menzen_tsumo", "門前清自摸和"),  # 0
    ("riichi", "立直"),
    ("ippatsu", "一発"),
    ("chankan", "槍槓"),
    ("rinshan_kaihou", "嶺上開花"),
    ("haitei", "海底摸月"),  # 5
    ("houtei", "河底撈魚"),
    ("pinfu", "平和"),
    ("tanyao", "断幺九"),
    ("iipeikou", "一盃口"),
    ("seat_wind_east", "自風 東"),  # 10
    ("seat_wind_south", "自風 南"),
    ("seat_wind_west", "自風 西"),
    ("seat_wind_north", "自風 北"),
    ("round_wind_east", "場風 東"),
    ("round_wind_south", "場風 南"),  # 15
    ("round_wind_west", "場風 西"),
    ("round_wind_north", "場風 北"),
    ("haku", "役牌 白"),
    ("hatsu", "役牌 發"),
    ("chun", "役牌 中"),  # 20
    ("double_riichi", "両立直"),
    ("chiitoitsu", "七対子"),
    ("chanta", "混全帯幺九"),
    ("ittsu", "一気通貫"),
    ("sanshoku_doujun", "三色同順"),  # 25
    ("sanshoku_doukou", "三色同刻"),
    ("sankantsu", "三槓子"),
    ("toitoi", "対々和"),
    ("sanankou", "三暗刻"),
    ("shousangen", "小三元"),  # 30
    ("honroutou", "混老頭"),
    ("ryanpeikou", "二盃口"),
    ("junchan", "純全帯幺九"),
    ("honitsu", "混一色"),
    ("chinitsu", "清一色"),  # 35
    ("renhou", "人和"),
    ("tenhou", "天和"),
    ("chiihou", "地和"),
    ("daisangen", "大三元"),
    ("suuankou", "四暗刻"),  # 40
    ("suuankou_tanki", "四暗刻単騎"),
    ("tsuuiisou", "字一色"),
    ("ryuuiisou", "緑一色"),
    ("chinroutou", "清老頭"),
    ("chuuren", "九蓮宝燈"),  # 45
    ("junsei_chuuren", "純正九蓮宝燈"),
    ("kokushi", "国士無双"),
    ("kokushi_13", "国士無双１３面"),
    ("daisuushii", "大四喜"),
    ("shousuushii", "小四喜"),  # 50
    ("suukantsu", "四槓子"),
    ("dora", "ドラ"),
    ("ura_dora", "裏ドラ"),
    ("aka_dora", "赤ドラ"),
)

_YAKUMAN_IDS = frozenset(range(37, 52))  # renhou (36) is a mangan on Tenhou when enabled at all

TENHOU_YAKU: tuple[TenhouYaku, ...] = tuple(
    TenhouYaku(i, our_id, label, i in _YAKUMAN_IDS) for i, (our_id, label) in enumerate(_TABLE)
)
"""Indexed by Tenhou's yaku id (0..54)."""

NUKIDORA = TenhouYaku(52, "nukidora", "抜きドラ")
"""Three players: the norths set aside. tenhou.net/6 lists them apart; mjlog counts them within
its dora (id 52)."""

_BY_LABEL: dict[str, TenhouYaku] = {y.label: y for y in TENHOU_YAKU}
_BY_LABEL[NUKIDORA.label] = NUKIDORA
# Spellings seen in other exports of the same labels.
_BY_LABEL.update(
    {
        "国士無双13面": TENHOU_YAKU[48],
        "国士無双十三面": TENHOU_YAKU[48],
        "四暗刻單騎": TENHOU_YAKU[41],
        "白": TENHOU_YAKU[18],
        "發": TENHOU_YAKU[19],
        "中": TENHOU_YAKU[20],
        "門前清自摸": TENHOU_YAKU[0],
    }
)


# Mahjong Soul's English yaku names, as its conversions to tenhou.net/6 write them in place of
# Tenhou's labels ("Riichi(1飜)", "Dora(2飜)"). A wind yaku is named by its kind of wind only; the
# engine's id is the same for every wind (yakuhai_seat_wind / yakuhai_round_wind).
_MAHJONG_SOUL_NAMES: dict[str, int] = {
    "Fully Concealed Hand": 0,
    "Riichi": 1,
    "Ippatsu": 2,
    "Robbing a Kan": 3,
    "After a Kan": 4,
    "Under the Sea": 5,
    "Under the River": 6,
    "Pinfu": 7,
    "All Simples": 8,
    "Pure Double Sequence": 9,
    "Seat Wind": 10,
    "Prevalent Wind": 14,
    "Round Wind": 14,
    "White Dragon": 18,
    "Green Dragon": 19,
    "Red Dragon": 20,
    "Double Riichi": 21,
    "Seven Pairs": 22,
    "Half Outside Hand": 23,
    "Pure Straight": 24,
    "Mixed Triple Sequence": 25,
    "Triple Triplets": 26,
    "Three Quads": 27,
    "All Triplets": 28,
    "Three Concealed Triplets": 29,
    "Little Three Dragons": 30,
    "All Terminals and Honors": 31,
    "Twice Pure Double Sequence": 32,
    "Fully Outside Hand": 33,
    "Half Flush": 34,
    "Full Flush": 35,
    "Blessing of Man": 36,
    "Blessing of Heaven": 37,
    "Blessing of Earth": 38,
    "Big Three Dragons": 39,
    "Four Concealed Triplets": 40,
    "Single-wait Four Concealed Triplets": 41,
    "All Honors": 42,
    "All Green": 43,
    "All Terminals": 44,
    "Nine Gates": 45,
    "True Nine Gates": 46,
    "Thirteen Orphans": 47,
    "Thirteen-wait Thirteen Orphans": 48,
    "Four Big Winds": 49,
    "Four Little Winds": 50,
    "Four Quads": 51,
    "Dora": 52,
    "Ura Dora": 53,
    "Uradora": 53,
    "Red Five": 54,
    "Red Fives": 54,
}
_WIND_NAMES = ("east", "south", "west", "north")


def _name_key(text: str) -> str:
    """Names compare without case, spaces, hyphens or a wind's punctuation."""
    return re.sub(r"[\s\-:()]", "", text.casefold())


_BY_NAME: dict[str, TenhouYaku] = {_name_key(name): TENHOU_YAKU[i] for name, i in _MAHJONG_SOUL_NAMES.items()}
_BY_NAME.update(
    {
        _name_key(f"{kind} {wind}"): TENHOU_YAKU[first + offset]
        for kind, first in (("Seat Wind", 10), ("Prevalent Wind", 14), ("Round Wind", 14))
        for offset, wind in enumerate(_WIND_NAMES)
    }
)
_BY_NAME.update({_name_key(y.id): y for y in TENHOU_YAKU})
_BY_NAME.update({_name_key(name): NUKIDORA for name in ("nukidora", "Kita", "North Dora")})


def yaku_from_id(tenhou_id: int) -> TenhouYaku | None:
    return TENHOU_YAKU[tenhou_id] if 0 <= tenhou_id < len(TENHOU_YAKU) else None


def yaku_from_label(label: str) -> TenhouYaku | None:
    """A yaku by Tenhou's Japanese label, Mahjong Soul's English name or our record id.

    >>> yaku_from_label("Riichi").id, yaku_from_label("dora").id, yaku_from_label("Seat Wind: South").id
    ('riichi', 'dora', 'seat_wind_south')
    """
    text = label.strip()
    return _BY_LABEL.get(text) or _BY_NAME.get(_name_key(text))


LIMITS: tuple[str, ...] = ("", "mangan", "haneman", "baiman", "sanbaiman", "yakuman")
"""mjlog ``AGARI ten="fu,points,limit"``: the limit code 0..5 as our limit names."""

LIMIT_LABELS: dict[str, str] = {
    "満貫": "mangan",
    "跳満": "haneman",
    "倍満": "baiman",
    "三倍満": "sanbaiman",
    "役満": "yakuman",
    "数え役満": "kazoe_yakuman",
}
"""tenhou.net/6 JSON: the limit word that starts a win summary such as ``"満貫2000-4000点"``."""


_ENGINE_IDS: dict[str, str] = {
    "rinshan_kaihou": "rinshan",
    "sanshoku_doujun": "sanshoku",
    "haku": "yakuhai_haku",
    "hatsu": "yakuhai_hatsu",
    "chun": "yakuhai_chun",
    **{f"seat_wind_{w}": "yakuhai_seat_wind" for w in ("east", "south", "west", "north")},
    **{f"round_wind_{w}": "yakuhai_round_wind" for w in ("east", "south", "west", "north")},
}


def engine_yaku_id(record_id: str) -> str:
    """The engine's yaku name (``YakuScore.name``) for a record's yaku id (Tenhou's ids above).

    >>> engine_yaku_id("seat_wind_south"), engine_yaku_id("sanshoku_doujun"), engine_yaku_id("riichi")
    ('yakuhai_seat_wind', 'sanshoku', 'riichi')
    """
    return _ENGINE_IDS.get(record_id, record_id)
