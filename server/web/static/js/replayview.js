// The replay viewer's page (replay.html, also served at /games/<match id>): a finished game drawn
// by the table's own renderer (js/render.js), position by position (js/replay.js), with the hand
// results as in play, one seat's view or every hand open, keys, and a link to each position
// (`/games/<id>#h3s42`). The data is GET /api/games/{id}/replay, with this browser's session when it
// has one: anyone may open a finished game whose table allowed spectators, its players any of theirs
// (docs/browser.md, "The replay viewer").

import { el, renderBoard, renderHand, renderResult, renderSideInfo } from "./render.js";
import { roundLabel } from "./actions.js";
import { caption, handStarts, move, positionFromHash, positionHash, replayPositions, seatView } from "./replay.js";
import { DEFAULT_SEATS } from "./view.js";

const TOKEN_KEY = "jantaku.session_token"; // js/protocol.js
const ADMIN_TOKEN_KEY = "jantaku.admin.token"; // admin/js/api.js (sessionStorage: this tab only)

/**
 * Where the replay comes from: a shared link's game, with this browser's session if any (the game
 * port's /games/<id>: public games for anyone, private ones for their players), or, on the admin pages (admin/table.html, `<body data-mode="admin">`), any game with
 * the admin token of this tab.
 */
export function replaySource(mode, id, { storage, session }) {
  const game = encodeURIComponent(id);
  if (mode === "admin") return { path: `/api/admin/games/${game}/replay`, token: session?.getItem(ADMIN_TOKEN_KEY) ?? null, back: `/admin/#/game/${game}` };
  return { path: `/api/games/${game}/replay`, token: storage?.getItem(TOKEN_KEY) ?? null, back: "/games/" };
}

/** The game a page's address names: /games/<id>, or ?game=<id>. */
export function gameIdOf(location) {
  const query = new URLSearchParams(location.search).get("game");
  if (query) return query;
  const m = /^\/games\/([^/]+)$/.exec(location.pathname);
  return m ? decodeURIComponent(m[1]) : null;
}

export class ReplayViewer {
  constructor({ doc, location, history, storage, session, fetch, mode = "player", animate = true }) {
    this.doc = doc;
    this.location = location;
    this.history = history;
    this.storage = storage;
    this.session = session;
    this.mode = mode;
    this.fetch = fetch;
    this.animate = animate;
    this.$ = (id) => doc.getElementById(id);
    this.gameId = gameIdOf(location);
    this.steps = [];
    this.positions = [];
    this.players = null;
    this.at = 0;
    this.bottom = 0; // the seat drawn at the bottom
    this.open = true; // every hand open, or the bottom seat's view only
    this.closed = new Set(); // positions whose result the viewer closed
    this.error = null;
  }

  async load() {
    if (!this.gameId) {
      this.fail("No game named: open a replay from My games.");
      return;
    }
    const { path, token } = replaySource(this.mode, this.gameId, this);
    let response;
    try {
      response = await this.fetch(path, {
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        cache: "no-store",
      });
    } catch (exc) {
      this.fail(`Cannot reach the server: ${exc.message ?? exc}`);
      return;
    }
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const why = body?.error?.message ?? `HTTP ${response.status}`;
      this.fail(
        this.mode === "player" && (response.status === 404 || response.status === 401 || response.status === 403)
          ? `This game cannot be replayed here: it is still being played, or its table was private (only its players can replay it) (${why}).`
          : `Cannot load the replay: ${why}`,
      );
      return;
    }
    this.steps = body.steps;
    this.players = [...body.game.seats].sort((a, b) => a.seat - b.seat).map((s) => ({ name: s.name, kind: s.kind }));
    this.positions = replayPositions(this.gameId, this.steps);
    const mine = body.game.seats.find((s) => s.name === this.storage?.getItem("jantaku.name")); // js/protocol.js NAME_KEY
    if (mine) this.bottom = mine.seat;
    this.at = positionFromHash(this.positions, this.location.hash);
    this.$("replay-title").textContent = `${this.gameId} · ${body.game.ruleset}`;
    this.draw();
  }

  fail(text) {
    this.error = text;
    this.$("board").replaceChildren(el("div", { className: "board-empty", "data-testid": "replay-error" }, text));
  }

  go(index) {
    if (!this.positions.length) return;
    this.at = Math.max(0, Math.min(this.positions.length - 1, index));
    this.draw();
  }

  step(by, dir) {
    this.go(move(this.positions, this.at, by, dir));
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || !this.positions.length) return;
    const tag = e.target?.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const keys = {
      ArrowRight: () => this.step("action", 1),
      ArrowLeft: () => this.step("action", -1),
      ArrowDown: () => this.step("turn", 1),
      ArrowUp: () => this.step("turn", -1),
      PageDown: () => this.step("hand", 1),
      PageUp: () => this.step("hand", -1),
      "]": () => this.step("hand", 1),
      "[": () => this.step("hand", -1),
      Home: () => this.go(0),
      End: () => this.go(this.positions.length - 1),
      o: () => this.setOpen(!this.open),
      Enter: () => this.closeResult(),
      Escape: () => this.closeResult(),
    };
    const seat = Number(e.key);
    const action = keys[e.key] ?? (seat >= 1 && seat <= this.seatCount() ? () => this.setBottom(seat - 1) : null);
    if (!action) return;
    e.preventDefault();
    action();
  }

  setOpen(open) {
    this.open = open;
    this.draw();
  }

  /** The game's seat count (three or four): the position's deal, else the seated players. */
  seatCount(p = this.positions?.[this.at]) {
    return p?.view?.seats?.length || this.players?.length || DEFAULT_SEATS;
  }

  setBottom(seat) {
    this.bottom = seat;
    this.draw();
  }

  closeResult() {
    const p = this.positions[this.at];
    if (!p || !p.view.results.length || this.closed.has(this.at)) return;
    this.closed.add(this.at);
    this.draw();
  }

  draw() {
    const p = this.positions[this.at];
    if (!p) return;
    const $ = this.$;
    this.history?.replaceState?.(null, "", `#${positionHash(p)}`);
    const view = this.open ? p.view : seatView(p.view, this.bottom);
    const results = p.view.results.length && !this.closed.has(this.at) ? { handIndex: p.view.round?.hand_index, round: p.view.round, events: p.view.results, melds: p.view.seats.map((s) => s.melds) } : null;
    const matchEnd = results && p.view.match_result ? { result: p.view.match_result } : null;
    const ctx = {
      view,
      viewer: this.bottom,
      ownSeat: this.bottom,
      players: this.players,
      matchId: this.gameId,
      spectating: false,
      prompt: null,
      pending: null,
      options: null,
      ui: { selected: null, mode: null, chooser: null },
      results,
      matchEnd,
      prefs: {},
      fresh: this.animate ? freshOf(p) : null,
      callout: null,
      winCallout: null,
    };
    const handlers = {
      onSlot: () => {},
      onCloseResult: () => this.closeResult(),
      onLobby: () => this.location.assign?.(replaySource(this.mode, this.gameId, this).back),
      onSkipCallout: () => {},
    };
    renderBoard($("board"), ctx);
    renderSideInfo($("side-info"), ctx);
    renderHand($("hand"), $("my-melds"), ctx, handlers);
    renderResult($("result"), ctx, handlers);
    const back = $("result").querySelector("[data-testid=back-to-lobby]");
    if (back) back.textContent = "My games";
    this._drawPanel(p);
  }

  _drawPanel(p) {
    const starts = handStarts(this.positions);
    const button = (label, testid, title, onclick) => el("button", { type: "button", className: "ghost", "data-testid": testid, title, onclick }, label);
    const hands = el(
      "select",
      { "data-testid": "replay-hand", "aria-label": "Hand", onchange: (e) => this.go(starts[Number(e.target.value)]) },
      starts.map((s, i) => el("option", { value: i, selected: this.positions[s].hand === p.hand }, `${i + 1}. ${roundLabel(this.positions[s].view.round)}${this.positions[s].view.round.honba ? `, ${this.positions[s].view.round.honba} honba` : ""}`)),
    );
    const seats = el(
      "select",
      { "data-testid": "replay-seat", "aria-label": "Seat at the bottom", onchange: (e) => this.setBottom(Number(e.target.value)) },
      Array.from({ length: this.seatCount(p) }, (_, s) => s).map((s) => el("option", { value: s, selected: s === this.bottom }, `${s + 1}. ${this.players?.[s]?.name ?? `Seat ${s + 1}`}`)),
    );
    const step = this.steps[p.step];
    const raw = el(
      "details",
      { className: "replay-raw", "data-testid": "replay-raw" },
      el("summary", {}, "Raw step (JSON)"),
      el("pre", {}, JSON.stringify({ step: step.step, seat: step.seat, action: step.action, source: step.source, events: p.events }, null, 1)),
    );
    const here = this.mode === "admin" ? `/admin/table.html?game=${encodeURIComponent(this.gameId)}` : `/games/${encodeURIComponent(this.gameId)}`;
    const link = `${this.location.origin ?? ""}${here}#${positionHash(p)}`;
    this.$("replay-panel").replaceChildren(
      el("h3", {}, "Replay"),
      el("p", { className: "replay-where", "data-testid": "replay-position" }, `Hand ${p.hand} · step ${p.index} · ${this.at + 1} / ${this.positions.length}`),
      el("p", { className: "replay-caption", "data-testid": "replay-caption" }, caption(p, this.players?.map((x) => x.name)) || " "),
      el(
        "div",
        { className: "replay-nav" },
        button("|◀", "replay-prev-hand", "previous hand (PageUp or [)", () => this.step("hand", -1)),
        button("◀◀", "replay-prev-turn", "previous turn (↑)", () => this.step("turn", -1)),
        button("◀", "replay-prev", "previous action (←)", () => this.step("action", -1)),
        button("▶", "replay-next", "next action (→)", () => this.step("action", 1)),
        button("▶▶", "replay-next-turn", "next turn (↓)", () => this.step("turn", 1)),
        button("▶|", "replay-next-hand", "next hand (PageDown or ])", () => this.step("hand", 1)),
      ),
      el("label", { className: "replay-field" }, "Hand ", hands),
      el("label", { className: "replay-field" }, "At the bottom ", seats),
      el(
        "label",
        { className: "replay-field" },
        el("input", { type: "checkbox", "data-testid": "replay-open", checked: this.open, onchange: (e) => this.setOpen(e.target.checked) }),
        " every hand open (O)",
      ),
      el("p", { className: "hint" }, "Link to this moment: ", el("a", { href: link, "data-testid": "replay-link" }, `#${positionHash(p)}`)),
      el("p", { className: "hint" }, `← → action · ↑ ↓ turn · PgUp PgDn hand · 1–${this.seatCount(p)} seat · O open hands`),
      raw,
    );
  }
}

/** The newest discard or call of a position, to animate as in play. */
function freshOf(p) {
  const last = [...p.events].reverse().find((e) => e.type === "tile_discarded" || e.type === "meld_called");
  if (!last) return null;
  const seat = p.view.seats[last.seat];
  if (last.type === "tile_discarded") return { kind: "discard", seat: last.seat, index: seat.river.length - 1, age: 0 };
  return { kind: "meld", seat: last.seat, index: seat.melds.length - 1, age: 0 };
}

if (globalThis.document?.body?.dataset.screen === "replay") {
  const storageOf = (name) => {
    try {
      return globalThis[name];
    } catch {
      return undefined;
    }
  };
  const viewer = new ReplayViewer({
    doc: document,
    location: globalThis.location,
    history: globalThis.history,
    storage: storageOf("localStorage"),
    session: storageOf("sessionStorage"),
    mode: document.body.dataset.mode === "admin" ? "admin" : "player",
    fetch: (...a) => globalThis.fetch(...a),
  });
  globalThis.jantakuReplay = viewer;
  document.addEventListener("keydown", (e) => viewer.onKey(e));
  globalThis.addEventListener("hashchange", () => {
    const at = positionFromHash(viewer.positions, globalThis.location.hash);
    if (viewer.positions.length && at !== viewer.at && `#${positionHash(viewer.positions[viewer.at])}` !== globalThis.location.hash) viewer.go(at);
  });
  viewer.load();
}
