// The lobby's Friends card (docs/social.md, "HTTP API", "Presence", "Invitations"): friends with
// where they are (a dot, kept live by the hub's `presence` messages), requests both ways, the
// players this account blocked or muted; add a friend by name, accept, decline, remove, block,
// unblock, unmute (a mute is made from a chat line: mutes.js, which this card keeps up to date);
// invite a friend to the private table this page waits at; watch a friend's table; hide one's own
// presence. Invitations received show as cards with Join. It speaks to /api/me/friends... with the
// session token the page plays with, and to the hub through the page's connection (`app`). Every
// name is inserted as text.

import { accountErrorText, apiBase } from "./ranked.js";

const TOKEN_KEY = "jantaku.session_token";
const PRESENCE = { lobby: "in the lobby", at_table: "at a table", online: "online", offline: "offline" };
const MAX_INVITES = 5; // invitation cards kept (the newest)

export class Friends {
  constructor({ doc, storage, location, fetch, app, mutes }) {
    this.app = app ?? null; // the page's App: its connection, its private table, joining and watching
    this.mutes = mutes ?? null; // the page's mutes (mutes.js): told who is muted on every read
    this.invites = []; // invitations received: {account_id, name, code, preset}
    this.hidden = false; // this player's own setting: friends see them offline
    this.doc = doc;
    this.storage = storage;
    this.fetch = fetch ?? ((...args) => globalThis.fetch(...args));
    this.base = apiBase(location);
    this.box = doc.getElementById("friends");
    this.player = null;
    this.data = null; // the answer of GET /api/me/friends
    this.error = "";
    this.drawnFor = null; // the table code the Invite buttons were drawn for
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
      this.mutes?.replace([]); // a guest mutes nobody
      this.render();
      return;
    }
    try {
      this.data = await this.call("GET", "/api/me/friends");
      this.mutes?.replace((this.data?.muted ?? []).map((p) => p.account_id));
      this.hidden = Boolean((await this.call("GET", "/api/me/social/settings"))?.hide_presence);
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

  /** A friends' message from the hub (presence, invited, invite_sent, friends_changed). */
  handle(message) {
    switch (message.type) {
      case "presence": {
        const friend = this.data?.friends.find((p) => p.account_id === message.account_id);
        if (!friend) return;
        friend.presence = message.presence;
        friend.match_id = message.match_id ?? null;
        friend.watching = Boolean(message.watching);
        break;
      }
      case "invited":
        this.invites = [message, ...this.invites.filter((i) => i.code !== message.code)].slice(0, MAX_INVITES);
        this.app?.toast(`${message.name} invites you to a private table`);
        break;
      case "invite_sent":
        this.app?.toast("Invitation sent");
        return;
      case "friends_changed":
        this.refresh();
        return;
      default:
        return;
    }
    this.render();
  }

  /** The code of the private table this page opened or waits at (an invitation can name it). */
  get tableCode() {
    const app = this.app;
    if (!app || app.match) return null;
    if (app.invite?.code) return app.invite.code;
    return app.privateWaiting && app.lastJoin?.kind === "private" ? app.lastJoin.code : null;
  }

  /** Draw the card again when the private table this page waits at changed (Invite buttons). */
  renderIfInviting() {
    const code = this.tableCode;
    if (code === this.drawnFor) return;
    this.render();
  }

  invite(person) {
    const code = this.tableCode;
    if (code && this.app) this.app.conn.invite(person.account_id, code);
  }

  join(invitation) {
    this.invites = this.invites.filter((i) => i !== invitation);
    this.app?.joinPrivate(invitation.code);
    this.render();
  }

  async setHidden(hidden) {
    try {
      const answer = await this.call("PUT", "/api/me/social/settings", { hide_presence: hidden });
      this.hidden = Boolean(answer?.hide_presence);
      this.error = "";
    } catch (exc) {
      this.error = exc.message;
    }
    this.render();
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

  _label(text) {
    const label = this.doc.createElement("span");
    label.className = "presence";
    label.textContent = text;
    return label;
  }

  _row(person, state, buttons) {
    const row = this.doc.createElement("li");
    row.className = "friend";
    row.dataset.testid = `friend-${state}`;
    row.dataset.name = person.name;
    const name = this.doc.createElement("span");
    name.className = "friend-name";
    name.textContent = person.name;
    if (person.presence) {
      const dot = this.doc.createElement("span");
      dot.className = `presence-dot presence-dot-${person.presence}`;
      dot.dataset.testid = "presence-dot";
      dot.setAttribute("aria-hidden", "true");
      row.append(dot);
    }
    row.append(name);
    if (person.presence) {
      const where = this.doc.createElement("span");
      where.className = `presence presence-${person.presence}`;
      where.dataset.testid = "presence";
      let text = PRESENCE[person.presence] ?? person.presence;
      if (person.presence === "at_table") text = person.watching ? "watching a table" : "playing";
      where.textContent = text;
      row.append(where);
    }
    row.append(...buttons);
    return row;
  }

  render() {
    const box = this.box;
    this.drawnFor = this.tableCode;
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
    for (const invitation of this.invites) {
      const card = this.doc.createElement("div");
      card.className = "friend-invite";
      card.dataset.testid = "friend-invite";
      const text = this.doc.createElement("span");
      text.textContent = `${invitation.name} invites you to a private table (${invitation.preset})`;
      card.append(
        text,
        this._button("Join", "invite-join", () => this.join(invitation)),
        this._button("Dismiss", "invite-dismiss", () => {
          this.invites = this.invites.filter((i) => i !== invitation);
          this.render();
        }, "ghost"),
      );
      box.append(card);
    }
    const d = this.data;
    if (!d) return;
    const hide = this.doc.createElement("label");
    hide.className = "friend-hide";
    const check = this.doc.createElement("input");
    check.type = "checkbox";
    check.checked = this.hidden;
    check.dataset.testid = "hide-presence";
    check.addEventListener("change", () => this.setHidden(check.checked));
    hide.append(check, " Appear offline to my friends");
    box.append(hide);
    const tableCode = this.drawnFor;
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
      const extra = [];
      if (p.match_id && p.match_id !== this.app?.match?.id) {
        extra.push(this._button("Watch", "friend-watch", () => this.app?.spectate(p.match_id)));
      }
      if (tableCode && p.presence && p.presence !== "offline") {
        extra.push(this._button("Invite", "friend-invite-send", () => this.invite(p)));
      }
      list.append(this._row(p, "friend", [
        ...extra,
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
    for (const p of d.muted ?? []) {
      list.append(this._row({ ...p, presence: null }, "muted", [
        this._label("muted"),
        this._button("Unmute", "friend-unmute", () => this.act("DELETE", `/api/me/mutes/${id(p)}`), "ghost"),
      ]));
    }
    box.append(list);
    box.append(this._button("Refresh", "friends-refresh", () => this.refresh(), "ghost"));
  }
}
