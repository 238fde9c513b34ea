// The page's controller: it keeps the state (lobby, match, view, prompt, dialogs), answers the
// server's messages, turns clicks and keys into protocol requests and redraws the table.
//
// The connection is injected (js/protocol.js in the page, a scripted fake in the offline harness),
// so the same controller drives both.

import { httpBase } from "./protocol.js";
import { MatchTracker, TrackerError } from "./view.js";
import { buttonForKey, handSlots, promptOptions, slotAction, tileKeyIndex } from "./actions.js";
import {
  el,
  playerName,
  renderActions,
  renderBoard,
  renderChooser,
  renderHand,
  renderResult,
  renderSideInfo,
  renderSideKeys,
  renderTimer,
} from "./render.js";

const MATCH_KEY = "jantaku.match";
const LEFT_KEY = "jantaku.left_match";
const TOAST_MS = 6000;

function noStorage() {
  const data = new Map();
  return {
    getItem: (k) => (data.has(k) ? data.get(k) : null),
    setItem: (k, v) => data.set(k, String(v)),
    removeItem: (k) => data.delete(k),
  };
}

export class App {
  /**
   * doc: the document; connection: a js/protocol.js Connection (or a fake with the same methods);
   * storage: localStorage-like; now(): a millisecond clock; fetch: for /private/new.
   */
  constructor({ doc, connection, storage, now, fetch, animate = true }) {
    this.doc = doc;
    this.conn = connection;
    this.storage = storage ?? noStorage();
    this.now = now ?? (() => performance.now());
    this.fetch = fetch ?? ((...args) => globalThis.fetch(...args));
    this.animate = animate;
    this.status = "connecting";
    this.statusDetail = "";
    this.player = null;
    this.liveSeats = [];
    this.match = null; // {id, seat, players, tracker, spectating}
    this.prompt = null;
    this.promptAt = 0;
    this.pending = null; // {request_id, step, action}
    this.reconnected = false;
    this.resumeRequest = null;
    this.resyncPending = false;
    this.joinRequest = null;
    this.queued = null;
    this.invite = null;
    this.results = null; // {round, events}
    this.matchEnd = null; // match_end message or {result} from the match_ended event
    this.ui = { selected: null, mode: null, chooser: null, help: false };
    this.frame = null;
    this.timerHandle = null;
    this.$ = (id) => doc.getElementById(id);
    this._bind();
  }

  // ---- wiring ---------------------------------------------------------------------------------

  _bind() {
    const $ = this.$;
    $("btn-play-bots").addEventListener("click", () => this.playBots());
    $("btn-queue").addEventListener("click", () => this.quickMatch());
    $("btn-unqueue").addEventListener("click", () => this.leaveQueue());
    $("btn-create-private").addEventListener("click", () => this.createPrivate());
    $("form-join-private").addEventListener("submit", (e) => {
      e.preventDefault();
      this.joinPrivate($("private-code").value);
    });
    $("form-spectate").addEventListener("submit", (e) => {
      e.preventDefault();
      this.spectate($("spectate-id").value);
    });
    $("btn-leave").addEventListener("click", () => this.leaveTable());
    $("btn-help").addEventListener("click", () => this.toggleHelp());
    $("btn-help-close").addEventListener("click", () => this.toggleHelp(false));
    this.doc.addEventListener("keydown", (e) => this.onKey(e));
    for (const id of ["bots-preset", "bots-length", "queue-preset", "private-preset", "private-length", "private-bots"]) {
      const select = $(id);
      const saved = this.storage.getItem(`jantaku.ui.${id}`);
      if (saved && [...select.options].some((o) => o.value === saved)) select.value = saved;
      select.addEventListener("change", () => this.storage.setItem(`jantaku.ui.${id}`, select.value));
    }
  }

  onStatus(status, detail = "") {
    this.status = status;
    this.statusDetail = detail;
    if (status !== "open") this.resumeRequest = null;
    if (status === "reconnecting") this.reconnected = true;
    this.render();
  }

  // ---- server messages ------------------------------------------------------------------------

  onWelcome(welcome) {
    this.player = welcome.player;
    this.liveSeats = welcome.seats ?? [];
    this.resyncPending = false;
    if (this.match && !this.matchEnd) {
      this._resume(this.match.id, this.match.tracker.version);
    } else if (!this.match) {
      this._resumeSaved();
    }
    this.render();
  }

  _resumeSaved() {
    const saved = this._loadSaved();
    const left = this.storage.getItem(LEFT_KEY);
    const seats = this.liveSeats.filter((s) => s.match_id !== left);
    const live = saved ? seats.find((s) => s.match_id === saved.match_id) : null;
    if (saved && (live || saved.seat === null)) {
      let tracker;
      try {
        tracker = MatchTracker.fromSnapshot({ match_id: saved.match_id, version: saved.version, view: saved.view });
      } catch {
        tracker = new MatchTracker(saved.match_id, saved.seat);
      }
      this._enterMatch(saved.match_id, saved.seat, saved.players, tracker, saved.seat === null);
      this._resume(saved.match_id, tracker.version);
      return;
    }
    if (saved) this._clearSaved(); // that match is over (or was left on purpose)
    if (seats.length > 0) {
      const { match_id, seat } = seats[0];
      this._enterMatch(match_id, seat, null, new MatchTracker(match_id, seat), false);
      this._resume(match_id, 0);
    }
  }

  _resume(matchId, since) {
    this.resumeRequest = this.conn.resume(matchId, since);
  }

  /** One server message (everything but welcome, which comes through onWelcome). */
  handle(message) {
    switch (message.type) {
      case "welcome":
        this.onWelcome(message);
        return;
      case "error":
        this._onError(message);
        break;
      case "queued":
        this.queued = message;
        break;
      case "seated":
        this._onSeated(message);
        break;
      case "event":
        this._onEvent(message);
        break;
      case "snapshot":
        this._onSnapshot(message);
        break;
      case "prompt":
        this._onPrompt(message);
        break;
      case "ack":
        if (this.pending && message.request_id === this.pending.request_id) {
          if (this.prompt && this.prompt.step === message.step) this.prompt = null;
          this.pending = null;
        }
        break;
      case "match_end":
        this.liveSeats = this.liveSeats.filter((s) => s.match_id !== message.match_id);
        if (this.match && message.match_id === this.match.id) {
          this.matchEnd = message;
          this.prompt = null;
          this.pending = null;
          this._clearSaved();
        }
        break;
      case "left":
        if (message.match_id === null || message.match_id === undefined) this.queued = null;
        break;
      default:
        return; // pong and types this client does not know
    }
    this.render();
  }

  _onError(message) {
    const rid = message.request_id;
    if (this.pending && rid === this.pending.request_id) {
      const code = message.code;
      if (code === "stale_step" || code === "not_your_turn") this.prompt = null;
      this.pending = null;
      if (code !== "stale_step") this.toast(`${code}: ${message.message}`, "error");
      return;
    }
    if (rid !== null && rid !== undefined && rid === this.resumeRequest) {
      this.resumeRequest = null;
      this.toast(`Cannot rejoin the table: ${message.message}`, "error");
      if (message.code === "not_found" || message.code === "forbidden") {
        this._clearSaved();
        this._exitMatch();
      }
      return;
    }
    if (rid !== null && rid !== undefined && rid === this.joinRequest) {
      this.joinRequest = null;
      this.queued = null;
    }
    this.toast(message.message || message.code, "error");
  }

  _onSeated(message) {
    this.joinRequest = null;
    this.queued = null;
    this.storage.removeItem(LEFT_KEY);
    const spectating = message.seat === null;
    this._enterMatch(message.match_id, message.seat, message.players, new MatchTracker(message.match_id, message.seat), spectating);
    this._save();
  }

  _enterMatch(id, seat, players, tracker, spectating) {
    this.match = { id, seat, players: players ?? null, tracker, spectating };
    this.prompt = null;
    this.pending = null;
    this.results = null;
    this.matchEnd = null;
    this.ui = { selected: null, mode: null, chooser: null, help: this.ui.help };
  }

  _exitMatch() {
    this.match = null;
    this.prompt = null;
    this.pending = null;
    this.results = null;
    this.matchEnd = null;
    this.ui = { selected: null, mode: null, chooser: null, help: this.ui.help };
  }

  _onEvent(message) {
    const match = this.match;
    if (!match || message.match_id !== match.id) return;
    const tracker = match.tracker;
    if (message.version <= tracker.version) return;
    if (message.version !== tracker.version + 1) {
      this._resync();
      return;
    }
    try {
      tracker.apply(message);
    } catch (exc) {
      if (!(exc instanceof TrackerError)) throw exc;
      this.toast(`Out of step with the server (${exc.message}); catching up`, "error");
      this._resync();
      return;
    }
    this.resyncPending = false;
    const event = message.event;
    if (event.type === "hand_won" || event.type === "hand_drawn") {
      const round = tracker.view().round;
      if (!this.results || this.results.handIndex !== round?.hand_index) {
        this.results = { handIndex: round?.hand_index, round, events: [] };
      }
      this.results.events.push(event);
    } else if (event.type === "match_ended") {
      this.matchEnd = this.matchEnd ?? { match_id: match.id, reason: "completed", result: event };
    }
    if (this.prompt && tracker.version > this.prompt.version) this._dropPrompt();
  }

  _resync() {
    if (this.resyncPending || !this.match) return;
    this.resyncPending = true;
    this._resume(this.match.id, this.match.tracker.version);
  }

  _onSnapshot(message) {
    const match = this.match;
    if (!match || message.match_id !== match.id) return;
    match.tracker = MatchTracker.fromSnapshot(message);
    match.seat = message.view.seat;
    this.resyncPending = false;
    const view = message.view;
    if (view.results.length) this.results = { handIndex: view.round?.hand_index, round: view.round, events: [...view.results] };
    if (view.match_result) this.matchEnd = this.matchEnd ?? { match_id: match.id, reason: "completed", result: view.match_result };
    if (this.prompt && match.tracker.version > this.prompt.version) this._dropPrompt();
  }

  _onPrompt(message) {
    const match = this.match;
    if (!match || message.match_id !== match.id || message.seat !== match.seat) return;
    const again = this.pending && this.pending.step === message.step;
    this.prompt = message;
    this.promptAt = this.now();
    this.ui.mode = null;
    this.ui.chooser = null;
    this.ui.selected = null;
    if (again && this.reconnected) {
      // After a reconnection the decision is still open: send the same act again (same request
      // id, so the server applies it at most once).
      this.conn.resendAct(this.pending.request_id, this.pending.step, this.pending.action);
    } else {
      this.pending = null;
    }
    this.reconnected = false;
  }

  _dropPrompt() {
    this.prompt = null;
    this.pending = null;
    this.ui.mode = null;
    this.ui.chooser = null;
    this.ui.selected = null;
  }

  // ---- lobby requests -------------------------------------------------------------------------

  playBots() {
    const preset = this.$("bots-preset").value;
    const length = this.$("bots-length").value;
    if (length === "east_south") {
      this.joinRequest = this.conn.join({ type: "queue", preset: `${preset}+bots` });
      return;
    }
    // The quick-match queue has no game length: an east-only game is a private table with 3 bots.
    this.createPrivate({ preset, length, bots: 3 });
  }

  quickMatch() {
    const preset = this.$("queue-preset").value;
    this.joinRequest = this.conn.join({ type: "queue", preset });
    this.queued = { preset, players_waiting: 1 };
    this.render();
  }

  leaveQueue() {
    this.conn.leave();
    this.queued = null;
    this.render();
  }

  async createPrivate(options = null) {
    const preset = options?.preset ?? this.$("private-preset").value;
    const length = options?.length ?? this.$("private-length").value;
    const bots = options?.bots ?? Number(this.$("private-bots").value);
    const token = this.conn.sessionToken;
    if (!token || this.status !== "open") {
      this.toast("Not connected yet", "error");
      return;
    }
    const params = new URLSearchParams({ preset, bots: String(bots) });
    if (length === "east") params.set("rules", JSON.stringify({ game_length: "east" }));
    let body;
    try {
      const response = await this.fetch(`${httpBase(this.conn.url)}/private/new?${params}`, {
        headers: { Authorization: `Bearer ${token}` },
        cache: "no-store",
      });
      body = await response.json();
      if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
    } catch (exc) {
      this.toast(`Cannot open a table: ${exc.message ?? exc}`, "error");
      return;
    }
    if (bots < 3) this.invite = body;
    this.joinPrivate(body.code);
  }

  joinPrivate(code) {
    const text = String(code ?? "").trim();
    if (!text) return;
    this.joinRequest = this.conn.join({ type: "private", code: text });
    this.render();
  }

  spectate(matchId) {
    const text = String(matchId ?? "").trim();
    if (!text) return;
    this.joinRequest = this.conn.join({ type: "spectate", match_id: text });
  }

  resumeSeat(matchId, seat) {
    this.storage.removeItem(LEFT_KEY);
    this._enterMatch(matchId, seat, null, new MatchTracker(matchId, seat), false);
    this._resume(matchId, 0);
    this.render();
  }

  leaveTable() {
    const match = this.match;
    if (!match) return;
    if (!this.matchEnd) {
      const question = match.spectating
        ? "Stop watching this table?"
        : "Leave the table? Your seat will be played automatically until you come back.";
      if (typeof globalThis.confirm === "function" && !globalThis.confirm(question)) return;
      this.conn.leave(match.id);
      if (!match.spectating) {
        this.storage.setItem(LEFT_KEY, match.id);
        if (!this.liveSeats.some((s) => s.match_id === match.id)) {
          this.liveSeats = [...this.liveSeats, { match_id: match.id, seat: match.seat }];
        }
      }
    }
    this._clearSaved();
    this._exitMatch();
    this.render();
  }

  backToLobby() {
    this._clearSaved();
    this._exitMatch();
    this.render();
  }

  // ---- acting ---------------------------------------------------------------------------------

  options() {
    if (!this.prompt || !this.match || this.match.spectating) return null;
    return promptOptions(this.prompt.legal_actions);
  }

  slots() {
    const match = this.match;
    if (!match || match.seat === null) return [];
    const view = match.tracker.view();
    return handSlots(view.seats[match.seat]);
  }

  send(action) {
    if (!this.prompt || this.pending) return;
    const step = this.prompt.step;
    const request_id = this.conn.act(step, action);
    // Acting in a later hand means the previous hand's result has been seen.
    const round = this.match?.tracker.view().round;
    if (this.results && !this.matchEnd && round && this.results.handIndex !== round.hand_index) this.results = null;
    this.pending = { request_id, step, action };
    this.ui.mode = null;
    this.ui.chooser = null;
    this.ui.selected = null;
    this.render();
  }

  onSlot(index) {
    const options = this.options();
    const slot = this.slots()[index];
    const action = slotAction(slot, options, this.ui.mode);
    if (action) this.send(action);
  }

  onButton(id) {
    const options = this.options();
    if (!options) return;
    const button = options.buttons.find((b) => b.id === id);
    if (!button) return;
    if (id === "riichi") {
      this.ui.mode = "riichi";
      this.ui.chooser = null;
      const slots = this.slots();
      const first = slots.findLastIndex((s) => slotAction(s, options, "riichi"));
      this.ui.selected = first >= 0 ? first : null;
      this.render();
      return;
    }
    if (button.actions.length === 1) {
      this.send(button.actions[0]);
      return;
    }
    this.ui.chooser = { id, label: button.label, actions: button.actions };
    this.render();
  }

  onChoose(i) {
    const chooser = this.ui.chooser;
    if (!chooser || !chooser.actions[i]) return;
    this.send(chooser.actions[i]);
  }

  cancel() {
    if (this.ui.chooser) this.ui.chooser = null;
    else if (this.ui.mode) {
      this.ui.mode = null;
      this.ui.selected = null;
    }
    this.render();
  }

  closeResult() {
    if (this.matchEnd) return;
    this.results = null;
    this.render();
  }

  toggleHelp(force) {
    this.ui.help = force ?? !this.ui.help;
    this.render();
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    const tag = target && target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const key = e.key;
    const consume = () => {
      e.preventDefault();
      e.stopPropagation();
    };
    if (key === "?") {
      consume();
      this.toggleHelp();
      return;
    }
    if (this.ui.help) {
      if (key === "Escape" || key === "Enter") {
        consume();
        this.toggleHelp(false);
      }
      return;
    }
    if (!this.match) return;
    const options = this.options();
    if (this.ui.chooser) {
      const n = Number(key);
      if (Number.isInteger(n) && n >= 1 && n <= this.ui.chooser.actions.length) {
        consume();
        this.onChoose(n - 1);
      } else if (key === "Escape") {
        consume();
        this.cancel();
      }
      return;
    }
    if (key === "Escape" && this.ui.mode) {
      consume();
      this.cancel();
      return;
    }
    if ((key === "Escape" || key === "Enter") && this.results && !this.matchEnd && (key === "Escape" || this.ui.selected === null)) {
      consume();
      this.closeResult();
      return;
    }
    if (!options || this.pending) return;
    const slots = this.slots();
    const selectable = slots.map((s, i) => (slotAction(s, options, this.ui.mode) ? i : -1)).filter((i) => i >= 0);
    const index = tileKeyIndex(key);
    if (index !== null) {
      consume();
      if (index >= slots.length || !selectable.includes(index)) return;
      if (this.ui.selected === index) this.onSlot(index);
      else {
        this.ui.selected = index;
        this.render();
      }
      return;
    }
    if (key === "ArrowLeft" || key === "ArrowRight") {
      consume();
      if (!selectable.length) return;
      const at = selectable.indexOf(this.ui.selected);
      let next;
      if (at < 0) next = key === "ArrowLeft" ? selectable[selectable.length - 1] : selectable[0];
      else next = selectable[(at + (key === "ArrowLeft" ? -1 : 1) + selectable.length) % selectable.length];
      this.ui.selected = next;
      this.render();
      return;
    }
    if (key === "Enter") {
      if (this.ui.selected !== null && selectable.includes(this.ui.selected)) {
        consume();
        this.onSlot(this.ui.selected);
      }
      return;
    }
    if ((key === "x" || key === "X") && !this.ui.mode) {
      const drawn = slots.findIndex((s) => s.drawn);
      if (drawn >= 0 && selectable.includes(drawn)) {
        consume();
        this.onSlot(drawn);
      }
      return;
    }
    const button = buttonForKey(key, options.buttons);
    if (button) {
      consume();
      this.onButton(button.id);
    }
  }

  // ---- storage --------------------------------------------------------------------------------

  _save() {
    const match = this.match;
    if (!match || this.matchEnd) return;
    const data = {
      match_id: match.id,
      seat: match.seat,
      players: match.players,
      version: match.tracker.version,
      view: match.tracker.view(),
    };
    try {
      this.storage.setItem(MATCH_KEY, JSON.stringify(data));
    } catch {
      // storage full or disabled: reloading will resume from the start of the stream instead
    }
  }

  _loadSaved() {
    try {
      const data = JSON.parse(this.storage.getItem(MATCH_KEY) ?? "null");
      return data && typeof data.match_id === "string" ? data : null;
    } catch {
      return null;
    }
  }

  _clearSaved() {
    this.storage.removeItem(MATCH_KEY);
  }

  // ---- toasts ---------------------------------------------------------------------------------

  toast(text, kind = "info") {
    const box = this.$("toasts");
    const node = el("div", { className: `toast ${kind}`, "data-testid": "toast", role: kind === "error" ? "alert" : "status" }, text);
    box.append(node);
    while (box.childElementCount > 4) box.firstElementChild.remove();
    setTimeout(() => node.remove(), TOAST_MS);
  }

  // ---- drawing --------------------------------------------------------------------------------

  render() {
    if (!this.animate) {
      this._draw();
      return;
    }
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this._draw();
    });
  }

  _draw() {
    const $ = this.$;
    const status = $("status");
    const label = { connecting: "connecting…", open: "online", reconnecting: "reconnecting…", closed: "offline", failed: "cannot connect", idle: "" }[this.status] ?? this.status;
    status.textContent = label;
    status.dataset.status = this.status;
    status.title = this.statusDetail;
    $("me").textContent = this.player ? this.player.name : "";
    $("help").hidden = !this.ui.help;
    const match = this.match;
    $("lobby").hidden = Boolean(match);
    $("table").hidden = !match;
    $("btn-leave").hidden = !match;
    this.doc.body.dataset.screen = match ? "table" : "lobby";
    if (!match) {
      this._drawLobby();
      this._stopTimer();
      return;
    }
    if (!match.spectating) this._save();
    this._drawTable();
  }

  _drawLobby() {
    const $ = this.$;
    const queued = $("queued");
    queued.hidden = !this.queued;
    $("btn-unqueue").hidden = !this.queued;
    if (this.queued) queued.textContent = `Waiting for players (${this.queued.preset}): ${this.queued.players_waiting} at the table…`;
    const invite = $("invite");
    invite.hidden = !this.invite;
    if (this.invite) invite.replaceChildren("Invite code ", el("code", {}, this.invite.code), ` — waiting for ${this.invite.players_needed} player(s)`);
    const seats = this.liveSeats.filter((s) => s.match_id !== this.match?.id);
    const box = $("live-seats");
    box.hidden = seats.length === 0;
    box.replaceChildren(
      ...seats.map((s) =>
        el("button", { type: "button", "data-testid": "resume-seat", onclick: () => this.resumeSeat(s.match_id, s.seat) }, `Back to your seat in ${s.match_id}`),
      ),
    );
    const open = this.status === "open";
    for (const id of ["btn-play-bots", "btn-queue", "btn-create-private"]) $(id).disabled = !open || Boolean(this.queued);
  }

  _drawTable() {
    const $ = this.$;
    const match = this.match;
    const view = match.tracker.view();
    const options = this.options();
    const ctx = {
      view,
      viewer: match.seat ?? 0,
      ownSeat: match.seat,
      players: match.players,
      matchId: match.id,
      spectating: match.spectating,
      prompt: this.prompt,
      pending: this.pending,
      options,
      ui: this.ui,
      results: this.results,
      matchEnd: this.matchEnd,
      elapsed: this.prompt ? this.now() - this.promptAt : 0,
    };
    const handlers = {
      onSlot: (i) => this.onSlot(i),
      onButton: (id) => this.onButton(id),
      onChoose: (i) => this.onChoose(i),
      onCancel: () => this.cancel(),
      onCloseResult: () => this.closeResult(),
      onLobby: () => this.backToLobby(),
    };
    const table = $("table");
    table.classList.toggle("spectator", match.spectating);
    table.classList.toggle("match-over", Boolean(this.matchEnd));
    table.classList.toggle("my-turn", Boolean(options));
    table.dataset.riichiMode = this.ui.mode === "riichi" ? "true" : "false";
    renderBoard($("board"), ctx);
    renderSideInfo($("side-info"), ctx);
    renderSideKeys($("side-keys"));
    renderHand($("hand"), $("my-melds"), ctx, handlers);
    renderActions($("actions"), ctx, handlers);
    renderChooser($("chooser"), ctx, handlers);
    renderResult($("result"), ctx, handlers);
    renderTimer($("timer"), ctx);
    if (this.prompt) this._startTimer();
    else this._stopTimer();
    this.doc.title = this.prompt ? "● Your turn — Jantaku" : `Jantaku — ${playerName(match.players, match.seat ?? 0)}`;
  }

  _startTimer() {
    if (this.timerHandle !== null || !this.animate) return;
    this.timerHandle = setInterval(() => {
      if (!this.prompt || !this.match) {
        this._stopTimer();
        return;
      }
      renderTimer(this.$("timer"), { prompt: this.prompt, elapsed: this.now() - this.promptAt });
    }, 100);
  }

  _stopTimer() {
    if (this.timerHandle !== null) clearInterval(this.timerHandle);
    this.timerHandle = null;
  }
}
