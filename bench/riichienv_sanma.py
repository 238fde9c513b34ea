"""Cross-check with RiichiEnv's three-player engine: its self-play, replayed by ours.

    pip install riichienv                       # into your venv; never a dependency of Jantaku
    python bench/riichienv_sanma.py [--games N] [--seed S] [--save DIR]

For each rule set RiichiEnv offers for three players (``GameRule.default_tenhou`` and
``default_mjsoul``), N hanchan are played by an agent that takes every win, declares north (kita)
at every chance, calls every kan and pon and declares riichi whenever it may (else the
shanten-best discard). Each game's mjai log (RiichiEnv writes ``kita`` and three-seat lists) is
read by ``server.records`` and every hand replayed through Jantaku's engine under the matching
preset (``tenhou-sanma``, ``mahjongsoul-sanma``): every draw, call, north, dora and score delta is
compared, as ``jantaku verify`` does. ``--save DIR`` also writes the logs (``.jsonl``) so that
``jantaku verify DIR`` can be run on them.

The other direction, ``--score N``: N hanchan of ``jantaku simulate``'s three greedy bots
(``tenhou-sanma``), every win scored again by RiichiEnv's three-player evaluator
(``HandEvaluator3P``, told the situational facts the win's yaku show: riichi, ippatsu, haitei,
rinshan..., and the norths the winner set aside): han, fu and points must agree. (Greedy bots never
call, so the hands are closed.) Exit status 1 when a hand does not verify or a score differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from server.bots.selfplay import play_events
from server.engine.events import HandWon, NorthDeclared, RoundStarted
from server.engine.rules import TENHOU_SANMA
from server.engine.tiles import Tile, is_red, kind
from server.records import read_record
from server.records.replay import Outcome, record_ruleset, replay_record

RULES = {"default_tenhou": "tenhou-sanma", "default_mjsoul": "mahjongsoul-sanma"}


def agent(obs: Any, rv: Any) -> Any:
    """Every win, north, kan, pon and riichi; else the discard that leaves the lowest shanten."""
    legal = obs.legal_actions()
    types = rv.ActionType
    for wanted in (types.TSUMO, types.RON, types.KITA, types.ANKAN, types.KAKAN, types.DAIMINKAN, types.PON):
        for a in legal:
            if a.action_type == wanted:
                return a
    for a in legal:
        if a.action_type == types.RIICHI:
            return a
    discards = [a for a in legal if a.action_type == types.DISCARD]
    if not discards:
        return legal[0]
    best, choice = None, discards[0]
    for a in discards:
        rest = list(obs.hand)
        rest.remove(a.tile)
        key = rv.calculate_shanten_3p(rest)
        if best is None or key < best:
            best, choice = key, a
    return choice


def play(rv: Any, rule: str, seed: int) -> str:
    """One three-player hanchan of RiichiEnv self-play, as its mjai log."""
    env = rv.RiichiEnv(game_mode=rv.GameType.SAN_HANCHAN, seed=seed, rule=getattr(rv.GameRule, rule)())
    obs = env.reset()
    while not env.done():
        obs = env.step({pid: agent(o, rv) for pid, o in obs.items()})
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in env.mjai_log)


def check(text: str, preset: str) -> tuple[int, list[str]]:
    """(hands replayed, what did not verify)."""
    record = read_record(text)
    reports = replay_record(record, record_ruleset(record, preset_name=preset))
    problems = [
        f"{r.label}: {r.outcome}: {r.reason or '; '.join(str(m) for m in r.mismatches)}"
        for r in reports
        if r.outcome is not Outcome.VERIFIED
    ]
    return len(reports), problems


def _ids(tiles: tuple[Tile, ...]) -> list[int]:
    """136-ids as RiichiEnv reads them: a red five is copy 0 of its kind, plain fives copies 1..3."""
    used: dict[int, set[int]] = {}
    out = []
    for t in sorted(tiles, key=lambda t: (kind(t), not is_red(t))):
        k, taken = kind(t), used.setdefault(kind(t), set())
        copies = (0,) if is_red(t) else (1, 2, 3, 0) if k in (4, 13, 22) else (0, 1, 2, 3)
        c = next(i for i in copies if i not in taken)
        taken.add(c)
        out.append(k * 4 + c)
    return out


def score_wins(rv: Any, games: int) -> tuple[int, list[str]]:
    """(wins scored, where RiichiEnv's evaluator disagrees) over ``games`` greedy sanma hanchan."""
    from riichienv.hand import Conditions

    scored, problems = 0, []
    for g in range(games):
        norths = [0, 0, 0]
        start: RoundStarted | None = None
        for e in play_events(TENHOU_SANMA, f"score-{g}".encode(), ["greedy"] * 3):
            if isinstance(e, RoundStarted):
                norths, start = [0, 0, 0], e
            elif isinstance(e, NorthDeclared):
                norths[e.seat] += 1
            elif isinstance(e, HandWon) and start is not None:
                names = {y.name for y in e.yaku}
                tsumo = e.seat == e.from_seat
                faces = sorted(e.hand, key=lambda t: (kind(t), not is_red(t)))
                hand_ids = _ids(e.hand)
                win_id = next(i for i, t in zip(hand_ids, faces, strict=True) if t == e.win_tile)
                hand_ids.remove(win_id)
                conditions = Conditions(
                    tsumo=tsumo,
                    riichi="riichi" in names,
                    double_riichi="double_riichi" in names,
                    ippatsu="ippatsu" in names,
                    haitei="haitei" in names,
                    houtei="houtei" in names,
                    rinshan="rinshan" in names,
                    chankan="chankan" in names,
                    tsumo_first_turn=bool(names & {"tenhou", "chiihou"}),
                    player_wind=(e.seat - start.dealer) % 3,
                    round_wind=start.round_wind,
                    kita_count=norths[e.seat],
                )
                r = rv.HandEvaluator3P(hand_ids, []).calc(
                    win_id, _ids(e.dora_indicators), conditions, _ids(e.ura_indicators)
                )
                if not tsumo:
                    points = r.ron_agari
                elif e.seat == start.dealer:
                    points = 2 * r.tsumo_agari_ko
                else:
                    points = r.tsumo_agari_oya + r.tsumo_agari_ko
                scored += 1
                if not (r.is_win and r.han == e.han and (e.yakuman or r.fu == e.fu) and points == e.points):
                    ours = f"{e.han} han {e.fu} fu {e.points}"
                    problems.append(f"game {g}: ours {ours}, RiichiEnv {r.han} han {r.fu} fu {points}")
    return scored, problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="hanchan per rule set (default 100)")
    ap.add_argument("--seed", type=int, default=0, help="the first game's seed")
    ap.add_argument("--save", type=Path, help="also write each game's mjai log here")
    ap.add_argument(
        "--score", type=int, default=0, metavar="N", help="also score N greedy hanchan's wins by RiichiEnv"
    )
    args = ap.parse_args()
    try:
        import riichienv as rv
    except ImportError:
        print("riichienv is not installed (pip install riichienv)", file=sys.stderr)
        return 2
    failed = False
    for rule, preset in RULES.items():
        hands, bad = 0, 0
        for g in range(args.games):
            seed = args.seed + g
            text = play(rv, rule, seed)
            if args.save is not None:
                args.save.mkdir(parents=True, exist_ok=True)
                (args.save / f"riichienv-{rule}-{seed}.jsonl").write_text(text, encoding="utf-8")
            n, problems = check(text, preset)
            hands += n
            bad += len(problems)
            for p in problems:
                print(f"{rule} seed {seed} {p}")
        print(f"{rule} -> {preset}: {args.games} hanchan, {hands} hands, {hands - bad} verified, {bad} not")
        failed |= bad > 0
    if args.score:
        scored, problems = score_wins(rv, args.score)
        for p in problems:
            print(p)
        print(f"scores: {args.score} hanchan, {scored} wins scored by RiichiEnv, {len(problems)} differ")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
