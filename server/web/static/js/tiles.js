// Mahjong tiles drawn as inline SVG, generated here: no images, no web fonts.
//
// tileSVG("0p") returns the markup of one tile face (a string, so this module also runs under node
// for the tests). Faces use the mpsz notation of the protocol: 1m-9m characters, 1p-9p circles,
// 1s-9s bamboo, 1z-7z east, south, west, north, haku, hatsu, chun; 0m/0p/0s are the red fives, drawn
// with red ink throughout and a red corner dot so that they stand apart from the plain fives.
// Only SVG presentation attributes are used (no style attributes): the page's CSP forbids inline
// styles.

export const SUIT_NAMES = { m: "characters", p: "circles", s: "bamboo" };
export const HONOR_NAMES = ["east", "south", "west", "north", "white dragon", "green dragon", "red dragon"];
export const HONOR_KANJI = ["東", "南", "西", "北", "白", "發", "中"];
export const HONOR_LETTERS = ["E", "S", "W", "N", "", "", ""];
const MAN_NUMERALS = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];

/** Every face of the protocol, in display order (the red fives right after their plain fives). */
export const ALL_FACES = [];
for (const suit of "mps") {
  for (let n = 1; n <= 9; n++) {
    ALL_FACES.push(`${n}${suit}`);
    if (n === 5) ALL_FACES.push(`0${suit}`);
  }
}
for (let n = 1; n <= 7; n++) ALL_FACES.push(`${n}z`);

const TILE_RE = /^(?:[0-9][mps]|[1-7]z)$/;

export function isTile(tile) {
  return typeof tile === "string" && TILE_RE.test(tile);
}

export function isRedFive(tile) {
  return isTile(tile) && tile[0] === "0";
}

/** A human-readable name: "red 5 circles", "3 characters", "east wind", "white dragon (haku)". */
export function tileLabel(tile) {
  if (!isTile(tile)) return "hidden tile";
  const n = Number(tile[0]);
  if (tile[1] === "z") {
    const name = HONOR_NAMES[n - 1];
    return n <= 4 ? `${name} wind` : name;
  }
  return n === 0 ? `red 5 ${SUIT_NAMES[tile[1]]}` : `${n} ${SUIT_NAMES[tile[1]]}`;
}

const INK = "#1b1b1b";
const MAN_RED = "#b3261e";
const RED5 = "#e0101c";
const BLUE = "#1d4e89";
const GREEN = "#1d7a3e";
const PIN_RED = "#c0392b";
const FACE = "#fdfaf1";
const WIND = "#14213d";
const HATSU = "#127a38";
const CHUN = "#c8231b";
const HAKU = "#2a5ea8";

const W = 60; // the face: a 60 x 75 rectangle over a 5-unit edge (the tile's thickness)
const H = 80;
const FACE_H = 75;

function text(x, y, size, fill, content, extra = "") {
  return `<text x="${x}" y="${y}" font-size="${size}" fill="${fill}" text-anchor="middle" dominant-baseline="central"${extra}>${content}</text>`;
}

function pin(cx, cy, r, color) {
  return (
    `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${color}"/>` +
    `<circle cx="${cx}" cy="${cy}" r="${(r * 0.62).toFixed(2)}" fill="${FACE}"/>` +
    `<circle cx="${cx}" cy="${cy}" r="${(r * 0.4).toFixed(2)}" fill="${color}"/>`
  );
}

function pinzu(n, red) {
  const R = red ? RED5 : null;
  const c = (color) => R ?? color;
  switch (n) {
    case 1:
      return (
        `<circle cx="30" cy="37.5" r="22" fill="${c(GREEN)}"/>` +
        `<circle cx="30" cy="37.5" r="18" fill="${FACE}"/>` +
        `<circle cx="30" cy="37.5" r="14.5" fill="${c(BLUE)}"/>` +
        `<circle cx="30" cy="37.5" r="9" fill="${c(PIN_RED)}"/>` +
        `<circle cx="30" cy="37.5" r="3.5" fill="${FACE}"/>`
      );
    case 2:
      return pin(30, 20, 11, c(GREEN)) + pin(30, 55, 11, c(BLUE));
    case 3:
      return pin(15, 16, 9.5, c(BLUE)) + pin(30, 37.5, 9.5, c(PIN_RED)) + pin(45, 59, 9.5, c(GREEN));
    case 4:
      return (
        pin(17, 20, 10.5, c(BLUE)) + pin(43, 20, 10.5, c(GREEN)) +
        pin(17, 55, 10.5, c(GREEN)) + pin(43, 55, 10.5, c(BLUE))
      );
    case 5:
      return (
        pin(16, 16, 9, c(BLUE)) + pin(44, 16, 9, c(GREEN)) + pin(30, 37.5, 9, c(PIN_RED)) +
        pin(16, 59, 9, c(GREEN)) + pin(44, 59, 9, c(BLUE))
      );
    case 6:
      return (
        pin(18, 14, 8.5, c(GREEN)) + pin(42, 14, 8.5, c(GREEN)) +
        pin(18, 40, 8.5, c(PIN_RED)) + pin(42, 40, 8.5, c(PIN_RED)) +
        pin(18, 61, 8.5, c(PIN_RED)) + pin(42, 61, 8.5, c(PIN_RED))
      );
    case 7:
      return (
        pin(13, 11, 7.5, c(GREEN)) + pin(30, 17, 7.5, c(GREEN)) + pin(47, 23, 7.5, c(GREEN)) +
        pin(19, 42, 7.5, c(PIN_RED)) + pin(41, 42, 7.5, c(PIN_RED)) +
        pin(19, 62, 7.5, c(PIN_RED)) + pin(41, 62, 7.5, c(PIN_RED))
      );
    case 8: {
      let out = "";
      for (const y of [11, 28, 46, 64]) out += pin(18, y, 7.5, c(BLUE)) + pin(42, y, 7.5, c(BLUE));
      return out;
    }
    case 9: {
      let out = "";
      const colors = [BLUE, PIN_RED, GREEN];
      [15, 37.5, 60].forEach((y, row) => {
        for (const x of [14, 30, 46]) out += pin(x, y, 8, c(colors[row]));
      });
      return out;
    }
    default:
      return "";
  }
}

function stick(cx, cy, h, color, w = 7) {
  const x = cx - w / 2;
  const y = cy - h / 2;
  return (
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${w / 2}" fill="${color}"/>` +
    `<line x1="${x + 1}" y1="${cy}" x2="${x + w - 1}" y2="${cy}" stroke="${FACE}" stroke-width="1.4"/>` +
    `<line x1="${cx}" y1="${y + 2.5}" x2="${cx}" y2="${cy - 2}" stroke="${FACE}" stroke-width="0.9" opacity="0.7"/>` +
    `<line x1="${cx}" y1="${cy + 2}" x2="${cx}" y2="${y + h - 2.5}" stroke="${FACE}" stroke-width="0.9" opacity="0.7"/>`
  );
}

function bird(red) {
  const g = red ? RED5 : GREEN;
  const b = red ? RED5 : BLUE;
  const r = red ? RED5 : PIN_RED;
  return (
    `<ellipse cx="19" cy="50" rx="6.5" ry="16" fill="${g}" transform="rotate(-28 19 50)"/>` +
    `<ellipse cx="41" cy="50" rx="6.5" ry="16" fill="${g}" transform="rotate(28 41 50)"/>` +
    `<ellipse cx="30" cy="53" rx="7" ry="17" fill="${b}"/>` +
    `<circle cx="12" cy="63" r="3" fill="${r}"/><circle cx="30" cy="68" r="3" fill="${r}"/>` +
    `<circle cx="48" cy="63" r="3" fill="${r}"/>` +
    `<ellipse cx="30" cy="33" rx="9" ry="12" fill="${g}"/>` +
    `<circle cx="30" cy="17" r="7" fill="${r}"/>` +
    `<polygon points="36,15 43,17 36,19.5" fill="${INK}"/>` +
    `<circle cx="32" cy="15.5" r="1.6" fill="${FACE}"/>`
  );
}

function souzu(n, red) {
  const c = (color) => (red ? RED5 : color);
  const G = c(GREEN);
  const Rd = c(PIN_RED);
  switch (n) {
    case 1:
      return bird(red);
    case 2:
      return stick(30, 21, 25, G) + stick(30, 54, 25, G);
    case 3:
      return stick(30, 21, 25, G) + stick(19, 54, 25, G) + stick(41, 54, 25, G);
    case 4:
      return stick(19, 21, 25, G) + stick(41, 21, 25, G) + stick(19, 54, 25, G) + stick(41, 54, 25, G);
    case 5:
      return (
        stick(15, 20, 24, G) + stick(45, 20, 24, G) + stick(30, 37.5, 24, Rd) +
        stick(15, 55, 24, G) + stick(45, 55, 24, G)
      );
    case 6:
      return [14, 30, 46].map((x) => stick(x, 21, 25, G) + stick(x, 54, 25, G)).join("");
    case 7:
      return (
        stick(30, 13, 17, Rd) +
        [14, 30, 46].map((x) => stick(x, 37, 19, G) + stick(x, 60, 19, G)).join("")
      );
    case 8:
      return [12, 24, 36, 48].map((x) => stick(x, 21, 25, G, 6.5) + stick(x, 54, 25, G, 6.5)).join("");
    case 9:
      return [14, 30, 46]
        .map((x) => {
          const color = x === 30 ? Rd : G;
          return stick(x, 14, 19, color) + stick(x, 37.5, 19, color) + stick(x, 61, 19, color);
        })
        .join("");
    default:
      return "";
  }
}

function manzu(n, red) {
  const numeral = red ? RED5 : INK;
  return (
    text(30, 21, 27, numeral, MAN_NUMERALS[n], ' font-weight="700"') +
    text(30, 53, 31, red ? RED5 : MAN_RED, "萬", ' font-weight="700"') +
    text(8, 9, 11, red ? RED5 : "#6b6457", String(n), ' font-family="sans-serif" font-weight="700"')
  );
}

function honor(n) {
  if (n === 5) {
    // haku: a blank tile with a blue frame
    return `<rect x="12" y="12" width="36" height="51" rx="3" fill="none" stroke="${HAKU}" stroke-width="3.5"/>`;
  }
  const color = n === 6 ? HATSU : n === 7 ? CHUN : WIND;
  let out = text(30, 39, 42, color, HONOR_KANJI[n - 1], ' font-weight="700"');
  if (HONOR_LETTERS[n - 1]) {
    out += text(8, 9, 11, "#6b6457", HONOR_LETTERS[n - 1], ' font-family="sans-serif" font-weight="700"');
  }
  return out;
}

function faceContent(tile) {
  const digit = Number(tile[0]);
  const suit = tile[1];
  const red = digit === 0;
  const n = red ? 5 : digit;
  let body;
  if (suit === "m") body = manzu(n, red);
  else if (suit === "p") body = pinzu(n, red);
  else if (suit === "s") body = souzu(n, red);
  else body = honor(n);
  if (red) body += `<circle cx="52.5" cy="7.5" r="4" fill="${RED5}" stroke="${FACE}" stroke-width="1"/>`;
  return body;
}

function frame(inner, back) {
  if (back) {
    return (
      `<rect x="0" y="0" width="${W}" height="${H}" rx="7" fill="#1d4a63"/>` +
      `<rect x="0" y="0" width="${W}" height="${FACE_H}" rx="7" fill="#2f7aa3" stroke="#1d4a63" stroke-width="1.5"/>` +
      `<rect x="6" y="6" width="${W - 12}" height="${FACE_H - 12}" rx="4" fill="none" stroke="#8ec3df" stroke-width="1.5" opacity="0.8"/>`
    );
  }
  return (
    `<rect x="0" y="0" width="${W}" height="${H}" rx="7" fill="#cfc5aa"/>` +
    `<rect x="0.6" y="0.6" width="${W - 1.2}" height="${FACE_H}" rx="6.5" fill="${FACE}" stroke="#a69c83" stroke-width="1.2"/>` +
    inner
  );
}

const cache = new Map();

/**
 * The SVG markup of one tile. `tile` is an mpsz string, or null for a face-down tile.
 * Options: sideways (laid sideways, e.g. a riichi discard or a called tile in a meld), back (face
 * down even when the tile is known, e.g. the outer tiles of a closed kan).
 */
export function tileSVG(tile, { sideways = false, back = false } = {}) {
  const hidden = back || !isTile(tile);
  const key = `${hidden ? "back" : tile}|${sideways ? 1 : 0}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const label = hidden ? "face-down tile" : tileLabel(tile);
  const body = frame(hidden ? "" : faceContent(tile), hidden);
  const [vw, vh] = sideways ? [H, W] : [W, H];
  // Sideways: the tile turned a quarter to the left, its top at the left edge.
  const content = sideways ? `<g transform="translate(0 ${W}) rotate(-90)">${body}</g>` : body;
  const classes = ["tile-svg"];
  if (!hidden && isRedFive(tile)) classes.push("red-five");
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" class="${classes.join(" ")}" viewBox="0 0 ${vw} ${vh}" ` +
    `role="img" aria-label="${label}" data-face="${hidden ? "back" : tile}">` +
    `<title>${label}</title>${content}</svg>`;
  cache.set(key, svg);
  return svg;
}
