import { test } from "node:test";
import assert from "node:assert/strict";
import { errorText, roles, runningRound, standingsRows } from "../../../server/web/static/js/events.js";

const EVENT = {
  organizers: ["a-org"],
  entrants: [
    { id: "a-ann", name: "ann", status: "entered" },
    { id: "a-bob", name: "bob", status: "withdrawn" },
  ],
  rounds: [
    { number: 1, status: "finished" },
    { number: 2, status: "running" },
  ],
};

test("who may do what on an event", () => {
  assert.deepEqual(roles(EVENT, null), { entrant: false, organizer: false });
  assert.deepEqual(roles(EVENT, { id: "a-ann" }), { entrant: true, organizer: false });
  assert.deepEqual(roles(EVENT, { id: "a-bob" }), { entrant: false, organizer: false });
  assert.deepEqual(roles(EVENT, { id: "a-org" }), { entrant: false, organizer: true });
  assert.equal(runningRound(EVENT).number, 2);
});

test("standings rows show names and the formula's totals", () => {
  const rows = [{ rank: 1, name: "a-ann", shown: "+55.3", games: 2, places: [1, 1, 0, 0] }];
  assert.deepEqual(standingsRows(rows, new Map([["a-ann", "ann"]])), [["1", "ann", "+55.3", "2", "1/1/0/0"]]);
  assert.equal(errorText({ error: { code: "conflict", message: "round 1 is not finished" } }, 409), "conflict: round 1 is not finished");
  assert.equal(errorText(null, 502), "HTTP 502");
});
