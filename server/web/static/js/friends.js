// The lobby's Friends card (docs/social.md, "HTTP API"): friends with where they are, requests both
// ways, the players this account blocked; add a friend by name, accept, decline, remove, block,
// unblock. It speaks to /api/me/friends... with the session token the page plays with. Every name
// is inserted as text.

import { accountErrorText, apiBase } from "./ranked.js";

const TOKEN_KEY = "jantaku.session_token";
const PRESENCE = { lobby: "in the lobby", at_table: "at a table", online: "online", offline: "offline" };

export class Friends {
  constructor({ doc, storage, location, fetch }) {
    this.doc = doc;
    this.storage = storage;
    this.fetch = fetch ?? ((...args) => globalThis.fetch(...args));
    this.base = apiBase(location);
    this.box = doc.getElementById("friends");
    this.player = null;
    this.data = null; // the answer of GET /api/me/friends
    this.error = "";
  }

  get token() {
    return this.storage?.getItem(TOKEN_KEY) ?? null;
  }

  async call(method, path, body = null) {
    const headers = {};
    if (body !== null) headers["Content-Type"] = "application/json";
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const response = await this.fetch(`${this.base}${path}`, { method, headers, body: body === null ? undefined : JSON.stringify(body) });
    const data = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) throw new Error(accountErrorText(data, response.status));
    return data;
  }

  onWelcome(player) {
    this.player = player;
    this.refresh();
  }

  async refresh() {
    if (!this.player || this.player.kind === "guest" || !this.token) {
      this.data = null;
      this.render();
      return;
    }
    try {
      this.data = await this.call("GET", "/api/me/friends");
      this.error = "";
    } catch (exc) {
      this.data = null;
      this.error = exc.message;
    }
    this.render();
  }

  async act(method, path, body = null) {
    try {
      await this.call(method, path, body);
      this.error = "";
    } catch (exc) {
      this.error = exc.message;
    }
    await this.refresh();
  }

  _button(label, testid, onclick, cls = "") {
    const b = this.doc.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.dataset.testid = testid;
    if (cls) b.className = cls;
    b.addEventListener("click", onclick);
    return b;
  }

  _row(person, state, buttons) {
    const row = this.doc.createElement("li");
    row.className = "friend";
    row.dataset.testid = `friend-${state}`;
    row.dataset.name = person.name;
    const name = this.doc.createElement("span");
    name.className = "friend-name";
    name.textContent = person.name;
    row.append(name);
    if (person.presence) {
      const where = this.doc.createElement("span");
      where.className = `presence presence-${person.presence}`;
      where.dataset.testid = "presence";
      where.textContent = PRESENCE[person.presence] ?? person.presence;
      row.append(where);
    }
    row.append(...buttons);
    return row;
  }

  render() {
    const box = this.box;
    if (!box) return;
    box.replaceChildren();
    const title = this.doc.createElement("h2");
    title.textContent = "Friends";
    box.append(title);
    if (!this.player || this.player.kind === "guest") {
      const hint = this.doc.createElement("p");
      hint.className = "hint";
      hint.textContent = "Sign up (Ranked, above) to add friends.";
      box.append(hint);
      return;
    }
    const form = this.doc.createElement("form");
    form.className = "field-row";
    const input = this.doc.createElement("input");
    input.placeholder = "player name";
    input.maxLength = 64;
    input.dataset.testid = "friend-name";
    input.setAttribute("aria-label", "Player name");
    const add = this.doc.createElement("button");
    add.type = "submit";
    add.textContent = "Add friend";
    add.dataset.testid = "friend-add";
    form.append(input, add);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (name) this.act("POST", "/api/me/friends/requests", { name });
    });
    box.append(form);
    const error = this.doc.createElement("p");
    error.className = "ranked-error";
    error.dataset.testid = "friends-error";
    error.textContent = this.error;
    box.append(error);
    const d = this.data;
    if (!d) return;
    const list = this.doc.createElement("ul");
    list.className = "friends";
    const id = (p) => encodeURIComponent(p.account_id);
    for (const p of d.requests_received) {
      list.append(this._row(p, "request", [
        this._button("Accept", "friend-accept", () => this.act("POST", `/api/me/friends/requests/${id(p)}/accept`)),
        this._button("Decline", "friend-decline", () => this.act("DELETE", `/api/me/friends/requests/${id(p)}`), "ghost"),
      ]));
    }
    for (const p of d.friends) {
      list.append(this._row(p, "friend", [
        this._button("Remove", "friend-remove", () => this.act("DELETE", `/api/me/friends/${id(p)}`), "ghost"),
        this._button("Block", "friend-block", () => this.act("PUT", `/api/me/blocks/${id(p)}`), "ghost"),
      ]));
    }
    for (const p of d.requests_sent) {
      list.append(this._row({ ...p, presence: null }, "sent", [
        this._button("Cancel request", "friend-cancel", () => this.act("DELETE", `/api/me/friends/requests/${id(p)}`), "ghost"),
      ]));
    }
    for (const p of d.blocked) {
      list.append(this._row(p, "blocked", [this._button("Unblock", "friend-unblock", () => this.act("DELETE", `/api/me/blocks/${id(p)}`), "ghost")]));
    }
    box.append(list);
    box.append(this._button("Refresh", "friends-refresh", () => this.refresh(), "ghost"));
  }
}
