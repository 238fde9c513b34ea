import { test } from "node:test";
import assert from "node:assert/strict";
import { SANMA_SEATS, apiBase, boardRoom, replayLink, standingText } from "../../../server/web/static/js/ranked.js";

test("the ranked API is on the next port of this host, unless ?api= says where", () => {
  assert.equal(apiBase(new URL("http://127.0.0.1:8765/")), "http://127.0.0.1:8766");
  assert.equal(apiBase(new URL("https://mj.example/")), "https://mj.example:444");
  assert.equal(apiBase(new URL("http://h:1/?api=http://h:9/")), "http://h:9");
});

test("a standing reads as rank, points of target, R", () => {
  const s = { rank_label: "1 dan", points: 220, target: 400, rating: 1533.6 };
  assert.equal(standingText(s), "1 dan 220 / 400 pt · R 1534");
  assert.equal(standingText({ ...s, rank_label: "Tenhoui", target: null }), "Tenhoui 220 pt · R 1534");
});

test("a recent game links to its replay on the player's own profile only", () => {
  const me = { name: "ann", kind: "player" };
  assert.equal(replayLink("m-1/x", "ann", me), "/games/#/game/m-1%2Fx/replay");
  assert.equal(replayLink("m-1", "bob", me), null);
  assert.equal(replayLink("m-1", "ann", null), null);
  assert.equal(replayLink("m-1", "ann", { name: "ann", kind: "guest" }), null);
});

test("the leaderboards of each board: players and bot ladder, four-player or sanma", () => {
  assert.deepEqual(
    [boardRoom(false, false), boardRoom(false, true), boardRoom(true, false), boardRoom(true, true)],
    ["open", "ladder", "sanma-open", "sanma-ladder"],
  );
  assert.equal(SANMA_SEATS, 3);
});
