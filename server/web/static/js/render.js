// Drawing the table into the page's containers. Every function rebuilds its container from the
// state it is given (a few hundred elements at most), so rendering is a pure function of the state.

import { tileSVG, tileLabel } from "./tiles.js";
import {
  DRAW_REASONS,
  LIMIT_NAMES,
  WINDS,
  formatDelta,
  formatFinal,
  formatPoints,
  handSlots,
  meldLayout,
  optionMeld,
  optionTiles,
  relativePosition,
  roundKanji,
  roundLabel,
  seatWind,
  slotAction,
  timeLeft,
  winCallout,
  yakuLabel,
} from "./actions.js";
import { TILE_KEYS } from "./actions.js";
import { PREFS, doraCount } from "./comforts.js";
import { DEFAULT_SEATS } from "./view.js";

/** Create an element: el("div", {className: "x", "data-testid": "y", onclick: fn}, child, ...). */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "className") node.className = value;
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A tile: <span class="tile" data-tile="0p"> with its SVG. */
export function tileEl(tile, { sideways = false, back = false, className = "", props = {} } = {}) {
  const classes = ["tile"];
  if (sideways) classes.push("sideways");
  if (className) classes.push(className);
  const span = el("span", { className: classes.join(" "), "data-tile": back ? "back" : tile ?? "back", ...props });
  span.innerHTML = tileSVG(tile, { sideways, back });
  return span;
}

export function tilesEl(tiles, className = "tiles") {
  return el("span", { className }, tiles.map((t) => tileEl(t)));
}

/** The classes and attributes that mark a dora (data-dora: how many times it counts). */
function doraMark(tile, dora) {
  const n = dora ? doraCount(tile, dora) : 0;
  return n ? { className: "is-dora", props: { "data-dora": n } } : { className: "", props: {} };
}

/** Set a CSS animation running for `age` ms already, so that redrawing does not restart it. */
function animateFrom(node, age) {
  node.style.animationDelay = `${-Math.round(age)}ms`;
  return node;
}

function meldEl(meld, owner, testid = "meld", { dora = null, fresh = null, seats = 4 } = {}) {
  const parts = [];
  const layout = meldLayout(meld, owner, seats);
  const tileOf = (item, sideways) => {
    const mark = item.back ? { className: "", props: {} } : doraMark(item.tile, dora);
    return tileEl(item.tile, { sideways, back: item.back, className: mark.className, props: mark.props });
  };
  for (let i = 0; i < layout.length; i++) {
    const item = layout[i];
    if (item.added) continue;
    const next = layout[i + 1];
    const tile = tileOf(item, item.sideways);
    if (next && next.added) {
      parts.push(el("span", { className: "stack" }, tileOf(next, true), tile));
    } else {
      parts.push(tile);
    }
  }
  const node = el("span", { className: `meld meld-${meld.type}${fresh ? " fresh" : ""}`, "data-testid": testid, "data-meld": meld.type }, parts);
  return fresh ? animateFrom(node, fresh.age) : node;
}

/** The meld `index` of `seat` is the newest call (ctx.fresh), or null. */
function freshMeld(ctx, seat, index) {
  const f = ctx.fresh;
  return f && f.kind === "meld" && f.seat === seat && f.index === index ? f : null;
}

export function playerName(players, seat) {
  return players?.[seat]?.name ?? `Seat ${seat + 1}`;
}

// ---- board ------------------------------------------------------------------------------------

function riverEl(river, seat, lastOffered, fresh) {
  const rows = [river.slice(0, 6), river.slice(6, 12), river.slice(12)];
  return el(
    "div",
    { className: "river", "data-testid": `river-${seat}` },
    rows.map((row) =>
      el(
        "div",
        { className: "river-row" },
        row.map((t) => {
          const classes = [];
          if (t.called) classes.push("called");
          if (t.tsumogiri) classes.push("tsumogiri");
          if (t.riichi) classes.push("riichi-tile");
          if (lastOffered && t === river[river.length - 1]) classes.push("last");
          const isFresh = fresh && fresh.kind === "discard" && fresh.seat === seat && river.indexOf(t) === fresh.index;
          if (isFresh) classes.push("fresh");
          const node = tileEl(t.tile, {
            sideways: t.sideways,
            className: classes.join(" "),
            props: { title: `${tileLabel(t.tile)}${t.tsumogiri ? " (tsumogiri)" : ""}${t.riichi ? " — riichi" : ""}${t.called ? " — called" : ""}` },
          });
          return isFresh ? animateFrom(node, fresh.age) : node;
        }),
      ),
    ),
  );
}

function centerEl(ctx) {
  const { view, viewer, players, prompt } = ctx;
  const round = view.round;
  const dealer = round ? round.dealer : 0;
  const n = view.seats.length; // three or four seats
  const sides = view.seats.map((_, seat) => {
    const pos = relativePosition(seat, viewer, n);
    const wind = seatWind(seat, dealer, n);
    const classes = ["c-side", `pos-${pos}`];
    if (view.turn === seat) classes.push("turn");
    if (prompt && prompt.seat === seat) classes.push("deciding");
    if (wind === 0) classes.push("dealer");
    const riichi = view.seats[seat]?.riichi;
    return el(
      "div",
      { className: classes.join(" "), "data-testid": `score-${seat}`, title: playerName(players, seat) },
      el("span", { className: "c-wind" }, WINDS[wind]),
      el("span", { className: "c-score" }, formatPoints(view.scores[seat] ?? 0)),
      riichi ? el("span", { className: "riichi-stick", title: "riichi" }) : null,
    );
  });
  const dora = view.dora_indicators.map((t) => tileEl(t));
  while (dora.length < 5) dora.push(tileEl(null, { className: "unrevealed", back: true }));
  const mid = el(
    "div",
    { className: "c-mid" },
    el("div", { className: "c-round", "data-testid": "round", title: roundLabel(round) }, roundKanji(round) || "—"),
    el(
      "div",
      { className: "c-counts" },
      el("span", { "data-testid": "honba", title: "honba (repeat counters)" }, `本${round ? round.honba : 0}`),
      el("span", { "data-testid": "sticks", title: "riichi sticks on the table" }, `供${round ? round.riichi_sticks : 0}`),
    ),
    el("div", { className: "c-left", "data-testid": "tiles-left", title: "tiles left in the wall" }, `残 ${view.tiles_left}`),
    el("div", { className: "dora", "data-testid": "dora", title: "dora indicators" }, dora),
  );
  return el("div", { className: "center" }, sides, mid);
}

export function renderBoard(board, ctx) {
  const { view, viewer } = ctx;
  board.replaceChildren();
  if (!view.round) {
    board.append(el("div", { className: "board-empty" }, "Waiting for the deal…"));
    return;
  }
  for (const seatState of view.seats) {
    const seat = seatState.seat;
    const pos = relativePosition(seat, viewer, view.seats.length);
    const own = seat === ctx.ownSeat;
    const strip = el("div", { className: "strip" });
    if (!own) {
      const hidden = seatState.hand
        ? seatState.hand.map((t) => tileEl(t))
        : Array.from({ length: seatState.hand_size }, () => tileEl(null, { back: true }));
      strip.append(el("span", { className: "concealed", "data-testid": `concealed-${seat}` }, hidden));
      strip.append(el("span", { className: "melds" }, seatState.melds.map((m, i) => meldEl(m, seat, "meld", { dora: view.dora_indicators, fresh: freshMeld(ctx, seat, i), seats: view.seats.length }))));
      const norths = northsEl(seatState, seat);
      if (norths) strip.append(norths);
    }
    const classes = ["zone", `pos-${pos}`];
    if (view.turn === seat) classes.push("turn");
    board.append(el("div", { className: classes.join(" "), "data-seat": seat }, riverEl(seatState.river, seat, view.turn === seat && seatState.hand_size % 3 === 1, ctx.fresh), strip));
  }
  board.append(centerEl(ctx));
  const callout = ctx.callout;
  if (callout) {
    const pos = relativePosition(callout.seat, viewer, view.seats.length);
    const node = el("div", { className: `callout pos-${pos} callout-${callout.text.toLowerCase()}`, "data-testid": "callout", "aria-hidden": "true" }, callout.text);
    board.append(animateFrom(node, callout.age));
  }
}

// ---- side panels ------------------------------------------------------------------------------

export function renderSideInfo(side, ctx) {
  const { view, players, matchId, spectating } = ctx;
  const round = view.round;
  const dealer = round ? round.dealer : 0;
  // Three or four seats: the deal's, else the players seated (before the first deal).
  const n = view.seats.length || players?.length || view.scores.length || DEFAULT_SEATS;
  const rows = Array.from({ length: n }, (_, seat) => {
    const kind = players?.[seat]?.kind;
    const classes = ["player"];
    if (view.turn === seat) classes.push("turn");
    if (seat === ctx.ownSeat) classes.push("me");
    return el(
      "li",
      { className: classes.join(" "), "data-testid": `player-${seat}` },
      el("span", { className: "p-wind" }, round ? WINDS[seatWind(seat, dealer, n)] : "·"),
      el("span", { className: "p-name" }, playerName(players, seat), kind === "bot" ? el("small", {}, " bot") : null),
      view.seats[seat]?.riichi ? el("span", { className: "p-riichi", title: "riichi" }, "立") : null,
      el("span", { className: "p-score", "data-testid": `player-score-${seat}` }, formatPoints(view.scores[seat] ?? 0)),
    );
  });
  let rules = "";
  try {
    const doc = view.match ? JSON.parse(view.match.ruleset_json) : null;
    if (doc) rules = `${doc.name} · ${doc.game_length === "east" ? "east only" : "east-south"}`;
  } catch {
    rules = "";
  }
  side.replaceChildren(
    el("div", { className: "round-line" }, round ? `${roundLabel(round)} · ${round.honba} honba · ${round.riichi_sticks} sticks` : "—"),
    el("ul", { className: "players", "data-testid": "scores" }, rows),
    el(
      "div",
      { className: "match-meta" },
      rules ? el("div", {}, rules) : null,
      el("div", {}, "match ", el("code", { "data-testid": "match-id" }, matchId ?? "")),
      spectating ? el("div", { className: "spectating", "data-testid": "spectating" }, "watching") : null,
    ),
  );
}

export function renderSideKeys(side, ctx = {}) {
  // A spectator has no keys to press: the panel says so instead of listing a player's shortcuts.
  const mode = ctx.spectating ? "spectator" : "player";
  if (side.dataset.mode === mode && side.childElementCount) return;
  side.dataset.mode = mode;
  side.replaceChildren();
  if (ctx.spectating) {
    side.append(
      el("h3", {}, "Watching"),
      el("p", { className: "hint", "data-testid": "spectator-note" }, "You see what every player shows: the discards, calls and results, never a concealed hand (with the caster view, where a table offers it: every hand, after the table's delay). Stop watching with the button at the top right."),
    );
    return;
  }
  side.append(
    el("h3", {}, "Keys"),
    el(
      "dl",
      { className: "keys" },
      [
      ["1…]", "select tile"], ["again / Enter", "discard"], ["← →", "move"], ["X", "tsumogiri"],
      ["R", "riichi"], ["T / W", "tsumo / ron"], ["P C K", "pon chi kan"], ["Space", "pass"], ["?", "help"],
    ].map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]),
    ),
  );
}

// ---- own hand, actions, timer -----------------------------------------------------------------

export function renderHand(handBox, meldBox, ctx, handlers) {
  const { view, ownSeat, options, ui, pending } = ctx;
  handBox.replaceChildren();
  meldBox.replaceChildren();
  if (ownSeat === null || !view.round) return;
  const seatState = view.seats[ownSeat];
  const slots = handSlots(seatState);
  const dora = view.dora_indicators;
  slots.forEach((slot, index) => {
    const action = pending ? null : slotAction(slot, options, ui.mode);
    const mark = doraMark(slot.tile, dora);
    const classes = ["hand-tile"];
    if (slot.drawn) classes.push("drawn");
    if (action) classes.push("legal");
    else if (options) classes.push("dim");
    if (ui.selected === index) classes.push("selected");
    const button = el(
      "button",
      {
        type: "button",
        className: classes.join(" "),
        "data-testid": "hand-tile",
        "data-tile": slot.tile,
        "data-index": index,
        "data-drawn": slot.drawn ? "true" : "false",
        "data-legal": action ? "true" : "false",
        "aria-label": `${tileLabel(slot.tile)}${slot.drawn ? " (drawn)" : ""}${TILE_KEYS[index] ? `, key ${TILE_KEYS[index]}` : ""}`,
        disabled: !action,
        onclick: () => handlers.onSlot(index),
      },
      tileEl(slot.tile, { className: mark.className, props: mark.props }),
    );
    handBox.append(button);
  });
  meldBox.append(...seatState.melds.map((m, i) => meldEl(m, ownSeat, "my-meld", { dora, fresh: freshMeld(ctx, ownSeat, i), seats: view.seats.length })));
  const norths = northsEl(seatState, ownSeat);
  if (norths) meldBox.append(norths);
}

/** Three players: the norths a seat has set aside this hand, face up beside its melds (null: none). */
function northsEl(seatState, seat) {
  const n = seatState.norths ?? 0;
  if (n === 0) return null;
  const tiles = Array.from({ length: n }, () => tileEl("4z"));
  return el("span", { className: "norths", "data-testid": `norths-${seat}`, title: `${n} north${n > 1 ? "s" : ""} set aside (bonus dora)` }, tiles);
}

/** The toggles (和了 / 鳴きなし / ツモ切り / sound): a player's only; spectators get none. */
export function renderToggles(box, ctx, handlers) {
  if (ctx.spectating) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  box.replaceChildren(
    ...PREFS.map((pref) => {
      const on = Boolean(ctx.prefs?.[pref.id]);
      return el(
        "button",
        {
          type: "button",
          className: `toggle${on ? " on" : ""}`,
          "data-testid": `toggle-${pref.id}`,
          "aria-pressed": on ? "true" : "false",
          title: pref.title,
          onclick: () => handlers.onToggle(pref.id, !on),
        },
        pref.id === "sound"
          ? el("span", { className: "toggle-kanji toggle-icon", "aria-hidden": "true" }, on ? "♪" : "✕")
          : el("span", { className: "toggle-kanji", lang: "ja" }, pref.kanji),
        el("span", { className: "toggle-label" }, pref.id === "sound" ? (on ? "Sound" : "Muted") : pref.label),
      );
    }),
  );
}

/** The waits (and the tiles of each still unseen) and the furiten warning, from the server's hints. */
export function renderWaits(box, ctx) {
  const waits = ctx.spectating ? null : ctx.waits;
  if (!waits || (!waits.waits.length && !waits.furiten)) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  const total = waits.waits.reduce((n, w) => n + (Number(w.left) || 0), 0);
  box.replaceChildren(...[
    el("span", { className: "waits-label" }, waits.after ? "After this discard, waits" : "Waits"),
    el(
      "span",
      { className: "waits-tiles" },
      waits.waits.map((w) =>
        el("span", { className: `wait${Number(w.left) ? "" : " dead"}`, "data-testid": "wait", "data-tile": w.tile, "data-left": Number(w.left) || 0 }, tileEl(w.tile), el("small", {}, `×${Number(w.left) || 0}`)),
      ),
    ),
    waits.waits.length ? el("span", { className: "waits-total", "data-testid": "waits-left" }, `${total} left`) : null,
    waits.furiten ? el("span", { className: "furiten", "data-testid": "furiten", title: "You cannot win by ron: one of your waits is in your discards, or you passed a win" }, "Furiten") : null,
  ].filter(Boolean)); // replaceChildren would write a null as the text "null"
}

export function renderActions(box, ctx, handlers) {
  const { options, ui, pending } = ctx;
  box.replaceChildren();
  if (!options || pending) {
    if (pending) box.append(el("span", { className: "sending", "data-testid": "sending" }, "…"));
    return;
  }
  if (ui.mode === "riichi") {
    box.append(
      el("span", { className: "mode-hint", "data-testid": "riichi-hint" }, "Riichi: choose your discard"),
      el("button", { type: "button", className: "act act-cancel", "data-testid": "action-cancel", onclick: () => handlers.onCancel() }, "Cancel", el("kbd", {}, "Esc")),
    );
    return;
  }
  for (const button of options.buttons) {
    const label = button.actions.length > 1 && button.id !== "riichi" ? `${button.label} ▾` : button.label;
    box.append(
      el(
        "button",
        {
          type: "button",
          className: `act act-${button.id}`,
          "data-testid": `action-${button.id}`,
          onclick: () => handlers.onButton(button.id),
        },
        label,
        el("kbd", {}, button.key === "Space" ? "␣" : button.key),
      ),
    );
  }
}

function optionMeldEl(action, view) {
  const meld = optionMeld(action, view);
  if (meld && view.seat !== null) return meldEl(meld, view.seat, "option-meld");
  return tilesEl(optionTiles(action, view));
}

export function renderChooser(box, ctx, handlers) {
  const { ui, view } = ctx;
  box.replaceChildren();
  if (!ui.chooser) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.append(el("div", { className: "chooser-title" }, `Choose your ${ui.chooser.label.toLowerCase()}`));
  ui.chooser.actions.forEach((action, i) => {
    box.append(
      el(
        "button",
        { type: "button", className: "option", "data-testid": "chooser-option", "data-type": action.type, onclick: () => handlers.onChoose(i) },
        el("kbd", {}, String(i + 1)),
        el("span", { className: "option-kind" }, action.type === "daiminkan" ? "open kan" : action.type === "ankan" ? "closed kan" : action.type === "kakan" ? "added kan" : action.type),
        optionMeldEl(action, view),
      ),
    );
  });
  box.append(el("button", { type: "button", className: "ghost", "data-testid": "chooser-cancel", onclick: () => handlers.onCancel() }, "Cancel"));
}

export function renderTimer(box, ctx) {
  const { prompt, elapsed } = ctx;
  if (!prompt) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const left = timeLeft(prompt, elapsed);
  const total = prompt.deadline_ms > 0 ? prompt.deadline_ms : 1;
  const fraction = left.inBank ? left.bank / Math.max(1, prompt.bank_ms) : left.main / total;
  box.classList.toggle("in-bank", left.inBank);
  box.classList.toggle("urgent", left.inBank || left.main < 2000);
  let bar = box.querySelector(".timer-bar > span");
  if (!bar) {
    box.replaceChildren(
      el("span", { className: "timer-main", "data-testid": "time-left" }),
      el("span", { className: "timer-bank", "data-testid": "time-bank" }),
      el("span", { className: "timer-bar" }, el("span")),
    );
    bar = box.querySelector(".timer-bar > span");
  }
  box.querySelector(".timer-main").textContent = `${(left.main / 1000).toFixed(1)}s`;
  box.querySelector(".timer-bank").textContent = `+${(left.bank / 1000).toFixed(1)}s bank`;
  bar.style.transform = `scaleX(${Math.max(0, Math.min(1, fraction)).toFixed(3)})`;
}

// ---- results ----------------------------------------------------------------------------------

/**
 * The score changes of a hand. `bonus`: per seat, the riichi sticks left on the table that the
 * match's end gave (to the top player): shown in their own column, and the scores include them, so
 * that this table and the final standings agree.
 */
function deltasEl(deltas, scores, players, bonus = null) {
  const extra = bonus && bonus.some((b) => b !== 0);
  return el(
    "table",
    { className: "deltas", "data-testid": "deltas" },
    deltas.map((d, seat) =>
      el(
        "tr",
        {},
        el("td", { className: "d-name" }, playerName(players, seat)),
        el("td", { className: `d-delta ${d > 0 ? "plus" : d < 0 ? "minus" : ""}`, "data-testid": `delta-${seat}` }, formatDelta(d)),
        extra
          ? el("td", { className: `d-sticks ${bonus[seat] > 0 ? "plus" : ""}`, "data-testid": `sticks-${seat}`, title: "riichi sticks left on the table, to the winner of the match" }, bonus[seat] ? `${formatDelta(bonus[seat])} sticks` : "")
          : null,
        el("td", { className: "d-score", "data-testid": `score-after-${seat}` }, formatPoints(scores[seat] + (extra ? bonus[seat] : 0))),
      ),
    ),
  );
}

/** Per seat, what the match's end added to the last hand's scores (the leftover riichi sticks), or null. */
export function leftoverBonus(results, matchEnd) {
  const final = matchEnd?.result?.scores;
  const last = results?.events?.[results.events.length - 1];
  if (!final || !last || !last.scores) return null;
  const bonus = final.map((score, seat) => score - last.scores[seat]);
  return bonus.some((b) => b !== 0) ? bonus : null;
}

function winEl(event, players, bonus = null) {
  const winner = playerName(players, event.seat);
  const how = event.seat === event.from_seat ? "tsumo" : `ron from ${playerName(players, event.from_seat)}`;
  const concealed = [...event.hand];
  const i = concealed.lastIndexOf(event.win_tile);
  if (i >= 0) concealed.splice(i, 1);
  const limit = event.yakuman > 0 ? (event.yakuman > 1 ? `${event.yakuman}× yakuman` : "Yakuman") : LIMIT_NAMES[event.limit] ?? event.limit;
  const value = event.yakuman > 0 ? limit : `${event.han} han ${event.fu} fu${limit ? ` · ${limit}` : ""}`;
  return el(
    "section",
    { className: "win", "data-testid": "win" },
    el("h3", {}, `${winner} — ${how}`),
    el(
      "div",
      { className: "win-hand", "data-testid": "win-hand" },
      el("span", { className: "tiles concealed" }, concealed.map((t) => {
        const mark = doraMark(t, event.dora_indicators);
        return tileEl(t, { className: mark.className, props: mark.props });
      })),
      el("span", { className: "win-tile", title: "winning tile" }, tileEl(event.win_tile, doraMark(event.win_tile, event.dora_indicators))),
      el("span", { className: "melds" }, event.melds.map((m) => meldEl(m, event.seat, "meld", { dora: event.dora_indicators }))),
    ),
    el(
      "div",
      { className: "indicators" },
      el("span", {}, "Dora ", tilesEl(event.dora_indicators)),
      event.ura_indicators.length ? el("span", {}, "Ura ", tilesEl(event.ura_indicators)) : null,
    ),
    el(
      "table",
      { className: "yaku", "data-testid": "yaku" },
      event.yaku.map((y) => el("tr", {}, el("td", {}, yakuLabel(y.name)), el("td", { className: "han" }, event.yakuman > 0 && y.han >= 13 ? "yakuman" : `${y.han} han`))),
    ),
    el("div", { className: "value", "data-testid": "win-value" }, value, el("b", { "data-testid": "win-points" }, ` ${formatPoints(event.points)}`)),
    event.pao_seat !== null && event.pao_seat !== undefined ? el("div", { className: "pao" }, `Pao: ${playerName(players, event.pao_seat)} pays`) : null,
    deltasEl(event.deltas, event.scores, players, bonus),
  );
}

function drawEl(event, players, bonus = null, melds = null) {
  // Each seat on one line (name, tenpai or noten), its open hand on the next one across the whole
  // width, so that four tenpai hands fit a phone.
  const rows = event.tenpai.flatMap((tenpai, seat) => [
    el(
      "tr",
      { "data-testid": `draw-seat-${seat}` },
      el("td", { className: "d-name" }, playerName(players, seat)),
      el("td", { className: tenpai ? "tenpai" : "noten" }, event.reason === "exhaustive" ? (tenpai ? "tenpai" : "noten") : ""),
    ),
    event.hands[seat]
      ? el(
          "tr",
          { className: "draw-hand", "data-testid": `draw-hand-${seat}` },
          el("td", { colspan: 2 }, tilesEl(event.hands[seat]), melds?.[seat]?.length ? el("span", { className: "melds" }, melds[seat].map((m) => meldEl(m, seat))) : null),
        )
      : null,
  ]);
  return el(
    "section",
    { className: "draw", "data-testid": "draw" },
    el("h3", {}, DRAW_REASONS[event.reason] ?? event.reason),
    el("table", { className: "tenpai-table" }, rows),
    event.nagashi.length ? el("div", {}, `Nagashi mangan: ${event.nagashi.map((s) => playerName(players, s)).join(", ")}`) : null,
    deltasEl(event.deltas, event.scores, players, bonus),
  );
}

function matchEndEl(result, players, ownSeat, bonus = null) {
  const order = result.ranks.map((_, seat) => seat).sort((a, b) => result.ranks[a] - result.ranks[b]);
  const sticks = bonus ? bonus.map((b, seat) => [b, seat]).filter(([b]) => b !== 0) : [];
  return el(
    "section",
    { className: "match-end", "data-testid": "match-end" },
    el("h3", {}, "Final standings"),
    el(
      "table",
      { className: "standings" },
      order.map((seat) =>
        el(
          "tr",
          { className: seat === ownSeat ? "me" : "", "data-testid": `rank-${result.ranks[seat]}` },
          el("td", { className: "rank" }, `${result.ranks[seat]}.`),
          el("td", {}, playerName(players, seat)),
          el("td", { className: "d-score" }, formatPoints(result.scores[seat])),
          el("td", { className: `final ${result.final_points[seat] >= 0 ? "plus" : "minus"}`, "data-testid": `final-${seat}` }, formatFinal(result.final_points[seat])),
        ),
      ),
    ),
    sticks.length
      ? el("p", { className: "hint", "data-testid": "leftover-sticks" }, sticks.map(([b, seat]) => `${playerName(players, seat)}: ${formatDelta(b)} from the riichi sticks left on the table`).join("; "))
      : null,
  );
}

export function renderResult(box, ctx, handlers) {
  const { results, matchEnd, players, ownSeat } = ctx;
  if (!results && !matchEnd) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  const parts = [];
  const bonus = leftoverBonus(results, matchEnd);
  if (matchEnd) {
    // the final standings first: on a small screen the last hand's details are below them
    if (matchEnd.result) parts.push(matchEndEl(matchEnd.result, players, ownSeat, bonus));
    else parts.push(el("section", { className: "match-end", "data-testid": "match-end" }, el("h3", {}, "The match was stopped by the server.")));
  }
  if (results) {
    parts.push(el("div", { className: "result-round" }, results.round ? `${roundLabel(results.round)}, ${results.round.honba} honba` : ""));
    results.events.forEach((event, i) => {
      const last = i === results.events.length - 1 ? bonus : null;
      parts.push(event.type === "hand_won" ? winEl(event, players, last) : drawEl(event, players, last, results.melds));
    });
  }
  const buttons = el("div", { className: "result-buttons" });
  if (matchEnd) {
    // a player's own game is readable once it is over: its replay, on the table (replay.html)
    if (ctx.replayHref && matchEnd.result) buttons.append(el("a", { className: "button-link", href: ctx.replayHref, "data-testid": "replay-this-game" }, "Replay this game"));
    buttons.append(el("button", { type: "button", className: "primary", "data-testid": "back-to-lobby", onclick: () => handlers.onLobby() }, "Back to the lobby"));
  }
  if (results && !matchEnd) {
    buttons.append(el("button", { type: "button", className: "primary", "data-testid": "result-ok", onclick: () => handlers.onCloseResult() }, "OK", el("kbd", {}, "Enter")));
  }
  parts.push(buttons);
  box.replaceChildren(el("div", { className: "result-card" }, parts), winCalloutEl(ctx, handlers));
}

/**
 * A short call-out over a new hand result: Tsumo or Ron, riichi, the hand's value (a yakuman gets
 * its own colours). Click it (or press a key) to skip it; it goes by itself after a moment. Without
 * motion (prefers-reduced-motion) it shows still, for the same moment.
 */
function winCalloutEl(ctx, handlers) {
  const shown = ctx.winCallout;
  const event = shown && ctx.results?.events.find((e) => e.type === "hand_won");
  if (!event) return "";
  const c = winCallout(event);
  const node = el(
    "button",
    {
      type: "button",
      className: `win-callout${c.yakuman ? " yakuman" : ""}`,
      "data-testid": "win-callout",
      title: "Skip",
      onclick: () => handlers.onSkipCallout(),
    },
    el("span", { className: "wc-who" }, playerName(ctx.players, event.seat)),
    el("span", { className: "wc-word" }, c.word),
    el("span", { className: "wc-value" }, c.riichi ? `Riichi · ${c.value}` : c.value),
  );
  return animateFrom(node, shown.age);
}
