// The page's controller: it keeps the state (lobby, match, view, prompt, dialogs), answers the
// server's messages, turns clicks and keys into protocol requests and redraws the table.
//
// The connection is injected (js/protocol.js in the page, a scripted fake in the offline harness),
// so the same controller drives both.

import { httpBase } from "./protocol.js";
import { MatchTracker, TrackerError } from "./view.js";
import { handSlots, playedForText, promptOptions, slotAction } from "./actions.js";
import { onKey } from "./keys.js";
import { ChatPanel } from "./chat.js";
import { autoAction, loadPrefs, readHints, savePref, shownWaits } from "./comforts.js";
import { Sounds, loudest, soundOf } from "./sound.js";
import { inviteLink, inviteFromLocation, renderLiveTables, renderPrivate, renderQueue } from "./lobby.js";
import { deepLinkFromLocation, forgetDeepLink, isPauseNotice } from "./deeplink.js";
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
  renderToggles,
  renderWaits,
} from "./render.js";

const MATCH_KEY = "jantaku.match";
const LEFT_KEY = "jantaku.left_match";
const TOAST_MS = 6000;
const NOTICE_MS = 20000; // an organizer's notice stays longer: it may say when the next round starts
const LIVE_TABLES_PATH = "/tables/live";
const LIVE_TABLES_EVERY_MS = 15000;
const FRESH_MS = 1400; // how long a discard, a call or a callout counts as new (its animation)
const BURST = 4; // more events than this between two frames is a catch-up: no sound

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
  constructor({ doc, connection, storage, now, fetch, animate = true, sounds, location, clipboard }) {
    this.doc = doc;
    this.conn = connection;
    this.storage = storage ?? noStorage();
    this.now = now ?? (() => performance.now());
    this.fetch = fetch ?? ((...args) => globalThis.fetch(...args));
    this.animate = animate;
    this.location = location ?? globalThis.location;
    this.clipboard = clipboard ?? globalThis.navigator?.clipboard;
    this.prefs = loadPrefs(this.storage);
    this.sounds = sounds ?? new Sounds({ enabled: this.prefs.sound });
    this.soundsDue = [];
    this.eventsThisFrame = 0;
    this.fresh = null; // {kind: "discard"|"meld", seat, index, at}: the newest discard or call
    this.callout = null; // {seat, text, at}: "Pon", "Riichi", "Ron", ... over a seat
    this.winShown = null; // {handIndex, at}: the win call-out over a new hand result (until skipped)
    this.hints = null; // the current prompt's hints (comforts.js readHints)
    this.lastWaits = null; // the waits after the player's own last discard, from the hints
    this.lastJoin = null; // {kind: "queue"|"private"|"spectate", code?}
    this.privateWaiting = null; // the `queued` message of a private table being filled
    this.inviteCode = inviteFromLocation(this.location); // ?invite=CODE: join that table once connected
    this.deepLink = deepLinkFromLocation(this.location); // ?play=MATCH / ?watch=MATCH (deeplink.js)
    this.paused = null; // {text, elapsed}: the table is paused (its clocks stopped) until it moves again
    this.live = { state: "unknown", tables: [] }; // the lobby's live tables (unknown | absent | shown)
    this.liveTimer = null;
    this.liveAsked = false; // the first look at the live tables happens at once, the next ones every 15 s
    this.freshTimer = null;
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
    this.chat = new ChatPanel({ doc, conn: connection, toast: (text) => this.toast(text) }); // chat.js
  }

  // ---- wiring ---------------------------------------------------------------------------------

  _bind() {
    const $ = this.$;
    $("btn-play-bots").addEventListener("click", () => this.playBots());
    $("btn-queue").addEventListener("click", () => this.quickMatch());
    $("btn-create-private").addEventListener("click", () => this.createPrivate());
    $("form-join-private").addEventListener("submit", (e) => {
      e.preventDefault();
      this.joinPrivate($("private-code").value);
    });
    $("form-spectate").addEventListener("submit", (e) => {
      e.preventDefault();
      this.spectate($("spectate-id").value, $("spectate-caster").checked ? "caster" : "public");
    });
    $("btn-leave").addEventListener("click", () => this.leaveTable());
    $("btn-stop-watching").addEventListener("click", () => this.leaveTable());
    $("btn-play-here").addEventListener("click", () => this.conn.takeOver());
    // The browser lets a page start audio only from a click or a key press.
    for (const type of ["pointerdown", "keydown"]) this.doc.addEventListener(type, () => this.sounds.unlock(), { capture: true });
    $("btn-help").addEventListener("click", () => this.toggleHelp());
    $("btn-help-close").addEventListener("click", () => this.toggleHelp(false));
    this.doc.addEventListener("keydown", (e) => this.onKey(e));
    for (const id of ["bots-preset", "bots-length", "queue-preset", "private-preset", "private-length", "private-bots", "private-chat"]) {
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
    if (status === "replaced") {
      // Another tab plays now: this one shows the table as it was, offers nothing, sends nothing.
      this.prompt = null;
      this.pending = null;
      this.queued = null;
      this.privateWaiting = null;
      this.reconnected = true;
    }
    this.render();
  }

  // ---- server messages ------------------------------------------------------------------------

  onWelcome(welcome) {
    this.player = welcome.player;
    this.liveSeats = welcome.seats ?? [];
    this.resyncPending = false;
    // A page that came back without the players' names (no saved state) takes them from the seat.
    if (this.match && !this.match.players) this.match.players = this._seatPlayers(this.match.id);
    if (this.match && !this.matchEnd) {
      this._resume(this.match.id, this.match.tracker.version);
    } else if (!this.match && !this._followDeepLink()) {
      this._resumeSaved();
    }
    if (this.inviteCode && !this.match) {
      // Opened from an invite link: join that private table (once; a reload does not join again).
      const code = this.inviteCode;
      this.inviteCode = null;
      this._forgetInviteInURL();
      this.$("private-code").value = code;
      this.joinPrivate(code);
    }
    this.afterWelcome?.(welcome); // ranked.js: a guest's card, or the player's standing
    this.render();
  }

  /** Opened with ?play=MATCH (one's seat there) or ?watch=MATCH: go there, once. */
  _followDeepLink() {
    const { play, watch } = this.deepLink;
    this.deepLink = { play: null, watch: null };
    if (!play && !watch) return false;
    forgetDeepLink(this.location);
    const seat = play ? this.liveSeats.find((s) => s.match_id === play) : null;
    if (seat) {
      this.resumeSeat(seat.match_id, seat.seat);
      return true;
    }
    if (play) {
      this.toast(`You have no seat at ${play} (or its game is over): watching it instead`, "error");
    }
    this.spectate(play ?? watch);
    return true;
  }

  _forgetInviteInURL() {
    try {
      const url = new URL(this.location.href);
      url.searchParams.delete("invite");
      globalThis.history?.replaceState(null, "", url.toString());
    } catch {
      // not a browser page (tests): nothing to rewrite
    }
  }

  _resumeSaved() {
    const saved = this._loadSaved();
    const left = this.storage.getItem(LEFT_KEY);
    const seats = this.liveSeats.filter((s) => s.match_id !== left);
    const live = saved ? seats.find((s) => s.match_id === saved.match_id) : null;
    if (saved && (live || saved.seat === null)) {
      const players = saved.players ?? live?.players ?? null;
      let tracker;
      try {
        tracker = MatchTracker.fromSnapshot({ match_id: saved.match_id, version: saved.version, view: saved.view });
      } catch {
        tracker = new MatchTracker(saved.match_id, saved.seat);
      }
      this._enterMatch(saved.match_id, saved.seat, players, tracker, saved.seat === null);
      this._resume(saved.match_id, tracker.version);
      return;
    }
    if (saved) this._clearSaved(); // that match is over (or was left on purpose)
    if (seats.length > 0) {
      const { match_id, seat, players } = seats[0];
      this._enterMatch(match_id, seat, players ?? null, new MatchTracker(match_id, seat), false);
      this._resume(match_id, 0);
    }
  }

  /** Who sits at `matchId`, from the welcome's seats (the server names them), or null. */
  _seatPlayers(matchId) {
    return this.liveSeats.find((s) => s.match_id === matchId)?.players ?? null;
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
        // The same message answers a quick-match join and a private table still filling up.
        if (this.lastJoin?.kind === "private") this.privateWaiting = message;
        else this.queued = message;
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
          this.afterMatchEnd?.(this.match, gameLength(this.match.tracker.view())); // ranked.js: the standing, the climb
        }
        break;
      case "chat":
        this.chat.add(message, this.match?.players, this.player?.name); // beside the table: nothing to redraw
        return;
      case "presence":
      case "invited":
      case "invite_sent":
      case "friends_changed":
        this.afterSocial?.(message); // friends.js: the Friends card
        return;
      case "event_notice": // an organizer's notice to the entrants of an event this player entered
        this.toast(`${message.name}: ${message.text}`, "notice", NOTICE_MS);
        return;
      case "played_for":
        if (this.match && message.match_id === this.match.id) this.toast(playedForText(message.moves));
        break;
      case "left":
        if (message.match_id === null || message.match_id === undefined) {
          this.queued = null;
          this.privateWaiting = null;
          this.invite = null;
        }
        break;
      default:
        return; // pong and types this client does not know
    }
    this.render();
  }

  _onError(message) {
    const rid = message.request_id;
    if (isPauseNotice(message) && this.match && !this.paused) {
      this.paused = { text: message.message, elapsed: this.prompt ? this.now() - this.promptAt : 0 };
    }
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
      this.privateWaiting = null;
    }
    this.toast(message.message || message.code, "error");
  }

  _onSeated(message) {
    this.joinRequest = null;
    this.queued = null;
    // The invitation is used up once its table starts: it must not linger in the lobby afterwards.
    this.invite = null;
    this.privateWaiting = null;
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
    this.hints = null;
    this.lastWaits = null;
    this.fresh = null;
    this.callout = null;
    this.winShown = null;
    this.ui = { selected: null, mode: null, chooser: null, help: this.ui.help };
  }

  _exitMatch() {
    this.match = null;
    this.paused = null;
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
    this.paused = null; // the table moves again
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
    this._noticeEvent(event, tracker);
    if (event.type === "round_started") {
      this.lastWaits = null;
      // A spectator never acts, so nothing else would close the last hand's result: it goes when
      // the next hand starts (a player's stays until they act or close it).
      if (match.spectating && this.results && this.results.handIndex !== event.hand_index) this.results = null;
    }
    if (event.type === "hand_won" || event.type === "hand_drawn") {
      const round = tracker.view().round;
      if (!this.results || this.results.handIndex !== round?.hand_index) {
        // the melds on the table as the hand ended: a draw's tenpai hands are shown with them
        this.results = { handIndex: round?.hand_index, round, events: [], melds: tracker.view().seats.map((s) => s.melds) };
      }
      this.results.events.push(event);
    } else if (event.type === "match_ended") {
      this.matchEnd = this.matchEnd ?? { match_id: match.id, reason: "completed", result: event };
    }
    if (this.prompt && tracker.version > this.prompt.version) this._dropPrompt();
  }

  /** Sounds, animations and callouts for an event just folded into `tracker`. */
  _noticeEvent(event, tracker) {
    const at = this.now();
    this.eventsThisFrame += 1;
    const sound = soundOf(event);
    if (sound) this.soundsDue.push(sound);
    const view = () => tracker.view();
    switch (event.type) {
      case "tile_discarded":
        this.fresh = { kind: "discard", seat: event.seat, index: view().seats[event.seat].river.length - 1, at };
        if (event.riichi) this.callout = { seat: event.seat, text: "Riichi", at };
        break;
      case "meld_called": {
        const melds = view().seats[event.seat].melds;
        const index = event.meld_type === "kakan" ? melds.findIndex((m) => m.type === "kakan" && m.added === event.meld.added) : melds.length - 1;
        this.fresh = { kind: "meld", seat: event.seat, index, at };
        const names = { chi: "Chi", pon: "Pon", daiminkan: "Kan", ankan: "Kan", kakan: "Kan" };
        this.callout = { seat: event.seat, text: names[event.meld_type] ?? "Call", at };
        break;
      }
      case "hand_won":
        this.callout = { seat: event.seat, text: event.seat === event.from_seat ? "Tsumo" : "Ron", at };
        this.winShown = { handIndex: view().round?.hand_index, at };
        break;
      default:
        break;
    }
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
    if (view.results.length) {
      this.results = { handIndex: view.round?.hand_index, round: view.round, events: [...view.results], melds: view.seats.map((s) => s.melds) };
    }
    if (view.match_result) this.matchEnd = this.matchEnd ?? { match_id: match.id, reason: "completed", result: view.match_result };
    if (this.prompt && match.tracker.version > this.prompt.version) this._dropPrompt();
  }

  _onPrompt(message) {
    const match = this.match;
    if (!match || message.match_id !== match.id || message.seat !== match.seat) return;
    const again = this.pending && this.pending.step === message.step;
    this.paused = null; // a prompt after a pause: the clock goes on with the time left
    this.prompt = message;
    this.promptAt = this.now();
    this.hints = readHints(message);
    this.ui.mode = null;
    this.ui.chooser = null;
    this.ui.selected = null;
    if (again && this.reconnected) {
      // After a reconnection the decision is still open: send the same act again (same request
      // id, so the server applies it at most once).
      this.conn.resendAct(this.pending.request_id, this.pending.step, this.pending.action);
      this.reconnected = false;
      return;
    }
    this.pending = null;
    this.reconnected = false;
    // The toggles and the tsumogiri after riichi answer at once: no click, no time used.
    const seat = match.tracker.view().seats[match.seat];
    const auto = autoAction(message.legal_actions, { inRiichi: Boolean(seat?.riichi), prefs: this.prefs });
    if (auto) this.send(auto, { auto: true });
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
      this.lastJoin = { kind: "queue" };
      this.joinRequest = this.conn.join({ type: "queue", preset: `${preset}+bots` });
      return;
    }
    if (preset.endsWith("-sanma")) {
      // Three players: the hub has east-only queues of each three-player preset.
      this.lastJoin = { kind: "queue" };
      this.joinRequest = this.conn.join({ type: "queue", preset: `${preset}-east+bots` });
      return;
    }
    // The four-player queues have no game length: an east-only game is a private table with 3 bots.
    this.createPrivate({ preset, length, bots: 3 });
  }

  quickMatch() {
    const preset = this.$("queue-preset").value;
    this.lastJoin = { kind: "queue" };
    this.joinRequest = this.conn.join({ type: "queue", preset });
    this.queued = { preset, players_waiting: 1 };
    this.render();
  }

  leaveQueue() {
    this.conn.leave();
    this.queued = null;
    this.privateWaiting = null;
    this.render();
  }

  async createPrivate(options = null) {
    const preset = options?.preset ?? this.$("private-preset").value;
    const length = options?.length ?? this.$("private-length").value;
    const bots = options?.bots ?? Number(this.$("private-bots").value);
    // The table's chat (docs/social.md): the form's choice; "" (and a game against bots): the server's.
    const chat = options ? options.chat ?? "" : this.$("private-chat").value;
    const token = this.conn.sessionToken;
    if (!token || this.status !== "open") {
      this.toast("Not connected yet", "error");
      return;
    }
    const params = new URLSearchParams({ preset, bots: String(bots) });
    if (length === "east") params.set("rules", JSON.stringify({ game_length: "east" }));
    if (chat) params.set("chat", chat);
    let body;
    try {
      const response = await this.fetch(`${httpBase(this.conn.url)}/private/new?${params}`, {
        headers: { Authorization: `Bearer ${token}` },
        cache: "no-store",
      });
      body = await response.json();
      if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
    } catch (exc) {
      this.toast(`Cannot open a table: ${exc.message ?? exc}`, "error");
      return;
    }
    if (bots < 3) this.invite = { ...body, link: inviteLink(this.location, body.code) };
    this.joinPrivate(body.code);
  }

  joinPrivate(code) {
    const text = String(code ?? "").trim();
    if (!text) return;
    this.queued = null;
    this.lastJoin = { kind: "private", code: text };
    this.joinRequest = this.conn.join({ type: "private", code: text });
    this.render();
  }

  async copyInvite() {
    const link = this.invite?.link;
    if (!link) return;
    try {
      await this.clipboard.writeText(link);
      this.toast("Invite link copied: send it to your friends");
    } catch {
      const box = this.$("invite-link");
      box?.focus();
      box?.select();
      this.toast("Copy the selected link (Ctrl+C) and send it to your friends");
    }
  }

  /** Watch ``matchId``; ``view`` "caster": every hand open, where the table offers a caster view. */
  spectate(matchId, view = "public") {
    const text = String(matchId ?? "").trim();
    if (!text) return;
    this.lastJoin = { kind: "spectate" };
    const target = { type: "spectate", match_id: text };
    if (view === "caster") target.view = "caster";
    this.joinRequest = this.conn.join(target);
  }

  /** The lobby's live tables, from the hub's JSON list (hidden for good when the hub has none). */
  async refreshLiveTables() {
    this.liveTimer = null;
    if (this.live.state === "absent" || this.match) return;
    let tables = null;
    try {
      const response = await this.fetch(`${httpBase(this.conn.url)}${LIVE_TABLES_PATH}`, { cache: "no-store" });
      if (response.status === 404) {
        this.live = { state: "absent", tables: [] };
        this.render();
        return;
      }
      const body = response.ok ? await response.json() : null;
      tables = Array.isArray(body?.tables) ? body.tables : null;
    } catch {
      tables = null; // the hub is unreachable for now: try again later
    }
    this.live = tables ? { state: "shown", tables } : { state: "unknown", tables: [] };
    this.render();
  }

  _scheduleLiveTables() {
    if (this.liveTimer !== null || this.live.state === "absent" || !this.animate) return;
    const delay = this.liveAsked ? LIVE_TABLES_EVERY_MS : 0;
    this.liveAsked = true;
    this.liveTimer = setTimeout(() => this.refreshLiveTables(), delay);
  }

  setPref(id, value) {
    this.prefs = { ...this.prefs, [id]: value };
    savePref(this.storage, id, value);
    if (id === "sound") this.sounds.setEnabled(value);
    // A toggle switched on while a decision is open applies to it at once.
    if (value && this.prompt && !this.pending && this.match && !this.match.spectating) {
      const seat = this.match.tracker.view().seats[this.match.seat];
      const auto = autoAction(this.prompt.legal_actions, { inRiichi: Boolean(seat?.riichi), prefs: this.prefs });
      if (auto) {
        this.send(auto, { auto: true });
        return;
      }
    }
    this.render();
  }

  resumeSeat(matchId, seat) {
    this.storage.removeItem(LEFT_KEY);
    this._enterMatch(matchId, seat, this._seatPlayers(matchId), new MatchTracker(matchId, seat), false);
    this._resume(matchId, 0);
    this.render();
  }

  leaveTable() {
    const match = this.match;
    if (!match) return;
    if (!this.matchEnd) {
      // A spectator just goes; a player is asked first, since their seat goes on without them.
      const question =
        "Leave the table? From now on the server plays your seat at once (it passes and discards the tile drawn), " +
        "so nobody waits for you. Your time bank is kept: come back to your seat from the lobby at any time.";
      if (!match.spectating && typeof globalThis.confirm === "function" && !globalThis.confirm(question)) return;
      this.conn.leave(match.id);
      if (!match.spectating) {
        this.storage.setItem(LEFT_KEY, match.id);
        if (!this.liveSeats.some((s) => s.match_id === match.id)) {
          this.liveSeats = [...this.liveSeats, { match_id: match.id, seat: match.seat, players: match.players }];
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

  send(action, { auto = false } = {}) {
    if (!this.prompt || this.pending || this.status === "replaced") return;
    const step = this.prompt.step;
    const request_id = this.conn.act(step, action);
    // Acting in a later hand means the previous hand's result has been seen (an answer the page
    // gave by itself does not: the player may still be reading it).
    const round = this.match?.tracker.view().round;
    if (!auto && this.results && !this.matchEnd && round && this.results.handIndex !== round.hand_index) this.results = null;
    if (action.type === "discard" || action.type === "riichi") {
      const after = this.hints?.discards.get(`${action.tile}|${action.tsumogiri ? 1 : 0}`);
      this.lastWaits = after ? { ...after, after: null } : null;
    }
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

  /** The win call-out goes at once (a click on it, or a key). True if one was showing. */
  skipCallout() {
    const shown = this.winShown;
    const showing = Boolean(this.results && shown && shown.handIndex === this.results.handIndex && this.now() - shown.at < FRESH_MS);
    this.winShown = null;
    if (showing) this.render();
    return showing;
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
    onKey(this, e);
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

  toast(text, kind = "info", ms = TOAST_MS) {
    const box = this.$("toasts");
    const node = el("div", { className: `toast ${kind}`, "data-testid": "toast", role: kind === "error" ? "alert" : "status" }, text);
    box.append(node);
    while (box.childElementCount > 4) box.firstElementChild.remove();
    setTimeout(() => node.remove(), ms);
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
    this.afterRender?.(); // friends.js: its Invite buttons follow the private table this page waits at
    const $ = this.$;
    const status = $("status");
    const label = { connecting: "connecting…", open: "online", reconnecting: "reconnecting…", closed: "offline", failed: "cannot connect", replaced: "playing elsewhere", idle: "" }[this.status] ?? this.status;
    status.textContent = label;
    status.dataset.status = this.status;
    status.title = this.statusDetail;
    $("me").textContent = this.player ? this.player.name : "";
    $("help").hidden = !this.ui.help;
    $("replaced").hidden = this.status !== "replaced";
    const match = this.match;
    $("lobby").hidden = Boolean(match);
    $("table").hidden = !match;
    $("btn-leave").hidden = !match || match.spectating;
    $("btn-stop-watching").hidden = !match || !match.spectating;
    this.chat.show(Boolean(match), match?.id ?? null);
    this.doc.body.dataset.screen = match ? "table" : "lobby";
    this._flushSounds();
    if (!match) {
      this._drawLobby();
      this._stopTimer();
      return;
    }
    if (!match.spectating) this._save();
    this._drawTable();
  }

  /** Play the loudest sound due since the last frame, unless that frame caught up on many events. */
  _flushSounds() {
    const due = this.soundsDue;
    const burst = this.eventsThisFrame > BURST;
    this.soundsDue = [];
    this.eventsThisFrame = 0;
    const name = loudest(due);
    if (name && !burst && this.status === "open") this.sounds.play(name);
  }

  _drawLobby() {
    const $ = this.$;
    const open = this.status === "open";
    renderQueue($("queue-status"), this, { onCancel: () => this.leaveQueue() });
    renderPrivate($("private-status"), this, { onCopy: () => this.copyInvite(), onCancel: () => this.leaveQueue() });
    renderLiveTables($("live-tables"), this, { onWatch: (id) => this.spectate(id) });
    const seats = this.liveSeats.filter((s) => s.match_id !== this.match?.id);
    const box = $("live-seats");
    box.hidden = seats.length === 0;
    box.replaceChildren(
      ...seats.map((s) =>
        el("button", { type: "button", "data-testid": "resume-seat", onclick: () => this.resumeSeat(s.match_id, s.seat) }, `Back to your seat in ${s.match_id}`),
      ),
    );
    const waiting = Boolean(this.queued || this.privateWaiting);
    for (const id of ["btn-play-bots", "btn-queue", "btn-create-private"]) $(id).disabled = !open || waiting;
    this._scheduleLiveTables();
  }

  _drawTable() {
    const $ = this.$;
    const match = this.match;
    const view = match.tracker.view();
    const options = this.status === "replaced" ? null : this.options();
    const now = this.now();
    const recent = (item) => (item && now - item.at < FRESH_MS ? { ...item, age: Math.max(0, now - item.at) } : null);
    const slots = this.slots();
    const selected = this.ui.selected !== null ? slots[this.ui.selected] : null;
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
      // A spectator could watch, so the table allowed spectators: its log is public once it ends.
      replayHref: `/games/${encodeURIComponent(match.id)}#h1s0`,
      elapsed: this._elapsed(now),
      prefs: this.prefs,
      fresh: recent(this.fresh),
      callout: recent(this.callout),
      winCallout: this.results && this.winShown?.handIndex === this.results.handIndex ? recent(this.winShown) : null,
      waits: this.prompt && this.hints ? shownWaits(this.hints, options?.discards.size ? selected : null) : this.lastWaits,
    };
    const handlers = {
      onSlot: (i) => this.onSlot(i),
      onButton: (id) => this.onButton(id),
      onChoose: (i) => this.onChoose(i),
      onCancel: () => this.cancel(),
      onCloseResult: () => this.closeResult(),
      onSkipCallout: () => this.skipCallout(),
      onLobby: () => this.backToLobby(),
      onToggle: (id, value) => this.setPref(id, value),
    };
    const table = $("table");
    table.classList.toggle("spectator", match.spectating);
    table.classList.toggle("match-over", Boolean(this.matchEnd));
    table.classList.toggle("my-turn", Boolean(options));
    table.dataset.riichiMode = this.ui.mode === "riichi" ? "true" : "false";
    renderBoard($("board"), ctx);
    renderSideInfo($("side-info"), ctx);
    this.afterSideInfo?.($("side-info"), match.players, gameLength(view)); // ranked.js: each seat's rank
    renderSideKeys($("side-keys"), ctx);
    renderHand($("hand"), $("my-melds"), ctx, handlers);
    renderWaits($("waits"), ctx);
    renderToggles($("toggles"), ctx, handlers);
    renderActions($("actions"), ctx, handlers);
    renderChooser($("chooser"), ctx, handlers);
    renderResult($("result"), ctx, handlers);
    if (this.matchEnd) this.afterResult?.($("result"), match); // ranked.js: the climb of a rated match
    renderTimer($("timer"), ctx);
    const paused = $("paused-banner");
    if (paused) {
      paused.hidden = !this.paused;
      paused.textContent = this.paused ? `${this.paused.text}. The game goes on when the organizer resumes it.` : "";
    }
    if (this.prompt) this._startTimer();
    else this._stopTimer();
    // Redraw once the newest animation is over, so that its element stops counting as new.
    if ((ctx.fresh || ctx.callout || ctx.winCallout) && this.animate && !this.freshTimer) {
      this.freshTimer = setTimeout(() => {
        this.freshTimer = null;
        this.render();
      }, FRESH_MS + 50);
    }
    this.doc.title = this.prompt ? "● Your turn — Jantaku" : `Jantaku — ${playerName(match.players, match.seat ?? 0)}`;
  }

  _startTimer() {
    if (this.timerHandle !== null || !this.animate) return;
    this.timerHandle = setInterval(() => {
      if (!this.prompt || !this.match) {
        this._stopTimer();
        return;
      }
      renderTimer(this.$("timer"), { prompt: this.prompt, elapsed: this._elapsed(this.now()) });
    }, 100);
  }

  /** How long the open prompt has run (standing still while the table is paused). */
  _elapsed(now) {
    if (!this.prompt) return 0;
    return this.paused ? this.paused.elapsed : now - this.promptAt;
  }

  _stopTimer() {
    if (this.timerHandle !== null) clearInterval(this.timerHandle);
    this.timerHandle = null;
  }
}

/** The match's game length ("east" / "east_south"), from its ruleset document. */
function gameLength(view) {
  try {
    return JSON.parse(view.match?.ruleset_json ?? "{}").game_length ?? "east_south";
  } catch {
    return "east_south";
  }
}
