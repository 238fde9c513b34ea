import { test } from "node:test";
import assert from "node:assert/strict";
import { caption, handStarts, move, positionFromHash, positionHash, replayPositions, seatView } from "../../../server/web/static/js/replay.js";
import { fixtures } from "./helpers.mjs";

const data = fixtures();

test("a replay steps through every hand, its deal first and its result last", { skip: !data && "no fixtures" }, () => {
  const { match_id, steps, hands } = data.replay;
  const positions = replayPositions(match_id, steps);
  const starts = handStarts(positions);
  assert.equal(starts.length, hands);
  starts.forEach((start, h) => {
    const first = positions[start];
    assert.equal(first.hand, h + 1);
    assert.equal(first.index, 0);
    assert.equal(first.view.round.hand_index, h);
    assert.ok(first.view.seats.every((s) => s.hand !== null && s.river.length === 0), "every hand open, rivers empty");
    const end = positions[(starts[h + 1] ?? positions.length) - 1];
    assert.ok(end.view.results.length > 0, `hand ${h + 1} ends on its result`);
    assert.equal(end.view.round.hand_index, h, "the result is shown before the next deal");
  });
  assert.ok(positions.at(-1).view.match_result, "the last position is the match's end");
});

test("moving by action, turn and hand, and links to a position", { skip: !data && "no fixtures" }, () => {
  const positions = replayPositions(data.replay.match_id, data.replay.steps);
  const starts = handStarts(positions);
  assert.equal(move(positions, 0, "action", -1), 0);
  assert.equal(move(positions, 0, "action", 1), 1);
  assert.equal(move(positions, 0, "hand", 1), starts[1]);
  assert.equal(move(positions, starts[1] + 3, "hand", -1), starts[1], "back to this hand's deal first");
  assert.equal(move(positions, starts[1], "hand", -1), starts[0]);
  const turn = move(positions, starts[1], "turn", 1);
  assert.ok(positions[turn].events.some((e) => e.type === "tile_discarded"));
  assert.equal(move(positions, positions.length - 1, "turn", 1), positions.length - 1);
  const at = starts[1] + 5;
  assert.equal(positionHash(positions[at]), "h2s5");
  assert.equal(positionFromHash(positions, "#h2s5"), at);
  assert.equal(positionFromHash(positions, "#h2"), starts[1]);
  assert.equal(positionFromHash(positions, "#nonsense"), 0);
  assert.equal(positionFromHash(positions, "#h2s9999"), (starts[2] ?? positions.length) - 1, "past the hand's end: its last position");
  assert.match(caption(positions[turn], ["a", "b", "c", "d"]), /discards/);
});

test("one seat's view turns the other hands face down", { skip: !data && "no fixtures" }, () => {
  const positions = replayPositions(data.replay.match_id, data.replay.steps);
  const view = seatView(positions[1].view, 2);
  assert.deepEqual(view.seats.map((s) => s.hand === null), [true, true, false, true]);
  assert.deepEqual(view.seats.map((s) => s.hand_size), positions[1].view.seats.map((s) => s.hand_size));
  assert.equal(seatView(positions[1].view, null), positions[1].view);
});
