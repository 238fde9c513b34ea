// The websocket side of the Jantaku protocol (docs/protocol.md): hello/welcome with a guest or a
// stored session token, join, act with request ids and steps, resume, and reconnection with
// exponential backoff. It knows nothing of the page: it hands every server message to `onMessage`
// and reports its state through `onStatus`.
//
// The WebSocket constructor, the storage and the timers are injectable so that the logic runs under
// node in tests (tests/web/js/protocol.test.mjs).

export const PROTOCOL_VERSION = 1;
export const CLIENT_NAME = "jantaku-web/0.1";
const TOKEN_KEY = "jantaku.session_token";
const NAME_KEY = "jantaku.name";
const REQUEST_KEY = "jantaku.request_id";
const MAX_REQUEST_ID = 2 ** 53 - 1;

/** The websocket URL: `?ws=` if given, else ws(s)://<this host>/ws. */
export function websocketURL(location) {
  const params = new URLSearchParams(location.search);
  const override = params.get("ws");
  if (override) return override;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

/** The http(s) base URL of the hub that serves `wsURL` (for /private/new). */
export function httpBase(wsURL) {
  const url = new URL(wsURL);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  return `${url.protocol}//${url.host}`;
}

/** Close code the server uses for "a newer connection of the same player took over". */
export const CLOSE_REPLACED = 4001;

/**
 * Whether a close event means this connection was replaced by another one of the same player (in
 * another tab or window): the server closes it with 4001 (server/hub/connection.py `replaced()`);
 * older servers used 1000 with a reason naming the replacement, still understood. Such a tab must
 * not reconnect by itself, or two tabs would knock each other off forever.
 */
export function isReplacedClose(event) {
  if (!event) return false;
  if (event.code === CLOSE_REPLACED) return true;
  return event.code === 1000 && /replaced/i.test(String(event.reason ?? ""));
}

/** Backoff before reconnection attempt n (0-based): 0.5 s doubling up to 10 s, with jitter. */
export function backoffMs(attempt, random = Math.random) {
  const base = Math.min(10000, 500 * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.75 + 0.5 * random()));
}

function memoryStorage() {
  const data = new Map();
  return {
    getItem: (k) => (data.has(k) ? data.get(k) : null),
    setItem: (k, v) => data.set(k, String(v)),
    removeItem: (k) => data.delete(k),
  };
}

export class Connection {
  /**
   * options: url, storage (localStorage-like), WebSocket (constructor), now() (ms clock),
   * setTimeout/clearTimeout, random, onMessage(msg), onStatus(status, detail), onWelcome(welcome).
   */
  constructor(options) {
    this.url = options.url;
    this.storage = options.storage ?? memoryStorage();
    this.WebSocket = options.WebSocket ?? globalThis.WebSocket;
    this.now = options.now ?? (() => Date.now());
    this.setTimeout = options.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
    this.clearTimeout = options.clearTimeout ?? ((id) => globalThis.clearTimeout(id));
    this.random = options.random ?? Math.random;
    this.onMessage = options.onMessage ?? (() => {});
    this.onStatus = options.onStatus ?? (() => {});
    this.onWelcome = options.onWelcome ?? (() => {});
    this.ws = null;
    this.status = "idle"; // idle | connecting | open | reconnecting | closed | failed | replaced
    this.welcome = null;
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    this.fatal = null; // a reason not to reconnect (bad_version)
    this.queue = []; // messages waiting for the welcome
  }

  get sessionToken() {
    return this.storage.getItem(TOKEN_KEY);
  }

  get guestName() {
    return this.storage.getItem(NAME_KEY);
  }

  set guestName(name) {
    if (name) this.storage.setItem(NAME_KEY, name);
    else this.storage.removeItem(NAME_KEY);
  }

  /** Forget the session: the next connection says hello as a new guest. */
  forgetSession() {
    this.storage.removeItem(TOKEN_KEY);
  }

  start() {
    this.stopped = false;
    this._open();
  }

  stop() {
    this.stopped = true;
    if (this.timer !== null) this.clearTimeout(this.timer);
    this.timer = null;
    if (this.ws) this.ws.close(1000, "bye");
    this._setStatus("closed");
  }

  /** A request id never used before by this browser: increasing, also across reloads. */
  nextRequestId() {
    const last = Number(this.storage.getItem(REQUEST_KEY) ?? 0) || 0;
    let id = Math.max(last + 1, Math.floor(this.now()));
    if (id > MAX_REQUEST_ID) id = 1;
    this.storage.setItem(REQUEST_KEY, String(id));
    return id;
  }

  /** Send a message once welcomed (queued until then, except hello). */
  send(message) {
    if (this.status !== "open" || !this.ws) {
      this.queue.push(message);
      return false;
    }
    this.ws.send(JSON.stringify(message));
    return true;
  }

  join(target) {
    const request_id = this.nextRequestId();
    this.send({ type: "join", target, request_id });
    return request_id;
  }

  act(step, action) {
    const request_id = this.nextRequestId();
    this.send({ type: "act", request_id, step, action });
    return request_id;
  }

  /** Send an act again, unchanged (same request id: the server applies it at most once). */
  resendAct(request_id, step, action) {
    this.send({ type: "act", request_id, step, action });
  }

  resume(matchId, sinceVersion) {
    const request_id = this.nextRequestId();
    this.send({ type: "resume", match_id: matchId, since_version: sinceVersion, request_id });
    return request_id;
  }

  /** A chat line at the table this connection follows (docs/social.md). */
  invite(to, code) {
    const request_id = this.nextRequestId();
    this.send({ type: "invite", to, code, request_id });
    return request_id;
  }

  chat(text) {
    const request_id = this.nextRequestId();
    this.send({ type: "chat", text, request_id });
    return request_id;
  }

  stamp(stamp) {
    const request_id = this.nextRequestId();
    this.send({ type: "stamp", stamp, request_id });
    return request_id;
  }

  leave(matchId = null) {
    const message = { type: "leave", request_id: this.nextRequestId() };
    if (matchId) message.match_id = matchId;
    this.send(message);
  }

  _setStatus(status, detail = "") {
    this.status = status;
    this.onStatus(status, detail);
  }

  _open() {
    if (this.stopped || this.fatal) return;
    this.timer = null;
    this._setStatus(this.attempt === 0 ? "connecting" : "reconnecting", `attempt ${this.attempt + 1}`);
    let ws;
    try {
      ws = new this.WebSocket(this.url);
    } catch (exc) {
      this._scheduleReconnect(String(exc));
      return;
    }
    this.ws = ws;
    const token = this.sessionToken;
    let usedToken = null;
    ws.onopen = () => {
      usedToken = token;
      const auth = token ? { type: "session", session_token: token } : { type: "guest" };
      if (!token && this.guestName) auth.name = this.guestName;
      // hints: the server adds the waits, tiles left and furiten to every prompt (docs/protocol.md).
      ws.send(JSON.stringify({ type: "hello", protocol: PROTOCOL_VERSION, auth, client: CLIENT_NAME, hints: true }));
    };
    ws.onmessage = (frame) => {
      if (ws !== this.ws) return;
      let message;
      try {
        message = JSON.parse(frame.data);
      } catch {
        return; // not ours to judge; the server only sends JSON
      }
      if (message === null || typeof message !== "object") return;
      if (message.type === "welcome") {
        this.welcome = message;
        this.attempt = 0;
        this.storage.setItem(TOKEN_KEY, message.session_token);
        this._setStatus("open");
        this.onWelcome(message);
        const queued = this.queue;
        this.queue = [];
        for (const m of queued) this.send(m);
        return;
      }
      if (message.type === "error" && this.status !== "open") {
        if (message.code === "unauthenticated" && usedToken) {
          // The session expired or is unknown: come back as a new guest.
          this.forgetSession();
        } else if (message.code === "bad_version") {
          this.fatal = message.message;
          this._setStatus("failed", message.message);
        }
      }
      this.onMessage(message);
    };
    ws.onclose = (event) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.welcome = null;
      if (this.stopped) return;
      if (this.fatal) {
        this._setStatus("failed", this.fatal);
        return;
      }
      if (isReplacedClose(event)) {
        // Another tab of this browser (same session) took over: stay closed until "play here".
        this.stopped = true;
        this.queue = [];
        this._setStatus("replaced", String(event.reason || "replaced by a newer connection"));
        return;
      }
      const reason = event && event.code ? `closed (${event.code}${event.reason ? `: ${event.reason}` : ""})` : "closed";
      // 1012: the server restarts; 1008 after a refused session: retry at once as a guest.
      this._scheduleReconnect(reason);
    };
    ws.onerror = () => {};
  }

  _scheduleReconnect(reason) {
    if (this.stopped) return;
    const delay = backoffMs(this.attempt, this.random);
    this.attempt += 1;
    this._setStatus("reconnecting", `${reason}; retrying in ${(delay / 1000).toFixed(1)} s`);
    this.timer = this.setTimeout(() => this._open(), delay);
  }

  /** "Play here": take the session back from the tab that replaced this one. */
  takeOver() {
    if (this.timer !== null) this.clearTimeout(this.timer);
    this.timer = null;
    this.stopped = false;
    this.attempt = 0;
    if (this.ws) return;
    this._open();
  }

  /** Reconnect now (e.g. the user clicked "retry"). */
  reconnectNow() {
    if (this.timer !== null) this.clearTimeout(this.timer);
    this.timer = null;
    if (this.ws) return;
    this._open();
  }
}
