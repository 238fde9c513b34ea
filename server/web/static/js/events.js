// Tournaments in the browser (docs/tournaments.md): the list of events, an event's public page
// (standings, rounds and tables, wall commitments and revealed seeds, notices), the entrant's
// buttons (enter, withdraw, check in) and the organizer's (add bots, seat, start, pause, resume,
// finish the round, adjust, notice). Everything goes through the events HTTP API, with the session
// token the main page stored when its player signed in (the ranked card).

import { apiBase } from "./ranked.js";

const TOKEN_KEY = "jantaku.session_token";
const CREATE_EXAMPLE = JSON.stringify({ name: "Club night", ruleset: "tenhou", rounds: 3, duplicate: "round" }, null, 2);

function h(doc, tag, attrs = {}, ...children) {
  const node = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/** Replace ``node``'s children (null and undefined left out; arrays flattened). */
function fill(node, ...children) {
  node.replaceChildren(...children.flat(2).filter((c) => c !== null && c !== undefined));
}

/** The error answer of the API as one line. */
export function errorText(data, status) {
  const e = data?.error;
  return e ? `${e.code}: ${e.message}` : `HTTP ${status}`;
}

/** The standings as table rows: [rank, name, total as shown, games, places]. */
export function standingsRows(rows, names = new Map()) {
  return rows.map((r) => [String(r.rank), names.get(r.name) ?? r.name, r.shown, String(r.games), r.places.join("/")]);
}

/** Who may do what on this event: {entrant, organizer}. */
export function roles(event, me) {
  if (!me) return { entrant: false, organizer: false };
  const mine = event.entrants.find((e) => e.id === me.id);
  return {
    entrant: Boolean(mine) && ["entered", "waitlisted"].includes(mine.status),
    organizer: event.organizers.includes(me.id),
  };
}

/** The running round, if any. */
export function runningRound(event) {
  return event.rounds.find((r) => r.status === "running") ?? null;
}

export class EventsPage {
  constructor({ doc, storage, location, fetch }) {
    this.doc = doc;
    this.storage = storage;
    this.location = location;
    this.fetch = fetch ?? ((...args) => globalThis.fetch(...args));
    this.base = apiBase(location);
    this.me = null;
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

  status(text) {
    this.el("events-status").textContent = text;
  }

  async start() {
    if (this.token) this.me = (await this.call("GET", "/api/accounts/me").catch(() => null))?.account ?? null;
    const id = new URLSearchParams(this.location.search).get("event");
    try {
      if (id) await this.showEvent(id);
      else await this.showList();
    } catch (err) {
      this.status(String(err.message ?? err));
    }
  }

  async showList() {
    const events = await this.call("GET", "/api/events");
    const box = this.el("event-list");
    const d = this.doc;
    fill(box,
      h(d, "h2", {}, "Events"),
      events.length === 0
        ? h(d, "p", {}, "No events yet.")
        : h(
            d,
            "ul",
            {},
            events.map((e) =>
              h(d, "li", {}, h(d, "a", { href: `?event=${encodeURIComponent(e.id)}` }, e.name), ` — ${e.status}`),
            ),
          ),
    );
    if (this.me) {
      // An organizer creates an event from its settings (docs/tournaments.md, "Settings").
      const text = h(d, "textarea", { rows: 6, cols: 60, "data-testid": "create-settings" }, CREATE_EXAMPLE);
      box.append(
        h(d, "h3", {}, "Create an event (organizers)"),
        text,
        h(d, "button", { "data-testid": "create-event", onclick: () => this.create(text.value) }, "Create"),
      );
    }
    box.hidden = false;
    this.status("");
  }

  async create(text) {
    try {
      const event = await this.call("POST", "/api/events", JSON.parse(text));
      this.location.search = `?event=${encodeURIComponent(event.id)}`;
    } catch (err) {
      this.status(String(err.message ?? err));
    }
  }

  async showEvent(id) {
    const event = await this.call("GET", `/api/events/${encodeURIComponent(id)}`);
    const rows = await this.call("GET", `/api/events/${encodeURIComponent(id)}/standings`);
    this.event = event;
    const d = this.doc;
    const names = new Map(event.entrants.map((e) => [e.id, e.name]));
    const table = (head, body) =>
      h(d, "table", {}, h(d, "thead", {}, h(d, "tr", {}, head.map((c) => h(d, "th", {}, c)))),
        h(d, "tbody", {}, body.map((r) => h(d, "tr", {}, r.map((c) => h(d, "td", {}, c))))));
    const view = this.el("event-view");
    fill(view,
      h(d, "h2", { "data-testid": "event-name" }, event.name),
      h(d, "p", {}, `${event.status} · ${event.rounds.length} of ${event.settings.rounds} rounds · ${event.entrants.length} entrants`),
      event.description ? h(d, "p", {}, event.description) : null,
      event.notices.length ? h(d, "ul", { "data-testid": "event-notices" }, event.notices.map((n) => h(d, "li", {}, n.text))) : null,
      h(d, "h3", {}, "Standings"),
      h(d, "div", { "data-testid": "event-standings" }, table(["#", "entrant", "total", "games", "places"], standingsRows(rows, names))),
      event.rounds.map((r) =>
        h(d, "div", { "data-testid": `round-${r.number}` },
          h(d, "h3", {}, `Round ${r.number} (${r.status})`),
          table(["table", "seats", "game"], r.tables.map((t) => [String(t.index), t.entrants.map((e) => names.get(e) ?? e).join(", "), t.match_id ?? ""])),
          h(d, "p", { class: "walls" }, r.sets.map((s) => `${s.set_id}: seed ${s.seed_hex ?? `committed ${s.seed_commitment.slice(0, 16)}…`}`).join(" · ")),
        ),
      ),
    );
    view.hidden = false;
    this.renderPanels(event);
    this.status("");
  }

  async act(path, body = {}) {
    try {
      await this.call("POST", `/api/events/${encodeURIComponent(this.event.id)}/${path}`, body);
      await this.showEvent(this.event.id);
    } catch (err) {
      this.status(String(err.message ?? err));
    }
  }

  renderPanels(event) {
    const d = this.doc;
    const who = roles(event, this.me);
    const entrant = this.el("entrant-panel");
    entrant.hidden = !this.me;
    fill(entrant,
      h(d, "h3", {}, "Me"),
      who.entrant
        ? [h(d, "button", { onclick: () => this.act("checkin") }, "Check in"), h(d, "button", { onclick: () => this.act("withdraw") }, "Withdraw")]
        : h(d, "button", { onclick: () => this.act("entry") }, "Enter"),
    );
    const org = this.el("organizer-panel");
    org.hidden = !who.organizer;
    if (!who.organizer) return;
    const input = (name, placeholder) => h(d, "input", { name, placeholder, "data-testid": `org-${name}` });
    const value = (name) => org.querySelector(`[name=${name}]`)?.value ?? "";
    const reason = () => value("reason");
    fill(org,
      h(d, "h3", {}, "Organizer"),
      input("reason", "reason (kept in the log)"),
      h(d, "div", {},
        h(d, "button", { onclick: () => this.act("bots", { count: Number(value("bots") || 1), reason: reason() }) }, "Add bots"),
        input("bots", "how many"),
      ),
      h(d, "div", {},
        h(d, "button", { "data-testid": "org-seat", onclick: () => this.act("seat", { reason: reason() }) }, "Seat next round"),
        h(d, "button", { "data-testid": "org-start", onclick: () => this.act("start", { reason: reason() }) }, "Start round"),
        h(d, "button", { onclick: () => this.act("pause", { table: value("table") === "" ? null : Number(value("table")), reason: reason() }) }, "Pause"),
        h(d, "button", { onclick: () => this.act("resume", { table: value("table") === "" ? null : Number(value("table")), reason: reason() }) }, "Resume"),
        input("table", "table (empty: all)"),
        h(d, "button", { "data-testid": "org-finish", onclick: () => this.act("finish-round", { reason: reason() }) }, "Finish round"),
      ),
      h(d, "div", {},
        input("entrant", "entrant id"),
        input("amount", "amount (tenths)"),
        h(d, "button", { onclick: () => this.act("adjust", { entrant: value("entrant"), amount: Number(value("amount")), reason: reason() }) }, "Adjust"),
      ),
      h(d, "div", {},
        input("notice", "notice to every entrant"),
        h(d, "button", { onclick: () => this.act("notice", { text: value("notice") }) }, "Send notice"),
      ),
      h(d, "p", {}, h(d, "a", { href: `${this.base}/api/events/${encodeURIComponent(event.id)}/standings?format=csv` }, "Standings (CSV)")),
    );
  }
}

if (typeof document !== "undefined" && document.body?.dataset.screen === "events") {
  new EventsPage({ doc: document, storage: globalThis.localStorage, location: globalThis.location }).start();
}
