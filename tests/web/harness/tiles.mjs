// Every tile face at three sizes, plus backs and sideways tiles: a visual check of tiles.js.
import { ALL_FACES, tileSVG } from "/static/js/tiles.js";

const root = document.getElementById("gallery");
for (const size of ["xl", "md", "sm"]) {
  const section = document.createElement("section");
  section.className = `gallery-row size-${size}`;
  for (const suit of "mpsz") {
    const row = document.createElement("div");
    row.className = "gallery-suit";
    for (const face of ALL_FACES.filter((f) => f[1] === suit)) {
      const span = document.createElement("span");
      span.className = "tile";
      span.innerHTML = tileSVG(face);
      row.append(span);
    }
    section.append(row);
  }
  const extra = document.createElement("div");
  extra.className = "gallery-suit";
  for (const [face, opts] of [[null, {}], ["0p", { sideways: true }], ["3z", { sideways: true }], ["5m", { back: true }]]) {
    const span = document.createElement("span");
    span.className = opts.sideways ? "tile sideways" : "tile";
    span.innerHTML = tileSVG(face, opts);
    extra.append(span);
  }
  section.append(extra);
  root.append(section);
}
document.body.dataset.ready = "1";
