import { test } from "node:test";
import assert from "node:assert/strict";
import { Mutes } from "../../../server/web/static/js/mutes.js";

function storage(token) {
  return { getItem: (key) => (key === "jantaku.session_token" ? token : null) };
}

/** A Mutes with a fake fetch answering `answer(method, url)` ({status, body}); its calls and notices. */
function mutes({ token = "tok", player = { id: "p-1", name: "alice", kind: "player" }, answer } = {}) {
  const calls = [];
  const toasts = [];
  const m = new Mutes({
    storage: storage(token),
    location: new URL("http://h:1/?api=http://h:9/"),
    toast: (text) => toasts.push(text),
    fetch: async (url, init) => {
      calls.push([init.method, url, init.headers.Authorization]);
      const { status, body } = answer?.(init.method, url) ?? { status: 204, body: null };
      return { ok: status < 400, status, json: async () => body };
    },
  });
  m.onWelcome(player);
  return { m, calls, toasts };
}

test("only a signed-in player gets a Mute button, on another registered player's line", () => {
  const { m } = mutes();
  assert.equal(m.canMute("p-2"), true);
  assert.equal(m.canMute("p-1"), false); // its own line
  assert.equal(m.canMute("g-42"), false); // a guest's lobby line: nothing to mute by
  assert.equal(m.canMute(undefined), false); // a guest's table line carries no account
  assert.equal(mutes({ player: { id: "g-1", name: "x", kind: "guest" } }).m.canMute("p-2"), false);
  assert.equal(mutes({ token: null }).m.canMute("p-2"), false);
});

test("muting calls the API with the page's session, then tells the chat views", async () => {
  const { m, calls, toasts } = mutes();
  let told = 0;
  m.listen(() => (told += 1));
  let changed = 0;
  m.afterChange = () => (changed += 1);
  assert.equal(await m.set("p-2/x", "bob", true), true);
  assert.deepEqual(calls, [["PUT", "http://h:9/api/me/mutes/p-2%2Fx", "Bearer tok"]]);
  assert.equal(m.has("p-2/x"), true);
  assert.deepEqual([told, changed], [1, 1]);
  assert.match(toasts[0], /bob is muted/);
  assert.equal(await m.set("p-2/x", "bob", false), true);
  assert.equal(calls[1][0], "DELETE");
  assert.equal(m.has("p-2/x"), false);
  m.replace(["p-3"]); // the Friends card read the list again
  assert.deepEqual([m.has("p-3"), told], [true, 3]);
});

test("a refusal is shown, and changes nothing", async () => {
  const { m, toasts } = mutes({
    answer: () => ({ status: 409, body: { error: { code: "conflict", message: "you cannot mute yourself" } } }),
  });
  let told = 0;
  m.listen(() => (told += 1));
  assert.equal(await m.set("p-1", "alice", true), false);
  assert.deepEqual(toasts, ["Could not mute alice: you cannot mute yourself"]);
  assert.deepEqual([m.has("p-1"), told], [false, 0]);
  const missing = mutes({ answer: () => ({ status: 404, body: { error: { code: "not_found", message: "no such player" } } }) });
  assert.equal(await missing.m.set("p-9", "ghost", true), false);
  assert.deepEqual(missing.toasts, ["Could not mute ghost: no such player"]);
  const down = mutes({ answer: () => ({ status: 503, body: null }) });
  await down.m.set("p-9", "ghost", true);
  assert.deepEqual(down.toasts, ["Could not mute ghost: HTTP 503"]);
});
