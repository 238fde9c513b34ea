// The visual replay of a finished game, as pure functions: the positions a viewer steps through
// (the table after each stored step, folded by the same MatchTracker the table uses), moving by
// action, by turn and by hand, the link to a position (`#h3s42`: hand 3, step 42 of that hand) and
// one seat's view. The page around it is js/replayview.js (docs/browser.md, "The replay viewer").
//
// Pure module: no DOM, no network (tests/web/js/replay.test.mjs runs it under node).

import { MatchTracker } from "./view.js";

/**
 * The positions of a game from its stored steps (`GET /api/me/games/{id}/replay`: omniscient
 * events, every hand open). One position per step that changed the table, and also the end of a
 * hand when the same step deals the next one (the winning position would be skipped otherwise).
 * Each: {view (a snapshot view, every hand open), step (index into steps), events (what led to
 * it), hand (1-based hand number, 0 before the first deal), index (its place in its hand: 0 is
 * the deal)}.
 */
export function replayPositions(matchId, steps) {
  const tracker = new MatchTracker(matchId, null);
  const positions = [];
  let hand = 0;
  let index = 0;
  const push = (step, events) => {
    if (!events.length && positions.length) return; // a pass that closed nothing: the same table
    positions.push({ view: tracker.view(), step, events, hand, index });
    index += 1;
  };
  steps.forEach((step, k) => {
    let since = [];
    for (const event of step.events) {
      if (event.type === "round_started") {
        if (hand > 0 && since.length) push(k, since); // the last hand's end, before this deal
        since = [];
        hand += 1;
        index = 0;
      }
      tracker.fold(event);
      since.push(event);
    }
    if (hand > 0) push(k, since);
  });
  return positions;
}

/** The first position of each hand: starts[h - 1] is where hand h begins. */
export function handStarts(positions) {
  const starts = [];
  positions.forEach((p, i) => {
    if (p.hand > 0 && p.index === 0) starts.push(i);
  });
  return starts;
}

/** Whether a position ends a turn (someone discarded; a hand's end counts too). */
function endsTurn(position) {
  return position.events.some((e) => e.type === "tile_discarded" || e.type === "hand_won" || e.type === "hand_drawn");
}

/** Where the viewer goes from position `at`: by "action", "turn" or "hand", `dir` +1 or -1. */
export function move(positions, at, by, dir) {
  const last = positions.length - 1;
  const clamp = (i) => Math.max(0, Math.min(last, i));
  if (by === "action") return clamp(at + dir);
  if (by === "turn") {
    for (let i = at + dir; i >= 0 && i <= last; i += dir) if (endsTurn(positions[i])) return i;
    return dir > 0 ? last : 0;
  }
  const starts = handStarts(positions);
  if (dir > 0) return starts.find((s) => s > at) ?? last;
  const current = [...starts].reverse().find((s) => s <= at) ?? 0;
  if (current < at) return current; // back to the start of this hand first
  return [...starts].reverse().find((s) => s < at) ?? 0;
}

/** The link fragment of a position: "h3s42" (hand 3, its step 42). */
export function positionHash(position) {
  return `h${position.hand}s${position.index}`;
}

/** The position a fragment ("#h3s42", "h3", "") names, or 0. */
export function positionFromHash(positions, hash) {
  const m = /^#?h(\d+)(?:s(\d+))?$/.exec(String(hash ?? "").trim());
  if (!m) return 0;
  const hand = Number(m[1]);
  const index = Number(m[2] ?? 0);
  let best = -1;
  positions.forEach((p, i) => {
    if (p.hand === hand && p.index <= index) best = i;
  });
  return best >= 0 ? best : 0;
}

/**
 * The view as `seat` saw it: the other hands face down (their sizes kept). A finished game hides
 * nothing from whoever may open its replay; this is a way of looking at it, not a redaction of
 * what the page was given (that happens on the server, server/engine/views.py).
 */
export function seatView(view, seat) {
  if (seat === null || seat === undefined) return view;
  return {
    ...view,
    seat,
    seats: view.seats.map((s) => (s.seat === seat ? s : { ...s, hand: null, drawn: null })),
  };
}

/** A one-line text of what a position's last events did, for the page's caption. */
export function caption(position, names) {
  const who = (seat) => names?.[seat] ?? `Seat ${seat + 1}`;
  const parts = [];
  for (const e of position.events) {
    switch (e.type) {
      case "round_started":
        parts.push("the deal");
        break;
      case "tile_drawn":
        break;
      case "tile_discarded":
        parts.push(`${who(e.seat)} discards ${e.tile}${e.tsumogiri ? " (tsumogiri)" : ""}${e.riichi ? ", riichi" : ""}`);
        break;
      case "meld_called":
        parts.push(`${who(e.seat)} calls ${e.meld_type === "daiminkan" || e.meld_type === "ankan" || e.meld_type === "kakan" ? "kan" : e.meld_type}`);
        break;
      case "hand_won":
        parts.push(`${who(e.seat)} wins by ${e.seat === e.from_seat ? "tsumo" : `ron from ${who(e.from_seat)}`}`);
        break;
      case "hand_drawn":
        parts.push("draw");
        break;
      case "match_ended":
        parts.push("the match ends");
        break;
      default:
        break;
    }
  }
  return parts.join("; ");
}
