"""Three-player records: Tenhou's mjlog (GO type with 0x10) and tenhou.net/6 JSON with an empty
fourth seat read as three seats, and every hand replays through the engine with nothing differing."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.records import read_record
from server.records.mjlog import read_mjlog
from server.records.model import NorthStep
from server.records.replay import Outcome, record_ruleset, replay_record
from server.records.verify import verify_paths
from tests.records.corpus import SANMA_CORPUS, needs_sanma_corpus


def _files(pattern: str) -> list[Path]:
    return sorted(SANMA_CORPUS.glob(pattern)) if SANMA_CORPUS.is_dir() else []


@needs_sanma_corpus
def test_every_three_player_hand_verifies() -> None:
    """The whole three-player corpus: 101 Tenhou games and Mahjong Soul's three edge cases (a
    chankan, a kokushi ron on a closed kan, a double ron with norths set aside)."""
    report = verify_paths([*_files("tenhou_mjlog/*.xml"), *_files("tenhou6_json/*.json")])
    assert report.unreadable == 0
    assert report.mismatches == 0 and report.incomplete == 0
    assert report.verified >= 882 + 9


@needs_sanma_corpus
def test_a_tenhou_three_player_game_reads_as_three_seats() -> None:
    path = _files("tenhou_mjlog/*.xml")[0]
    record = read_mjlog(path.read_bytes())
    assert record.preset == "tenhou-sanma" and record.ruleset().seats == 3
    assert len(record.names) == 3 and record.final_scores is not None and len(record.final_scores) == 3
    assert all(h.seats == 3 and len(h.start_scores) == 3 for h in record.hands)
    assert any(isinstance(s, NorthStep) for h in record.hands for s in h.steps)
    assert sum(record.final_scores) == 3 * 35000


@needs_sanma_corpus
@pytest.mark.parametrize("name", ["chankan", "kokushi_ankan", "nukidora_doubleron"])
def test_mahjong_soul_edge_cases(name: str) -> None:
    record = read_record((SANMA_CORPUS / "tenhou6_json" / f"{name}.json").read_bytes())
    assert record.preset == "mahjongsoul-sanma"
    reports = replay_record(record, record_ruleset(record))
    assert [r.outcome for r in reports] == [Outcome.VERIFIED] * len(reports), [
        str(m) for r in reports for m in r.mismatches
    ]


def test_mjai_with_four_slots_and_kita_reads_as_three_players() -> None:
    """Mortal's three-player libriichi keeps a fourth slot (score 0, hidden hand) and RiichiEnv
    names a north set aside ``kita``: both read as the same three-player game."""
    import json

    from server.bots.selfplay import play_events
    from server.engine.rules import TENHOU_SANMA
    from server.records.export_mjai import export_mjai

    events = play_events(TENHOU_SANMA, b"slots", ["greedy", "greedy", "greedy"])
    native = export_mjai(events)
    padded = []
    for line in native.splitlines():
        event = json.loads(line)
        if event["type"] == "start_kyoku":
            event["scores"] = [*event["scores"], 0]
            event["tehais"] = [*event["tehais"], ["?"] * 13]
        elif event["type"] in ("hora", "ryukyoku"):
            event["deltas"] = [*event["deltas"], 0]
        elif event["type"] == "nukidora":
            event = {"type": "kita", "actor": event["actor"]}
        padded.append(json.dumps(event))
    assert '"kita"' in "\n".join(padded)
    record = read_record("\n".join(padded) + "\n")
    again = read_record(native)
    assert [h.steps for h in record.hands] == [h.steps for h in again.hands]
    assert record.ruleset().seats == 3 and all(h.seats == 3 for h in record.hands)
    reports = replay_record(record, record.ruleset())
    assert all(r.outcome is Outcome.VERIFIED for r in reports)


@needs_sanma_corpus
def test_the_match_flow_and_final_points_follow_tenhou() -> None:
    """Between hands, the engine's next hand (renchan, the rotation over three dealers, agari-yame,
    tobi, the extension) is the record's next hand, the match ends where the record does, and the
    final points (oka 15, uma 20/0/-20) are Tenhou's, which rounds scores to thousands first."""
    from server.engine.endings import next_hand
    from server.engine.state import HandState, Phase, Player

    for path in _files("tenhou_mjlog/*.xml"):
        record = read_mjlog(path.read_bytes())
        ruleset = record.ruleset()
        for i, hand in enumerate(record.hands):
            won = bool(hand.wins)
            draw = hand.draw
            aborted = draw is not None and draw.reason.value != "exhaustive"
            dealer_tenpai = draw is not None and draw.tenpai is not None and hand.dealer in draw.tenpai
            renchan = any(w.seat == hand.dealer for w in hand.wins) or aborted or dealer_tenpai
            state = HandState(
                i, hand.round_wind, hand.kyoku, hand.honba, (), b"", "", (Player(),) * 3, Phase.TURN, 0
            )
            nxt = next_hand(ruleset, hand.end_scores, state, renchan=renchan, won=won, tenpai=dealer_tenpai)
            if aborted and nxt is not None:
                nxt = (hand.round_wind, hand.kyoku)
            following = record.hands[i + 1] if i + 1 < len(record.hands) else None
            expected = None if following is None else (following.round_wind, following.kyoku)
            assert nxt == expected, f"{path.name} {hand.label}"
        scores, final = record.final_scores, record.final_points
        assert scores is not None and final is not None
        order = sorted(range(3), key=lambda s: (-scores[s], s))
        oka = (ruleset.return_points - ruleset.start_points) * 3 / 1000
        for rank, seat in enumerate(order):
            points = (scores[seat] - ruleset.return_points) / 1000 + ruleset.uma[rank]
            points += oka if rank == 0 else 0
            assert abs(points - final[seat]) < 1, f"{path.name} seat {seat}"
