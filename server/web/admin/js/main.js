// The admin pages: games list (filters, search), game detail, omniscient replay, wall verification,
// exports and the audit log. Hash routes (#/games, #/game/ID, #/game/ID/replay, #/game/ID/walls,
// #/audit, #/organizers: js/organizers.js); every page is built from the review API with the token from sessionStorage.
// Text from the server (player names, ...) only ever goes into the DOM as text, never as HTML.
//
// The same pages in the players' mode (games.html on the game port, /games/): a player's own finished
// games, their detail, replay, exports and tenhou.net/6 links; no walls, no audit, no admin filters.
// Tiles are drawn by the browser client's own SVG (client/tiles.js), yaku named in its words.

import { api, ApiError, download, getToken, PLAYER_MODE, setToken } from "./api.js";
import { h } from "./dom.js";
import { buildPositions, describeEvent, positionStarts } from "./replay.js";
import { reportsView, reportView } from "./reports.js";
import { sortTiles, tileElement } from "./tiles.js";
import { organizersView } from "./organizers.js";
import { tileSVG } from "../client/tiles.js";
import { yakuLabel } from "../client/actions.js";

const view = document.getElementById("view");
let renderId = 0;
let keyHandler = null;

// -- DOM helpers -------------------------------------------------------------------------------------

// One tile, drawn as a tile (the game page's SVG); its text stays in the title and data-tile.
function tileNode(name, extra = "") {
  const span = tileElement(document, name, extra);
  span.classList.add("drawn-tile");
  span.innerHTML = tileSVG(name, { sideways: extra.split(" ").includes("sideways") });
  return span;
}

function tiles(list, extra = () => "") {
  return h("span", { class: "tiles" }, list.map((t, i) => tileNode(t, extra(t, i))));
}

function signed(n) {
  if (n === null || n === undefined) return "";
  return h("span", { class: n > 0 ? "plus" : n < 0 ? "minus" : "" }, n > 0 ? `+${n}` : String(n));
}

function when(iso) {
  if (!iso) return "—";
  return iso.replace("T", " ").replace(/\.\d+/, "").replace("Z", " UTC");
}

function badge(text, kind) {
  return h("span", { class: `badge ${kind ?? text}` }, text);
}

function check(value, label) {
  if (value === null || value === undefined) return badge(`${label}: n/a`, "na");
  return badge(`${label}: ${value ? "ok" : "FAILED"}`, value ? "ok" : "bad");
}

function show(...nodes) {
  view.replaceChildren(...nodes.filter(Boolean));
}

function showError(err) {
  const message = err instanceof ApiError ? `${err.message} (${err.code})` : String(err?.message ?? err);
  const hint =
    err instanceof ApiError && err.status === 401
      ? PLAYER_MODE
        ? "No game of this browser's player is known: a guest is remembered once it sits at a table, so play a game first; or paste a player's or bot's token above."
        : "Paste an admin token above (jantaku admin create-admin NAME prints one)."
      : err instanceof ApiError && err.status === 403
        ? "This token is not an admin token."
        : "";
  show(h("p", { class: "error", testid: "error", role: "alert" }, message), hint ? h("p", { class: "muted" }, hint) : null);
}

function gameLink(id, suffix = "") {
  return `#/game/${encodeURIComponent(id)}${suffix}`;
}

function seatNames(game) {
  const names = ["", "", "", ""];
  for (const s of game.seats) names[s.seat] = s.name;
  return names;
}

// -- routing -----------------------------------------------------------------------------------------

function parseHash() {
  const raw = location.hash.replace(/^#/, "") || "/games";
  const [path, search = ""] = raw.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { parts, params: new URLSearchParams(search) };
}

async function route() {
  const id = ++renderId;
  refreshWhoami();
  if (keyHandler) {
    document.removeEventListener("keydown", keyHandler);
    keyHandler = null;
  }
  const { parts, params } = parseHash();
  const current = () => id === renderId;
  if (!getToken() && PLAYER_MODE) {
    show(
      h("h1", {}, "My games"),
      h("p", { class: "muted", testid: "need-token" }, "This browser has not played yet. ", h("a", { href: "/" }, "Play a game"), " first: your finished games are listed here. A registered player or a bot's owner may paste their token above."),
    );
    return;
  }
  if (!getToken()) {
    show(
      h("h1", {}, "Game review"),
      h("p", { class: "muted", testid: "need-token" }, "Paste an admin token in the box above to start. ", "An admin creates one with ", h("code", {}, "jantaku admin create-admin NAME"), "."),
    );
    return;
  }
  show(h("p", { class: "muted" }, "Loading…"));
  try {
    if (parts[0] === "game" && parts[1] && parts[2] === "replay") await replayView(parts[1], params, current);
    else if (parts[0] === "game" && parts[1] && parts[2] === "walls") await wallsView(parts[1], current);
    else if (parts[0] === "game" && parts[1]) await detailView(parts[1], current);
    else if (parts[0] === "audit") await auditView(params, current);
    else if (parts[0] === "organizers" && !PLAYER_MODE) await organizersView(show, current);
    else if (parts[0] === "reports") await reportsView(params, current, show);
    else if (parts[0] === "report" && parts[1]) await reportView(parts[1], current, show, showError);
    else await listView(params, current);
  } catch (err) {
    if (current()) showError(err);
  }
}

// -- games list ------------------------------------------------------------------------------------

const FILTERS = PLAYER_MODE ? ["q", "since", "until"] : ["q", "player", "status", "ruleset", "lineup", "since", "until"];

async function listView(params, current) {
  const limit = 50;
  const offset = Number(params.get("offset") ?? 0) || 0;
  const query = { limit, offset };
  for (const k of FILTERS) if (params.get(k)) query[k] = params.get(k);
  // The date inputs give a day; the API takes an RFC 3339 time: midnight UTC of that day.
  for (const k of ["since", "until"]) if (/^\d{4}-\d{2}-\d{2}$/.test(query[k] ?? "")) query[k] += "T00:00:00Z";
  const page = await api.games(query);
  if (!current()) return;

  const field = (name, label, input) => h("label", {}, label, input);
  const text = (name, placeholder) => h("input", { name, value: params.get(name) ?? "", placeholder, testid: `filter-${name}` });
  const select = (name, options) =>
    h("select", { name, testid: `filter-${name}` }, options.map(([v, l]) => h("option", { value: v, selected: (params.get(name) ?? "") === v }, l)));
  const form = h(
    "form",
    { class: "card filters", testid: "filters" },
    field("q", "Search player name", text("q", "part of a name")),
    PLAYER_MODE
      ? null
      : [
          field("player", "Player (exact name or id)", text("player", "alice / p-…")),
          field("status", "Status", select("status", [["", "any"], ["running", "running (live)"], ["completed", "completed"], ["aborted", "aborted"], ["finished", "finished"]])),
          field("ruleset", "Ruleset", text("ruleset", "tenhou, ema, …")),
          field("lineup", "Players", select("lineup", [["", "any"], ["humans", "humans only"], ["bots", "bots only"], ["mixed", "humans and bots"], ["with_bots", "with bots"], ["with_humans", "with humans"]])),
        ],
    field("since", "Created from", h("input", { name: "since", type: "date", value: (params.get("since") ?? "").slice(0, 10), testid: "filter-since" })),
    field("until", "Created before", h("input", { name: "until", type: "date", value: (params.get("until") ?? "").slice(0, 10), testid: "filter-until" })),
    h("button", { type: "submit", testid: "filter-apply" }, "Apply"),
    h("button", { type: "button", class: "ghost", onclick: () => (location.hash = "#/games") }, "Clear"),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (String(v).trim()) q.set(k, String(v).trim());
    location.hash = "#/games" + (q.toString() ? `?${q}` : "");
  });

  const rows = page.games.map((g) =>
    h(
      "tr",
      { testid: "game-row", "data-game": g.id },
      h("td", {}, h("a", { href: gameLink(g.id) }, g.id)),
      h("td", {}, badge(g.status)),
      h("td", {}, g.ruleset),
      h("td", {}, when(g.created_at)),
      h(
        "td",
        {},
        g.standings.length
          ? g.standings.map((s, i) => [i ? ", " : "", `${s.rank}. ${s.name} ${s.score}`])
          : g.seats.map((s, i) => [i ? ", " : "", s.name, s.is_bot ? " (bot)" : ""]),
      ),
      h(
        "td",
        {},
        h("a", { href: gameLink(g.id) }, "detail"),
        g.live ? null : [" · ", h("a", { href: gameLink(g.id, "/replay"), testid: "game-replay" }, "replay"), [" · ", h("a", { href: tableReplay(g.id), testid: "game-table-replay" }, "on the table")], PLAYER_MODE ? null : [" · ", h("a", { href: gameLink(g.id, "/walls") }, "walls")]],
      ),
    ),
  );
  const pageLink = (delta, label) => {
    const next = offset + delta;
    const q = new URLSearchParams(params);
    q.set("offset", String(next));
    const disabled = next < 0 || next >= page.total;
    return h("button", { type: "button", class: "ghost", disabled, onclick: () => (location.hash = `#/games?${q}`) }, label);
  };
  show(
    h("h1", {}, PLAYER_MODE ? "My games" : "Games"),
    form,
    h("p", { class: "muted", testid: "game-count" }, page.total ? `${offset + 1}–${offset + page.games.length} of ${page.total} games` : PLAYER_MODE ? "No finished game yet." : "No games match."),
    h(
      "table",
      { testid: "games" },
      h("thead", {}, h("tr", {}, ["Game", "Status", "Ruleset", "Created", "Players (final ranking)", ""].map((t) => h("th", {}, t)))),
      h("tbody", {}, rows),
    ),
    h("div", { class: "actions" }, pageLink(-limit, "← newer"), pageLink(limit, "older →")),
  );
}

// -- game detail -----------------------------------------------------------------------------------

function exportButtons(game) {
  const out = h("div", { class: "actions", testid: "exports" });
  const status = h("span", { class: "muted" });
  for (const [format, label, suffix] of [["tenhou6", "Download tenhou.net/6 JSON", ".json"], ["mjai", "Download mjai JSONL", ".jsonl"]]) {
    out.append(
      h("button", {
        type: "button",
        testid: `export-${format}`,
        onclick: async () => {
          status.textContent = "exporting…";
          try {
            await download(api.exportPath(game.id, format), `${game.id}${suffix}`);
            status.textContent = "";
          } catch (err) {
            status.textContent = `export failed: ${err.message}`;
          }
        },
      }, label),
    );
  }
  const links = h("div", { testid: "viewer-links" });
  out.append(
    h("button", {
      type: "button",
      class: "ghost",
      testid: "viewer-button",
      onclick: async () => {
        links.replaceChildren(h("span", { class: "muted" }, "loading…"));
        try {
          const result = await api.viewer(game.id);
          links.replaceChildren(
            h("p", { class: "muted" }, "Each link opens one hand in the tenhou.net/6 viewer (the game travels in the link's #fragment, which the browser does not send to any server):"),
            h("ul", {}, result.links.map((l) => h("li", {}, h("a", { href: l.url, target: "_blank", rel: "noopener noreferrer" }, `${l.label} in tenhou.net/6`)))),
          );
        } catch (err) {
          links.replaceChildren(h("span", { class: "error" }, err.message));
        }
      },
    }, "Open in the tenhou.net/6 viewer"),
    status,
  );
  return [out, links];
}

function handRow(hand, names, gameId) {
  const wins = hand.wins;
  let result;
  let yaku = "";
  let value = "";
  if (hand.outcome === "won") {
    result = wins.map((w, i) => [i ? h("br") : null, `${names[w.seat]} ${w.tsumo ? "tsumo" : `ron from ${names[w.from_seat]}`} on `, tileNode(w.win_tile ?? "?")]);
    yaku = wins.map((w, i) => [i ? h("br") : null, w.yaku.map((y) => `${yakuLabel(y.name)} ${y.han}`).join(", ")]);
    value = wins.map((w, i) => [i ? h("br") : null, `${w.han} han ${w.limit || `${w.fu} fu`} · ${w.points}`]);
  } else if (hand.outcome === "drawn") {
    result = `draw (${hand.draw_reason})`;
    if (hand.tenpai) yaku = "tenpai: " + (hand.tenpai.map((t, s) => (t ? names[s] : null)).filter(Boolean).join(", ") || "nobody");
  } else {
    result = h("span", { class: "muted" }, "not finished");
  }
  const deltas = [0, 1, 2, 3].map((s) => h("td", { class: "num" }, hand.deltas ? signed(hand.deltas[s]) : ""));
  return h(
    "tr",
    { testid: "hand-row" },
    h("td", {}, hand.label),
    h("td", {}, result),
    h("td", {}, yaku),
    h("td", {}, value),
    deltas,
    h("td", {}, h("a", { href: gameLink(gameId, `/replay?step=${hand.start_step}`) }, "replay")),
  );
}

async function detailView(id, current) {
  const game = await api.game(id);
  if (!current()) return;
  const names = seatNames(game);
  const facts = h(
    "dl",
    { class: "facts card", testid: "facts" },
    [
      ["Status", [badge(game.status), game.status_reason ? ` ${game.status_reason}` : ""]],
      ["Ruleset", `${game.ruleset} (${game.ruleset_hash})`],
      ["Source", game.source || "—"],
      ["Created", when(game.created_at)],
      ["Ended", when(game.ended_at)],
      ["Seats", game.seats.map((s, i) => [i ? ", " : "", `${s.seat}: ${s.name}`, s.is_bot ? ` (bot${s.bot ? " " + s.bot : ""})` : ""])],
      ["Engine / walls", `${game.engine_version} / ${game.wall_algorithm}`],
      ["Seed commitment", h("code", {}, game.seed_commitment)],
      ["Seed", game.seed ? h("code", {}, game.seed) : "not revealed"],
      ["Steps", String(game.steps)],
    ].map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
  );
  const parts = [h("h1", {}, `Game ${game.id}`), facts];
  if (game.live) {
    parts.push(h("p", { class: "card", testid: "live-note" }, "This game is being played. Its hands, steps and walls are sealed until it ends: only this public header is shown."));
    show(...parts);
    return;
  }
  parts.push(
    h(
      "div",
      { class: "actions" },
      h("a", { href: tableReplay(game.id), testid: "table-replay-link" }, "▶ Replay on the table"),
      h("a", { href: gameLink(game.id, "/replay"), testid: "replay-link" }, "▶ Replay every step"),
      PLAYER_MODE ? null : h("a", { href: gameLink(game.id, "/walls"), testid: "walls-link" }, "✔ Verify the walls"),
    ),
    ...exportButtons(game),
  );
  if (game.standings.length) {
    parts.push(
      h("h2", {}, "Final ranking"),
      h(
        "table",
        { testid: "standings" },
        h("thead", {}, h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Player"), h("th", { class: "num" }, "Score"), h("th", { class: "num" }, "Points"))),
        h("tbody", {}, game.standings.map((s) => h("tr", {}, h("td", {}, String(s.rank)), h("td", {}, s.name), h("td", { class: "num" }, String(s.score)), h("td", { class: "num" }, signed(s.final_points))))),
      ),
    );
  }
  parts.push(
    h("h2", {}, `Hands (${game.hands.length})`),
    h(
      "table",
      { testid: "hands" },
      h("thead", {}, h("tr", {}, h("th", {}, "Hand"), h("th", {}, "Result"), h("th", {}, "Yaku"), h("th", {}, "Value"), names.map((n) => h("th", { class: "num" }, n)), h("th", {}, ""))),
      h("tbody", {}, game.hands.map((hand) => handRow(hand, names, game.id))),
    ),
  );
  parts.push(h("h2", {}, `Timeouts and disconnects (${game.auto_played.length})`));
  if (game.auto_played.length) {
    const bySeat = (game.auto_by_seat || []).filter((c) => c.total);
    if (bySeat.length) {
      parts.push(
        h(
          "table",
          { testid: "auto-by-seat" },
          h("thead", {}, h("tr", {}, h("th", {}, "Seat"), h("th", { class: "num" }, "Timeouts"), h("th", { class: "num" }, "Disconnected"), h("th", { class: "num" }, "Total"))),
          h("tbody", {}, bySeat.map((c) => h("tr", {}, h("td", {}, `${c.seat}: ${c.name}`), h("td", { class: "num" }, String(c.timeouts)), h("td", { class: "num" }, String(c.disconnects)), h("td", { class: "num" }, String(c.total))))),
        ),
      );
    }
    parts.push(
      h(
        "table",
        { testid: "auto-played" },
        h("thead", {}, h("tr", {}, ["Step", "Seat", "Hand", "At", "Why", "Action the server played"].map((t) => h("th", {}, t)))),
        h("tbody", {}, game.auto_played.map((a) => h("tr", {}, h("td", {}, h("a", { href: gameLink(game.id, `/replay?step=${a.step}`) }, String(a.step))), h("td", {}, `${a.seat}: ${a.name}`), h("td", {}, a.hand_index ?? "—"), h("td", {}, when(a.applied_at)), h("td", {}, a.source || "—"), h("td", {}, h("code", {}, JSON.stringify(a.action)))))),
      ),
    );
  } else {
    parts.push(h("p", { class: "muted" }, "Every human decision was sent by its player."));
  }
  show(...parts);
}

// The visual replay on the table: the browser client's replay.html at /games/<id> (players' mode),
// admin/table.html with this tab's admin token (admin mode).
function tableReplay(id) {
  const game = encodeURIComponent(id);
  return PLAYER_MODE ? `/games/${game}#h1s0` : `/admin/table.html?game=${game}#h1s0`;
}

// -- replay ----------------------------------------------------------------------------------------

function seatPanel(table, seat, names, turn) {
  const s = table.seats[seat];
  const drawnIndex = s.drawn ? s.hand.lastIndexOf(s.drawn) : -1;
  const concealed = s.drawn && drawnIndex >= 0 ? [...s.hand.slice(0, drawnIndex), ...s.hand.slice(drawnIndex + 1)] : s.hand;
  const hand = tiles(sortTiles(concealed));
  if (s.drawn) hand.append(tileNode(s.drawn, "drawn"));
  const melds = s.melds.map((m) => h("span", { class: "meld", title: m.type }, m.tiles.map((t) => tileNode(t))));
  const river = tiles(
    s.river.map((r) => r.tile),
    (_, i) => [s.river[i].riichi ? "sideways" : "", s.river[i].called ? "called" : "", s.river[i].tsumogiri ? "tsumogiri" : ""].filter(Boolean).join(" "),
  );
  return h(
    "section",
    { class: "seat" + (turn === seat ? " turn" : ""), testid: `seat-${seat}` },
    h(
      "div",
      { class: "seat-head" },
      h("span", { class: "name" }, `${["East", "South", "West", "North"][(seat - table.dealer + 4) % 4]} · ${names[seat]}`),
      h("span", { class: "num" }, String(table.scores[seat])),
      s.riichi ? badge("riichi", "ok") : s.riichiDeclared ? badge("riichi declared", "running") : null,
    ),
    h("div", { testid: `hand-${seat}` }, hand, melds),
    h("div", { class: "river", testid: `river-${seat}` }, h("span", { class: "muted" }, "river "), river),
  );
}

function withoutOne(list, tile) {
  const i = list.lastIndexOf(tile);
  return i < 0 ? list : [...list.slice(0, i), ...list.slice(i + 1)];
}

// A hand's result as the table shows it: the winner, the winning hand (tiles), yaku in words, value.
function resultCard(table, names) {
  return h(
    "div",
    { class: "card", testid: "replay-result" },
    table.results.map((e) =>
      e.type === "hand_won"
        ? h(
            "div",
            { class: "win", testid: "replay-win" },
            h("div", {}, h("b", {}, `${names[e.seat]} wins by ${e.from_seat === e.seat ? "tsumo" : `ron from ${names[e.from_seat]}`}`), ` — ${e.han} han ${e.limit || `${e.fu} fu`}, ${e.points} points`),
            h("div", { testid: "replay-win-hand" }, tiles(withoutOne(e.hand, e.win_tile)), " ", tileNode(e.win_tile, "drawn"), e.melds.map((m) => h("span", { class: "meld" }, m.tiles.map((t) => tileNode(t))))),
            h("ul", { class: "yaku", testid: "replay-yaku" }, e.yaku.map((y) => h("li", {}, `${yakuLabel(y.name)} — ${y.han} han`))),
          )
        : h("div", { testid: "replay-draw" }, describeEvent(e, names)),
    ),
  );
}

async function replayView(id, params, current) {
  const replay = await api.replay(id);
  if (!current()) return;
  const steps = replay.steps;
  const positions = buildPositions(steps);
  const starts = positionStarts(positions);
  const names = seatNames(replay.game);
  const last = positions.length - 1;
  const wanted = Number(params.get("step") ?? 0) || 0;
  let index = Math.max(positions.findIndex((p) => steps[p.step].step >= wanted), 0);

  const slider = h("input", { type: "range", min: 0, max: last, value: index, testid: "replay-slider", "aria-label": "position" });
  const position = h("span", { class: "mono", testid: "replay-position" });
  const board = h("div", { testid: "replay-board" });
  const go = (i) => {
    index = Math.min(Math.max(i, 0), last);
    draw();
  };
  const handIndexOf = (i) => starts.filter((s) => s <= i).length - 1;
  const handEnd = (i) => {
    const next = starts[handIndexOf(i) + 1] ?? positions.length;
    return next - 1; // the hand's last position: its result
  };
  const buttons = [
    ["|◀", "first step (Home)", () => go(0), "replay-first"],
    ["◀◀ hand", "previous hand (PageUp)", () => go(starts[Math.max(handIndexOf(index) - (starts.includes(index) ? 1 : 0), 0)] ?? 0), "replay-prev-hand"],
    ["◀", "previous step (←)", () => go(index - 1), "replay-prev"],
    ["▶", "next step (→)", () => go(index + 1), "replay-next"],
    ["result", "this hand's end: the winning hand or the draw (R)", () => go(handEnd(index)), "replay-hand-end"],
    ["hand ▶▶", "next hand (PageDown)", () => go(starts[handIndexOf(index) + 1] ?? last), "replay-next-hand"],
    ["▶|", "last step (End)", () => go(last), "replay-last"],
  ].map(([label, title, fn, testid]) => h("button", { type: "button", title, onclick: fn, testid }, label));
  slider.addEventListener("input", () => go(Number(slider.value)));

  function draw() {
    const { table, step: k, events: shown, end } = positions[index];
    const step = steps[k];
    slider.value = String(index);
    position.textContent = `step ${step.step} / ${steps[steps.length - 1].step}${end ? " · hand over" : ""}`;
    history.replaceState(null, "", gameLink(id, `/replay?step=${step.step}`));
    const actor = step.seat === null ? "the deal" : `${names[step.seat]}${step.auto ? ` (played by the server: ${step.source || "timeout or disconnect"})` : ""}`;
    const info = h(
      "div",
      { class: "table-info card", testid: "table-info" },
      h("span", {}, h("b", {}, table.label || "—")),
      h("span", {}, `honba ${table.honba} · riichi sticks ${table.sticks}`),
      h("span", {}, "dora indicators ", tiles(table.dora)),
      h("span", { class: "muted" }, when(step.applied_at)),
    );
    const events = h(
      "div",
      { class: "card" },
      h("div", {}, h("b", {}, `Step ${step.step}: `), actor, step.action ? [" — ", h("code", {}, JSON.stringify(step.action))] : null),
      h("ol", { class: "events", testid: "replay-events" }, shown.map((e) => h("li", {}, describeEvent(e, names)))),
    );
    const seats = h("div", { class: "seats" }, [0, 1, 2, 3].map((s) => seatPanel(table, s, names, table.turn)));
    const result = table.results.length ? resultCard(table, names) : null;
    const final = table.final ? h("div", { class: "card", testid: "replay-final" }, h("b", {}, "Final: "), table.final.ranks.map((r, s) => `${names[s]} #${r} (${table.final.scores[s]})`).join(", ")) : null;
    board.replaceChildren(...[info, result, events, seats, final].filter(Boolean));
  }

  keyHandler = (ev) => {
    if (ev.target instanceof HTMLInputElement && ev.target.type !== "range") return;
    const keys = { ArrowRight: () => go(index + 1), ArrowLeft: () => go(index - 1), Home: () => go(0), End: () => go(last), PageDown: () => buttons[5].click(), PageUp: () => buttons[1].click(), r: () => buttons[4].click() };
    if (keys[ev.key]) {
      ev.preventDefault();
      keys[ev.key]();
    }
  };
  document.addEventListener("keydown", keyHandler);

  show(
    h("h1", {}, "Replay of ", h("a", { href: gameLink(id) }, id), h("span", { class: "muted" }, " — every hand open")),
    h("div", { class: "replay-controls card" }, buttons, slider, position),
    ...exportButtons(replay.game),
    board,
  );
  draw();
}

// -- walls -----------------------------------------------------------------------------------------

async function wallsView(id, current) {
  const report = await api.walls(id);
  if (!current()) return;
  const hands = report.hands.map((hand) =>
    h(
      "section",
      { class: "card", testid: "wall-hand" },
      h(
        "div",
        { class: "actions" },
        h("b", {}, hand.label),
        hand.revealed ? badge(hand.ok ? "verified" : "FAILED", hand.ok ? "ok" : "bad") : badge("not revealed", "na"),
        hand.revealed ? [check(hand.commitment_ok, "commitment"), check(hand.from_seed, "from seed"), check(hand.deal_ok, "deal")] : null,
      ),
      h("dl", { class: "facts" }, h("dt", {}, "commitment"), h("dd", {}, h("code", {}, hand.commitment)), h("dt", {}, "salt"), h("dd", {}, hand.salt ? h("code", {}, hand.salt) : "—")),
      hand.wall ? h("div", { class: "wall-row", testid: "wall-tiles" }, hand.wall.map((t) => tileNode(t))) : h("p", { class: "muted" }, "The game ended during this hand: its wall was never revealed."),
    ),
  );
  show(
    h("h1", {}, "Walls of ", h("a", { href: gameLink(id) }, id)),
    h(
      "div",
      { class: "card", testid: "walls-summary" },
      h("p", {}, report.all_ok ? badge("every revealed wall verified", "ok") : badge("verification FAILED or nothing revealed", "bad"), " ", check(report.seed_ok, "seed vs commitment")),
      h("p", { class: "muted" }, "Each hand published sha256(salt ‖ wall) before any tile was seen and revealed the salt and wall at its end. ", "“from seed” re-derives the wall and salt from the match seed revealed at the end; “deal” checks that the dealt hands and first dora indicator are the wall's."),
    ),
    ...hands,
  );
}

// -- audit log -------------------------------------------------------------------------------------

async function auditView(params, current) {
  const gameId = params.get("game_id") ?? "";
  const log = await api.audit({ game_id: gameId, limit: 200 });
  if (!current()) return;
  const form = h("form", { class: "card filters" }, h("label", {}, "Game id", h("input", { name: "game_id", value: gameId })), h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = String(new FormData(form).get("game_id") ?? "").trim();
    location.hash = "#/audit" + (value ? `?game_id=${encodeURIComponent(value)}` : "");
  });
  show(
    h("h1", {}, "Audit log"),
    form,
    h(
      "table",
      { testid: "audit" },
      h("thead", {}, h("tr", {}, ["When", "Who", "Action", "Game", "Detail"].map((t) => h("th", {}, t)))),
      h("tbody", {}, log.entries.map((e) => h("tr", {}, h("td", {}, when(e.at)), h("td", {}, e.actor), h("td", {}, e.action), h("td", {}, e.match_id ? h("a", { href: gameLink(e.match_id) }, e.match_id) : "—"), h("td", {}, h("code", {}, JSON.stringify(e.detail)))))),
    ),
  );
}

// -- token -----------------------------------------------------------------------------------------

async function refreshWhoami() {
  const out = document.getElementById("whoami");
  if (!getToken()) {
    out.textContent = PLAYER_MODE ? "" : "no token";
    return;
  }
  try {
    const me = await api.me();
    out.textContent = PLAYER_MODE ? `playing as ${me.name}` : `${me.name}${me.admin ? " (admin)" : " (not an admin)"}`;
  } catch (err) {
    out.textContent = err instanceof ApiError && err.status === 401 ? "token refused" : "?";
  }
}

function setupToken() {
  const form = document.getElementById("token-form");
  const input = document.getElementById("token-input");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setToken(input.value);
    input.value = "";
    refreshWhoami();
    route();
  });
  document.getElementById("token-forget").addEventListener("click", () => {
    setToken("");
    refreshWhoami();
    route();
  });
}

setupToken();
refreshWhoami();
window.addEventListener("hashchange", route);
route();
