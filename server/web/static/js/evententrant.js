// An entrant's part of an event's page (docs/tournaments.md, "The events pages"): my entry (enter,
// withdraw, check in), my table in the current round, and "Join my seat", which opens the table
// view at that seat (the main page with ?play=MATCH, js/deeplink.js).

import { currentRound, fill, h, roles, seatOf, tableLink } from "./eventkit.js";

/** Fill `box` for the signed-in player `me` (hidden when nobody is signed in). */
export function renderEntrant(doc, box, { event, me, location, act, rows = [] }) {
  const d = doc;
  box.hidden = !me;
  if (!me) return;
  const who = roles(event, me);
  const mine = event.entrants.find((e) => e.id === me.id) ?? null;
  const names = new Map(event.entrants.map((e) => [e.id, e.name]));
  const round = currentRound(event);
  const next = round?.status === "running" ? round.number + 1 : round ? round.number : event.rounds.length + 1;
  const checkedIn = mine?.checked_in?.includes(next) ?? false;
  const seat = who.entrant && round ? seatOf(round, me.id) : null;
  const open = event.status === "open" || event.status === "running";
  const standing = rows.find((r) => r.name === me.id || r.members?.includes(me.id)) ?? null;
  if (!mine && !(open && event.rounds.length === 0)) {
    box.hidden = true; // not an entrant, and too late to enter: nothing of theirs to show
    return;
  }
  fill(box,
    h(d, "h3", {}, `My event (${me.name})`),
    h(d, "p", { "data-testid": "my-entry" },
      mine ? `You are ${mine.status}${checkedIn ? `, checked in for round ${next}` : ""}.` : "You have not entered."),
    mine && standing && standing.games > 0
      ? h(d, "p", { "data-testid": "my-standing" },
          `${event.status === "finished" ? "Final place" : "Place"}: ${standing.rank} of ${rows.length}, ${standing.shown} after ${standing.games} game${standing.games === 1 ? "" : "s"}.`)
      : null,
    h(d, "div", { class: "row" },
      !who.entrant && open && event.rounds.length === 0
        ? h(d, "button", { type: "button", "data-testid": "enter", onclick: () => act("entry") }, "Enter")
        : null,
      who.entrant && event.settings.checkin && !checkedIn && next <= event.settings.rounds
        ? h(d, "button", { type: "button", "data-testid": "check-in", onclick: () => act("checkin") }, `Check in for round ${next}`)
        : null,
      who.entrant && event.rounds.length === 0
        ? h(d, "button", { type: "button", class: "ghost", "data-testid": "withdraw", onclick: () => act("withdraw") }, "Withdraw")
        : null,
    ),
    seat
      ? h(d, "div", { class: "my-table", "data-testid": "my-table" },
          h(d, "h4", {}, `My table in round ${round.number}`),
          h(d, "p", {}, `Table ${seat.table}, ${seat.wind} seat, with ${seat.others.map((e) => names.get(e) ?? e).join(", ")}.`),
          round.status === "running" && seat.match_id
            ? h(d, "a", { class: "button-link primary", href: tableLink("play", seat.match_id, location), "data-testid": "join-seat" }, "Join my seat")
            : h(d, "p", { class: "muted" }, "The table opens when the organizer starts the round."))
      : null,
  );
}
