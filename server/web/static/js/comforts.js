// The table's comforts, as pure functions (no DOM; tests/web/js/comforts.test.mjs runs them under node):
// the player's toggles and where they are kept, the answers the page gives by itself (auto-win,
// no calls, tsumogiri, and the tsumogiri after riichi), dora, and the server's optional hints
// (waits, tiles left, furiten).

import { tileKind } from "./view.js";

/**
 * The toggles of the table, Tenhou's 和了 / 鳴きなし / ツモ切り and the sound. Each is kept in the
 * browser's localStorage under `jantaku.pref.<id>`.
 */
export const PREFS = [
  { id: "autoWin", kanji: "和了", label: "Auto-win", title: "Declare every win offered (tsumo and ron) at once", default: false },
  { id: "noCalls", kanji: "鳴きなし", label: "No calls", title: "Pass on every chi, pon and open kan at once (a ron is still offered)", default: false },
  { id: "tsumogiri", kanji: "ツモ切り", label: "Tsumogiri", title: "Discard every drawn tile at once (a tsumo is still offered)", default: false },
  { id: "sound", kanji: "音", label: "Sound", title: "Sounds for discards, calls, riichi and wins", default: true },
];

const PREF_KEY = (id) => `jantaku.pref.${id}`;

export function loadPrefs(storage) {
  const prefs = {};
  for (const pref of PREFS) {
    let saved = null;
    try {
      saved = storage?.getItem(PREF_KEY(pref.id)) ?? null;
    } catch {
      saved = null;
    }
    prefs[pref.id] = saved === null ? pref.default : saved === "1";
  }
  return prefs;
}

export function savePref(storage, id, value) {
  try {
    storage?.setItem(PREF_KEY(id), value ? "1" : "0");
  } catch {
    // storage full or disabled: the toggle lasts until the page is closed
  }
}

const CALLS = new Set(["chi", "pon", "daiminkan"]);
const OWN_TURN_OPTIONS = new Set(["tsumo", "ankan", "kakan", "kyuushu_kyuuhai"]);

/**
 * The action the page sends by itself for a prompt, or null when the player decides.
 *
 * - auto-win: a tsumo or ron offered is declared.
 * - no calls: a call window that offers only chi / pon / open kan (and pass) is passed.
 * - after riichi the drawn tile is discarded, unless a tsumo or a kan is offered (the player may
 *   want it): the hand can no longer change, so nothing is lost by answering at once.
 * - tsumogiri: the drawn tile is discarded whenever that is legal and no tsumo is offered.
 *
 * `legal`: the prompt's legal_actions; `inRiichi`: the seat has declared riichi; `prefs`: the toggles.
 */
export function autoAction(legal, { inRiichi = false, prefs = {} } = {}) {
  const actions = legal ?? [];
  const types = new Set(actions.map((a) => a.type));
  if (prefs.autoWin) {
    const win = actions.find((a) => a.type === "tsumo" || a.type === "ron");
    if (win) return win;
  }
  if (types.has("pass") && !types.has("discard")) {
    const onlyCalls = [...types].every((t) => t === "pass" || CALLS.has(t));
    if (prefs.noCalls && onlyCalls) return actions.find((a) => a.type === "pass");
    return null;
  }
  const tsumogiri = actions.find((a) => a.type === "discard" && a.tsumogiri);
  if (!tsumogiri || types.has("tsumo")) return null;
  if (inRiichi) return [...types].some((t) => OWN_TURN_OPTIONS.has(t)) ? null : tsumogiri;
  if (prefs.tsumogiri) return tsumogiri;
  return null;
}

/** The dora a dora indicator shows: the next tile of its suit, winds and dragons in their own cycles. */
export function doraOf(indicator) {
  const kind = tileKind(indicator);
  const n = Number(kind[0]);
  const suit = kind[1];
  if (suit === "z") {
    if (n <= 4) return `${(n % 4) + 1}z`;
    return `${((n - 5 + 1) % 3) + 5}z`;
  }
  return `${(n % 9) + 1}${suit}`;
}

/** The tile kinds that are dora for these indicators (a red five counts as its kind). */
export function doraKinds(indicators) {
  return new Set((indicators ?? []).filter(Boolean).map(doraOf));
}

/** How many times `tile` is dora (0 when it is not), counting each indicator that points at it. */
export function doraCount(tile, indicators) {
  if (!tile) return 0;
  const kind = tileKind(tile);
  return (indicators ?? []).filter((i) => i && doraOf(i) === kind).length;
}

/**
 * The server's hints for a prompt (docs/browser.md, "Hints"), normalised; null when it sent none.
 * {waits: [{tile, left}], furiten: bool, discards: Map("tile|tsumogiri" -> {waits, furiten})}
 */
export function readHints(prompt) {
  const hints = prompt?.hints;
  if (!hints || typeof hints !== "object") return null;
  const waits = (list) => (Array.isArray(list) ? list.filter((w) => w && typeof w.tile === "string") : []);
  const discards = new Map();
  for (const d of Array.isArray(hints.discards) ? hints.discards : []) {
    if (!d || typeof d.tile !== "string") continue;
    discards.set(`${d.tile}|${d.tsumogiri ? 1 : 0}`, { waits: waits(d.waits), furiten: Boolean(d.furiten) });
  }
  return { waits: waits(hints.waits), furiten: Boolean(hints.furiten), discards };
}

/** The waits to show: after the selected discard on a discard prompt, else the hand's own. */
export function shownWaits(hints, slot) {
  if (!hints) return null;
  if (slot) {
    const after = hints.discards.get(`${slot.tile}|${slot.drawn ? 1 : 0}`);
    if (after) return { ...after, after: slot.tile };
  }
  if (hints.waits.length || hints.furiten) return { waits: hints.waits, furiten: hints.furiten, after: null };
  return null;
}
