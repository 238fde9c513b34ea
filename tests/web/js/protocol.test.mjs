import { test } from "node:test";
import assert from "node:assert/strict";
import { Connection, backoffMs, httpBase, websocketURL } from "../../../server/web/static/js/protocol.js";

class FakeSocket {
  static all = [];
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.closed = null;
    FakeSocket.all.push(this);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close(code, reason) { this.closed = { code, reason }; }
  // server side
  open() { this.onopen(); }
  deliver(message) { this.onmessage({ data: JSON.stringify(message) }); }
  drop(code = 1006) { this.onclose({ code, reason: "" }); }
}

function storage() {
  const data = new Map();
  return { getItem: (k) => (data.has(k) ? data.get(k) : null), setItem: (k, v) => data.set(k, String(v)), removeItem: (k) => data.delete(k), data };
}

function harness(store = storage()) {
  FakeSocket.all = [];
  const timers = [];
  const received = [];
  const statuses = [];
  const welcomes = [];
  const conn = new Connection({
    url: "ws://h:1/ws",
    storage: store,
    WebSocket: FakeSocket,
    now: () => 1000,
    setTimeout: (fn, ms) => { timers.push({ fn, ms }); return timers.length; },
    clearTimeout: () => {},
    random: () => 0.5,
    onMessage: (m) => received.push(m),
    onStatus: (s) => statuses.push(s),
    onWelcome: (w) => welcomes.push(w),
  });
  return { conn, timers, received, statuses, welcomes, store };
}

const WELCOME = { type: "welcome", protocol: 1, session_id: "s-1", session_token: "tok-1", player: { id: "g-1", name: "guest-1", kind: "guest" }, seats: [], max_message_bytes: 4096 };

test("URLs: same host by default, ?ws= overrides; http base for /private/new", () => {
  assert.equal(websocketURL({ search: "", protocol: "http:", host: "h:8765" }), "ws://h:8765/ws");
  assert.equal(websocketURL({ search: "", protocol: "https:", host: "mj.example" }), "wss://mj.example/ws");
  assert.equal(websocketURL({ search: "?ws=ws://other:1/ws", protocol: "http:", host: "h" }), "ws://other:1/ws");
  assert.equal(httpBase("wss://mj.example/ws"), "https://mj.example");
  assert.equal(httpBase("ws://127.0.0.1:8765/ws"), "http://127.0.0.1:8765");
});

test("a guest says hello, keeps the session token, and comes back with it", () => {
  const h = harness();
  h.conn.start();
  const ws = FakeSocket.all[0];
  ws.open();
  assert.deepEqual(ws.sent[0], { type: "hello", protocol: 1, auth: { type: "guest" }, client: "jantaku-web/0.1", hints: true });
  h.conn.join({ type: "queue", preset: "tenhou+bots" }); // before the welcome: queued
  assert.equal(ws.sent.length, 1);
  ws.deliver(WELCOME);
  assert.equal(h.store.getItem("jantaku.session_token"), "tok-1");
  assert.equal(h.welcomes.length, 1);
  assert.equal(ws.sent[1].type, "join");
  assert.deepEqual(ws.sent[1].target, { type: "queue", preset: "tenhou+bots" });
  ws.deliver({ type: "queued", preset: "tenhou", players_waiting: 1 });
  assert.equal(h.received.at(-1).type, "queued");
  // the connection drops: reconnect after a backoff, as the same player
  ws.drop(1006);
  assert.equal(h.conn.status, "reconnecting");
  assert.equal(h.timers.length, 1);
  h.timers[0].fn();
  const ws2 = FakeSocket.all[1];
  ws2.open();
  assert.deepEqual(ws2.sent[0].auth, { type: "session", session_token: "tok-1" });
});

test("a refused session is forgotten: the next hello is a guest's", () => {
  const store = storage();
  store.setItem("jantaku.session_token", "old");
  const h = harness(store);
  h.conn.start();
  const ws = FakeSocket.all[0];
  ws.open();
  assert.equal(ws.sent[0].auth.type, "session");
  ws.deliver({ type: "error", code: "unauthenticated", message: "this session expired", request_id: null });
  ws.drop(1008);
  assert.equal(store.getItem("jantaku.session_token"), null);
  h.timers[0].fn();
  FakeSocket.all[1].open();
  assert.deepEqual(FakeSocket.all[1].sent[0].auth, { type: "guest" });
});

test("bad_version stops the reconnection loop", () => {
  const h = harness();
  h.conn.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.deliver({ type: "error", code: "bad_version", message: "this server speaks protocol 2", request_id: null });
  ws.drop(1008);
  assert.equal(h.conn.status, "failed");
  assert.equal(h.timers.length, 0);
});

test("act and resume carry request ids that only grow, also across reloads", () => {
  const store = storage();
  const h = harness(store);
  h.conn.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.deliver(WELCOME);
  const a = h.conn.act(7, { type: "pass" });
  const b = h.conn.resume("m-1", 12);
  assert.ok(b > a && a >= 1000);
  assert.deepEqual(ws.sent.at(-2), { type: "act", request_id: a, step: 7, action: { type: "pass" } });
  assert.deepEqual(ws.sent.at(-1), { type: "resume", match_id: "m-1", since_version: 12, request_id: b });
  h.conn.resendAct(a, 7, { type: "pass" });
  assert.deepEqual(ws.sent.at(-1), ws.sent.at(-3));
  const again = harness(store); // a reload: same storage, same clock
  assert.ok(again.conn.nextRequestId() > b);
});

test("backoff doubles up to 10 s", () => {
  const mid = () => 0.5;
  assert.deepEqual([0, 1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, mid)), [500, 1000, 2000, 4000, 8000, 10000, 10000]);
  assert.ok(backoffMs(0, () => 0) >= 375 && backoffMs(0, () => 0.999) <= 625);
});

test("a connection replaced by another tab stops reconnecting until 'play here'", () => {
  const h = harness();
  h.conn.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.deliver(WELCOME);
  // the server's replaced(): close code 1000 with a reason naming the replacement
  ws.onclose({ code: 1000, reason: "replaced by a newer connection of the same player" });
  assert.equal(h.conn.status, "replaced");
  assert.equal(h.timers.length, 0, "no reconnection is scheduled");
  assert.equal(FakeSocket.all.length, 1);
  h.conn.reconnectNow();
  assert.equal(FakeSocket.all.length, 1, "a stopped connection does not reopen by itself");
  h.conn.takeOver();
  assert.equal(FakeSocket.all.length, 2);
  FakeSocket.all[1].open();
  assert.equal(FakeSocket.all[1].sent[0].auth.session_token, "tok-1");
  FakeSocket.all[1].deliver(WELCOME);
  assert.equal(h.conn.status, "open");
});

test("close code 4001 also means replaced; a plain 1000 or a restart (1012) reconnects", () => {
  for (const [event, replaced] of [[{ code: 4001, reason: "" }, true], [{ code: 1000, reason: "bye" }, false], [{ code: 1012, reason: "server restarting" }, false]]) {
    const h = harness();
    h.conn.start();
    FakeSocket.all[0].open();
    FakeSocket.all[0].deliver(WELCOME);
    FakeSocket.all[0].onclose(event);
    assert.equal(h.conn.status === "replaced", replaced, JSON.stringify(event));
    assert.equal(h.timers.length, replaced ? 0 : 1, JSON.stringify(event));
  }
});
