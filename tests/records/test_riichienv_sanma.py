"""RiichiEnv's three-player engine, cross-checked: its self-play logs (mjai with ``kita`` and three
seats) replay through ours with nothing differing. A stored game always runs; with the
``riichienv`` package installed (never a dependency) a fixed seed set is played afresh under each
of its three-player rule sets; ``bench/riichienv_sanma.py`` runs the long version."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from server.records import read_record
from server.records.model import NorthStep
from tests.modload import load_module

HERE = Path(__file__).parent
SCRIPT = load_module("riichienv_sanma", HERE.parents[1] / "bench" / "riichienv_sanma.py")


def test_a_stored_riichienv_game_verifies() -> None:
    """A hanchan of RiichiEnv self-play (its default Tenhou rules, seed 20): 30 norths, pons,
    open and closed kans, riichi and six wins."""
    text = gzip.decompress((HERE / "riichienv" / "selfplay-default_tenhou-seed20.jsonl.gz").read_bytes())
    record = read_record(text)
    assert record.ruleset().seats == 3
    assert sum(isinstance(s, NorthStep) for h in record.hands for s in h.steps) == 30
    hands, problems = SCRIPT.check(text.decode(), "tenhou-sanma")
    assert hands == 10 and problems == []


@pytest.mark.parametrize("rule", sorted(SCRIPT.RULES))
def test_riichienv_self_play_verifies(rule: str) -> None:
    rv = pytest.importorskip("riichienv")
    for seed in range(3):
        hands, problems = SCRIPT.check(SCRIPT.play(rv, rule, seed), SCRIPT.RULES[rule])
        assert hands > 0 and problems == [], (seed, problems)


def test_riichienv_scores_our_three_player_wins_alike() -> None:
    """The other direction: our greedy sanma games' wins scored again by RiichiEnv's evaluator."""
    rv = pytest.importorskip("riichienv")
    scored, problems = SCRIPT.score_wins(rv, 3)
    assert scored > 0 and problems == []
