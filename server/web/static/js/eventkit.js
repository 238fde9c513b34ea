// What the events pages share (docs/tournaments.md, "The events pages"): building nodes (text is
// always set as text, never parsed as markup, so an entrant's name or a notice cannot inject
// anything), the API's errors in words, standings rows, who may do what, and the links into the
// table view.

/** An element with attributes (`on...`: a listener) and children (strings become text nodes). */
export function h(doc, tag, attrs = {}, ...children) {
  const node = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(2)) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/** Replace `node`'s children (null, undefined and false left out; arrays flattened). */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat(3).filter((c) => c !== null && c !== undefined && c !== false));
}

/** A table of text cells (`rows`: arrays of strings or nodes; `rowAttrs(i)`: each row's attributes). */
export function grid(doc, head, rows, attrs = {}, rowAttrs = () => ({})) {
  return h(doc, "table", { class: "grid", ...attrs },
    h(doc, "thead", {}, h(doc, "tr", {}, head.map((c) => h(doc, "th", {}, c)))),
    h(doc, "tbody", {}, rows.map((r, i) => h(doc, "tr", rowAttrs(i), r.map((c) => h(doc, "td", {}, c))))));
}

/** The error answer of the API as one line. */
export function errorText(data, status) {
  const e = data?.error;
  return e ? `${e.code}: ${e.message}` : `HTTP ${status}`;
}

/** The standings as table rows: [rank, name, total as shown, games, places]. */
export function standingsRows(rows, names = new Map()) {
  return rows.map((r) => [String(r.rank), names.get(r.name) ?? r.name, r.shown, String(r.games), r.places.join("/")]);
}

/** Who may do what on this event: {entrant, organizer}. */
export function roles(event, me) {
  if (!me) return { entrant: false, organizer: false };
  const mine = event.entrants.find((e) => e.id === me.id);
  return {
    entrant: Boolean(mine) && ["entered", "waitlisted"].includes(mine.status),
    organizer: event.organizers.includes(me.id),
  };
}

/** The running round, if any. */
export function runningRound(event) {
  return event.rounds.find((r) => r.status === "running") ?? null;
}

/** The newest round that is seated or running (not finished), if any. */
export function currentRound(event) {
  const last = event.rounds.at(-1);
  return last && last.status !== "finished" ? last : null;
}

const WINDS = ["East", "South", "West", "North"];

/** Where `entrantId` sits in `round`: {table, seat, wind, match_id, others} or null. */
export function seatOf(round, entrantId) {
  for (const t of round?.tables ?? []) {
    const seat = t.entrants.indexOf(entrantId);
    if (seat >= 0) {
      return { table: t.index, seat, wind: WINDS[seat], match_id: t.match_id ?? null, others: t.entrants.filter((e) => e !== entrantId) };
    }
  }
  return null;
}

/** The main page's address for a match (`kind` "play": one's seat, "watch": as a spectator),
 * keeping the page's `?api=` so the table view finds the same HTTP API. */
export function tableLink(kind, matchId, location) {
  const params = new URLSearchParams();
  params.set(kind, matchId);
  const api = new URLSearchParams(location?.search ?? "").get("api");
  if (api) params.set("api", api);
  return `/?${params.toString()}`;
}

/** A wind's name for a seat index. */
export function windName(seat) {
  return WINDS[seat] ?? `seat ${seat}`;
}
