// The keyboard: tile keys, arrows, Enter, the action letters and Esc (docs/browser.md, "Keyboard
// shortcuts"). One function of the controller's state, so that app.js stays about the protocol.

import { buttonForKey, slotAction, tileKeyIndex } from "./actions.js";

export function onKey(app, e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const target = e.target;
  const tag = target && target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const key = e.key;
  const consume = () => {
    e.preventDefault();
    e.stopPropagation();
  };
  if (key === "?") {
    consume();
    app.toggleHelp();
    return;
  }
  if (app.ui.help) {
    if (key === "Escape" || key === "Enter") {
      consume();
      app.toggleHelp(false);
    }
    return;
  }
  if (!app.match) return;
  // Esc skips the win call-out first (Enter closes the result, and the call-out with it).
  if (key === "Escape" && app.skipCallout()) {
    consume();
    return;
  }
  const options = app.options();
  if (app.ui.chooser) {
    const n = Number(key);
    if (Number.isInteger(n) && n >= 1 && n <= app.ui.chooser.actions.length) {
      consume();
      app.onChoose(n - 1);
    } else if (key === "Escape") {
      consume();
      app.cancel();
    }
    return;
  }
  if (key === "Escape" && app.ui.mode) {
    consume();
    app.cancel();
    return;
  }
  if ((key === "Escape" || key === "Enter") && app.results && !app.matchEnd && (key === "Escape" || app.ui.selected === null)) {
    consume();
    app.closeResult();
    return;
  }
  if (!options || app.pending) return;
  const slots = app.slots();
  const selectable = slots.map((s, i) => (slotAction(s, options, app.ui.mode) ? i : -1)).filter((i) => i >= 0);
  const index = tileKeyIndex(key);
  if (index !== null) {
    consume();
    if (index >= slots.length || !selectable.includes(index)) return;
    if (app.ui.selected === index) app.onSlot(index);
    else {
      app.ui.selected = index;
      app.render();
    }
    return;
  }
  if (key === "ArrowLeft" || key === "ArrowRight") {
    consume();
    if (!selectable.length) return;
    const at = selectable.indexOf(app.ui.selected);
    let next;
    if (at < 0) next = key === "ArrowLeft" ? selectable[selectable.length - 1] : selectable[0];
    else next = selectable[(at + (key === "ArrowLeft" ? -1 : 1) + selectable.length) % selectable.length];
    app.ui.selected = next;
    app.render();
    return;
  }
  if (key === "Enter") {
    if (app.ui.selected !== null && selectable.includes(app.ui.selected)) {
      consume();
      app.onSlot(app.ui.selected);
    }
    return;
  }
  if ((key === "x" || key === "X") && !app.ui.mode) {
    // Never throw away a winning tile by reflex: with a tsumo offered, X does nothing (as the
    // Tsumogiri toggle); the drawn tile can still be clicked or chosen with the tile keys.
    if (options.buttons.some((b) => b.id === "tsumo")) {
      consume();
      return;
    }
    const drawn = slots.findIndex((s) => s.drawn);
    if (drawn >= 0 && selectable.includes(drawn)) {
      consume();
      app.onSlot(drawn);
    }
    return;
  }
  const button = buttonForKey(key, options.buttons);
  if (button) {
    consume();
    app.onButton(button.id);
  }
}
