// The admin replay fold (server/web/admin/js/replay.js) against the engine's own state after every
// step of whole matches (fixtures written by tests/web_api/test_admin_js.py), and the tile helpers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { applyEvent, buildFrames, buildPositions, describeEvent, handStarts, initialTable, positionStarts } from "../../../server/web/admin/js/replay.js";
import { handLabel, isTile, sortTiles, tileText, tileTitle } from "../../../server/web/admin/js/tiles.js";

const fixtures = JSON.parse(readFileSync(process.env.JANTAKU_ADMIN_FIXTURES, "utf8"));

test("fixtures are there", () => {
  assert.ok(fixtures.matches.length >= 3);
});

for (const [n, match] of fixtures.matches.entries()) {
  test(`match ${n} (${match.label}): every frame equals the engine state`, () => {
    const frames = buildFrames(match.steps);
    assert.equal(frames.length, match.expected.length);
    frames.forEach((frame, k) => {
      const want = match.expected[k];
      for (let s = 0; s < 4; s++) {
        const seat = frame.seats[s];
        assert.deepEqual(sortTiles(seat.hand), sortTiles(want.hands[s]), `step ${k} seat ${s} hand`);
        assert.deepEqual(seat.melds.map((m) => sortTiles(m.tiles)), want.melds[s].map((m) => sortTiles(m)), `step ${k} seat ${s} melds`);
        assert.deepEqual(seat.river.map((r) => r.tile), want.rivers[s], `step ${k} seat ${s} river`);
        assert.deepEqual(seat.river.map((r) => r.called), want.called[s], `step ${k} seat ${s} called`);
        assert.equal(seat.riichi, want.riichi[s], `step ${k} seat ${s} riichi`);
      }
      assert.deepEqual(frame.scores, want.scores, `step ${k} scores`);
      assert.deepEqual(frame.dora, want.dora, `step ${k} dora`);
      assert.equal(frame.handIndex, want.hand_index, `step ${k} hand index`);
    });
    const last = frames[frames.length - 1];
    assert.ok(last.final, "the last frame has the match result");
    assert.equal(handStarts(match.steps).length, match.hands);
    const names = ["a", "b", "c", "d"];
    for (const step of match.steps) for (const e of step.events) assert.ok(describeEvent(e, names).length > 0);
  });
}

for (const [n, match] of fixtures.matches.entries()) {
  test(`match ${n} (${match.label}): every hand's end is a position, the winning one included`, () => {
    const positions = buildPositions(match.steps);
    const frames = buildFrames(match.steps);
    // After every step the position is that step's frame; the extra ones are the hands' ends.
    const afterSteps = positions.filter((p, i) => i === positions.length - 1 || positions[i + 1].step !== p.step);
    assert.equal(afterSteps.length, frames.length);
    afterSteps.forEach((p, k) => assert.deepEqual(p.table, frames[k], `step ${k}`));
    const ends = positions.filter((p, i) => p.end && (i === positions.length - 1 || positions[i + 1].table.handIndex !== p.table.handIndex));
    assert.equal(ends.length, match.hands, "one end position per hand");
    for (const end of ends) {
      assert.ok(end.table.results.length > 0, "the end shows the hand's result");
      for (const e of end.table.results) if (e.type === "hand_won") assert.ok(e.hand.includes(e.win_tile));
    }
    assert.equal(positionStarts(positions).length, match.hands);
    // Every event is shown once, in order.
    assert.deepEqual(positions.flatMap((p) => p.events), match.steps.flatMap((s) => s.events));
  });
}

test("frames are independent copies", () => {
  const frames = buildFrames(fixtures.matches[0].steps.slice(0, 3));
  const later = JSON.stringify(frames.slice(1));
  frames[0].seats[0].hand.push("1m");
  frames[0].scores[0] = -1;
  assert.equal(JSON.stringify(frames.slice(1)), later);
});

test("impossible events are refused", () => {
  const table = initialTable();
  assert.throws(() => applyEvent(table, { type: "tile_discarded", seat: 0, tile: "1m", tsumogiri: false, riichi: false }));
  assert.throws(() => applyEvent(table, { type: "nonsense" }));
});

test("tiles", () => {
  assert.deepEqual(sortTiles(["7z", "0p", "5p", "1m", "9s", "4p"]), ["1m", "4p", "5p", "0p", "9s", "7z"]);
  assert.equal(tileText("0m"), "5m");
  assert.equal(tileText("5z"), "白");
  assert.equal(tileText("x"), "?");
  assert.equal(tileTitle("0s"), "red five of bamboo");
  assert.ok(isTile("7z") && !isTile("8z") && !isTile(null));
  assert.equal(handLabel(1, 2, 3), "South 3, 3 honba");
});
