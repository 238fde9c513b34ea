import { test } from "node:test";
import assert from "node:assert/strict";
import { apiBase, standingText } from "../../../server/web/static/js/ranked.js";

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
