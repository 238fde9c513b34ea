// The organizer's pages (docs/tournaments.md, "The events pages"): the form that creates an event,
// and on an event's page the organizer's panel: entrants (add bots, drop; suspended ones marked),
// check-in, seat the next round (optionally from a script), start it, pause and resume a table or
// every table, end a table early, lock and unlock a seat and seat a substitute (a named account or a
// built-in bot; each table's stand-ins shown), an entrant's start points, adjust a score (a penalty,
// with a reason), send a notice, finish the round (the last one closes the event), download the
// archive of the games, name a co-organizer, and the audit log. Every action goes through the events
// HTTP API; the reason typed in the panel is kept in the event's log with it.

import { currentRound, fill, grid, h, windName } from "./eventkit.js";

const SELECTS = {
  ruleset: ["tenhou", "mahjongsoul", "ema"],
  entry: ["open", "invite"],
  seating: ["random", "standings", "scripted"],
  duplicate: ["off", "round", "sets"],
  formula: ["points", "placements", "best_consecutive", "teams"],
  spectators: ["delayed", "off", "observers"],
};

/** The server's built-in bots (server/bots/builtin.py; a test keeps the two lists equal), offered as
 * substitutes (`bot:NAME`); the API refuses a name it does not know, naming its bots. */
export const BUILT_IN_BOTS = ["greedy", "random", "tsumogiri"];

/** A stand-in in words: who (an account's name if it is an entrant, its id otherwise; a built-in
 * bot by its name) and from when (`from_step`: the last step before it took over; none: it played
 * the seat from the first move). */
export function standInText(s, names = new Map()) {
  const bot = /^bot:([^:]+)/.exec(s.by);
  const who = bot ? `bot ${bot[1]}` : names.get(s.by) ?? s.by;
  return `${who}, ${s.from_step === null || s.from_step === undefined ? "from the first move" : `after step ${s.from_step}`}`;
}

/** The start points typed for an entrant as the API's `points`: empty is null (the ruleset's); a
 * whole number is sent as a number, anything else as typed (the API refuses it, saying why). */
export function startPointsValue(text) {
  const t = String(text ?? "").trim();
  if (t === "") return null;
  const n = Number(t);
  return Number.isInteger(n) ? n : t;
}

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

/** What the panel says of an event that is over: played to its end, or closed early. */
export function closedText(event) {
  const c = event.closed;
  if (!c) return "The event is over: every round was played.";
  const played = `${c.rounds_played} of ${event.settings.rounds} ${event.settings.rounds === 1 ? "round" : "rounds"}`;
  return c.status === "cancelled" ? "The event was closed before any round was played." : `The event was closed after ${played}: the standings are final.`;
}

/** An entrant's check-in for the next round: yes or no, and (before that round is seated) a button
 * with which the organizer checks them in or out. */
function checkinCell(d, e, next, { checkable, button, act, reason }) {
  const isIn = e.checked_in.includes(next);
  if (!checkable || e.status !== "entered") return isIn ? "yes" : "no";
  return h(d, "span", { class: "row" }, isIn ? "yes" : "no",
    button(`checkin-${e.id}`, isIn ? "Check out" : "Check in",
      () => act(`entrants/${encodeURIComponent(e.id)}/checkin`, { checked_in: !isIn, reason: reason() }), "small"));
}

/** Keep what the organizer typed across a redraw of the panel. */
function typed(box) {
  return new Map([...box.querySelectorAll("input[name], textarea[name], select[name]")].map((x) => [x.name, x.value]));
}

/** The seats of the seated or running `round`, one row per seat: the entrant of record, who stood
 * in for them (and from when), the lock (a toggle) and a substitute's box (an account id or
 * `bot:NAME`; not for a built-in bot entrant's seat, which needs none). */
function seatsPart(d, round, { names, kinds, input, button, act, reason, value, clear, open }) {
  const rows = [];
  const locked = [];
  for (const t of round.tables) {
    t.entrants.forEach((entrant, seat) => {
      const isLocked = (t.locked ?? []).includes(seat);
      const stood = (t.stand_ins ?? []).filter((x) => x.seat === seat);
      const sub = `sub-${t.index}-${seat}`;
      locked.push(isLocked);
      rows.push([
        String(t.index),
        windName(seat),
        names.get(entrant) ?? entrant,
        stood.length ? h(d, "span", { "data-testid": `stand-ins-${t.index}-${seat}` }, stood.map((x) => standInText(x, names)).join("; ")) : "—",
        h(d, "span", { class: "row" },
          isLocked ? h(d, "strong", { "data-testid": `locked-${t.index}-${seat}` }, "locked") : null,
          button(`lock-${t.index}-${seat}`, isLocked ? "Unlock" : "Lock",
            () => act(isLocked ? "unlock" : "lock", { table: t.index, seat, reason: reason() }), "small")),
        kinds.get(entrant) === "bot"
          ? h(d, "span", { class: "muted" }, "a built-in bot")
          : h(d, "span", { class: "row" },
              input(sub, { list: "org-bot-names", placeholder: "account id or bot:NAME", maxlength: 80, class: "wide" }),
              button(`substitute-${t.index}-${seat}`, "Substitute", () => act("substitute", {
                table: t.index,
                seat,
                substitute: value(sub).trim(),
                reason: reason(),
                // one substitution per click: a second click on the same stand-in changes nothing
                key: `sub-r${round.number}-t${t.index}-s${seat}-${stood.length + 1}`,
              }).then(clear(sub)), "small")),
      ]);
    });
  }
  return h(d, "details", { "data-testid": "org-seats-box", open: open ?? round.tables.length <= 16 },
    h(d, "summary", {}, `Seats: locks and substitutes (${round.tables.length} ${round.tables.length === 1 ? "table" : "tables"})`),
    h(d, "p", { class: "muted" },
      "A locked seat is not given to a substitute, and at a running table no connection may take it. ",
      "A substitute plays the seat for its entrant (the entrant keeps the seat's score): an account id, or a built-in bot as bot:NAME",
      round.status === "running" ? "; at a running table from the next move." : ", from the first move."),
    h(d, "datalist", { id: "org-bot-names" }, BUILT_IN_BOTS.map((b) => h(d, "option", { value: `bot:${b}` }))),
    h(d, "div", { class: "scroll" },
      grid(d, ["table", "seat", "entrant", "stand-ins", "lock", "substitute"], rows, { class: "grid seats", "data-testid": "org-seats" },
        (i) => ({ "data-locked": locked[i] ? "true" : "false" }))));
}

/** Fill the organizer's panel of `event` (`act(path, body)` posts an action, redraws and
 * resolves to whether it was done; `download()` fetches the event's archive; `rows` the
 * standings, to know whether any game was played). */
export function renderOrganizer(doc, box, { event, rows = [], act, showLog, download = () => {} }) {
  const d = doc;
  const kept = typed(box);
  const seatsOpen = box.querySelector("[data-testid=org-seats-box]")?.open;
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
  const kinds = new Map(event.entrants.map((e) => [e.id, e.kind]));
  const played = rows.reduce((n, r) => n + (r.games ?? 0), 0);
  const active = event.entrants.filter((e) => e.status === "entered");
  const over = event.status === "finished" || event.status === "cancelled";

  const entrants = grid(d, ["entrant", "kind", "status", `checked in (round ${Math.min(next, s.rounds)})`, "start points", ""],
    event.entrants.map((e) => [
      h(d, "span", {}, e.name, " ", h(d, "code", { class: "muted" }, e.id)),
      e.kind,
      e.suspended ? h(d, "strong", { "data-testid": `suspended-${e.id}` }, entrantStatus(e)) : entrantStatus(e),
      !s.checkin || e.kind === "bot" ? "—" : checkinCell(d, e, next, { checkable: !over && !round, button, act, reason }),
      e.start_points === null || e.start_points === undefined
        ? h(d, "span", { class: "muted" }, "the ruleset's")
        : h(d, "span", { "data-testid": `start-points-${e.id}` }, String(e.start_points)),
      e.status === "entered" && !over
        ? button(`drop-${e.id}`, "Drop", () => act("drop", { entrant: e.id, reason: reason() }), "ghost small")
        : "",
    ]), { "data-testid": "org-entrants" });

  // Closing early (no round running; a seated round is dropped): asked once more, a reason needed.
  const closeButton = () => button("org-close", "Close the event now", () => {
    const sure = globalThis.confirm?.(`Close the event after ${finished} of ${s.rounds} rounds? The standings become final.`) ?? true;
    return sure ? act("close", { reason: reason(), key: `close-${finished}` }) : false;
  }, "ghost");
  let roundPart;
  if (over) {
    roundPart = h(d, "p", { "data-testid": "org-closed" }, closedText(event));
  } else if (!round) {
    roundPart = h(d, "div", { class: "row" },
      button("org-seat", `Seat round ${next}`, () => act("seat", { reason: reason(), key: `seat-${next}`, script: value("script").trim() || null }), "primary"),
      s.seating === "scripted" || value("script")
        ? h(d, "textarea", { name: "script", rows: 3, placeholder: "the round's tables: one line per table, entrant ids in seat order (or JSON)", "data-testid": "org-script" })
        : null,
      closeButton());
  } else if (round.status === "seated") {
    roundPart = h(d, "div", { class: "row" },
      button("org-start", `Start round ${round.number}`, () => act("start", { reason: reason(), key: `start-${round.number}` }), "primary"),
      h(d, "span", { class: "muted" }, `Seated: ${round.tables.length} ${round.tables.length === 1 ? "table" : "tables"}. Before the start, lock a seat or seat a substitute for a no-show (Seats, below).`),
      closeButton());
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
    h(d, "section", {}, h(d, "h4", {}, round ? `Round ${round.number} (${round.status})` : `Round ${Math.min(next, s.rounds)}`), roundPart,
      round && !over ? seatsPart(d, round, { names, kinds, input, button, act, reason, value, clear, open: seatsOpen }) : null),
    over
      ? null
      : h(d, "section", {},
          h(d, "h4", {}, "Start points (at the tables made from the next start)"),
          h(d, "div", { class: "row" },
            h(d, "select", { name: "sp-entrant", "data-testid": "org-sp-entrant" },
              event.entrants.filter((e) => e.status === "entered").map((e) => h(d, "option", { value: e.id }, e.name))),
            input("start-points", { inputmode: "numeric", maxlength: 8, class: "narrow", placeholder: "points" }),
            button("org-set-start-points", "Set start points", () => act("start-points", {
              entrant: value("sp-entrant"),
              points: startPointsValue(value("start-points")),
              reason: reason(),
            }).then(clear("start-points"))),
            h(d, "span", { class: "muted" }, `a multiple of 100; empty: the ruleset's (${s.ruleset?.start_points ?? "?"})`))),
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
    played > 0
      ? h(d, "section", {},
          h(d, "h4", {}, "Archive"),
          h(d, "div", { class: "row" },
            button("org-archive", "Download the archive (zip)", () => download()),
            h(d, "span", { class: "muted" }, "Every finished game in tenhou.net/6 and mjai (a duplicate round's once its seeds are revealed), a substitute's moves marked, the standings and event.json.")))
      : null,
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
