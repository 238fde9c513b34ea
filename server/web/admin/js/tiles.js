// Tiles in mpsz notation ("5m", "0p" = red five of circles, "7z" = chun): sorting and rendering.
// Pure functions plus one DOM helper; no dependencies.

const HONORS = ["東", "南", "西", "北", "白", "發", "中"];
const SUIT_ORDER = { m: 0, p: 1, s: 2, z: 3 };
export const WINDS = ["East", "South", "West", "North"];

export function isTile(name) {
  return typeof name === "string" && /^(?:[0-9][mps]|[1-7]z)$/.test(name);
}

// Sort key: suit, then number (a red five sorts with the fives, just after the plain ones).
export function tileKey(name) {
  const digit = Number(name[0]);
  const suit = SUIT_ORDER[name[1]] ?? 9;
  const number = digit === 0 ? 5.5 : digit;
  return suit * 100 + number * 10;
}

export function sortTiles(tiles) {
  return [...tiles].sort((a, b) => tileKey(a) - tileKey(b));
}

// The text of a tile: honors as their character, suited tiles as digit + suit letter.
export function tileText(name) {
  if (!isTile(name)) return "?";
  if (name[1] === "z") return HONORS[Number(name[0]) - 1];
  return (name[0] === "0" ? "5" : name[0]) + name[1];
}

export function tileTitle(name) {
  if (!isTile(name)) return "hidden";
  const suits = { m: "characters", p: "circles", s: "bamboo" };
  if (name[1] === "z") return ["east", "south", "west", "north", "haku", "hatsu", "chun"][Number(name[0]) - 1];
  return name[0] === "0" ? `red five of ${suits[name[1]]}` : `${name[0]} of ${suits[name[1]]}`;
}

// One <span class="tile ..."> for a tile; `extra` adds classes (e.g. "sideways", "called").
export function tileElement(doc, name, extra = "") {
  const span = doc.createElement("span");
  const suit = isTile(name) ? name[1] : "x";
  span.className = `tile suit-${suit}` + (isTile(name) && name[0] === "0" ? " red" : "") + (extra ? ` ${extra}` : "");
  span.textContent = tileText(name);
  span.title = tileTitle(name);
  span.dataset.tile = name;
  return span;
}

export function handLabel(roundWind, kyoku, honba) {
  const wind = WINDS[roundWind] ?? `Round ${roundWind}`;
  return `${wind} ${kyoku + 1}` + (honba ? `, ${honba} honba` : "");
}
