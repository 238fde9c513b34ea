"""The verification of a finished game's walls: each hand's revealed wall and salt against the
commitment published when it started, against the revealed match seed, and against the deal.

Nothing here trusts the store: a wall or salt that does not parse fails its check, it does not fail
the report.
"""

from __future__ import annotations

from server.domain.reads import HandResult
from server.domain.records import MatchRecord
from server.engine import events as ev
from server.engine.errors import NotationError, RulesetError
from server.engine.rules import Ruleset
from server.engine.tiles import sorted_tiles
from server.engine.wall import (
    dealt_hands,
    dora_indicator,
    make_salt,
    make_wall,
    seed_commitment,
    verify_wall,
)
from server.eventlog.summary import tiles_from_json
from server.services import reviewtypes as m
from server.services.gamelog import hand_label


def hand_walls(match: MatchRecord, hand: HandResult, deal: ev.RoundStarted | None) -> m.HandWall:
    label = hand_label(hand.round_wind, hand.kyoku, hand.honba)
    revealed = hand.wall is not None and hand.wall_salt is not None
    commitment_ok: bool | None = None
    from_seed: bool | None = None
    deal_ok: bool | None = None
    if revealed:
        assert hand.wall is not None and hand.wall_salt is not None
        try:
            tiles = tiles_from_json(hand.wall)
            salt = bytes.fromhex(hand.wall_salt)
        except (NotationError, ValueError):
            tiles, salt = None, None
        if tiles is None or salt is None:
            commitment_ok = False
        else:
            commitment_ok = verify_wall(hand.wall_commitment, salt, tiles)
            if match.seed_hex is not None:
                try:
                    seed = bytes.fromhex(match.seed_hex)
                    red = Ruleset.from_json(match.ruleset_json).red_fives
                    from_seed = (
                        make_salt(seed, hand.hand_index) == salt
                        and make_wall(seed, hand.hand_index, red) == tiles
                    )
                except (ValueError, RulesetError):
                    from_seed = False
            if deal is not None and len(tiles) >= 52:
                deal_ok = _deal_matches(deal, tiles, hand.dealer)
    ok = bool(revealed and commitment_ok and from_seed is not False and deal_ok is not False)
    return m.HandWall(
        hand_index=hand.hand_index,
        label=label,
        commitment=hand.wall_commitment,
        revealed=revealed,
        salt=hand.wall_salt,
        wall=None if hand.wall is None else list(hand.wall),
        commitment_ok=commitment_ok,
        from_seed=from_seed,
        deal_ok=deal_ok,
        ok=ok,
    )


def _deal_matches(deal: ev.RoundStarted, wall: tuple[int, ...], dealer: int) -> bool:
    """The dealt hands and the first dora indicator of ``round_started`` are the wall's."""
    try:
        expected = dealt_hands(wall, dealer)
        if len(deal.hands) != len(expected):  # the wall's seats: three or four
            return False
        for seat, shown in enumerate(deal.hands):
            if shown is None or sorted_tiles(shown) != sorted_tiles(expected[seat]):
                return False
        return deal.dora_indicator == dora_indicator(wall, 0)
    except (NotationError, IndexError, TypeError):
        return False


def seed_ok(match: MatchRecord) -> bool | None:
    if match.seed_hex is None:
        return None
    try:
        return seed_commitment(bytes.fromhex(match.seed_hex)) == match.seed_commitment.lower()
    except ValueError:
        return False
