"""``jantaku verify`` over the shared corpus of real Tenhou games: every complete hand replays through
the engine with no mismatch; the truncated fixtures are reported incomplete."""

from __future__ import annotations

import pytest

from server.records.replay import Outcome
from server.records.verify import FileStatus, VerifyReport, find_records, verify_paths
from tests.records.corpus import CORPUS, MJLOG_DIR, TENHOU6_DIR, needs_corpus


@pytest.fixture(scope="module")
def corpus_report() -> VerifyReport:
    files, missing = find_records([CORPUS])
    assert missing == []
    return verify_paths(files)


@needs_corpus
def test_the_corpus_verifies_with_no_mismatch(corpus_report: VerifyReport) -> None:
    mismatches = [str(m) for f in corpus_report.files for h in f.hands for m in h.mismatches]
    assert mismatches == []
    assert corpus_report.mismatches == 0 and corpus_report.unreadable == 0
    assert corpus_report.verified > 800
    # Both formats of the corpus were read: 82 mjlog and 32 tenhou.net/6 files.
    paths = [f.path for f in corpus_report.files]
    assert sum(p.startswith(str(MJLOG_DIR)) for p in paths) == len(list(MJLOG_DIR.glob("*.xml")))
    assert sum(p.startswith(str(TENHOU6_DIR)) for p in paths) == len(list(TENHOU6_DIR.glob("*.json")))


@needs_corpus
def test_every_complete_hand_is_verified(corpus_report: VerifyReport) -> None:
    for f in corpus_report.files:
        assert f.status is FileStatus.READ, f.path
        for hand in f.hands:
            if hand.outcome is Outcome.INCOMPLETE:
                assert "stops before" in hand.reason, (f.path, hand.label, hand.reason)
            else:
                assert hand.outcome is Outcome.VERIFIED, (f.path, hand.label)


@needs_corpus
def test_truncated_fixtures_are_reported_incomplete(corpus_report: VerifyReport) -> None:
    cut = [f for f in corpus_report.files if "no-game-end" in f.path or "no-round-end" in f.path]
    assert len(cut) == 2
    for f in cut:
        incomplete_hands = [h for h in f.hands if h.outcome is Outcome.INCOMPLETE]
        assert incomplete_hands or f.game_incomplete, f.path
        assert all(h.outcome is not Outcome.MISMATCH for h in f.hands)
    round_end = next(f for f in cut if "no-round-end" in f.path)
    assert round_end.hands[-1].outcome is Outcome.INCOMPLETE
    game_end = next(f for f in cut if "no-game-end" in f.path)
    assert game_end.game_incomplete and "end of the game" in game_end.reason
    assert corpus_report.incomplete >= 2
