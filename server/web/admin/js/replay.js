// The omniscient replay, folded: from the stored steps (GET /api/admin/games/{id}/replay) to what
// the table looked like after every step, all hands visible. Pure functions (tested under node
// against the engine's own state, tests/web_api/test_admin_js.py).

import { handLabel, sortTiles } from "./tiles.js";

function emptySeat() {
  return { hand: [], drawn: null, melds: [], river: [], riichi: false, riichiDeclared: false };
}

export function initialTable() {
  return {
    handIndex: null,
    label: "",
    dealer: 0,
    honba: 0,
    sticks: 0,
    scores: [0, 0, 0, 0],
    dora: [],
    seats: [emptySeat(), emptySeat(), emptySeat(), emptySeat()],
    turn: null,
    results: [], // this hand's hand_won / hand_drawn events
    wall: null, // revealed at the end of the hand
    commitment: null,
    final: null, // match_ended
  };
}

function clone(table) {
  return structuredClone(table);
}

function removeTile(tiles, tile) {
  const i = tiles.indexOf(tile);
  if (i < 0) throw new Error(`tile ${tile} is not in the hand [${tiles.join(" ")}]`);
  tiles.splice(i, 1);
}

function sameKind(a, b) {
  const five = (t) => (t[0] === "0" ? "5" + t[1] : t);
  return five(a) === five(b);
}

// Apply one event to the table (in place). Throws on an event that cannot follow.
export function applyEvent(table, e) {
  switch (e.type) {
    case "match_started":
      table.scores = [...e.scores];
      break;
    case "round_started": {
      table.handIndex = e.hand_index;
      table.label = handLabel(e.round_wind, e.kyoku, e.honba);
      table.dealer = e.dealer;
      table.honba = e.honba;
      table.sticks = e.riichi_sticks;
      table.scores = [...e.scores];
      table.dora = [e.dora_indicator];
      table.seats = e.hands.map((h) => ({ ...emptySeat(), hand: sortTiles(h ?? []) }));
      table.turn = e.dealer;
      table.results = [];
      table.wall = null;
      table.commitment = e.wall_commitment;
      break;
    }
    case "tile_drawn": {
      const seat = table.seats[e.seat];
      if (e.tile !== null && e.tile !== undefined) seat.hand = sortTiles([...seat.hand, e.tile]);
      seat.drawn = e.tile ?? null;
      table.turn = e.seat;
      break;
    }
    case "tile_discarded": {
      const seat = table.seats[e.seat];
      removeTile(seat.hand, e.tile);
      seat.drawn = null;
      seat.river.push({ tile: e.tile, tsumogiri: e.tsumogiri, riichi: e.riichi, called: false });
      if (e.riichi) seat.riichiDeclared = true;
      table.turn = e.seat;
      break;
    }
    case "riichi_accepted":
      table.seats[e.seat].riichi = true;
      table.scores = [...e.scores];
      table.sticks = e.riichi_sticks;
      break;
    case "meld_called": {
      const seat = table.seats[e.seat];
      for (const t of e.consumed) removeTile(seat.hand, t);
      seat.drawn = null;
      const meld = e.meld;
      if (e.meld_type === "kakan") {
        const i = seat.melds.findIndex((m) => m.type === "pon" && sameKind(m.tiles[0], meld.tiles[0]));
        if (i < 0) throw new Error("kakan without its pon");
        seat.melds[i] = meld;
      } else {
        seat.melds.push(meld);
        if (e.meld_type !== "ankan") {
          const river = table.seats[meld.from_seat].river;
          if (river.length) river[river.length - 1].called = true;
        }
      }
      table.turn = e.seat;
      break;
    }
    case "dora_revealed":
      table.dora.push(e.indicator);
      break;
    case "hand_won":
    case "hand_drawn":
      table.results.push(e);
      table.scores = [...e.scores];
      break;
    case "wall_revealed":
      table.wall = e.wall;
      break;
    case "round_ended":
      table.scores = [...e.scores];
      table.sticks = e.riichi_sticks;
      break;
    case "match_ended":
      table.final = e;
      table.scores = [...e.scores];
      break;
    default:
      throw new Error(`unknown event type ${e.type}`);
  }
  return table;
}

// The table after each stored step: frames[k] is the table once step k's events are applied.
export function buildFrames(steps) {
  const frames = [];
  let table = initialTable();
  for (const step of steps) {
    table = clone(table);
    for (const e of step.events) applyEvent(table, e);
    frames.push(table);
  }
  return frames;
}

// The positions a replay steps through: the table after every stored step, and also the end of a
// hand before the next deal when one step holds both (the winning ron or tsumo, or the last pass
// of a draw, is followed by the next hand's deal in the same step): without it the winning position
// of every hand but the last would never be shown. Each position: {table, step (index into steps),
// events (the events of that step that led to it), end (a hand's result is on the table)}.
export function buildPositions(steps) {
  const positions = [];
  let table = initialTable();
  steps.forEach((step, k) => {
    table = clone(table);
    let first = 0;
    step.events.forEach((e, i) => {
      if (e.type === "round_started" && table.results.length) {
        positions.push({ table, step: k, events: step.events.slice(first, i), end: true });
        table = clone(table);
        first = i;
      }
      applyEvent(table, e);
    });
    positions.push({ table, step: k, events: step.events.slice(first), end: table.results.length > 0 });
  });
  return positions;
}

// Index of the first position of each hand (for "previous / next hand").
export function positionStarts(positions) {
  const starts = [];
  positions.forEach((p, i) => {
    if (p.table.handIndex !== null && (i === 0 || positions[i - 1].table.handIndex !== p.table.handIndex)) starts.push(i);
  });
  return starts;
}

// Index of the first step of each hand (for "previous / next hand").
export function handStarts(steps) {
  const starts = [];
  steps.forEach((step, i) => {
    if (step.events.some((e) => e.type === "round_started")) starts.push(i);
  });
  return starts;
}

// A one-line description of an event, for the event list of the replay viewer.
export function describeEvent(e, names) {
  const who = (seat) => names[seat] ?? `seat ${seat}`;
  switch (e.type) {
    case "match_started":
      return "match started";
    case "round_started":
      return `${handLabel(e.round_wind, e.kyoku, e.honba)} dealt (dealer ${who(e.dealer)}, dora indicator ${e.dora_indicator})`;
    case "tile_drawn":
      return `${who(e.seat)} draws ${e.tile ?? "?"}${e.rinshan ? " (rinshan)" : ""}`;
    case "tile_discarded":
      return `${who(e.seat)} discards ${e.tile}${e.tsumogiri ? " (tsumogiri)" : ""}${e.riichi ? " declaring riichi" : ""}`;
    case "riichi_accepted":
      return `${who(e.seat)}'s riichi is accepted`;
    case "meld_called":
      return `${who(e.seat)} calls ${e.meld_type} ${e.meld.tiles.join(" ")}`;
    case "dora_revealed":
      return `new dora indicator ${e.indicator}`;
    case "hand_won": {
      const how = e.from_seat === e.seat ? "tsumo" : `ron from ${who(e.from_seat)}`;
      const value = e.limit || `${e.fu} fu`;
      return `${who(e.seat)} wins by ${how}: ${e.han} han ${value}, ${e.points} points (${e.yaku.map((y) => y.name).join(", ")})`;
    }
    case "hand_drawn":
      return `draw (${e.reason})`;
    case "wall_revealed":
      return "wall revealed";
    case "round_ended":
      return "hand settled";
    case "match_ended":
      return "match ended";
    default:
      return e.type;
  }
}
