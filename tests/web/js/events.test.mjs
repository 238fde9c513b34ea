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

import { currentRound, seatOf, tableLink } from "../../../server/web/static/js/eventkit.js";
import { entrantStatus, settingsFromForm } from "../../../server/web/static/js/eventorg.js";
import { adjustText, handText } from "../../../server/web/static/js/eventpublic.js";
import { deepLinkFromLocation, isPauseNotice } from "../../../server/web/static/js/deeplink.js";

const ROUND = { number: 1, status: "running", tables: [{ index: 0, entrants: ["a", "b", "c", "d"], match_id: "m-1" }, { index: 1, entrants: ["e", "f", "g", "h"], match_id: "m-2" }] };

test("an entrant's seat and the links into the table view", () => {
  assert.deepEqual(seatOf(ROUND, "g"), { table: 1, seat: 2, wind: "West", match_id: "m-2", others: ["e", "f", "h"] });
  assert.equal(seatOf(ROUND, "z"), null);
  assert.equal(currentRound({ rounds: [{ status: "finished" }] }), null);
  assert.equal(currentRound({ rounds: [{ status: "finished" }, ROUND] }), ROUND);
  assert.equal(tableLink("play", "m-2", { search: "?event=ev-1&api=http://h:9" }), "/?play=m-2&api=http%3A%2F%2Fh%3A9");
  assert.equal(tableLink("watch", "m-1", { search: "" }), "/?watch=m-1");
  assert.deepEqual(deepLinkFromLocation({ search: "?play=m-2" }), { play: "m-2", watch: null });
  assert.deepEqual(deepLinkFromLocation({ search: "?watch=<script>" }), { play: null, watch: null });
  assert.ok(isPauseNotice({ code: "busy_retry", message: "the table is paused (tea): every clock is stopped" }));
  assert.ok(!isPauseNotice({ code: "busy_retry", message: "try again" }));
  assert.equal(handText({ round: { round_wind: 0, kyoku: 1, honba: 2 } }), "East 2, 2 honba");
  assert.equal(handText({ round: null }), "starting");
  assert.equal(adjustText(-50, "points"), "-5.0");
  assert.equal(adjustText(15, "teams"), "+1.5");
  assert.equal(adjustText(-1, "placements"), "-1");
  assert.equal(adjustText(0, "points"), "0");
});

test("a suspended entrant is marked in the organizer's list", () => {
  assert.equal(entrantStatus({ status: "entered", suspended: true }), "entered, suspended");
  assert.equal(entrantStatus({ status: "entered", suspended: false }), "entered");
  assert.equal(entrantStatus({ status: "withdrawn" }), "withdrawn"); // the public view does not say
});

test("the create form's settings", () => {
  const values = { name: " Club ", rounds: "2", description: "", ruleset: "tenhou", duplicate: "round", cap: "", action_ms: "3000", checkin: true, guests: false, extra: '{"max_meetings": 1}' };
  assert.deepEqual(settingsFromForm(values), { name: "Club", rounds: 2, ruleset: "tenhou", duplicate: "round", action_ms: 3000, checkin: true, guests: false, max_meetings: 1 });
  assert.throws(() => settingsFromForm({ ...values, extra: "{nope" }), /not JSON/);
  assert.throws(() => settingsFromForm({ ...values, extra: "[1]" }), /JSON object/);
});

import { closedText, standInText, startPointsValue } from "../../../server/web/static/js/eventorg.js";

test("a table's stand-ins in words", () => {
  const names = new Map([["a-sam", "sam"]]);
  assert.equal(standInText({ seat: 1, by: "bot:greedy:sub1.0.1.1", from_step: 12 }, names), "bot greedy, after step 12");
  assert.equal(standInText({ seat: 1, by: "a-sam", from_step: null }, names), "sam, from the first move");
  assert.equal(standInText({ seat: 2, by: "a-kim", from_step: 0 }, names), "a-kim, after step 0"); // not an entrant: the id
});

test("start points as typed become the API's points", () => {
  assert.equal(startPointsValue(""), null); // the ruleset's
  assert.equal(startPointsValue("  "), null);
  assert.equal(startPointsValue(" 30000 "), 30000);
  assert.equal(startPointsValue("25050"), 25050); // a number still: the API says it is no multiple of 100
  assert.equal(startPointsValue("lots"), "lots"); // sent as typed: the API refuses it (never the ruleset's by mistake)
  assert.equal(startPointsValue("1.5"), "1.5");
});

test("an event that is over says whether it was played out or closed early", () => {
  const settings = { rounds: 4 };
  assert.equal(closedText({ settings, closed: null }), "The event is over: every round was played.");
  assert.equal(
    closedText({ settings, closed: { status: "finished", rounds_played: 2 } }),
    "The event was closed after 2 of 4 rounds: the standings are final.",
  );
  assert.equal(
    closedText({ settings, closed: { status: "cancelled", rounds_played: 0 } }),
    "The event was closed before any round was played.",
  );
});
