// What the page offers for a prompt, and other pure helpers of the table (no DOM).
//
// The page offers exactly the server's legal actions: a hand tile is clickable only when some legal
// discard (or, in riichi mode, some legal riichi) names that tile with that tsumogiri flag, and a
// button sends one element of `legal_actions` unchanged.

import { compareTiles, tileKind } from "./view.js";

export const WINDS = ["東", "南", "西", "北"];
export const WIND_NAMES = ["East", "South", "West", "North"];

/** The own hand as slots: the concealed tiles sorted, the drawn tile apart at the end. */
export function handSlots(seatState) {
  if (!seatState || !seatState.hand) return [];
  const tiles = [...seatState.hand];
  const drawn = seatState.drawn;
  if (drawn !== null && drawn !== undefined) {
    const i = tiles.lastIndexOf(drawn);
    if (i >= 0) tiles.splice(i, 1);
  }
  const slots = tiles.sort(compareTiles).map((tile) => ({ tile, drawn: false }));
  if (drawn !== null && drawn !== undefined && seatState.hand.includes(drawn)) {
    slots.push({ tile: drawn, drawn: true });
  }
  return slots;
}

const slotKey = (tile, tsumogiri) => `${tile}|${tsumogiri ? 1 : 0}`;

/** The order and keys of the action buttons. */
export const BUTTONS = [
  { id: "tsumo", label: "Tsumo", key: "T", types: ["tsumo"] },
  { id: "ron", label: "Ron", key: "W", types: ["ron"] },
  { id: "riichi", label: "Riichi", key: "R", types: ["riichi"] },
  { id: "kan", label: "Kan", key: "K", types: ["daiminkan", "ankan", "kakan"] },
  { id: "pon", label: "Pon", key: "P", types: ["pon"] },
  { id: "chi", label: "Chi", key: "C", types: ["chi"] },
  { id: "kyuushu", label: "Nine terminals (draw)", key: "A", types: ["kyuushu_kyuuhai"] },
  { id: "nukidora", label: "North", key: "N", types: ["nukidora"] }, // three seats: set a north aside
  { id: "pass", label: "Pass", key: "Space", types: ["pass"] },
];

/**
 * Sort a prompt's legal actions for the page: discards and riichi discards by (tile, tsumogiri),
 * and one group per button, in the order of BUTTONS (a button exists only when its group is not empty).
 */
export function promptOptions(legalActions) {
  const discards = new Map();
  const riichi = new Map();
  const groups = new Map(BUTTONS.map((b) => [b.id, []]));
  for (const action of legalActions ?? []) {
    if (action.type === "discard") {
      discards.set(slotKey(action.tile, action.tsumogiri), action);
      continue;
    }
    if (action.type === "riichi") riichi.set(slotKey(action.tile, action.tsumogiri), action);
    const button = BUTTONS.find((b) => b.types.includes(action.type));
    if (button) groups.get(button.id).push(action);
  }
  const buttons = BUTTONS.filter((b) => groups.get(b.id).length > 0).map((b) => ({
    ...b,
    actions: groups.get(b.id),
  }));
  return { discards, riichi, buttons };
}

/** The action a click on `slot` sends: a discard, or in riichi mode a riichi; null if none is legal. */
export function slotAction(slot, options, mode = null) {
  if (!slot || !options) return null;
  const table = mode === "riichi" ? options.riichi : options.discards;
  return table.get(slotKey(slot.tile, slot.drawn)) ?? null;
}

/** Keys 1-9, 0, -, =, [, ] select the 1st to 14th tile of the hand (left to right). */
export const TILE_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-", "=", "[", "]"];

export function tileKeyIndex(key) {
  const i = TILE_KEYS.indexOf(key);
  return i < 0 ? null : i;
}

/** The button a key press means (case-insensitive letters; "Space" for the space bar), or null. */
export function buttonForKey(key, buttons) {
  const name = key === " " || key === "Spacebar" ? "Space" : key.length === 1 ? key.toUpperCase() : key;
  const direct = buttons.find((b) => b.key === name);
  if (direct) return direct;
  if (name === "W") return buttons.find((b) => b.id === "tsumo") ?? null; // W: win, however offered
  if (name === "Escape") return buttons.find((b) => b.id === "pass") ?? null;
  return null;
}

/**
 * Position of `seat` around the table as seen from `viewer`: 0 bottom, 1 right, 2 top, 3 left. At a
 * table of three `seats` nobody sits across: the next seat is on the right, the previous one on
 * the left (3), as three-player tables are laid out.
 */
export function relativePosition(seat, viewer, seats = 4) {
  const r = (((seat - (viewer ?? 0)) % seats) + seats) % seats;
  return seats === 3 && r === 2 ? 3 : r;
}

/** The seat wind index (0 east .. 3 north; three seats: east, south, west) of `seat` in a hand dealt by `dealer`. */
export function seatWind(seat, dealer, seats = 4) {
  return (((seat - dealer) % seats) + seats) % seats;
}

/** "East 1", "South 4" (kyoku is 0-based on the wire). */
export function roundLabel(round) {
  if (!round) return "";
  return `${WIND_NAMES[round.round_wind] ?? "?"} ${round.kyoku + 1}`;
}

export function roundKanji(round) {
  if (!round) return "";
  return `${WINDS[round.round_wind] ?? "?"}${round.kyoku + 1}局`;
}

const YAKU_NAMES = {
  riichi: "Riichi",
  double_riichi: "Double riichi",
  ippatsu: "Ippatsu",
  menzen_tsumo: "Menzen tsumo",
  pinfu: "Pinfu",
  tanyao: "Tanyao",
  iipeikou: "Iipeikou",
  ryanpeikou: "Ryanpeikou",
  dora: "Dora",
  aka_dora: "Red fives",
  ura_dora: "Ura dora",
  kita: "Kita",
  haitei: "Haitei raoyue",
  houtei: "Houtei raoyui",
  rinshan: "Rinshan kaihou",
  chankan: "Chankan",
  sanshoku: "Sanshoku doujun",
  sanshoku_doukou: "Sanshoku doukou",
  ittsu: "Ittsu",
  chanta: "Chanta",
  junchan: "Junchan",
  toitoi: "Toitoi",
  sanankou: "Sanankou",
  sankantsu: "Sankantsu",
  shousangen: "Shousangen",
  honroutou: "Honroutou",
  chiitoitsu: "Chiitoitsu",
  honitsu: "Honitsu",
  chinitsu: "Chinitsu",
  nagashi_mangan: "Nagashi mangan",
};

/** A readable yaku name: "aka_dora" -> "Red fives", "yakuhai_haku" -> "Yakuhai haku". */
export function yakuLabel(name) {
  if (YAKU_NAMES[name]) return YAKU_NAMES[name];
  const text = String(name).replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export const LIMIT_NAMES = {
  mangan: "Mangan",
  haneman: "Haneman",
  baiman: "Baiman",
  sanbaiman: "Sanbaiman",
  yakuman: "Yakuman",
  kazoe_yakuman: "Kazoe yakuman",
};

/**
 * The hand result's win call-out for a hand_won event: `{word: "Tsumo"|"Ron", riichi, value,
 * yakuman}` (value: the limit's name, or "3 han 40 fu").
 */
export function winCallout(event) {
  const riichi = event.yaku.some((y) => y.name === "riichi" || y.name === "double_riichi");
  const yakuman = event.yakuman > 0;
  const limit = yakuman ? (event.yakuman > 1 ? `${event.yakuman}× Yakuman` : "Yakuman") : LIMIT_NAMES[event.limit];
  return {
    word: event.seat === event.from_seat ? "Tsumo" : "Ron",
    riichi,
    yakuman,
    value: limit ?? `${event.han} han ${event.fu} fu`,
  };
}

export const DRAW_REASONS = {
  exhaustive: "Exhaustive draw",
  kyuushu_kyuuhai: "Abortive draw: nine terminals",
  suufon_renda: "Abortive draw: four winds",
  suucha_riichi: "Abortive draw: four riichi",
  suukaikan: "Abortive draw: four kans",
  sanchahou: "Abortive draw: triple ron",
};

/**
 * How a meld lies on the table, left to right: the called tile sideways at the side of the seat it
 * came from (left for the player on the left, middle for the one opposite, right for the one on the
 * right); a kakan's added tile on top of the called one; an ankan with its outer tiles face down.
 * Returns [{tile, sideways, back, added}] (an `added` entry is stacked on the previous one).
 */
export function meldLayout(meld, owner, seats = 4) {
  const tiles = [...meld.tiles];
  if (meld.type === "ankan") {
    // show the red five (if any) face up in the middle
    const sorted = tiles.sort(compareTiles);
    const inner = [sorted[1], sorted[2]];
    const red = sorted.find((t) => t[0] === "0");
    if (red && !inner.includes(red)) inner[1] = red;
    return [
      { tile: sorted[0], sideways: false, back: true, added: false },
      { tile: inner[0], sideways: false, back: false, added: false },
      { tile: inner[1], sideways: false, back: false, added: false },
      { tile: sorted[3], sideways: false, back: true, added: false },
    ];
  }
  const rest = [...tiles];
  const take = (tile) => {
    const i = rest.indexOf(tile);
    if (i >= 0) rest.splice(i, 1);
  };
  take(meld.called);
  let added = null;
  if (meld.type === "kakan" && meld.added) {
    take(meld.added);
    added = meld.added;
  }
  const out = rest.sort(compareTiles).map((tile) => ({ tile, sideways: false, back: false, added: false }));
  const from = relativePosition(meld.from_seat, owner, seats);
  const at = from === 3 ? 0 : from === 2 ? 1 : out.length;
  const called = { tile: meld.called, sideways: true, back: false, added: false };
  out.splice(at, 0, called);
  if (added) out.splice(at + 1, 0, { tile: added, sideways: true, back: false, added: true });
  return out;
}

/** The tile a chi/pon/daiminkan option would call: the last discard on the table. */
export function lastDiscard(view) {
  if (!view || view.turn === null || view.turn === undefined) return null;
  const river = view.seats[view.turn]?.river ?? [];
  const last = river[river.length - 1];
  return last && !last.called ? last.tile : null;
}

/** The tiles an option shows in a chooser: e.g. chi 3s4s on 0s -> ["3s", "4s", "0s"]. */
export function optionTiles(action, view) {
  switch (action.type) {
    case "chi":
    case "pon":
    case "daiminkan": {
      const called = lastDiscard(view);
      return called ? [...action.consumed, called] : [...action.consumed];
    }
    case "ankan":
      return [...action.consumed];
    case "kakan": {
      const own = view?.seat ?? null;
      const meld = own === null ? null : view.seats[own]?.melds.find(
        (m) => m.type === "pon" && tileKind(m.tiles[0]) === tileKind(action.tile),
      );
      return meld ? [...meld.tiles, action.tile] : [action.tile];
    }
    case "discard":
    case "riichi":
      return [action.tile];
    default:
      return [];
  }
}

/**
 * The meld an option would make, laid out like one on the table ({type, tiles, called, from_seat,
 * added}), or null when the option makes no meld (or the called tile is unknown).
 */
export function optionMeld(action, view) {
  const own = view?.seat ?? null;
  switch (action.type) {
    case "chi":
    case "pon":
    case "daiminkan": {
      const called = lastDiscard(view);
      if (called === null) return null;
      const tiles = [...action.consumed, called].sort(compareTiles);
      return { type: action.type, tiles, called, from_seat: view.turn, added: null };
    }
    case "ankan":
      return { type: "ankan", tiles: [...action.consumed].sort(compareTiles), called: null, from_seat: own, added: null };
    case "kakan": {
      const pon = own === null ? null : view.seats[own]?.melds.find(
        (m) => m.type === "pon" && tileKind(m.tiles[0]) === tileKind(action.tile),
      );
      if (!pon) return null;
      const tiles = [...pon.tiles, action.tile].sort(compareTiles);
      return { type: "kakan", tiles, called: pon.called, from_seat: pon.from_seat, added: action.tile };
    }
    default:
      return null;
  }
}

/** Per-action and bank time left (ms) `elapsed` ms after a prompt was received. */
export function timeLeft(prompt, elapsed) {
  const main = prompt.deadline_ms - elapsed;
  if (main >= 0) return { main, bank: prompt.bank_ms, inBank: false };
  return { main: 0, bank: Math.max(0, prompt.bank_ms + main), inBank: true };
}

/**
 * The notice for a `played_for` message: what the server played for this seat while it had no
 * connection (its time had run out). "" when nothing was.
 */
export function playedForText(moves) {
  const n = moves?.length ?? 0;
  if (!n) return "";
  const plural = (k, word) => `${k} ${word}${k === 1 ? "" : "s"}`;
  const discards = moves.filter((m) => m.action.type === "discard").map((m) => m.action.tile);
  const passes = moves.filter((m) => m.action.type === "pass").length;
  const other = n - discards.length - passes;
  const parts = [];
  if (discards.length) parts.push(`discarded ${discards.join(" ")}`);
  if (passes) parts.push(`passed ${plural(passes, "call")}`);
  if (other) parts.push(plural(other, "other move"));
  return `While you were away, the server played ${plural(n, "move")} for you: ${parts.join("; ")}.`;
}

/** "+8,000" / "-3,900" / "±0". */
export function formatDelta(delta) {
  if (delta === 0) return "±0";
  return `${delta > 0 ? "+" : "−"}${Math.abs(delta).toLocaleString("en-US")}`;
}

export function formatPoints(points) {
  return Number(points).toLocaleString("en-US");
}

/** Final points with one decimal and a sign: "+43.8", "−17.2". */
export function formatFinal(points) {
  const text = Math.abs(points).toFixed(1);
  return points > 0 ? `+${text}` : points < 0 ? `−${text}` : text;
}
