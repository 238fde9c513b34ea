// Chat and stamps at the table (docs/social.md, docs/protocol.md "chat" and "stamp"): the panel
// opened by the topbar's Chat button, its stamp buttons, the line box and the log. Every line a
// player wrote is inserted as text (a text node), never as markup: the server passes text on as
// it was typed (normalised, never interpreted), so showing it safely is this page's job. A line from
// another registered player has a Mute button (mutes.js); a muted player's lines are hidden.

/**
 * The stamps, in the server's order, each drawn as a short coloured badge (text and CSS only, so
 * it looks the same on every system, with or without an emoji font).
 */
export const STAMPS = [
  { id: "hello", face: "Hi!", label: "Hello", hue: 200 },
  { id: "good_luck", face: "GL", label: "Good luck", hue: 140 },
  { id: "thanks", face: "Thx", label: "Thanks", hue: 170 },
  { id: "nice", face: "Nice!", label: "Nice", hue: 110 },
  { id: "sorry", face: "Sorry", label: "Sorry", hue: 260 },
  { id: "wow", face: "Wow!", label: "Wow", hue: 45 },
  { id: "thinking", face: "Hmm…", label: "Thinking", hue: 230 },
  { id: "hurry", face: "Hurry", label: "Hurry", hue: 20 },
  { id: "laugh", face: "LOL", label: "Laugh", hue: 60 },
  { id: "cry", face: "T_T", label: "Cry", hue: 210 },
  { id: "angry", face: "Grr", label: "Angry", hue: 0 },
  { id: "gg", face: "GG", label: "Good game", hue: 280 },
];

export const MAX_TEXT = 200; // the server's cap after normalisation
const KEEP = 100; // lines kept in the log

/** Who said it, as shown: the seat's player name (or "seat N"), or the spectator's name. */
export function speaker(message, players) {
  if (message.role === "seated" && Number.isInteger(message.from)) {
    const name = players?.[message.from]?.name ?? message.name ?? `seat ${message.from + 1}`;
    return name;
  }
  return `${message.name ?? message.from} (watching)`;
}

/** What the line says, as plain text: the text, or the stamp's name. */
export function lineText(message) {
  if (typeof message.stamp === "string") {
    const stamp = STAMPS.find((s) => s.id === message.stamp);
    return stamp ? stamp.label : message.stamp;
  }
  return typeof message.text === "string" ? message.text : "";
}

function stampBadge(doc, stamp) {
  const badge = doc.createElement("span");
  badge.className = "stamp-face";
  badge.style.setProperty("--hue", String(stamp.hue));
  badge.textContent = stamp.face;
  return badge;
}

/** A line's Mute button (shared with the lobby's chat): mutes its sender through `mutes`. */
export function muteButton(doc, mutes, accountId, name) {
  const button = doc.createElement("button");
  button.type = "button";
  button.className = "chat-mute";
  button.dataset.testid = "chat-mute";
  button.title = `Mute ${name}: hide their lines`;
  button.setAttribute("aria-label", `Mute ${name}`);
  button.textContent = "Mute";
  button.addEventListener("click", () => mutes.set(accountId, name, true));
  return button;
}

export class ChatPanel {
  /**
   * doc: the page; conn: the connection (chat(text), stamp(id)); toast(text): a short notice while
   * the panel is closed.
   */
  constructor({ doc, conn, toast }) {
    this.doc = doc;
    this.conn = conn;
    this.toast = toast;
    this.open = false;
    this.unread = 0;
    this.$ = (id) => doc.getElementById(id);
    this._build();
  }

  _build() {
    const $ = this.$;
    const stamps = $("chat-stamps");
    for (const stamp of STAMPS) {
      const button = this.doc.createElement("button");
      button.type = "button";
      button.className = "stamp";
      button.dataset.testid = `stamp-${stamp.id}`;
      button.title = stamp.label;
      button.setAttribute("aria-label", stamp.label);
      button.append(stampBadge(this.doc, stamp));
      button.addEventListener("click", () => this.conn.stamp(stamp.id));
      stamps.append(button);
    }
    $("btn-chat").addEventListener("click", () => this.toggle());
    $("btn-chat-close").addEventListener("click", () => this.toggle(false));
    $("form-chat").addEventListener("submit", (e) => {
      e.preventDefault();
      this.send();
    });
  }

  send() {
    const input = this.$("chat-text");
    const text = input.value.trim();
    if (!text) return;
    this.conn.chat(text.slice(0, 1000));
    input.value = "";
  }

  toggle(force) {
    this.open = force ?? !this.open;
    this.$("chat").hidden = !this.open;
    this.$("btn-chat").setAttribute("aria-expanded", String(this.open));
    if (this.open) {
      this.unread = 0;
      this.$("chat-text").focus?.();
    }
    this._badge();
  }

  /** A table is shown (or none, with `atTable` false): the button, and a fresh log per match. */
  show(atTable, matchId) {
    this.$("btn-chat").hidden = !atTable;
    if (!atTable && this.open) this.toggle(false);
    if (matchId !== this.matchId) {
      this.matchId = matchId;
      this.$("chat-log").replaceChildren();
      this.unread = 0;
      this._badge();
    }
  }

  /** Report a line to the moderators (docs/social.md, "Reports"): its sender is the one reported. */
  report(message) {
    const reason = (this.ask ?? ((q) => globalThis.prompt?.(q) ?? null))(`Report ${message.name}'s line to the moderators? Say why:`);
    if (reason === null || reason === undefined || !String(reason).trim()) return;
    this.conn.send({ type: "report", reason: String(reason).trim().slice(0, 1000), line: { place: "table", id: message.id }, request_id: this.conn.nextRequestId() });
  }

  /** Follow `mutes` (mutes.js): a Mute button on other players' lines, their lines hidden once muted. */
  useMutes(mutes) {
    this.mutes = mutes;
    mutes.listen(() => {
      for (const item of this.$("chat-log").children) item.hidden = mutes.has(item.dataset.account);
    });
  }

  /** A `chat` message from the server (`me`: this player's name: no Report button on its own lines). */
  add(message, players, me) {
    if (message.match_id !== this.matchId) return;
    if (this.mutes?.has(message.account_id)) return; // sent before the server heard of the mute
    const log = this.$("chat-log");
    const item = this.doc.createElement("li");
    item.className = `chat-line ${message.role === "spectator" ? "from-spectator" : "from-seat"}${message.stamp ? " stamp-line" : ""}`;
    item.dataset.testid = "chat-line";
    if (typeof message.account_id === "string") item.dataset.account = message.account_id;
    const who = this.doc.createElement("span");
    who.className = "chat-who";
    who.textContent = speaker(message, players);
    const what = this.doc.createElement("span");
    what.className = "chat-what";
    what.textContent = lineText(message); // as text, never as markup
    const stamp = STAMPS.find((s) => s.id === message.stamp);
    item.append(who, ...(stamp ? [stampBadge(this.doc, stamp)] : []), what);
    if (Number.isInteger(message.id) && message.name !== me && typeof this.conn.nextRequestId === "function") {
      const flag = this.doc.createElement("button");
      flag.type = "button";
      flag.className = "chat-report";
      flag.dataset.testid = "chat-report";
      flag.title = "Report this line";
      flag.textContent = "Report";
      flag.addEventListener("click", () => this.report(message));
      item.append(flag);
    }
    if (this.mutes?.canMute(message.account_id)) item.append(muteButton(this.doc, this.mutes, message.account_id, message.name));
    log.append(item);
    while (log.childElementCount > KEEP) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
    if (!this.open) {
      this.unread += 1;
      this._badge();
      this.toast?.(`${who.textContent}: ${what.textContent}`);
    }
  }

  _badge() {
    const badge = this.$("chat-unread");
    badge.textContent = this.unread ? String(this.unread) : "";
    badge.hidden = !this.unread;
  }
}
