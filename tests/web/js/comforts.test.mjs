import { test } from "node:test";
import assert from "node:assert/strict";
import { PREFS, autoAction, doraCount, doraKinds, doraOf, loadPrefs, readHints, savePref, shownWaits } from "../../../server/web/static/js/comforts.js";

function storage() {
  const data = new Map();
  return { getItem: (k) => (data.has(k) ? data.get(k) : null), setItem: (k, v) => data.set(k, String(v)), removeItem: (k) => data.delete(k), data };
}

const D = (tile, tsumogiri = false) => ({ type: "discard", tile, tsumogiri });
const PASS = { type: "pass" };
const RON = { type: "ron" };
const TSUMO = { type: "tsumo" };
const PON = { type: "pon", consumed: ["3z", "3z"] };
const CHI = { type: "chi", consumed: ["3m", "4m"] };
const ANKAN = { type: "ankan", consumed: ["1m", "1m", "1m", "1m"] };

test("toggles: defaults, saved as 1/0 under jantaku.pref.<id>, read back", () => {
  const s = storage();
  const prefs = loadPrefs(s);
  assert.deepEqual(prefs, Object.fromEntries(PREFS.map((p) => [p.id, p.default])));
  assert.equal(prefs.sound, true);
  savePref(s, "autoWin", true);
  savePref(s, "sound", false);
  assert.equal(s.data.get("jantaku.pref.autoWin"), "1");
  assert.deepEqual(loadPrefs(s), { ...prefs, autoWin: true, sound: false });
  assert.deepEqual(loadPrefs(null), prefs);
});

test("auto-win declares a tsumo or a ron; without it the player decides", () => {
  assert.deepEqual(autoAction([TSUMO, D("1m", true), D("2m")], { prefs: { autoWin: true } }), TSUMO);
  assert.deepEqual(autoAction([RON, PASS], { prefs: { autoWin: true } }), RON);
  assert.equal(autoAction([RON, PASS], { prefs: {} }), null);
  assert.equal(autoAction([TSUMO, D("1m", true)], { prefs: {} }), null);
});

test("no calls passes a chi/pon window, never a ron", () => {
  assert.deepEqual(autoAction([PON, CHI, PASS], { prefs: { noCalls: true } }), PASS);
  assert.equal(autoAction([PON, PASS], { prefs: {} }), null);
  assert.equal(autoAction([RON, PON, PASS], { prefs: { noCalls: true } }), null);
  assert.deepEqual(autoAction([RON, PON, PASS], { prefs: { noCalls: true, autoWin: true } }), RON);
});

test("after riichi the drawn tile goes at once, unless a tsumo or a kan is offered", () => {
  assert.deepEqual(autoAction([D("7p", true)], { inRiichi: true }), D("7p", true));
  assert.equal(autoAction([D("7p", true), TSUMO], { inRiichi: true }), null);
  assert.equal(autoAction([D("1m", true), ANKAN], { inRiichi: true }), null);
  assert.deepEqual(autoAction([D("7p", true), TSUMO], { inRiichi: true, prefs: { autoWin: true } }), TSUMO);
  assert.equal(autoAction([D("7p", true)], { inRiichi: false }), null, "not in riichi: the player chooses");
});

test("tsumogiri discards the drawn tile whenever legal, never over a tsumo or without a drawn tile", () => {
  const legal = [D("1m"), D("7p", true), { type: "riichi", tile: "1m", tsumogiri: false }];
  assert.deepEqual(autoAction(legal, { prefs: { tsumogiri: true } }), D("7p", true));
  assert.equal(autoAction([D("1m"), D("2m")], { prefs: { tsumogiri: true } }), null, "after a call: no drawn tile");
  assert.equal(autoAction([TSUMO, D("7p", true)], { prefs: { tsumogiri: true } }), null);
  assert.equal(autoAction([PON, PASS], { prefs: { tsumogiri: true } }), null);
  assert.equal(autoAction([], { prefs: { tsumogiri: true, autoWin: true, noCalls: true } }), null);
});

test("dora: the next tile of the suit, winds and dragons cycling, red fives as fives", () => {
  assert.equal(doraOf("1m"), "2m");
  assert.equal(doraOf("9p"), "1p");
  assert.equal(doraOf("0s"), "6s");
  assert.equal(doraOf("4s"), "5s");
  assert.equal(doraOf("1z"), "2z");
  assert.equal(doraOf("4z"), "1z");
  assert.equal(doraOf("5z"), "6z");
  assert.equal(doraOf("7z"), "5z");
  assert.deepEqual([...doraKinds(["4s", "9m"])].sort(), ["1m", "5s"]);
  assert.equal(doraCount("0s", ["4s"]), 1);
  assert.equal(doraCount("5s", ["4s", "4s"]), 2);
  assert.equal(doraCount("6s", ["4s"]), 0);
});

test("hints: none without the field; waits, furiten and the waits after each discard", () => {
  assert.equal(readHints({ type: "prompt" }), null);
  assert.equal(readHints({ hints: "junk" }), null);
  const hints = readHints({
    hints: {
      waits: [{ tile: "3m", left: 2 }, { tile: "6m", left: 0 }, null],
      furiten: true,
      discards: [{ tile: "5p", tsumogiri: false, waits: [{ tile: "2s", left: 3 }], furiten: false }, { nope: 1 }],
    },
  });
  assert.deepEqual(hints.waits, [{ tile: "3m", left: 2 }, { tile: "6m", left: 0 }]);
  assert.equal(hints.furiten, true);
  assert.deepEqual(shownWaits(hints, { tile: "5p", drawn: false }), { waits: [{ tile: "2s", left: 3 }], furiten: false, after: "5p" });
  assert.deepEqual(shownWaits(hints, { tile: "5p", drawn: true }).after, null, "another slot: the hand's own waits");
  assert.equal(shownWaits(readHints({ hints: {} }), null), null);
});
