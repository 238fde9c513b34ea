"""A round's seating: who sits at which table, in which seat, validated before the round starts.

Three methods (:class:`SeatingMethod`): **random** (a seeded shuffle), **by standings** (Swiss-like:
the entrants in standings order fill the tables one after another, so close scores meet) and
**scripted** (the organizer's own tables, parsed by :func:`parse_script`). Whatever the method, the
result is checked by :func:`conflicts` against the event's :class:`SeatingRules`:

* every entrant of the round sits exactly once (no one twice, no one missing, no stranger);
* every table has the ruleset's number of seats (3 or 4: the rules say, nothing assumes four);
* no two entrants share a table more often than ``max_meetings`` over the event (when set);
* seat winds are balanced: no entrant has sat in one seat position more than ``max_wind_spread``
  times more often than in another (when set).

Generation never hangs: the random and standings methods start from a shuffle (or the standings
order) and repair tables that break a constraint by swapping entrants between tables, within a
fixed budget of swaps and restarts; when the budget is spent, :class:`SeatingError` names the
entrants and the constraint that could not be met. Without ``max_meetings`` repeat meetings are
still avoided where a swap removes one (a soft goal). The seats at a table are then ordered to
balance each entrant's seat winds over the event. 1,000 entrants x 10 rounds take well under a
second (``bench/tournament.py``).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import permutations

from server.engine.rules import TENHOU
from server.tournament.draws import Draws

Table = tuple[str, ...]
"""Entrant ids in seat order: index 0 sits in seat 0 (east in the first hand)."""

SWAP_BUDGET = 1000  # repair swaps tried per attempt, plus SWAP_BUDGET_PER_TABLE per table to repair
SWAP_BUDGET_PER_TABLE = 100
WINDOW = 24  # how far down the order a table looks for its next member
RESTARTS = 8  # fresh shuffles before the random method gives up
SAMPLE_TABLES = 12  # tables a swap partner is drawn from, per try (random method)


class SeatingMethod(StrEnum):
    RANDOM = "random"
    STANDINGS = "standings"
    SCRIPTED = "scripted"


class SeatingError(ValueError):
    """A round cannot be seated (or a script is invalid); ``conflicts`` names each problem."""

    def __init__(self, message: str, conflicts: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.conflicts: tuple[str, ...] = tuple(conflicts) or (message,)


@dataclass(frozen=True, slots=True)
class SeatingRules:
    """The event's seating constraints."""

    seats: int = TENHOU.seats  # the event's ruleset's; the default preset's when none is given
    max_meetings: int | None = None  # rounds two entrants may share a table over the event
    max_wind_spread: int | None = 2  # an entrant's most-used seat position minus its least-used

    def __post_init__(self) -> None:
        if self.seats not in (3, 4):
            raise SeatingError(f"a table has 3 or 4 seats, not {self.seats}")
        if self.max_meetings is not None and self.max_meetings < 1:
            raise SeatingError(f"max_meetings must be at least 1, got {self.max_meetings}")
        if self.max_wind_spread is not None and self.max_wind_spread < 1:
            raise SeatingError(f"max_wind_spread must be at least 1, got {self.max_wind_spread}")


@dataclass(frozen=True, slots=True)
class RoundSeating:
    tables: tuple[Table, ...]

    def entrants(self) -> list[str]:
        return [e for t in self.tables for e in t]

    def to_json(self) -> list[list[str]]:
        return [list(t) for t in self.tables]


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


@dataclass(slots=True)
class History:
    """What earlier rounds did: how often each pair met, how often each entrant sat in each seat."""

    seats: int
    meetings: dict[tuple[str, str], int] = field(default_factory=dict)
    winds: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, rounds: Iterable[RoundSeating], seats: int) -> History:
        history = cls(seats)
        for r in rounds:
            history.add(r)
        return history

    def add(self, seating: RoundSeating) -> None:
        for table in seating.tables:
            for i, a in enumerate(table):
                self.seat_counts(a)[i % self.seats] += 1
                for b in table[i + 1 :]:
                    key = _pair(a, b)
                    self.meetings[key] = self.meetings.get(key, 0) + 1

    def met(self, a: str, b: str) -> int:
        return self.meetings.get(_pair(a, b), 0)

    def seat_counts(self, entrant: str) -> list[int]:
        counts = self.winds.get(entrant)
        if counts is None:
            counts = self.winds[entrant] = [0] * self.seats
        return counts

    def spread(self, entrant: str) -> int:
        counts = self.winds.get(entrant)
        return 0 if counts is None else max(counts) - min(counts)


# -- validation -------------------------------------------------------------------------------------


def conflicts(
    seating: RoundSeating, entrants: Sequence[str], history: History, rules: SeatingRules
) -> list[str]:
    """Every way ``seating`` breaks the rules for a round of ``entrants`` after ``history``."""
    found: list[str] = []
    expected = set(entrants)
    seen: dict[str, int] = {}
    for n, table in enumerate(seating.tables, 1):
        if len(table) != rules.seats:
            found.append(f"table {n} has {len(table)} entrants, a table has {rules.seats} seats")
        for e in table:
            if e not in expected:
                found.append(f"table {n}: {e!r} is not an entrant of this round")
            if e in seen:
                found.append(f"{e!r} sits twice in this round (tables {seen[e]} and {n})")
            else:
                seen[e] = n
    missing = sorted(expected - seen.keys())
    if missing:
        found.append(f"not seated: {', '.join(repr(e) for e in missing)}")
    if rules.max_meetings is not None:
        for n, table in enumerate(seating.tables, 1):
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    times = history.met(a, b) + 1
                    if times > rules.max_meetings:
                        found.append(
                            f"table {n}: {a!r} and {b!r} would meet {times} times "
                            f"(at most {rules.max_meetings})"
                        )
    if rules.max_wind_spread is not None:
        for n, table in enumerate(seating.tables, 1):
            for position, e in enumerate(table):
                counts = list(history.winds.get(e, [0] * rules.seats))
                if position < len(counts):
                    counts[position] += 1
                if max(counts) - min(counts) > rules.max_wind_spread:
                    found.append(
                        f"table {n}: {e!r} in seat {position} would have seat counts {counts} "
                        f"(spread at most {rules.max_wind_spread})"
                    )
    return found


def validate(
    seating: RoundSeating, entrants: Sequence[str], history: History, rules: SeatingRules
) -> RoundSeating:
    """``seating`` if it breaks no rule, else :class:`SeatingError` naming every conflict."""
    found = conflicts(seating, entrants, history, rules)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise SeatingError(f"the seating breaks the rules: {found[0]}{more}", found)
    return seating


# -- scripted seating -------------------------------------------------------------------------------


def parse_script(text: str, seats: int) -> RoundSeating:
    """An organizer's seating: JSON (``{"tables": [[...], ...]}`` or ``[[...], ...]``) or CSV (one
    table per line, the entrants in seat order; blank lines and lines starting with ``#`` skipped).

    Only the shape is checked here; :func:`validate` checks it against the round.
    """
    stripped = text.strip()
    rows: list[list[str]]
    if stripped.startswith(("[", "{")):
        try:
            doc = json.loads(stripped)
        except ValueError as exc:
            raise SeatingError(f"the seating is not valid JSON: {exc}") from None
        if isinstance(doc, dict):
            doc = doc.get("tables")
        if not isinstance(doc, list) or not all(
            isinstance(t, list) and all(isinstance(e, str) for e in t) for t in doc
        ):
            raise SeatingError('a JSON seating is {"tables": [["id", ...], ...]}: lists of entrant ids')
        rows = doc
    else:
        lines = [ln for ln in stripped.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        rows = [[cell.strip() for cell in row] for row in csv.reader(lines)]
    tables: list[Table] = []
    for n, row in enumerate(rows, 1):
        if len(row) != seats or any(not e for e in row):
            raise SeatingError(f"table {n}: {len(row)} entrants {row!r}; a table has {seats} seats")
        tables.append(tuple(row))
    if not tables:
        raise SeatingError("the seating has no tables")
    return RoundSeating(tuple(tables))


# -- generation -------------------------------------------------------------------------------------


def _table_cost(members: Sequence[str], history: History, cap: int | None) -> tuple[int, int]:
    """(pairs over the meeting cap, repeat meetings): lower is better, compared in that order."""
    hard = soft = 0
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            met = history.meetings.get(_pair(a, b), 0)
            soft += met
            if cap is not None and met >= cap:
                hard += 1
    return hard, soft


def _order_seats(members: list[str], history: History, seats: int) -> Table:
    """The seat order that keeps every member's seat winds most balanced (the smallest largest
    spread, then the least-used positions); ``members`` arrive shuffled, so ties fall randomly."""
    # per member and position: (spread after sitting there, times sat there after)
    after: list[list[tuple[int, int]]] = []
    for e in members:
        counts = history.winds.get(e) or [0] * seats
        row = []
        for p in range(seats):
            bumped = [c + (i == p) for i, c in enumerate(counts)]
            row.append((max(bumped) - min(bumped), bumped[p]))
        after.append(row)
    best: tuple[int, int] | None = None
    chosen: tuple[int, ...] = tuple(range(len(members)))
    for order in permutations(range(len(members))):  # order[p]: the member in seat p
        worst = total = 0
        for p, m in enumerate(order):
            spread, times = after[m][p]
            worst = max(worst, spread)
            total += times
        key = (worst, total)
        if best is None or key < best:
            best, chosen = key, order
    return tuple(members[m] for m in chosen)


def _fill(order: list[str], history: History, rules: SeatingRules) -> list[list[str]]:
    """Tables filled in ``order``: each takes the first remaining entrant, then, from the next
    ``WINDOW`` remaining, whoever adds the fewest pairs over the cap and then the fewest repeats
    (the first such, so a standings order keeps close scores together); past the window only while
    everyone in it would break the cap."""
    cap = rules.max_meetings
    meetings = history.meetings
    remaining = list(order)
    tables = []
    while remaining:
        table = [remaining.pop(0)]
        while len(table) < rules.seats and remaining:
            best_k, best = 0, (1 << 30, 1 << 30)
            for k in range(len(remaining)):
                if k >= WINDOW and best[0] == 0:
                    break  # past the window only to find someone under the cap
                c = remaining[k]
                hard = soft = 0
                for m in table:
                    met = meetings.get(_pair(c, m), 0)
                    soft += met
                    if cap is not None and met >= cap:
                        hard += 1
                if (hard, soft) < best:
                    best_k, best = k, (hard, soft)
                    if best == (0, 0):
                        break
            table.append(remaining.pop(best_k))
        tables.append(table)
    return tables


class _Repair:
    """Swap entrants between tables until no table breaks the meeting cap (and repeats are few)."""

    def __init__(self, tables: list[list[str]], history: History, rules: SeatingRules, draws: Draws):
        self.tables = tables
        self.history = history
        self.cap = rules.max_meetings
        self.draws = draws
        self.costs = [_table_cost(t, history, self.cap) for t in tables]

    def run(self, budget: int, neighbours: int | None) -> None:
        """Try up to ``budget`` swaps; ``neighbours`` limits partners to tables that close in order
        (standings), ``None`` draws them from anywhere (random)."""
        n = len(self.tables)
        queue = [i for i in range(n) if self.costs[i] != (0, 0)]
        tries = 0
        while queue and tries < budget:
            i = queue.pop()
            if self.costs[i] == (0, 0):
                continue
            improved = False
            for _ in range(SAMPLE_TABLES):
                tries += 1
                if neighbours is None:
                    j = self.draws.below(n)
                else:
                    lo, hi = max(0, i - neighbours), min(n - 1, i + neighbours)
                    j = lo + self.draws.below(hi - lo + 1)
                if j != i and self._try_swap(i, j):
                    improved = True
                    if self.costs[j] != (0, 0):
                        queue.insert(0, j)
                    break
            # a table over the cap is tried again until the budget is spent; one with only repeat
            # meetings (the soft goal) only while swaps keep improving it
            if self.costs[i][0] or (improved and self.costs[i] != (0, 0)):
                queue.insert(0, i)

    def _try_swap(self, i: int, j: int) -> bool:
        a, b = self.tables[i], self.tables[j]
        before = _add(self.costs[i], self.costs[j])
        best: tuple[tuple[int, int], int, int, tuple[int, int], tuple[int, int]] | None = None
        for x in range(len(a)):
            for y in range(len(b)):
                a[x], b[y] = b[y], a[x]
                ca, cb = _table_cost(a, self.history, self.cap), _table_cost(b, self.history, self.cap)
                a[x], b[y] = b[y], a[x]
                after = _add(ca, cb)
                if after < before and (best is None or after < best[0]):
                    best = (after, x, y, ca, cb)
        if best is None:
            return False
        _, x, y, ca, cb = best
        a[x], b[y] = b[y], a[x]
        self.costs[i], self.costs[j] = ca, cb
        return True

    def hard_pairs(self) -> list[str]:
        out: list[str] = []
        if self.cap is None:
            return out
        for t in self.tables:
            for i, a in enumerate(t):
                for b in t[i + 1 :]:
                    if self.history.met(a, b) >= self.cap:
                        out.append(f"{a!r} and {b!r} have already met {self.history.met(a, b)} times")
        return out


def _add(x: tuple[int, int], y: tuple[int, int]) -> tuple[int, int]:
    return x[0] + y[0], x[1] + y[1]


def _precheck(entrants: Sequence[str], history: History, rules: SeatingRules) -> None:
    if len(set(entrants)) != len(entrants):
        dupes = sorted({e for e in entrants if entrants.count(e) > 1})
        raise SeatingError(f"entrants listed twice: {', '.join(repr(e) for e in dupes)}")
    n, seats = len(entrants), rules.seats
    if n == 0 or n % seats:
        short = (-n) % seats
        raise SeatingError(
            f"{n} entrants do not fill tables of {seats}: add {short} (substitutes or bots) "
            f"or leave out {n % seats}"
        )
    if rules.max_meetings is None:
        return
    cap = rules.max_meetings
    present = set(entrants)
    capped: dict[str, int] = {}  # entrant -> how many entrants of this round it met `cap` times
    for (a, b), times in history.meetings.items():
        if times >= cap and a in present and b in present:
            capped[a] = capped.get(a, 0) + 1
            capped[b] = capped.get(b, 0) + 1
    for e in entrants:
        eligible = n - 1 - capped.get(e, 0)
        if eligible < seats - 1:
            raise SeatingError(
                f"{e!r} has met all but {eligible} of the other {n - 1} entrants {cap} times "
                f"(max_meetings {cap}): a table needs {seats - 1} others"
            )


def seat_round(
    method: SeatingMethod,
    entrants: Sequence[str],
    history: History,
    rules: SeatingRules,
    seed: bytes,
    *,
    script: RoundSeating | None = None,
) -> RoundSeating:
    """Seat one round of ``entrants`` by ``method`` and validate it.

    For :attr:`SeatingMethod.STANDINGS`, ``entrants`` must be in standings order (best first). For
    :attr:`SeatingMethod.SCRIPTED`, ``script`` is the organizer's seating (:func:`parse_script`),
    validated as given (its seat order is kept). ``seed`` makes a random seating reproducible.
    """
    if method is SeatingMethod.SCRIPTED:
        if script is None:
            raise SeatingError("a scripted round needs the organizer's seating")
        return validate(script, entrants, history, rules)
    _precheck(entrants, history, rules)
    draws = Draws(seed, f"seating/{method.value}")
    last: _Repair | None = None
    attempts = RESTARTS if method is SeatingMethod.RANDOM else 3
    for attempt in range(attempts):
        order = list(entrants)
        if method is SeatingMethod.RANDOM:
            draws.shuffle(order)
        tables = _fill(order, history, rules)
        repair = _Repair(tables, history, rules, draws)
        budget = SWAP_BUDGET + SWAP_BUDGET_PER_TABLE * sum(1 for c in repair.costs if c != (0, 0))
        # standings: partners come from nearby tables first, then farther on each attempt
        neighbours = None if method is SeatingMethod.RANDOM else (1, 3, None)[attempt]
        repair.run(budget, neighbours)
        last = repair
        if any(cost[0] for cost in repair.costs):
            continue
        seated: list[Table] = []
        for t in tables:
            members = list(t)
            draws.shuffle(members)
            seated.append(_order_seats(members, history, rules.seats))
        seating = RoundSeating(tuple(seated))
        if not conflicts(seating, entrants, history, rules):
            return seating
    assert last is not None
    pairs = last.hard_pairs()
    if pairs:
        raise SeatingError(
            f"no seating found within the search budget with max_meetings {rules.max_meetings}: "
            f"{pairs[0]}" + (f" (and {len(pairs) - 1} more pairs)" if len(pairs) > 1 else ""),
            pairs,
        )
    # only the wind balance failed on every attempt: report it as validation would
    final = tuple(_order_seats(list(t), history, rules.seats) for t in last.tables)
    return validate(RoundSeating(final), entrants, history, rules)
