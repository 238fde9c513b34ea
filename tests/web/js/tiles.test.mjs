import { test } from "node:test";
import assert from "node:assert/strict";
import { ALL_FACES, HONOR_KANJI, isRedFive, isTile, tileLabel, tileSVG } from "../../../server/web/static/js/tiles.js";

const RED = "#e0101c";

test("37 faces: 3 x (9 + a red five) + 7 honors, each drawn", () => {
  assert.equal(ALL_FACES.length, 37);
  assert.equal(new Set(ALL_FACES).size, 37);
  const markup = new Set();
  for (const face of ALL_FACES) {
    assert.ok(isTile(face));
    const svg = tileSVG(face);
    assert.match(svg, /^<svg [^>]*viewBox="0 0 60 80"/);
    assert.ok(svg.includes(`data-face="${face}"`));
    assert.ok(svg.includes(`aria-label="${tileLabel(face)}"`));
    assert.ok(svg.endsWith("</svg>"));
    assert.ok(!/style=/.test(svg), "no inline style attributes (the CSP forbids them)");
    markup.add(svg.replace(/data-face="[^"]*"|aria-label="[^"]*"|<title>.*?<\/title>/g, ""));
  }
  assert.equal(markup.size, 37, "every face looks different");
});

test("red fives are red and marked; plain fives are not", () => {
  for (const suit of "mps") {
    const red = tileSVG(`0${suit}`);
    const plain = tileSVG(`5${suit}`);
    assert.ok(isRedFive(`0${suit}`) && !isRedFive(`5${suit}`));
    assert.ok(red.includes('class="tile-svg red-five"'));
    assert.ok(red.includes(`fill="${RED}"`));
    assert.ok(!plain.includes(RED));
    assert.ok(!plain.includes("red-five"));
    assert.match(tileLabel(`0${suit}`), /^red 5 /);
  }
});

test("honors carry their kanji; haku is an empty frame", () => {
  for (let n = 1; n <= 7; n++) {
    const svg = tileSVG(`${n}z`);
    if (n === 5) assert.ok(!/<text/.test(svg) && /<rect x="12"/.test(svg));
    else assert.ok(svg.includes(`>${HONOR_KANJI[n - 1]}</text>`));
  }
  assert.equal(tileLabel("1z"), "east wind");
  assert.equal(tileLabel("7z"), "red dragon");
  assert.equal(tileLabel("3m"), "3 characters");
});

test("manzu show their number as a kanji numeral and an index", () => {
  const svg = tileSVG("7m");
  assert.ok(svg.includes(">七</text>") && svg.includes(">萬</text>") && svg.includes(">7</text>"));
});

test("sideways, face-down and hidden tiles", () => {
  assert.match(tileSVG("0p", { sideways: true }), /viewBox="0 0 80 60"/);
  assert.match(tileSVG("0p", { sideways: true }), /rotate\(-90\)/);
  for (const svg of [tileSVG(null), tileSVG("3s", { back: true })]) {
    assert.ok(svg.includes('data-face="back"'));
    assert.ok(svg.includes("face-down tile"));
  }
  assert.ok(!isTile("8z") && !isTile("0z") && !isTile(null) && !isTile("10m"));
});
