// The lobby's changing parts: the quick-match wait, a private table being filled (its invite code,
// link and how many players are still missing) and the list of live tables to watch.

import { el } from "./render.js";
import { roundLabel } from "./actions.js";

/** What a private table's `chat` (GET /private/new's answer) lets its seated players write. */
const CHAT_LABELS = { on: "on", between_hands: "between hands (stamps during a hand)", off: "stamps only" };

/** The page's own URL with ?invite=CODE: opening it joins that private table. */
export function inviteLink(location, code) {
  try {
    const url = new URL(location.href);
    url.searchParams.set("invite", code);
    url.hash = "";
    return url.toString();
  } catch {
    return `?invite=${encodeURIComponent(code)}`;
  }
}

/** The invite code in the page's URL (?invite=CODE), or null. */
export function inviteFromLocation(location) {
  try {
    const code = new URLSearchParams(location?.search ?? "").get("invite");
    return code && code.trim() ? code.trim() : null;
  } catch {
    return null;
  }
}

/** How many more players a private table needs, the creator counted once they have joined. */
export function missingPlayers(invite, waiting) {
  const needed = Number(invite?.players_needed ?? 0);
  const seated = Math.max(1, Number(waiting?.players_waiting ?? 0));
  return Math.max(0, needed - seated);
}

export function renderQueue(box, app, handlers) {
  const queued = app.queued;
  if (!queued) {
    box.replaceChildren();
    return;
  }
  const parts = [
    el("p", { className: "queued", "data-testid": "queued" }, `Waiting for players (${queued.preset}): ${queued.players_waiting} at the table…`),
  ];
  if (String(queued.preset).startsWith("ranked:")) {
    parts.push(el("p", { className: "hint", "data-testid": "ranked-wait" }, `A ranked table waits for ${String(queued.preset).startsWith("ranked:sanma-") ? "three" : "four"} players: no bots fill it.`));
  }
  parts.push(el("button", { type: "button", className: "ghost", "data-testid": "cancel-queue", onclick: () => handlers.onCancel() }, "Stop waiting"));
  box.replaceChildren(...parts);
}

export function renderPrivate(box, app, handlers) {
  const invite = app.invite;
  const waiting = app.privateWaiting;
  const parts = [];
  if (invite) {
    const missing = missingPlayers(invite, waiting);
    parts.push(
      el(
        "p",
        { className: "invite", "data-testid": "invite-code" },
        "Invite code ",
        el("code", {}, invite.code),
        missing > 0 ? ` — waiting for ${missing} more player${missing === 1 ? "" : "s"}` : " — starting…",
      ),
      ...(Object.hasOwn(CHAT_LABELS, invite.chat ?? "") ? [el("p", { className: "invite-chat", "data-testid": "invite-chat" }, `Chat: ${CHAT_LABELS[invite.chat]}`)] : []),
      el(
        "div",
        { className: "invite-link" },
        el("input", { id: "invite-link", "data-testid": "invite-link", readonly: true, value: invite.link, "aria-label": "Invite link" }),
        el("button", { type: "button", "data-testid": "copy-invite", onclick: () => handlers.onCopy() }, "Copy link"),
      ),
    );
  } else if (waiting) {
    parts.push(el("p", { className: "invite", "data-testid": "private-waiting" }, `At the private table: ${waiting.players_waiting} player${waiting.players_waiting === 1 ? "" : "s"} waiting…`));
  }
  if (waiting) {
    parts.push(el("button", { type: "button", className: "ghost", "data-testid": "cancel-private", onclick: () => handlers.onCancel() }, "Stop waiting"));
  }
  box.replaceChildren(...parts);
  // `value` as an attribute only sets the default: keep the box showing the current link.
  const input = box.querySelector("input");
  if (input && invite) input.value = invite.link;
}

function tableLine(table) {
  const names = (table.players ?? []).map((p) => (p?.kind === "bot" ? `${p.name} (bot)` : p?.name ?? "?"));
  const round = table.round ? `${roundLabel(table.round)}${table.round.honba ? `, ${table.round.honba} honba` : ""}` : "starting";
  const rules = [table.ruleset ?? table.preset, table.game_length === "east" ? "east only" : null].filter(Boolean).join(", ");
  const watchers = Number(table.spectators ?? 0);
  return { names: names.join(" · "), detail: `${rules ? `${rules} · ` : ""}${round} · ${watchers} watching` };
}

/** The live tables (GET /tables/live); hidden while the hub has no such list or no table. */
export function renderLiveTables(box, app, handlers) {
  const { state, tables } = app.live;
  if (state !== "shown") {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  if (tables.length === 0) {
    box.hidden = false;
    box.replaceChildren(el("p", { className: "hint", "data-testid": "no-live-tables" }, "No table is being played right now."));
    return;
  }
  box.hidden = false;
  box.replaceChildren(
    el("h3", {}, "Live tables"),
    el(
      "ul",
      { className: "live-list" },
      tables.map((table) => {
        const line = tableLine(table);
        return el(
          "li",
          { "data-testid": "live-table", "data-match": table.match_id },
          el("div", { className: "live-text" }, el("div", { className: "live-names" }, line.names), el("div", { className: "hint" }, line.detail)),
          el("button", { type: "button", "data-testid": "watch-table", onclick: () => handlers.onWatch(table.match_id) }, "Watch"),
        );
      }),
    ),
  );
}
