// An event's public page (docs/tournaments.md, "The events pages"): what it is, its notices, the
// standings (live while a round plays), every round's tables with a link to watch the live ones in
// the table view, and the wall commitments (the seeds once the round is over).

import { fill, grid, h, standingsRows, tableLink, windName } from "./eventkit.js";

function describe(event) {
  const s = event.settings;
  const parts = [
    event.status,
    `${event.rounds.filter((r) => r.status === "finished").length} of ${s.rounds} rounds played`,
    `${event.entrants.filter((e) => e.status === "entered").length} entrants`,
    `standings by ${s.formula}${s.best_n ? ` (best ${s.best_n})` : ""}`,
    s.duplicate === "off" ? "own walls at every table" : `duplicate walls (${s.duplicate})`,
    `seating: ${s.seating}`,
  ];
  return parts.join(" · ");
}

/** The hand a live table plays, from the hub's /tables/live line ("East 2, 1 honba"). */
export function handText(line) {
  const r = line?.round;
  if (!r) return "starting";
  const wind = ["East", "South", "West", "North"][r.round_wind] ?? String(r.round_wind);
  return `${wind} ${r.kyoku + 1}${r.honba ? `, ${r.honba} honba` : ""}`;
}

/** An entrant's adjustments in the formula's unit as the totals show it (points: tenths). */
export function adjustText(amount, formula) {
  if (!amount) return "0";
  if (formula === "placements") return String(amount);
  return `${amount > 0 ? "+" : "-"}${(Math.abs(amount) / 10).toFixed(1)}`;
}

/**
 * Fill `view` with the public page. `live`: Map(match id -> the hub's /tables/live line).
 */
export function renderPublic(doc, view, { event, rows, live, location }) {
  const d = doc;
  const names = new Map(event.entrants.map((e) => [e.id, e.name]));
  const name = (id) => names.get(id) ?? id;
  const spectate = event.settings.spectators !== "off" && event.settings.spectators !== "observers";
  const standings = standingsRows(rows, names).map((cells, i) => [...cells, adjustText(rows[i].adjustments ?? 0, event.settings.formula)]);
  fill(view,
    h(d, "h2", { "data-testid": "event-name" }, event.name),
    h(d, "p", { class: "muted", "data-testid": "event-summary" }, describe(event)),
    event.description ? h(d, "p", { class: "event-description" }, event.description) : null,
    event.notices.length
      ? h(d, "section", { class: "card notices" },
          h(d, "h3", {}, "Notices"),
          h(d, "ul", { "data-testid": "event-notices" }, [...event.notices].reverse().map((n) =>
            h(d, "li", {}, h(d, "time", {}, new Date(n.at * 1000).toLocaleString()), " ", n.text))))
      : null,
    h(d, "section", { class: "card" },
      h(d, "h3", {}, event.status === "finished" ? "Final standings" : "Standings"),
      h(d, "div", { class: "scroll", "data-testid": "event-standings" },
        grid(d, ["#", "entrant", "total", "games", "places", "adjusted"], standings, {},
          (i) => ({ "data-testid": "standing-row", "data-entrant": rows[i].name }))),
      h(d, "p", { class: "muted" },
        h(d, "a", { href: `${location.base}/api/events/${encodeURIComponent(event.id)}/standings?format=csv`, "data-testid": "standings-csv" }, "Standings as CSV"))),
    [...event.rounds].reverse().map((r) =>
      h(d, "section", { class: "card", "data-testid": `round-${r.number}` },
        h(d, "h3", {}, `Round ${r.number} (${r.status})`),
        h(d, "div", { class: "scroll" },
          grid(d, ["#", "seats", "game", ""], r.tables.map((t) => {
            const line = t.match_id ? live.get(t.match_id) : null;
            let state = "";
            if (r.status === "running" && t.match_id) state = line ? `live: ${handText(line)}` : "over";
            const watch = r.status === "running" && t.match_id && spectate && line
              ? h(d, "a", { class: "button-link", href: tableLink("watch", t.match_id, location), "data-testid": `watch-${t.index}` }, "Watch")
              : state === "over" || r.status === "finished" ? "" : null;
            return [
              String(t.index),
              h(d, "span", {}, t.entrants.map((e, seat) => h(d, "span", { class: "seat" }, `${windName(seat)}: ${name(e)}`, t.substitutes?.includes(seat) ? " (substitute)" : ""))),
              t.match_id ?? "not started",
              h(d, "span", {}, state ? h(d, "span", { class: "muted", "data-testid": `table-state-${t.index}` }, state) : null, " ", watch),
            ];
          }), { "data-testid": `round-${r.number}-tables` })),
        r.sets.length
          ? h(d, "details", { class: "walls" },
              h(d, "summary", {}, r.sets.some((s) => s.seed_hex) ? "Walls: seeds revealed" : "Walls: committed (seeds revealed when the round ends)"),
              h(d, "ul", {}, r.sets.map((s) =>
                h(d, "li", {}, h(d, "code", {}, s.set_id), ` tables ${s.tables.join(", ")}: `,
                  s.seed_hex ? ["seed ", h(d, "code", { "data-testid": "seed" }, s.seed_hex)] : ["commitment ", h(d, "code", {}, s.seed_commitment)]))))
          : null,
      ),
    ),
  );
  view.hidden = false;
}
