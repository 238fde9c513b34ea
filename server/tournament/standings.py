"""Event standings: a pure function of the games played and the organizer's adjustments.

Points are counted in tenths of a thousand game points (``453`` is shown ``+45.3``), so every sum is
exact. The formulas (:class:`Formula`):

* ``points``: per game ``(final score - return points) / 1000 + uma[place] (+ oka to the winner)``,
  the oka being ``(return - start) x seats / 1000`` (with per-seat start points: ``return x seats -
  the sum of the seats' start points``); the uma and oka come from the event's ruleset;
* ``placements``: the sum of the places taken (1st = 1); lower is better;
* ``best_consecutive``: the best run of ``best_n`` consecutive games of the ``points`` formula, in
  the order played (all the games while fewer than ``best_n`` were played);
* ``teams``: each team's members' ``points`` totals added up.

An adjustment (a penalty or a correction, with its reason) is in the formula's unit and is added to
the total, positive being good for the entrant (for ``placements`` it is subtracted from the sum).
A seat played by a substitute who is not an entrant counts for nobody. Ties are broken by more
first places, then more second places (and so on), then the best single
game, then the name, so the order never depends on input order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from server.engine.rules import Ruleset


class Formula(StrEnum):
    POINTS = "points"
    PLACEMENTS = "placements"
    BEST_CONSECUTIVE = "best_consecutive"
    TEAMS = "teams"


class StandingsError(ValueError):
    """A game or an adjustment that the standings cannot count (named in the message)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game of the event."""

    match_id: str
    round_no: int
    entrants: tuple[str, ...]  # seat order
    scores: tuple[int, ...]  # final scores, seat order
    placements: tuple[int, ...]  # 1 = first, seat order (ties already broken by the match's rules)
    start_points: tuple[int, ...] | None = None  # per-seat start points (None: the ruleset's)


@dataclass(frozen=True, slots=True)
class Adjustment:
    entrant: str
    amount: int  # in the formula's unit (tenths of a point for the points formulas)
    reason: str


@dataclass(frozen=True, slots=True)
class ScoringRules:
    formula: Formula
    seats: int
    start_points: int
    return_points: int
    uma: tuple[int, ...]  # thousands, 1st..last
    oka: bool
    best_n: int | None = None
    teams: Mapping[str, str] = field(default_factory=dict)  # entrant -> team

    @classmethod
    def of(
        cls,
        ruleset: Ruleset,
        formula: Formula,
        *,
        seats: int | None = None,
        best_n: int | None = None,
        teams: Mapping[str, str] | None = None,
    ) -> ScoringRules:
        if formula is Formula.BEST_CONSECUTIVE and (best_n is None or best_n < 1):
            raise StandingsError("the best_consecutive formula needs best_n >= 1")
        if formula is Formula.TEAMS and not teams:
            raise StandingsError("the teams formula needs every entrant's team")
        seats = ruleset.seats if seats is None else seats
        return cls(
            formula=formula,
            seats=seats,
            start_points=ruleset.start_points,
            return_points=ruleset.return_points,
            uma=tuple(ruleset.uma)[:seats],
            oka=ruleset.oka,
            best_n=best_n,
            teams=dict(teams or {}),
        )


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    name: str  # an entrant, or a team for the teams formula
    total: int  # in the formula's unit
    games: int
    places: tuple[int, ...]  # how many 1st, 2nd, ... places
    adjustments: int
    members: tuple[str, ...] = ()  # the teams formula: the team's entrants

    def shown(self, formula: Formula) -> str:
        return str(self.total) if formula is Formula.PLACEMENTS else format_points(self.total)


def format_points(tenths: int) -> str:
    """``453`` -> ``"+45.3"``, ``-20`` -> ``"-2.0"``, ``0`` -> ``"0.0"``."""
    sign = "+" if tenths > 0 else "-" if tenths < 0 else ""
    return f"{sign}{abs(tenths) // 10}.{abs(tenths) % 10}"


def game_points(game: GameResult, rules: ScoringRules) -> tuple[int, ...]:
    """Each seat's points for one game in tenths: (score - return) / 100 + uma (+ oka)."""
    if len(game.scores) != rules.seats or sorted(game.placements) != list(range(1, rules.seats + 1)):
        raise StandingsError(f"game {game.match_id}: {len(game.scores)} scores or places {game.placements}")
    # The oka is what the return points take from the table's start points: with per-seat start
    # points (an organizer's), their sum instead of the ruleset's start points times the seats.
    started = sum(game.start_points) if game.start_points is not None else rules.start_points * rules.seats
    oka = (rules.return_points * rules.seats - started) // 100 if rules.oka else 0
    out = []
    for score, place in zip(game.scores, game.placements, strict=True):
        diff = score - rules.return_points
        if diff % 100:
            raise StandingsError(f"game {game.match_id}: score {score} is not a multiple of 100")
        out.append(diff // 100 + rules.uma[place - 1] * 10 + (oka if place == 1 else 0))
    return tuple(out)


@dataclass(slots=True)
class _Tally:
    games: list[tuple[int, int]] = field(default_factory=list)  # (order, points)
    places: list[int] = field(default_factory=list)
    adjustments: int = 0


def _tallies(
    games: Sequence[GameResult],
    adjustments: Sequence[Adjustment],
    entrants: Sequence[str],
    rules: ScoringRules,
) -> dict[str, _Tally]:
    tallies = {e: _Tally(places=[0] * rules.seats) for e in entrants}
    ordered = sorted(games, key=lambda g: (g.round_no, g.match_id))
    for order, game in enumerate(ordered):
        for e, pts, place in zip(game.entrants, game_points(game, rules), game.placements, strict=True):
            t = tallies.get(e)
            if t is None:
                continue  # a substitute who is not an entrant: the seat's game counts for nobody
            t.games.append((order, pts))
            t.places[place - 1] += 1
    for adj in adjustments:
        if adj.entrant not in tallies:
            raise StandingsError(f"adjustment for {adj.entrant!r}, who is not an entrant")
        tallies[adj.entrant].adjustments += adj.amount
    return tallies


def _base_total(t: _Tally, rules: ScoringRules) -> int:
    if rules.formula is Formula.PLACEMENTS:
        return sum((i + 1) * n for i, n in enumerate(t.places)) - t.adjustments
    points = [p for _, p in t.games]
    if rules.formula is Formula.BEST_CONSECUTIVE:
        n = rules.best_n or 1
        if len(points) > n:
            points = max((points[i : i + n] for i in range(len(points) - n + 1)), key=sum)
    return sum(points) + t.adjustments


def standings(
    games: Sequence[GameResult],
    adjustments: Sequence[Adjustment],
    entrants: Sequence[str],
    rules: ScoringRules,
) -> list[Standing]:
    """The event's table, best first, by the rules' formula (see the module docstring)."""
    tallies = _tallies(games, adjustments, entrants, rules)
    rows: list[tuple[tuple[object, ...], Standing]] = []
    if rules.formula is Formula.TEAMS:
        teams: dict[str, list[str]] = {}
        for e in tallies:
            team = rules.teams.get(e)
            if team is None:
                raise StandingsError(f"{e!r} has no team")
            teams.setdefault(team, []).append(e)
        for team, members in teams.items():
            total = sum(_base_total(tallies[m], rules) for m in members)
            places = tuple(sum(tallies[m].places[i] for m in members) for i in range(rules.seats))
            best = max((p for m in members for _, p in tallies[m].games), default=0)
            row = Standing(
                0,
                team,
                total,
                sum(len(tallies[m].games) for m in members),
                places,
                sum(tallies[m].adjustments for m in members),
                tuple(sorted(members)),
            )
            rows.append(((-total, *(-n for n in places), -best, team), row))
    else:
        sign = 1 if rules.formula is Formula.PLACEMENTS else -1
        for e, t in tallies.items():
            total = _base_total(t, rules)
            best = max((p for _, p in t.games), default=0)
            row = Standing(0, e, total, len(t.games), tuple(t.places), t.adjustments)
            rows.append(((sign * total, *(-n for n in t.places), -best, e), row))
    rows.sort(key=lambda r: r[0])
    out = []
    previous: tuple[object, ...] | None = None
    rank = 0
    for i, (key, row) in enumerate(rows, 1):
        if previous is None or key[:-1] != previous[:-1]:
            rank = i
        previous = key
        out.append(Standing(rank, row.name, row.total, row.games, row.places, row.adjustments, row.members))
    return out
