// Muting another player from a chat line (docs/social.md, "Mutes"): the players this account muted,
// changed with PUT / DELETE /api/me/mutes/{account_id} with the session token the page plays with
// (the API at `?api=`, like friends.js). From then on the server delivers none of their lines; the
// chat views hide the lines of theirs they show already (they listen here). A refusal is shown as a
// notice, never swallowed.

import { accountErrorText, apiBase } from "./ranked.js";

const TOKEN_KEY = "jantaku.session_token";

export class Mutes {
  /** storage: the page's (its session token); fetch: for the API; toast(text): a short notice. */
  constructor({ storage, location, fetch, toast }) {
    this.storage = storage;
    this.fetch = fetch ?? ((...args) => globalThis.fetch(...args));
    this.base = apiBase(location);
    this.toast = toast ?? (() => {});
    this.player = null;
    this.ids = new Set(); // the account ids this player muted (as the Friends card last read them)
    this.listeners = []; // called after every change of `ids`
    this.afterChange = null; // called after a mute or unmute made here (the Friends card reads again)
  }

  get token() {
    return this.storage?.getItem(TOKEN_KEY) ?? null;
  }

  onWelcome(player) {
    this.player = player;
  }

  /** A signed-in player may mute another registered player's line (a guest's has nothing to mute by). */
  canMute(accountId) {
    const me = this.player;
    if (!me || me.kind === "guest" || !this.token) return false;
    return typeof accountId === "string" && accountId !== "" && accountId !== me.id && !accountId.startsWith("g-");
  }

  has(accountId) {
    return typeof accountId === "string" && this.ids.has(accountId);
  }

  listen(callback) {
    this.listeners.push(callback);
  }

  /** The muted players as the server lists them (GET /api/me/friends, "muted"). */
  replace(accountIds) {
    this.ids = new Set(accountIds);
    for (const callback of this.listeners) callback();
  }

  /** Mute (`on`) or unmute `accountId` (`name` for the notices); true when the server agreed. */
  async set(accountId, name, on = true) {
    const headers = this.token ? { Authorization: `Bearer ${this.token}` } : {};
    const path = `/api/me/mutes/${encodeURIComponent(accountId)}`;
    try {
      const response = await this.fetch(`${this.base}${path}`, { method: on ? "PUT" : "DELETE", headers });
      if (!response.ok) throw new Error(accountErrorText(await response.json().catch(() => null), response.status));
    } catch (exc) {
      this.toast(`Could not ${on ? "mute" : "unmute"} ${name}: ${exc.message}`);
      return false;
    }
    const ids = new Set(this.ids);
    if (on) ids.add(accountId);
    else ids.delete(accountId);
    this.replace(ids);
    this.toast(on ? `${name} is muted: their lines are hidden (unmute in Friends)` : `${name} is unmuted`);
    this.afterChange?.();
    return true;
  }
}
