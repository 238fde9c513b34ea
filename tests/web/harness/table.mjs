// Offline harness: the real page (index.html's markup, js/app.js) driven by a canned scenario
// instead of a hub. Query: ?scenario=NAME (see tests/web/scenarios.py), &elapsed=MS (frozen timer),
// &press=riichi|chi|kan|pon (click that action button), &select=N (select hand tile N),
// &close=1 (close the result dialog), &help=1 (open the help); ?scenario=lobby shows the lobby.
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
};
const elapsed = Number(params.get("elapsed") ?? 1300);
let clock = 0;
const app = new App({ doc: document, connection, animate: false, now: () => clock });
globalThis.jantaku = app;
globalThis.sent = sent;
app.onStatus("open");
app.onWelcome({ type: "welcome", player: { id: "g-1", name: "alice", kind: "guest" }, seats: [], session_token: "s-harness" });

const name = params.get("scenario") ?? "discard";
if (name !== "lobby") {
  const response = await fetch(`/harness/scenarios/${name}.json`);
  const scenario = await response.json();
  for (const message of scenario.messages) app.handle(message);
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
