// Links into the main page from elsewhere (the events page, docs/tournaments.md): `?play=MATCH`
// takes the signed-in player to their seat at that table, `?watch=MATCH` watches it. And the
// notice that a table is paused (the hub's `busy_retry` error that says so, docs/protocol.md):
// while it shows, the page's clock stands still, as the server's does.

/** {play, watch} from the page's address (each a match id or null). */
export function deepLinkFromLocation(location) {
  try {
    const params = new URLSearchParams(location?.search ?? "");
    const pick = (name) => {
      const value = (params.get(name) ?? "").trim();
      return /^[A-Za-z0-9:._-]{1,100}$/.test(value) ? value : null;
    };
    return { play: pick("play"), watch: pick("watch") };
  } catch {
    return { play: null, watch: null };
  }
}

/** Drop `play` and `watch` from the address bar (a reload does not follow the link again). */
export function forgetDeepLink(location) {
  try {
    const url = new URL(location.href);
    url.searchParams.delete("play");
    url.searchParams.delete("watch");
    globalThis.history?.replaceState(null, "", url.toString());
  } catch {
    // not a browser page (tests)
  }
}

/** Whether a server error tells that the table was paused (the clocks stopped). */
export function isPauseNotice(message) {
  return message?.code === "busy_retry" && /the table is paused/.test(String(message.message ?? ""));
}
