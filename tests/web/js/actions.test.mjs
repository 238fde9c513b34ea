import { test } from "node:test";
import assert from "node:assert/strict";
import {
  BUTTONS, buttonForKey, formatDelta, formatFinal, handSlots, lastDiscard, meldLayout, optionMeld,
  promptOptions, relativePosition, roundKanji, roundLabel, seatWind, slotAction, tileKeyIndex, timeLeft, yakuLabel,
} from "../../../server/web/static/js/actions.js";
import { exampleSession } from "./helpers.mjs";

const prompts = exampleSession().filter((l) => l.dir === "←" && l.message.type === "prompt").map((l) => l.message);

test("the drawn tile is apart; the rest is sorted", () => {
  const slots = handSlots({ hand: ["1m", "5m", "5m", "0p", "9p"], drawn: "5m" });
  assert.deepEqual(slots, [
    { tile: "1m", drawn: false }, { tile: "5m", drawn: false }, { tile: "0p", drawn: false },
    { tile: "9p", drawn: false }, { tile: "5m", drawn: true },
  ]);
  assert.deepEqual(handSlots({ hand: ["2m", "1m"], drawn: null }).map((s) => s.tile), ["1m", "2m"]);
  assert.deepEqual(handSlots({ hand: null, drawn: null }), []);
});

test("tsumogiri and tedashi of the same tile are two different clicks", () => {
  const legal = [
    { type: "discard", tile: "5m", tsumogiri: false },
    { type: "discard", tile: "5m", tsumogiri: true },
    { type: "discard", tile: "1m", tsumogiri: false },
  ];
  const options = promptOptions(legal);
  const slots = handSlots({ hand: ["1m", "5m", "5m"], drawn: "5m" });
  assert.deepEqual(slotAction(slots[1], options), legal[0]);
  assert.deepEqual(slotAction(slots[2], options), legal[1]);
  assert.deepEqual(slotAction(slots[0], options), legal[2]);
  assert.deepEqual(options.buttons, []);
});

test("only legal tiles are clickable; riichi mode offers the riichi discards", () => {
  const legal = [
    { type: "discard", tile: "9p", tsumogiri: true },
    { type: "riichi", tile: "9p", tsumogiri: true },
    { type: "riichi", tile: "1m", tsumogiri: false },
    { type: "tsumo" },
  ];
  const options = promptOptions(legal);
  const slots = handSlots({ hand: ["1m", "2m", "9p"], drawn: "9p" });
  assert.equal(slotAction(slots[0], options), null);
  assert.deepEqual(slotAction(slots[0], options, "riichi"), legal[2]);
  assert.equal(slotAction(slots[1], options, "riichi"), null);
  assert.deepEqual(slotAction(slots[2], options), legal[0]);
  assert.deepEqual(options.buttons.map((b) => b.id), ["tsumo", "riichi"]);
});

test("buttons group the docs' prompts: pon/pass, two chi options", () => {
  const pon = promptOptions(prompts[1].legal_actions);
  assert.deepEqual(pon.buttons.map((b) => b.id), ["pon", "pass"]);
  const chi = promptOptions(prompts[2].legal_actions);
  assert.deepEqual(chi.buttons.map((b) => [b.id, b.actions.length]), [["chi", 2], ["pass", 1]]);
  const kan = promptOptions([
    { type: "ankan", consumed: ["1z", "1z", "1z", "1z"] },
    { type: "kakan", tile: "0p" },
    { type: "daiminkan", consumed: ["3s", "3s", "3s"] },
    { type: "kyuushu_kyuuhai" },
    { type: "ron" },
  ]);
  assert.deepEqual(kan.buttons.map((b) => [b.id, b.actions.length]), [["ron", 1], ["kan", 3], ["kyuushu", 1]]);
  const ids = BUTTONS.map((b) => b.id);
  assert.equal(new Set(ids).size, ids.length);
});

test("keys", () => {
  assert.equal(tileKeyIndex("1"), 0);
  assert.equal(tileKeyIndex("0"), 9);
  assert.equal(tileKeyIndex("="), 11);
  assert.equal(tileKeyIndex("]"), 13);
  assert.equal(tileKeyIndex("q"), null);
  const { buttons } = promptOptions([{ type: "pass" }, { type: "pon", consumed: ["1z", "1z"] }, { type: "tsumo" }]);
  assert.equal(buttonForKey("p", buttons).id, "pon");
  assert.equal(buttonForKey(" ", buttons).id, "pass");
  assert.equal(buttonForKey("Escape", buttons).id, "pass");
  assert.equal(buttonForKey("w", buttons).id, "tsumo");
  assert.equal(buttonForKey("t", buttons).id, "tsumo");
  assert.equal(buttonForKey("c", buttons), null);
  const north = promptOptions([{ type: "nukidora" }, { type: "tsumo" }, { type: "discard", tile: "4z", tsumogiri: true }]);
  assert.deepEqual(north.buttons.map((b) => b.id), ["tsumo", "nukidora"]);
  assert.equal(buttonForKey("n", north.buttons).actions[0].type, "nukidora");
});

test("three seats: the next on the right, the previous on the left, nobody across", () => {
  assert.deepEqual([0, 1, 2].map((s) => relativePosition(s, 0, 3)), [0, 1, 3]);
  assert.deepEqual([0, 1, 2].map((s) => relativePosition(s, 2, 3)), [1, 3, 0]);
  assert.deepEqual([0, 1, 2].map((s) => seatWind(s, 2, 3)), [1, 2, 0]);
  const pon = { type: "pon", tiles: ["1z", "1z", "1z"], called: "1z", from_seat: 2, added: null };
  assert.deepEqual(meldLayout(pon, 0, 3).map((t) => t.sideways), [true, false, false]); // from the left
});

test("seats around the table and winds", () => {
  assert.deepEqual([0, 1, 2, 3].map((s) => relativePosition(s, 2)), [2, 3, 0, 1]);
  assert.deepEqual([0, 1, 2, 3].map((s) => relativePosition(s, null)), [0, 1, 2, 3]);
  assert.deepEqual([0, 1, 2, 3].map((s) => seatWind(s, 3)), [1, 2, 3, 0]);
  assert.equal(roundLabel({ round_wind: 1, kyoku: 3 }), "South 4");
  assert.equal(roundKanji({ round_wind: 0, kyoku: 0 }), "東1局");
});

test("melds lie with the called tile towards the seat it came from", () => {
  const chi = { type: "chi", tiles: ["4s", "0s", "6s"], called: "0s", from_seat: 3, added: null };
  assert.deepEqual(meldLayout(chi, 0).map((t) => [t.tile, t.sideways]), [["0s", true], ["4s", false], ["6s", false]]);
  const pon = { type: "pon", tiles: ["1z", "1z", "1z"], called: "1z", from_seat: 2, added: null };
  assert.deepEqual(meldLayout(pon, 0).map((t) => t.sideways), [false, true, false]);
  assert.deepEqual(meldLayout(pon, 3).map((t) => t.sideways), [true, false, false], "seat 2 sits on seat 3's left");
  assert.deepEqual(meldLayout({ ...pon, from_seat: 0 }, 3).map((t) => t.sideways), [false, false, true]);
  const kakan = { type: "kakan", tiles: ["5p", "5p", "5p", "0p"], called: "0p", from_seat: 1, added: "5p" };
  assert.deepEqual(meldLayout(kakan, 0).map((t) => [t.tile, t.sideways, t.added]), [
    ["5p", false, false], ["5p", false, false], ["0p", true, false], ["5p", true, true],
  ]);
  const ankan = { type: "ankan", tiles: ["5m", "5m", "5m", "0m"], called: null, from_seat: 0, added: null };
  const laid = meldLayout(ankan, 0);
  assert.deepEqual(laid.map((t) => t.back), [true, false, false, true]);
  assert.ok(laid.some((t) => t.tile === "0m" && !t.back), "the red five shows");
});

test("call options show the meld they make", () => {
  const view = {
    seat: 0, turn: 3,
    seats: [{ melds: [{ type: "pon", tiles: ["5p", "5p", "0p"], called: "0p", from_seat: 2, added: null }] }, { river: [] }, { river: [] },
      { river: [{ tile: "0s", called: false }] }],
  };
  assert.equal(lastDiscard(view), "0s");
  assert.deepEqual(optionMeld({ type: "chi", consumed: ["4s", "6s"] }, view), { type: "chi", tiles: ["4s", "0s", "6s"], called: "0s", from_seat: 3, added: null });
  assert.deepEqual(optionMeld({ type: "kakan", tile: "5p" }, view).tiles, ["5p", "5p", "5p", "0p"]);
  assert.equal(optionMeld({ type: "pass" }, view), null);
});

test("time: the per-action time, then the bank", () => {
  const prompt = { deadline_ms: 5000, bank_ms: 10000 };
  assert.deepEqual(timeLeft(prompt, 1200), { main: 3800, bank: 10000, inBank: false });
  assert.deepEqual(timeLeft(prompt, 7000), { main: 0, bank: 8000, inBank: true });
  assert.deepEqual(timeLeft(prompt, 20000), { main: 0, bank: 0, inBank: true });
});

test("labels", () => {
  assert.equal(yakuLabel("aka_dora"), "Red fives");
  assert.equal(yakuLabel("yakuhai_haku"), "Yakuhai haku");
  assert.equal(formatDelta(8000), "+8,000");
  assert.equal(formatDelta(-3900), "−3,900");
  assert.equal(formatDelta(0), "±0");
  assert.equal(formatFinal(43.8), "+43.8");
  assert.equal(formatFinal(-17.25), "−17.3");
});

test("the moves played while away are told in one notice", async () => {
  const { playedForText } = await import("../../../server/web/static/js/actions.js");
  assert.equal(playedForText([]), "");
  assert.equal(
    playedForText([
      { step: 12, action: { type: "discard", tile: "5m", tsumogiri: true } },
      { step: 14, action: { type: "pass" } },
      { step: 17, action: { type: "discard", tile: "1z", tsumogiri: true } },
    ]),
    "While you were away, the server played 3 moves for you: discarded 5m 1z; passed 1 call.",
  );
  assert.equal(
    playedForText([{ step: 3, action: { type: "discard", tile: "9p", tsumogiri: true } }]),
    "While you were away, the server played 1 move for you: discarded 9p.",
  );
});
