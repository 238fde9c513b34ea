"""The replay finds every kind of difference between a record and the engine, at the right step."""

from __future__ import annotations

import dataclasses
from functools import cache

from server.bots.selfplay import play_events
from server.engine.events import DrawReason
from server.engine.rules import TENHOU
from server.engine.tiles import parse_tile
from server.records.from_events import record_from_events
from server.records.model import DiscardStep, DoraStep, DrawResult, DrawStep, GameRecord, HandRecord, Win
from server.records.replay import Mismatch, Outcome, describe, record_ruleset, replay_hand, replay_record


@cache
def record() -> GameRecord:
    return record_from_events(play_events(TENHOU, b"replay-tests", ["greedy", "random", "greedy", "random"]))


def won_hand() -> HandRecord:
    return next(h for h in record().hands if h.wins)


def drawn_hand() -> HandRecord:
    return next(h for h in record().hands if h.draw is not None)


def only(hand: HandRecord) -> list[Mismatch]:
    report = replay_hand(hand, TENHOU, file="f.json", index=3)
    assert report.outcome is Outcome.MISMATCH
    return list(report.mismatches)


def test_a_whole_match_verifies() -> None:
    reports = replay_record(record(), TENHOU, file="m.json")
    assert [r.outcome for r in reports] == [Outcome.VERIFIED] * len(record().hands)
    assert [r.label for r in reports] == [h.label for h in record().hands]


def test_an_illegal_discard_is_reported_at_its_step() -> None:
    hand = won_hand()
    index, step = next(
        (i, s) for i, s in enumerate(hand.steps) if isinstance(s, DiscardStep) and not s.tsumogiri
    )
    held = set(hand.dealt[step.seat])
    absent = next(t for t in range(34) if t not in held and t != step.tile)
    steps = list(hand.steps)
    steps[index] = dataclasses.replace(step, tile=absent)
    (m,) = only(dataclasses.replace(hand, steps=tuple(steps)))
    assert m.step == index and m.file == "f.json" and m.hand == hand.label
    assert m.message.startswith(f"illegal: seat {step.seat} discard ")
    assert str(m).startswith(f"f.json: {hand.label} step {index}: illegal:")


def test_a_different_draw_is_reported() -> None:
    hand = won_hand()
    index = next(i for i, s in enumerate(hand.steps) if isinstance(s, DrawStep) and i > 10)
    steps = list(hand.steps)
    original = steps[index]
    assert isinstance(original, DrawStep)
    steps[index] = dataclasses.replace(original, seat=(original.seat + 1) % 4)
    (m,) = only(dataclasses.replace(hand, steps=tuple(steps)))
    assert m.step == index and m.message.startswith("engine: ") and "record: " in m.message


def test_every_difference_of_a_win_is_listed() -> None:
    hand = won_hand()
    win = hand.wins[0]
    changed = dataclasses.replace(
        win,
        han=(win.han or 0) + 1,
        points=(win.points or 0) + 1000,
        deltas=tuple(d * 2 for d in win.deltas),
        yaku=(*win.yaku, dataclasses.replace(win.yaku[0], id="chinitsu", han=6)),
    )
    messages = [m.message for m in only(dataclasses.replace(hand, wins=(changed, *hand.wins[1:])))]
    assert len(messages) == 4
    assert any("han" in m for m in messages) and any("points" in m for m in messages)
    assert any("yaku differ" in m and "chinitsu 6" in m for m in messages)
    assert any("deltas" in m for m in messages)
    assert all(m.step == len(hand.steps) for m in only(dataclasses.replace(hand, wins=(changed,))))


def test_a_different_draw_result_is_listed() -> None:
    hand = drawn_hand()
    assert hand.draw is not None
    draw = dataclasses.replace(hand.draw, deltas=(1, 2, 3, 4), reason=DrawReason.SUUFON_RENDA)
    messages = [m.message for m in only(dataclasses.replace(hand, draw=draw))]
    assert "engine draw exhaustive, record suufon_renda" in messages
    assert any(m.startswith("engine draw deltas") and "[1, 2, 3, 4]" in m for m in messages)


def test_a_missing_result_or_extra_steps_are_mismatches() -> None:
    hand = won_hand()
    fake_draw = DrawResult(DrawReason.EXHAUSTIVE, (0, 0, 0, 0))
    assert only(dataclasses.replace(hand, wins=(), draw=fake_draw))
    longer = dataclasses.replace(hand, steps=(*hand.steps, DiscardStep(0, parse_tile("1m"), False)))
    (m,) = only(longer)
    assert m.step == len(hand.steps) and "0:discard 1m" in m.message


@cache
def random_record() -> GameRecord:
    return record_from_events(play_events(TENHOU, b"replay-tests-0", ["random"] * 4))


def test_a_wrong_dora_reveal_is_reported() -> None:
    hand = next(h for h in random_record().hands if any(isinstance(s, DoraStep) for s in h.steps))
    assert replay_hand(hand, TENHOU).outcome is Outcome.VERIFIED
    index = next(i for i, s in enumerate(hand.steps) if isinstance(s, DoraStep))
    steps = list(hand.steps)
    del steps[index]
    messages = [m.message for m in only(dataclasses.replace(hand, steps=tuple(steps)))]
    assert any("dora" in m for m in messages)


def test_an_incomplete_hand_is_not_replayed() -> None:
    hand = dataclasses.replace(won_hand(), complete=False, wins=(), problems=("cut here",))
    report = replay_hand(hand, TENHOU)
    assert report.outcome is Outcome.INCOMPLETE and report.reason == "cut here"


def test_tiles_that_make_no_wall_are_a_mismatch() -> None:
    hand = won_hand()
    dealt = list(hand.dealt)
    dealt[0] = (parse_tile("1m"),) * 13
    (m,) = only(dataclasses.replace(hand, dealt=tuple(dealt)))
    assert m.step is None and "do not make a wall" in m.message


def test_record_ruleset_layers_preset_record_and_overrides() -> None:
    rec = dataclasses.replace(record(), rules={"open_tanyao": False}, preset="tenhou")
    assert record_ruleset(rec).open_tanyao is False
    assert record_ruleset(rec, preset_name="ema").red_fives == (0, 0, 0)
    assert record_ruleset(rec, overrides={"open_tanyao": True}).open_tanyao is True


def test_describe_actions() -> None:
    from server.engine.actions import Chi, Discard, Pass, Riichi

    assert describe(Discard(parse_tile("5m"), True)) == "discard 5m tsumogiri"
    assert describe(Riichi(parse_tile("0p"))) == "riichi 0p"
    assert describe(Chi((parse_tile("3s"), parse_tile("4s")))) == "chi 34s"
    assert describe(Pass()) == "pass"


def test_a_win_with_the_wrong_winner_is_reported() -> None:
    hand = won_hand()
    win: Win = hand.wins[0]
    other = dataclasses.replace(win, seat=(win.seat + 1) % 4, from_seat=(win.seat + 1) % 4)
    assert only(dataclasses.replace(hand, wins=(other,)))
