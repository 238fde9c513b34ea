// Tournaments in the browser (docs/tournaments.md, "The events pages"): the list of events (and
// the create form), an event's public page (js/eventpublic.js), the entrant's part
// (js/evententrant.js) and the organizer's (js/eventorg.js). Everything goes through the events
// HTTP API, with the session token the main page stored when its player signed in (the ranked
// card). While a round runs, the page refreshes itself every few seconds (live standings and tables).

import { apiBase } from "./ranked.js";
import { errorText, fill, h, runningRound } from "./eventkit.js";
import { renderPublic } from "./eventpublic.js";
import { renderEntrant } from "./evententrant.js";
import { renderCreate, renderLog, renderOrganizer, settingsFromForm } from "./eventorg.js";

export { errorText, roles, runningRound, standingsRows } from "./eventkit.js";

const TOKEN_KEY = "jantaku.session_token";
const REFRESH_MS = 4000;
const LIVE_TABLES_PATH = "/tables/live";

export class EventsPage {
  constructor({ doc, storage, location, fetch, refreshMs = REFRESH_MS }) {
    this.doc = doc;
    this.storage = storage;
    this.location = location;
    this.fetch = fetch ?? ((...args) => globalThis.fetch(...args));
    this.base = apiBase(location);
    this.me = null;
    this.event = null;
    this.shape = null; // what the organizer's panel was drawn from
    this.refreshMs = refreshMs;
    this.timer = null;
  }

  get token() {
    return this.storage?.getItem(TOKEN_KEY) ?? null;
  }

  async call(method, path, body = null) {
    const headers = {};
    if (body !== null) headers["Content-Type"] = "application/json";
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const response = await this.fetch(`${this.base}${path}`, {
      method,
      headers,
      cache: "no-store",
      body: body === null ? undefined : JSON.stringify(body),
    });
    const type = response.headers?.get?.("content-type") ?? "";
    const data = type.startsWith("text/csv") ? await response.text() : await response.json().catch(() => null);
    if (!response.ok) throw new Error(errorText(data, response.status));
    return data;
  }

  el(id) {
    return this.doc.getElementById(id);
  }

  status(text, kind = "") {
    const box = this.el("events-status");
    box.textContent = text;
    box.dataset.kind = kind;
  }

  async start() {
    if (this.token) this.me = (await this.call("GET", "/api/accounts/me").catch(() => null))?.account ?? null;
    const who = this.el("events-me");
    if (who) who.textContent = this.me ? `signed in as ${this.me.name}` : "not signed in (sign in on the main page)";
    const id = new URLSearchParams(this.location.search).get("event");
    try {
      if (id) await this.showEvent(id);
      else await this.showList();
      this.status("");
    } catch (err) {
      this.status(String(err.message ?? err), "error");
    }
  }

  async showList() {
    const events = await this.call("GET", "/api/events");
    const box = this.el("event-list");
    const d = this.doc;
    const api = new URLSearchParams(this.location.search).get("api");
    const link = (id) => `?event=${encodeURIComponent(id)}${api ? `&api=${encodeURIComponent(api)}` : ""}`;
    fill(box,
      h(d, "h2", {}, "Events"),
      events.length === 0
        ? h(d, "p", {}, "No events yet.")
        : h(d, "ul", { class: "event-list" },
            events.map((e) => h(d, "li", {}, h(d, "a", { href: link(e.id), "data-testid": `event-link-${e.id}` }, e.name), ` — ${e.status}, ${e.rounds} rounds`))),
    );
    if (this.me) renderCreate(d, box, { create: (values) => this.create(values, link) });
    box.hidden = false;
    this.status("");
  }

  async create(values, link) {
    try {
      const event = await this.call("POST", "/api/events", settingsFromForm(values));
      this.location.search = link(event.id);
    } catch (err) {
      this.status(String(err.message ?? err), "error");
    }
  }

  async showEvent(id) {
    const path = `/api/events/${encodeURIComponent(id)}`;
    const [event, rows] = await Promise.all([this.call("GET", path), this.call("GET", `${path}/standings`)]);
    this.event = event;
    const live = runningRound(event) ? await this.liveTables() : new Map();
    const where = { base: this.base, search: this.location.search };
    renderPublic(this.doc, this.el("event-view"), { event, rows, live, location: where });
    renderEntrant(this.doc, this.el("entrant-panel"), { event, rows, me: this.me, location: where, act: (p, b) => this.act(p, b) });
    const org = this.el("organizer-panel");
    const organizer = Boolean(this.me) && (event.organizers.includes(this.me.id) || this.me.admin === true);
    org.hidden = !organizer;
    // The panel is redrawn when the event changed (not on every refresh: the organizer may be typing).
    const played = rows.reduce((n, r) => n + (r.games ?? 0), 0); // (the archive is offered once a game ended)
    const shape = JSON.stringify([event.status, event.rounds, event.entrants, event.organizers, event.settings, played > 0]);
    if (organizer && (shape !== this.shape || org.childElementCount === 0)) {
      renderOrganizer(this.doc, org, {
        event,
        rows,
        act: (p, b) => this.act(p, b),
        showLog: () => this.showLog(),
        download: () => this.downloadArchive(),
      });
    }
    this.shape = organizer ? shape : null;
    this.el("events").dataset.round = String(runningRound(event)?.number ?? "");
    this.el("events").dataset.status = event.status;
    this.scheduleRefresh();
  }

  /** The hub's live tables (same origin: the events page is served by the hub), by match id. */
  async liveTables() {
    try {
      const response = await this.fetch(LIVE_TABLES_PATH, { cache: "no-store" });
      const body = response.ok ? await response.json() : null;
      return new Map((body?.tables ?? []).map((t) => [t.match_id, t]));
    } catch {
      return new Map();
    }
  }

  scheduleRefresh() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (!this.event || !runningRound(this.event) || !this.refreshMs) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.showEvent(this.event.id).catch((err) => this.status(String(err.message ?? err), "error"));
    }, this.refreshMs);
  }

  async act(path, body = {}) {
    try {
      await this.call("POST", `/api/events/${encodeURIComponent(this.event.id)}/${path}`, body);
      this.shape = null; // redraw the panel: the action may not change the event (a pause, a notice)
      this.status(`done: ${path.replace(/^tables\/(\d+)\/end$/, "end table $1").replace(/^entrants\/.+\/checkin$/, "check-in")}`, "ok");
      await this.showEvent(this.event.id);
      return true;
    } catch (err) {
      this.status(String(err.message ?? err), "error");
      return false;
    }
  }

  /** The event's archive (organizers: the request carries the session token, so it is fetched
   * here and saved from a blob rather than followed as a link). */
  async downloadArchive() {
    const id = this.event.id;
    try {
      const headers = this.token ? { Authorization: `Bearer ${this.token}` } : {};
      const response = await this.fetch(`${this.base}/api/events/${encodeURIComponent(id)}/export`, { headers, cache: "no-store" });
      if (!response.ok) throw new Error(errorText(await response.json().catch(() => null), response.status));
      const href = URL.createObjectURL(await response.blob());
      const link = h(this.doc, "a", { href, download: `${id}.zip`, hidden: true });
      this.doc.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(href), 60000); // (not at once: the download reads it)
      this.status(`done: the archive ${id}.zip`, "ok");
      return true;
    } catch (err) {
      this.status(String(err.message ?? err), "error");
      return false;
    }
  }

  async showLog() {
    try {
      const entries = await this.call("GET", `/api/events/${encodeURIComponent(this.event.id)}/log`);
      renderLog(this.doc, this.el("org-log"), entries);
    } catch (err) {
      this.status(String(err.message ?? err), "error");
    }
  }
}

if (typeof document !== "undefined" && document.body?.dataset.screen === "events") {
  new EventsPage({ doc: document, storage: globalThis.localStorage, location: globalThis.location }).start();
}
