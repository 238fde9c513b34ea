"""The names records give to a drawn hand, and what to conclude when a record gives none.

Tools name the same draws differently, and the readers accept every spelling seen in the records
they read (case, spaces, ``_`` and ``-`` do not matter):

* Tenhou's result labels (tenhou.net/6 JSON): ``流局``, ``全員聴牌``, ``全員不聴``, ``流し満貫``,
  ``九種九牌``, ``四風連打``, ``四家立直``, ``四槓散了``, ``三家和了``;
* Mahjong Soul conversions to tenhou.net/6 (tensoul and its ports) in their three languages:
  ``四開槓``, ``三家和``; ``Ryuukyoku``, ``Nagashi Mangan``, ``Suukaikan``, ``Sanchahou``,
  ``Kyuushu Kyuuhai``, ``Suufon Renda``, ``Suucha Riichi``; ``Exhaustive Draw``, ``Mangan at Draw``,
  ``Four Kan Abortion``, ``Three Ron Abortion``, ``Nine Terminal Abortion``,
  ``Four Wind Abortion``, ``Four Riichi Abortion``;
* mjai ``ryukyoku`` reasons: ours (``exhaustive``, ``nagashi_mangan``, ``kyuushu_kyuuhai``,
  ``suufon_renda``, ``suucha_riichi``, ``suukaikan``, ``sanchahou``), the original mjai and Tenhou
  mjlog ``type`` codes (``fanpai``, ``yao9``, ``kaze4``, ``reach4``, ``kan4``, ``ron3``, ``nm``)
  and other engines' (``exhaustive_draw``, ``nagashimangan``, ``kyushu_kyuhai``, ``sufuurenta``,
  ``suurechi``, ``suukansansen``, ``sanchaho`` as RiichiEnv and the mjai servers built on it write
  them; ``sufonrenda``, ``suuchariichi``, ``sukantsu``, ``suukansanra``).

A record without a name (an mjai ``ryukyoku`` without ``reason``) gets one from the table:
:func:`infer_draw_reason`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType

from server.engine.events import DrawReason
from server.engine.melds import MeldType
from server.engine.tiles import WINDS, kind
from server.records.check import ACT, CLAIM, HandTracker

WIN_LABELS = frozenset({"和了", "Agari"})
"""tenhou.net/6 result labels of a win (Tenhou's, and Mahjong Soul conversions in romaji/English)."""


@dataclass(frozen=True, slots=True)
class DrawName:
    """What a draw's name says: the reason, whether nagashi mangan was paid, and (for Tenhou's
    ``全員聴牌``/``全員不聴``) whether every seat or none was tenpai."""

    reason: DrawReason
    nagashi: bool = False
    all_tenpai: bool | None = None


_EXHAUSTIVE = DrawName(DrawReason.EXHAUSTIVE)
_NAGASHI = DrawName(DrawReason.EXHAUSTIVE, nagashi=True)
_NAMES: dict[DrawName, tuple[str, ...]] = {
    _EXHAUSTIVE: ("流局", "Ryuukyoku", "ryukyoku", "Exhaustive Draw", "exhaustive", "fanpai"),
    DrawName(DrawReason.EXHAUSTIVE, all_tenpai=True): ("全員聴牌",),
    DrawName(DrawReason.EXHAUSTIVE, all_tenpai=False): ("全員不聴",),
    _NAGASHI: ("流し満貫", "Nagashi Mangan", "Mangan at Draw", "nm"),
    DrawName(DrawReason.KYUUSHU_KYUUHAI): (
        "九種九牌",
        "Kyuushu Kyuuhai",
        "Nine Terminal Abortion",
        "kyushu_kyuhai",
        "yao9",
    ),
    DrawName(DrawReason.SUUFON_RENDA): (
        "四風連打",
        "Suufon Renda",
        "Four Wind Abortion",
        "sufuurenta",
        "sufurenda",
        "sufonrenda",
        "kaze4",
    ),
    DrawName(DrawReason.SUUCHA_RIICHI): (
        "四家立直",
        "Suucha Riichi",
        "Four Riichi Abortion",
        "suurechi",
        "reach4",
    ),
    DrawName(DrawReason.SUUKAIKAN): (
        "四槓散了",
        "四開槓",
        "Suukaikan",
        "Four Kan Abortion",
        "suukansansen",
        "suukansanra",
        "sukantsu",
        "kan4",
    ),
    DrawName(DrawReason.SANCHAHOU): (
        "三家和了",
        "三家和",
        "Sanchahou",
        "Three Ron Abortion",
        "sanchaho",
        "ron3",
    ),
}


def _key(text: str) -> str:
    return re.sub(r"[\s_\-]", "", text.casefold())


_BY_KEY: MappingProxyType[str, DrawName] = MappingProxyType(
    {_key(name): draw for draw, names in _NAMES.items() for name in names}
    | {_key(str(reason)): DrawName(reason) for reason in DrawReason}
    | {_key("exhaustive_draw"): _EXHAUSTIVE, _key("nagashimangan"): _NAGASHI}
)


def draw_name(text: str) -> DrawName | None:
    """What the name of a draw says, or ``None`` for a name no reader knows.

    >>> draw_name("Four Kan Abortion").reason, draw_name("exhaustive_draw").reason
    (<DrawReason.SUUKAIKAN: 'suukaikan'>, <DrawReason.EXHAUSTIVE: 'exhaustive'>)
    >>> draw_name("Mangan at Draw").nagashi, draw_name("和了") is None
    (True, True)
    """
    return _BY_KEY.get(_key(text))


def four_kans_by_several_seats(tracker: HandTracker) -> bool:
    kan_seats = [seat for seat, melds in enumerate(tracker.melds) for m in melds if m.type in _KAN_TYPES]
    return len(kan_seats) >= 4 and len(set(kan_seats)) > 1


_KAN_TYPES = frozenset({MeldType.ANKAN, MeldType.DAIMINKAN, MeldType.KAKAN})


def infer_draw_reason(tracker: HandTracker) -> DrawReason:
    """The draw a hand that stops here without a stated reason must have been.

    A seat that has just drawn declared kyuushu kyuuhai. After a discard: four kans by more than
    one seat abort the hand, even when the fourth kan's discard is the last tile (the abort is
    decided on that discard before the end of the wall, as the engine decides it), then an empty
    live wall is an exhaustive draw, then four riichi, four identical first winds, else three rons.
    """
    if tracker.phase == ACT:
        return DrawReason.KYUUSHU_KYUUHAI
    if tracker.phase == CLAIM and four_kans_by_several_seats(tracker):
        return DrawReason.SUUKAIKAN
    if tracker.phase == CLAIM and tracker.live_left == 0:
        return DrawReason.EXHAUSTIVE
    if all(tracker.riichi) and not tracker.pending_riichi:
        return DrawReason.SUUCHA_RIICHI
    first = [river[0] for river in tracker.rivers if len(river) == 1]
    if len(first) == 4 and len({kind(t) for t in first}) == 1 and kind(first[0]) in WINDS:
        return DrawReason.SUUFON_RENDA
    if tracker.kans >= 4:
        return DrawReason.SUUKAIKAN
    return DrawReason.SANCHAHOU
