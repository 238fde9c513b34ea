// Offline harness: the real page (index.html's markup, js/app.js) driven by a canned scenario
// instead of a hub. Query: ?scenario=NAME (see tests/web/scenarios.py), &elapsed=MS (frozen timer),
// &press=riichi|chi|kan|pon (click that action button), &select=N (select hand tile N),
// &close=1 (close the result dialog), &help=1 (open the help); ?scenario=lobby shows the lobby.
// Comforts: &prefs=autoWin,noCalls,tsumogiri (toggles switched on before the scenario plays; the
// sound is off unless &prefs names it), &hints=1 (the last prompt carries canned waits and furiten),
// &live=list|none (what GET /tables/live answers: two tables, or 404), &invite=CODE (the page's own
// ?invite= link); GET /private/new answers code K7QF-M2XD (its queries in `globalThis.created`). `globalThis.sent` lists what the page sent; `globalThis.harness.deliver(message)`
// hands it one more server message.
import { App } from "/static/js/app.js";

const params = new URLSearchParams(location.search);
const sent = [];
let nextId = 100;
const connection = {
  url: "ws://127.0.0.1:1/ws",
  sessionToken: "s-harness",
  status: "open",
  join(target) { sent.push({ type: "join", target }); return nextId++; },
  act(step, action) { const id = nextId++; sent.push({ type: "act", request_id: id, step, action }); return id; },
  resendAct(request_id, step, action) { sent.push({ type: "act", request_id, step, action }); },
  resume(match_id, since_version) { const id = nextId++; sent.push({ type: "resume", match_id, since_version, request_id: id }); return id; },
  leave(match_id) { sent.push({ type: "leave", match_id }); },
  chat(text) { const id = nextId++; sent.push({ type: "chat", text, request_id: id }); return id; },
  stamp(stamp) { const id = nextId++; sent.push({ type: "stamp", stamp, request_id: id }); return id; },
  send(message) { sent.push(message); return true; },
  nextRequestId() { return nextId++; },
  takeOver() { sent.push({ type: "take_over" }); app.onStatus("open"); },
};

const LIVE = {
  tables: [
    { match_id: "m-live-1", ruleset: "tenhou", game_length: "east_south", players: [{ name: "alice", kind: "guest" }, { name: "greedy-1", kind: "bot" }, { name: "bob", kind: "player" }, { name: "greedy-3", kind: "bot" }], round: { round_wind: 1, kyoku: 2, honba: 1 }, spectators: 3 },
    { match_id: "m-live-2", ruleset: "mahjongsoul", game_length: "east", players: [{ name: "carol", kind: "guest" }, { name: "b1", kind: "bot" }, { name: "b2", kind: "bot" }, { name: "b3", kind: "bot" }], round: { round_wind: 0, kyoku: 0, honba: 0 }, spectators: 0 },
  ],
};
const live = params.get("live") ?? "none";
const fetchStub = async (url) => {
  if (String(url).includes("/private/new?")) {
    const query = new URL(url).searchParams;
    (globalThis.created ??= []).push(Object.fromEntries(query));
    const bots = Number(query.get("bots"));
    const body = { code: "K7QF-M2XD", preset: "tenhou", bots, players_needed: 4 - bots, expires_in_s: 3600, chat: query.get("chat") ?? "on" };
    return { ok: true, status: 200, json: async () => body };
  }
  if (String(url).endsWith("/tables/live") && live === "list") {
    return { ok: true, status: 200, json: async () => LIVE };
  }
  return { ok: false, status: 404, json: async () => ({ error: { code: "not_found", message: "no route" } }) };
};

const HINTS = {
  waits: [{ tile: "3m", left: 2 }, { tile: "6m", left: 0 }],
  furiten: true,
  discards: [],
};

const storage = (() => {
  const data = new Map();
  return { getItem: (k) => (data.has(k) ? data.get(k) : null), setItem: (k, v) => data.set(k, String(v)), removeItem: (k) => data.delete(k) };
})();
const prefs = (params.get("prefs") ?? "").split(",").filter(Boolean);
for (const id of ["autoWin", "noCalls", "tsumogiri", "sound"]) storage.setItem(`jantaku.pref.${id}`, prefs.includes(id) ? "1" : "0");

const invite = params.get("invite");
const pageLocation = { href: `http://harness.example/${invite ? `?invite=${invite}` : ""}`, search: invite ? `?invite=${invite}` : "" };
const copied = [];
const clipboard = { writeText: async (text) => { copied.push(text); } };

const elapsed = Number(params.get("elapsed") ?? 1300);
let clock = 0;
const app = new App({ doc: document, connection, storage, animate: false, now: () => clock, fetch: fetchStub, location: pageLocation, clipboard });
globalThis.jantaku = app;
globalThis.sent = sent;
globalThis.copied = copied;
globalThis.harness = {
  deliver(message) { app.handle(message); },
  setClock(ms) { clock = ms; },
};
app.onStatus("open");
app.onWelcome({ type: "welcome", player: { id: "g-1", name: "alice", kind: "guest" }, seats: [], session_token: "s-harness" });
await app.refreshLiveTables();

const name = params.get("scenario") ?? "discard";
if (name !== "lobby") {
  const response = await fetch(`/harness/scenarios/${name}.json`);
  const scenario = await response.json();
  const messages = scenario.messages;
  if (params.get("hints")) {
    const last = messages[messages.length - 1];
    if (last.type === "prompt") last.hints = HINTS;
  }
  // One drawing for the whole scenario, as a browser catching up would (and fast: a whole match is
  // several hundred messages); a burst like this plays no sound.
  const render = app.render;
  app.render = () => {};
  for (const message of messages) app.handle(message);
  app.render = render;
}
if (params.get("help")) app.toggleHelp(true);
clock = elapsed;
const press = params.get("press");
if (press) app.onButton(press);
const select = params.get("select");
if (select !== null) { app.ui.selected = Number(select); }
if (params.get("close")) app.closeResult();
app.render();
document.body.dataset.ready = "1";
