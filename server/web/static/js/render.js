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
  yakuLabel,
} from "./actions.js";
import { TILE_KEYS } from "./actions.js";

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

function meldEl(meld, owner, testid = "meld") {
  const parts = [];
  const layout = meldLayout(meld, owner);
  for (let i = 0; i < layout.length; i++) {
    const item = layout[i];
    if (item.added) continue;
    const next = layout[i + 1];
    const tile = tileEl(item.tile, { sideways: item.sideways, back: item.back });
    if (next && next.added) {
      parts.push(el("span", { className: "stack" }, tileEl(next.tile, { sideways: true }), tile));
    } else {
      parts.push(tile);
    }
  }
  return el("span", { className: `meld meld-${meld.type}`, "data-testid": testid, "data-meld": meld.type }, parts);
}

export function playerName(players, seat) {
  return players?.[seat]?.name ?? `Seat ${seat + 1}`;
}

// ---- board ------------------------------------------------------------------------------------

function riverEl(river, seat, lastOffered) {
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
          return tileEl(t.tile, {
            sideways: t.sideways,
            className: classes.join(" "),
            props: { title: `${tileLabel(t.tile)}${t.tsumogiri ? " (tsumogiri)" : ""}${t.riichi ? " — riichi" : ""}${t.called ? " — called" : ""}` },
          });
        }),
      ),
    ),
  );
}

function centerEl(ctx) {
  const { view, viewer, players, prompt } = ctx;
  const round = view.round;
  const dealer = round ? round.dealer : 0;
  const sides = [0, 1, 2, 3].map((seat) => {
    const pos = relativePosition(seat, viewer);
    const wind = seatWind(seat, dealer);
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
    const pos = relativePosition(seat, viewer);
    const own = seat === ctx.ownSeat;
    const strip = el("div", { className: "strip" });
    if (!own) {
      const hidden = seatState.hand
        ? seatState.hand.map((t) => tileEl(t))
        : Array.from({ length: seatState.hand_size }, () => tileEl(null, { back: true }));
      strip.append(el("span", { className: "concealed", "data-testid": `concealed-${seat}` }, hidden));
      strip.append(el("span", { className: "melds" }, seatState.melds.map((m) => meldEl(m, seat))));
    }
    const classes = ["zone", `pos-${pos}`];
    if (view.turn === seat) classes.push("turn");
    board.append(el("div", { className: classes.join(" "), "data-seat": seat }, riverEl(seatState.river, seat, view.turn === seat && seatState.hand_size % 3 === 1), strip));
  }
  board.append(centerEl(ctx));
}

// ---- side panels ------------------------------------------------------------------------------

export function renderSideInfo(side, ctx) {
  const { view, players, matchId, spectating } = ctx;
  const round = view.round;
  const dealer = round ? round.dealer : 0;
  const rows = [0, 1, 2, 3].map((seat) => {
    const kind = players?.[seat]?.kind;
    const classes = ["player"];
    if (view.turn === seat) classes.push("turn");
    if (seat === ctx.ownSeat) classes.push("me");
    return el(
      "li",
      { className: classes.join(" "), "data-testid": `player-${seat}` },
      el("span", { className: "p-wind" }, round ? WINDS[seatWind(seat, dealer)] : "·"),
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

export function renderSideKeys(side) {
  if (side.childElementCount) return;
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
  slots.forEach((slot, index) => {
    const action = pending ? null : slotAction(slot, options, ui.mode);
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
      tileEl(slot.tile),
    );
    handBox.append(button);
  });
  meldBox.append(...seatState.melds.map((m) => meldEl(m, ownSeat, "my-meld")));
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

function deltasEl(deltas, scores, players) {
  return el(
    "table",
    { className: "deltas", "data-testid": "deltas" },
    deltas.map((d, seat) =>
      el(
        "tr",
        {},
        el("td", { className: "d-name" }, playerName(players, seat)),
        el("td", { className: `d-delta ${d > 0 ? "plus" : d < 0 ? "minus" : ""}`, "data-testid": `delta-${seat}` }, formatDelta(d)),
        el("td", { className: "d-score" }, formatPoints(scores[seat])),
      ),
    ),
  );
}

function winEl(event, players) {
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
      tilesEl(concealed, "tiles concealed"),
      el("span", { className: "win-tile", title: "winning tile" }, tileEl(event.win_tile)),
      el("span", { className: "melds" }, event.melds.map((m) => meldEl(m, event.seat))),
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
    deltasEl(event.deltas, event.scores, players),
  );
}

function drawEl(event, players) {
  const rows = event.tenpai.map((tenpai, seat) =>
    el(
      "tr",
      { "data-testid": `draw-seat-${seat}` },
      el("td", { className: "d-name" }, playerName(players, seat)),
      el("td", { className: tenpai ? "tenpai" : "noten" }, event.reason === "exhaustive" ? (tenpai ? "tenpai" : "noten") : ""),
      el("td", {}, event.hands[seat] ? tilesEl(event.hands[seat]) : ""),
    ),
  );
  return el(
    "section",
    { className: "draw", "data-testid": "draw" },
    el("h3", {}, DRAW_REASONS[event.reason] ?? event.reason),
    el("table", { className: "tenpai-table" }, rows),
    event.nagashi.length ? el("div", {}, `Nagashi mangan: ${event.nagashi.map((s) => playerName(players, s)).join(", ")}`) : null,
    deltasEl(event.deltas, event.scores, players),
  );
}

function matchEndEl(result, players, ownSeat) {
  const order = [0, 1, 2, 3].sort((a, b) => result.ranks[a] - result.ranks[b]);
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
  if (matchEnd) {
    // the final standings first: on a small screen the last hand's details are below them
    if (matchEnd.result) parts.push(matchEndEl(matchEnd.result, players, ownSeat));
    else parts.push(el("section", { className: "match-end", "data-testid": "match-end" }, el("h3", {}, "The match was stopped by the server.")));
  }
  if (results) {
    parts.push(el("div", { className: "result-round" }, results.round ? `${roundLabel(results.round)}, ${results.round.honba} honba` : ""));
    for (const event of results.events) {
      parts.push(event.type === "hand_won" ? winEl(event, players) : drawEl(event, players));
    }
  }
  const buttons = el("div", { className: "result-buttons" });
  if (matchEnd) {
    buttons.append(el("button", { type: "button", className: "primary", "data-testid": "back-to-lobby", onclick: () => handlers.onLobby() }, "Back to the lobby"));
  }
  if (results && !matchEnd) {
    buttons.append(el("button", { type: "button", className: "primary", "data-testid": "result-ok", onclick: () => handlers.onCloseResult() }, "OK", el("kbd", {}, "Enter")));
  }
  parts.push(buttons);
  box.replaceChildren(el("div", { className: "result-card" }, parts));
}
