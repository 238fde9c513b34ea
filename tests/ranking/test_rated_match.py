"""The one rateable-match check (``server.domain.ranked.rated_match``) that both stores make."""

from __future__ import annotations

from server.domain.ranked import rated_match
from server.ranking import CURRENT, Length

SEATS = ("a", "b", "c", "d")


def _rated(**changes: object) -> object:
    args: dict[str, object] = {
        "source": "ranked:open:east",
        "aborted": False,
        "accounts": SEATS,
        "placements": (2, 1, 4, 3),
        "table_version": CURRENT.version,
    }
    args.update(changes)
    return rated_match("m-1", **args)  # type: ignore[arg-type]


def test_a_completed_match_of_a_ranked_room_is_rated() -> None:
    m = rated_match(
        "m-1",
        source="ranked:open:east",
        aborted=False,
        accounts=SEATS,
        placements=(2, 1, 4, 3),
        table_version=CURRENT.version,
    )
    assert m is not None
    assert (m.room, m.board, m.length, m.accounts, m.placements) == (
        "open",
        "ranked",
        Length.EAST,
        SEATS,
        (2, 1, 4, 3),
    )


def test_what_is_not_rated() -> None:
    assert _rated() is not None
    assert _rated(aborted=True) is None
    assert _rated(source="queue:tenhou") is None
    assert _rated(source="ranked:nowhere:east") is None
    assert _rated(placements=()) is None, "a match without its result"
    assert _rated(placements=(1, 1, 3, 4)) is None
    assert _rated(accounts=("a", "b", "c", None)) is None, "a guest's seat"
    assert _rated(accounts=("a", "b", "c", "a")) is None, "the same account twice"
    assert _rated(accounts=SEATS[:3], placements=(1, 2, 3)) is None
    assert _rated(table_version="no such tables") is None
