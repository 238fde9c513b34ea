// The organizer's pages (docs/tournaments.md, "The events pages"): the form that creates an event,
// and on an event's page the organizer's panel: entrants (add bots, drop; suspended ones marked),
// check-in, seat the next round (optionally from a script), start it, pause and resume a table or
// every table, end a table early, adjust a score (a penalty, with a reason), send a notice, finish
// the round (the last one closes the event), name a co-organizer, and the audit log. Every action
// goes through the events HTTP API; the reason typed in the panel is kept in the event's log with it.

import { currentRound, fill, grid, h, windName } from "./eventkit.js";

const SELECTS = {
  ruleset: ["tenhou", "mahjongsoul", "ema"],
  entry: ["open", "invite"],
  seating: ["random", "standings", "scripted"],
  duplicate: ["off", "round", "sets"],
  formula: ["points", "placements", "best_consecutive", "teams"],
  spectators: ["delayed", "off", "observers"],
};

/** An entrant's status in the organizer's list: a moderator's suspension is shown (the API says it to
 * the event's organizers only; a suspended entrant is not seated in a round seated while it runs). */
export function entrantStatus(e) {
  return e.suspended ? `${e.status}, suspended` : e.status;
}

/** The settings the create form describes, or throws an Error naming what is wrong. */
export function settingsFromForm(values) {
  const out = { name: String(values.name ?? "").trim(), rounds: Number(values.rounds) };
  const description = String(values.description ?? "").trim();
  if (description) out.description = description;
  for (const key of Object.keys(SELECTS)) if (values[key]) out[key] = values[key];
  for (const key of ["cap", "spectate_delay_s", "action_ms", "bank_ms", "max_meetings", "set_size", "best_n"]) {
    if (String(values[key] ?? "").trim() !== "") out[key] = Number(values[key]);
  }
  out.checkin = Boolean(values.checkin);
  out.guests = Boolean(values.guests);
  if (String(values.extra ?? "").trim()) {
    let extra;
    try {
      extra = JSON.parse(values.extra);
    } catch (err) {
      throw new Error(`more settings: not JSON (${err.message})`);
    }
    if (!extra || typeof extra !== "object" || Array.isArray(extra)) throw new Error("more settings: a JSON object, please");
    Object.assign(out, extra);
  }
  return out;
}

function field(d, label, control) {
  return h(d, "label", { class: "field" }, h(d, "span", {}, label), control);
}

/** The create form (shown to signed-in players on the list; the API refuses non-organizers). */
export function renderCreate(doc, box, { create }) {
  const d = doc;
  const input = (name, attrs = {}) => h(d, "input", { name, "data-testid": `create-${name}`, ...attrs });
  const select = (name) => h(d, "select", { name, "data-testid": `create-${name}` }, SELECTS[name].map((v) => h(d, "option", { value: v }, v)));
  const form = h(d, "form", { class: "card create-event", "data-testid": "create-form" },
    h(d, "h3", {}, "Create an event (organizers)"),
    h(d, "div", { class: "fields" },
      field(d, "Name", input("name", { required: true, maxlength: 100, placeholder: "Club night" })),
      field(d, "Rounds", input("rounds", { type: "number", min: 1, max: 100, value: 3 })),
      field(d, "Ruleset", select("ruleset")),
      field(d, "Entry", select("entry")),
      field(d, "Cap (empty: none)", input("cap", { type: "number", min: 1 })),
      field(d, "Seating", select("seating")),
      field(d, "Duplicate walls", select("duplicate")),
      field(d, "Standings", select("formula")),
      field(d, "Spectators", select("spectators")),
      field(d, "Time per decision (ms)", input("action_ms", { type: "number", min: 0, placeholder: "the server's" })),
      field(d, "Time bank (ms)", input("bank_ms", { type: "number", min: 0, placeholder: "the server's" })),
      field(d, "Check-in before each round", input("checkin", { type: "checkbox" })),
      field(d, "Guests may enter", input("guests", { type: "checkbox" })),
    ),
    field(d, "Description", h(d, "textarea", { name: "description", rows: 2, maxlength: 4000, "data-testid": "create-description" })),
    field(d, "More settings as JSON (e.g. a custom ruleset_json, invited, teams, best_n)",
      h(d, "textarea", { name: "extra", rows: 3, spellcheck: "false", "data-testid": "create-extra", placeholder: '{"max_meetings": 1}' })),
    h(d, "button", { type: "submit", class: "primary", "data-testid": "create-event" }, "Create"),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const values = Object.fromEntries(data.entries());
    values.checkin = data.has("checkin");
    values.guests = data.has("guests");
    create(values);
  });
  box.append(form);
}

/** Keep what the organizer typed across a redraw of the panel. */
function typed(box) {
  return new Map([...box.querySelectorAll("input[name], textarea[name], select[name]")].map((x) => [x.name, x.value]));
}

/** Fill the organizer's panel of `event` (`act(path, body)` posts an action, redraws and
 * resolves to whether it was done). */
export function renderOrganizer(doc, box, { event, act, showLog }) {
  const d = doc;
  const kept = typed(box);
  const value = (name) => box.querySelector(`[name="${name}"]`)?.value ?? "";
  const reason = () => value("reason").trim();
  // after an action was done, empty the fields it used (a notice is not sent twice by mistake)
  const clear = (...names) => (done) => {
    if (!done) return;
    for (const name of names) {
      const node = box.querySelector(`[name="${name}"]`);
      if (node) node.value = "";
    }
  };
  const input = (name, attrs = {}) => h(d, "input", { name, "data-testid": `org-${name}`, ...attrs });
  const button = (testid, label, onclick, cls = "") => h(d, "button", { type: "button", class: cls, "data-testid": testid, onclick }, label);
  const s = event.settings;
  const round = currentRound(event);
  const finished = event.rounds.filter((r) => r.status === "finished").length;
  const next = finished + 1;
  const names = new Map(event.entrants.map((e) => [e.id, e.name]));
  const active = event.entrants.filter((e) => e.status === "entered");
  const over = event.status === "finished" || event.status === "cancelled";

  const entrants = grid(d, ["entrant", "kind", "status", `checked in (round ${Math.min(next, s.rounds)})`, ""],
    event.entrants.map((e) => [
      h(d, "span", {}, e.name, " ", h(d, "code", { class: "muted" }, e.id)),
      e.kind,
      e.suspended ? h(d, "strong", { "data-testid": `suspended-${e.id}` }, entrantStatus(e)) : entrantStatus(e),
      !s.checkin || e.kind === "bot" ? "—" : e.checked_in.includes(next) ? "yes" : "no",
      e.status === "entered" && !over
        ? button(`drop-${e.id}`, "Drop", () => act("drop", { entrant: e.id, reason: reason() }), "ghost small")
        : "",
    ]), { "data-testid": "org-entrants" });

  let roundPart;
  if (over) {
    roundPart = h(d, "p", { "data-testid": "org-closed" }, "The event is over: every round was played.");
  } else if (!round) {
    roundPart = h(d, "div", { class: "row" },
      button("org-seat", `Seat round ${next}`, () => act("seat", { reason: reason(), key: `seat-${next}`, script: value("script").trim() || null }), "primary"),
      s.seating === "scripted" || value("script")
        ? h(d, "textarea", { name: "script", rows: 3, placeholder: "the round's tables: one line per table, entrant ids in seat order (or JSON)", "data-testid": "org-script" })
        : null);
  } else if (round.status === "seated") {
    roundPart = h(d, "div", { class: "row" },
      button("org-start", `Start round ${round.number}`, () => act("start", { reason: reason(), key: `start-${round.number}` }), "primary"),
      h(d, "span", { class: "muted" }, `Seated: ${round.tables.length} tables. A no-show may be replaced by a substitute before the start (API or command line).`));
  } else {
    const last = round.number === s.rounds;
    roundPart = h(d, "div", {},
      grid(d, ["#", "seats", "game", ""], round.tables.map((t) => [
        String(t.index),
        t.entrants.map((e, seat) => `${windName(seat)}: ${names.get(e) ?? e}`).join(", "),
        t.match_id ?? "",
        h(d, "span", { class: "row" },
          button(`pause-${t.index}`, "Pause", () => act("pause", { table: t.index, reason: reason() }), "small"),
          button(`resume-${t.index}`, "Resume", () => act("resume", { table: t.index, reason: reason() }), "small"),
          button(`end-${t.index}`, "End early", () => act(`tables/${t.index}/end`, { reason: reason() }), "ghost small")),
      ]), { "data-testid": "org-tables" }),
      h(d, "div", { class: "row" },
        button("org-pause-all", "Pause the round", () => act("pause", { table: null, reason: reason() })),
        button("org-resume-all", "Resume the round", () => act("resume", { table: null, reason: reason() })),
        button("org-finish", last ? `Finish round ${round.number} and close the event` : `Finish round ${round.number}`,
          () => act("finish-round", { reason: reason() }), "primary")));
  }

  fill(box,
    h(d, "h3", {}, "Organizer"),
    field(d, "Reason (kept in the event's log with each action)", input("reason", { placeholder: "why", maxlength: 500 })),
    h(d, "section", {},
      h(d, "h4", {}, `Entrants (${active.length})`),
      h(d, "div", { class: "scroll" }, entrants),
      event.rounds.length === 0
        ? h(d, "div", { class: "row" },
            input("bots", { type: "number", min: 1, max: 64, placeholder: "how many", class: "narrow" }),
            button("org-add-bots", "Add built-in bots", () => act("bots", { count: Number(value("bots") || 1), reason: reason() })))
        : null),
    h(d, "section", {}, h(d, "h4", {}, round ? `Round ${round.number} (${round.status})` : `Round ${Math.min(next, s.rounds)}`), roundPart),
    h(d, "section", {},
      h(d, "h4", {}, "Adjust a score (a penalty is negative)"),
      h(d, "div", { class: "row" },
        h(d, "select", { name: "entrant", "data-testid": "org-entrant" }, event.entrants.map((e) => h(d, "option", { value: e.id }, e.name))),
        input("amount", { type: "number", placeholder: s.formula === "placements" ? "places" : "tenths of a point", class: "narrow" }),
        button("org-adjust", "Apply", () => act("adjust", { entrant: value("entrant"), amount: Number(value("amount")), reason: reason() }).then(clear("amount"))))),
    h(d, "section", {},
      h(d, "h4", {}, "Notice to every entrant"),
      h(d, "div", { class: "row" },
        input("notice", { maxlength: 500, placeholder: "e.g. round 2 starts at 20:00" }),
        button("org-send-notice", "Send", () => act("notice", { text: value("notice") }).then(clear("notice"))))),
    h(d, "section", {},
      h(d, "h4", {}, "Co-organizers"),
      h(d, "p", { class: "muted" }, event.organizers.join(", ")),
      h(d, "div", { class: "row" },
        input("account", { placeholder: "account id", maxlength: 80 }),
        button("org-add-organizer", "Name co-organizer", () => act("organizers", { account: value("account").trim(), reason: reason() })))),
    h(d, "section", {},
      button("org-show-log", "Show the audit log", () => showLog(), "ghost"),
      h(d, "div", { id: "org-log", "data-testid": "org-log" })),
  );
  for (const [name, v] of kept) {
    const node = box.querySelector(`[name="${name}"]`);
    if (!node || (node.tagName === "SELECT" && ![...node.options].some((o) => o.value === v))) continue;
    node.value = v;
  }
  box.hidden = false;
}

/** The audit log as a table. */
export function renderLog(doc, box, entries) {
  const d = doc;
  fill(box, grid(d, ["when", "who", "action", "detail", "reason"], entries.map((a) => [
    new Date(a.at * 1000).toLocaleString(),
    a.actor,
    a.action,
    h(d, "code", {}, JSON.stringify(a.detail)),
    a.reason,
  ]), { "data-testid": "audit-log" }));
}
