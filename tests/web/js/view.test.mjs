import { test } from "node:test";
import assert from "node:assert/strict";
import { MatchTracker, TrackerError, compareTiles, sortTiles, tileKind, LIVE_WALL_DRAWS } from "../../../server/web/static/js/view.js";
import { exampleSession, fixtures } from "./helpers.mjs";

test("tile order: suits m p s z, numbers, a red five after the plain fives", () => {
  assert.deepEqual(sortTiles(["1z", "0p", "9m", "5p", "4p", "0m", "5m", "7z", "1s"]), ["0m", "5m", "9m", "4p", "5p", "0p", "1s", "1z", "7z"].sort(compareTiles));
  assert.deepEqual(sortTiles(["0p", "5p", "1z", "9m"]), ["9m", "5p", "0p", "1z"]);
  assert.equal(tileKind("0s"), "5s");
  assert.equal(tileKind("7z"), "7z");
});

test("the docs' example session folds as the protocol says", () => {
  let tracker = null;
  const seen = [];
  for (const { dir, message } of exampleSession()) {
    if (dir !== "←") continue;
    if (message.type === "seated") tracker = new MatchTracker(message.match_id, message.seat);
    else if (message.type === "event") {
      seen.push(tracker.apply(message));
      if (message.version === 12) {
        const view = tracker.view();
        assert.deepEqual(view.seats[0].hand, ["1m", "4m", "7m", "2p", "3p", "4p", "0p", "3s", "1z", "1z", "5z"].filter((t) => t !== "5z"));
        assert.deepEqual(view.seats[0].river.map((r) => r.tile), ["5z", "9p"]);
        assert.deepEqual(view.seats[0].melds, [{ type: "chi", tiles: ["4s", "0s", "6s"], called: "0s", from_seat: 3, added: null }]);
        assert.equal(view.seats[3].river[0].tile, "0s");
        assert.equal(view.seats[3].river[0].called, true);
        assert.equal(view.seats[0].hand_size, 10);
        assert.equal(view.seats[1].hand, null);
        assert.equal(view.seats[1].hand_size, 13);
        assert.equal(view.tiles_left, LIVE_WALL_DRAWS - 4);
        assert.equal(view.turn, 0);
      }
      if (message.version === 19) {
        const view = tracker.view();
        assert.equal(view.seats[0].drawn, "5m");
        assert.ok(view.seats[0].hand.includes("5m"));
      }
    } else if (message.type === "snapshot") {
      tracker = MatchTracker.fromSnapshot(message);
      assert.equal(tracker.version, 871);
      assert.deepEqual(tracker.view(), message.view, "a snapshot round-trips through the tracker");
    }
  }
  assert.ok(seen.every(Boolean));
  const view = tracker.view();
  assert.equal(tracker.version, 875);
  assert.equal(view.results.length, 1);
  assert.equal(view.results[0].type, "hand_won");
  assert.deepEqual(view.scores, [33800, 22800, 18000, 25400]);
  assert.deepEqual(view.match_result.ranks, [1, 3, 4, 2]);
  assert.equal(view.round.riichi_sticks, 0);
});

test("duplicates are ignored; gaps and other matches' events are errors", () => {
  const session = exampleSession().filter((l) => l.dir === "←" && l.message.type === "event");
  const tracker = new MatchTracker("m-0001", 0);
  assert.equal(tracker.apply(session[0].message), true);
  assert.equal(tracker.apply(session[0].message), false);
  assert.throws(() => tracker.apply(session[2].message), TrackerError);
  assert.throws(() => tracker.apply({ ...session[1].message, match_id: "other" }), TrackerError);
  assert.equal(tracker.version, 1);
});

test("unknown event types change nothing but advance the version", () => {
  const tracker = new MatchTracker("m", null);
  tracker.apply({ type: "event", match_id: "m", version: 1, event: { type: "something_new", x: 1 } });
  assert.equal(tracker.version, 1);
  assert.equal(tracker.view().round, null);
});

const FIX = fixtures();

test("every seat's and a spectator's fold equals client_protocol.tracker's, event by event", { skip: FIX ? false : "no fixtures (run through pytest tests/web/test_js.py)" }, () => {
  for (const stream of FIX.streams) {
    const tracker = new MatchTracker(stream.match_id, stream.seat);
    let checked = 0;
    for (const message of stream.messages) {
      tracker.apply(message);
      const expected = stream.views[String(message.version)];
      if (expected !== undefined) {
        assert.deepEqual(tracker.view(), expected, `seat ${stream.seat}, version ${message.version}`);
        checked += 1;
      }
    }
    assert.ok(checked > 0);
  }
});

test("a tracker made from the server's snapshot continues like the full fold", { skip: FIX ? false : "no fixtures" }, () => {
  for (const { snapshot, messages, final } of FIX.snapshots) {
    const tracker = MatchTracker.fromSnapshot(snapshot);
    assert.deepEqual(tracker.snapshot(), snapshot);
    for (const message of messages) tracker.apply(message);
    assert.deepEqual(tracker.view(), final);
  }
});
