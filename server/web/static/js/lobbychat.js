// The lobby's chat card (docs/social.md, "Lobby chat"; docs/protocol.md "lobby_join", "lobby_say",
// "report"): a channel (General, or a room's), its last lines on join, a line box, the stamps, and a
// Report button on every other player's line (and Mute on a registered one's: mutes.js). Every name
// and line is inserted as text (a text node), never as markup.

import { STAMPS, MAX_TEXT, muteButton } from "./chat.js";

const KEEP = 100; // lines kept in the log
const CHANNELS = [
  { id: "general", label: "General" },
  { id: "queue:tenhou", label: "Quick match (Tenhou rules)" },
  { id: "queue:mahjongsoul", label: "Quick match (Mahjong Soul rules)" },
];

function timeOf(at) {
  const d = new Date(at * 1000);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

export class LobbyChat {
  /**
   * doc: the page; conn: the connection (send, nextRequestId); ask(question): the reason for a
   * report; mutes: the page's mutes (mutes.js), if any.
   */
  constructor({ doc, conn, ask, toast, mutes }) {
    this.doc = doc;
    this.conn = conn;
    this.mutes = mutes ?? null;
    mutes?.listen(() => {
      for (const item of this.$log?.children ?? []) item.hidden = mutes.has(item.dataset.account);
    });
    this.ask = ask ?? ((question) => globalThis.prompt?.(question) ?? null);
    this.toast = toast ?? (() => {});
    this.box = doc.getElementById("lobby-chat");
    this.channel = "general";
    this.player = null;
    this.seen = new Set(); // line ids shown (a line may come in the history and live)
    this.joined = false;
    if (this.box) this._build();
  }

  _el(tag, attrs = {}, text = null) {
    const el = this.doc.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "testid") el.dataset.testid = v;
      else el.setAttribute(k, v);
    }
    if (text !== null) el.textContent = text;
    return el;
  }

  _build() {
    const title = this._el("h2", {}, "Lobby chat");
    const select = this._el("select", { id: "lobby-chat-channel", testid: "lobby-chat-channel", "aria-label": "Channel" });
    for (const c of CHANNELS) select.append(this._el("option", { value: c.id }, c.label));
    select.addEventListener("change", () => this.switchTo(select.value));
    const log = this._el("ul", { id: "lobby-chat-log", class: "chat-log lobby-chat-log", testid: "lobby-chat-log", "aria-live": "polite" });
    const stamps = this._el("div", { class: "chat-stamps lobby-chat-stamps" });
    for (const stamp of STAMPS) {
      const b = this._el("button", { type: "button", class: "stamp", title: stamp.label, "aria-label": stamp.label, testid: `lobby-stamp-${stamp.id}` });
      const face = this._el("span", { class: "stamp-face" }, stamp.face);
      face.style.setProperty("--hue", String(stamp.hue));
      b.append(face);
      b.addEventListener("click", () => this.say({ stamp: stamp.id }));
      stamps.append(b);
    }
    const form = this._el("form", { class: "lobby-chat-form", id: "form-lobby-chat" });
    const input = this._el("input", { id: "lobby-chat-text", testid: "lobby-chat-text", maxlength: String(MAX_TEXT), autocomplete: "off", placeholder: "Say something to the lobby", "aria-label": "Message" });
    const send = this._el("button", { type: "submit", testid: "lobby-chat-send" }, "Send");
    form.append(input, send);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      this.say({ text: text.slice(0, 1000) });
      input.value = "";
    });
    const head = this._el("div", { class: "lobby-chat-head" });
    head.append(title, select);
    this.box.replaceChildren(head, log, stamps, form);
    this.$log = log;
  }

  /** Every welcome (a reconnection too): follow the channel again; its history comes back. */
  onWelcome(player) {
    this.player = player;
    this.joined = false;
    this.conn.send({ type: "lobby_join", channel: this.channel, request_id: this.conn.nextRequestId() });
  }

  switchTo(channel) {
    if (channel === this.channel) return;
    this.conn.send({ type: "lobby_leave", channel: this.channel, request_id: this.conn.nextRequestId() });
    this.channel = channel;
    this.$log?.replaceChildren();
    this.seen.clear();
    this.conn.send({ type: "lobby_join", channel, request_id: this.conn.nextRequestId() });
  }

  say({ text, stamp }) {
    const message = { type: "lobby_say", channel: this.channel, request_id: this.conn.nextRequestId() };
    if (stamp) message.stamp = stamp;
    else message.text = text;
    this.conn.send(message);
  }

  report(line) {
    const reason = this.ask(`Report ${line.name}'s line to the moderators? Say why:`);
    if (reason === null || reason === undefined || !String(reason).trim()) return;
    this.conn.send({
      type: "report",
      account_id: line.account_id,
      reason: String(reason).trim().slice(0, 1000),
      line: { place: "lobby", id: line.id },
      request_id: this.conn.nextRequestId(),
    });
  }

  /** A server message: true when it was lobby chat's. */
  handle(message) {
    switch (message.type) {
      case "lobby_history":
        if (message.channel !== this.channel) return true;
        this.joined = true;
        this.$log?.replaceChildren();
        this.seen.clear();
        for (const line of message.lines) this.add(line);
        return true;
      case "lobby_line":
        if (message.channel === this.channel) this.add(message);
        return true;
      case "lobby_left":
        return true;
      case "reported":
        this.toast("Thank you: the report was sent to the moderators");
        return true;
      default:
        return false;
    }
  }

  add(line) {
    if (!this.$log || this.seen.has(line.id) || this.mutes?.has(line.account_id)) return;
    this.seen.add(line.id);
    const item = this._el("li", { class: `chat-line lobby-line${line.stamp ? " stamp-line" : ""}`, testid: "lobby-chat-line" });
    item.dataset.account = line.account_id;
    const when = this._el("span", { class: "chat-when" }, timeOf(line.at));
    const who = this._el("span", { class: "chat-who" }, line.name);
    const stamp = STAMPS.find((s) => s.id === line.stamp);
    const what = this._el("span", { class: "chat-what" }, stamp ? stamp.label : (line.text ?? ""));
    item.append(when, who);
    if (stamp) {
      const face = this._el("span", { class: "stamp-face" }, stamp.face);
      face.style.setProperty("--hue", String(stamp.hue));
      item.append(face);
    }
    item.append(what);
    if (this.player && line.account_id !== this.player.id) {
      const flag = this._el("button", { type: "button", class: "chat-report", title: "Report this line", "aria-label": `Report ${line.name}'s line`, testid: "lobby-chat-report" }, "Report");
      flag.addEventListener("click", () => this.report(line));
      item.append(flag);
    }
    if (this.mutes?.canMute(line.account_id)) item.append(muteButton(this.doc, this.mutes, line.account_id, line.name));
    this.$log.append(item);
    while (this.$log.childElementCount > KEEP) this.$log.firstElementChild.remove();
    this.$log.scrollTop = this.$log.scrollHeight;
  }
}
