// The organizer role (docs/tournaments.md, "Roles"): who holds it, a form that grants or revokes it
// by account name with a reason, and the role's log (who did what, when and why). Route #/organizers
// of the admin pages; the API is POST/GET /api/admin/organizers (administrators).

import { ApiError, getJson, postJson } from "./api.js";
import { h } from "./dom.js";

function when(seconds) {
  return new Date(seconds * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

/** Build the page into `show(...nodes)`; `current()` false once the admin went elsewhere. */
export async function organizersView(show, current) {
  const data = await getJson("/api/admin/organizers");
  if (!current()) return;
  const said = h("p", { class: "muted", testid: "organizer-said", role: "status" });
  const form = h("form", { class: "card filters", testid: "organizer-form" },
    h("label", {}, "Account name", h("input", { name: "name", required: true, maxlength: 64, testid: "organizer-name" })),
    h("label", {}, "Reason", h("input", { name: "reason", maxlength: 500, testid: "organizer-reason", placeholder: "kept in the log" })),
    h("button", { type: "submit", name: "grant", value: "1", testid: "organizer-grant" }, "Grant"),
    h("button", { type: "submit", name: "revoke", value: "1", class: "ghost", testid: "organizer-revoke" }, "Revoke"),
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const fields = new FormData(form);
    const granted = ev.submitter?.name !== "revoke";
    const name = String(fields.get("name") ?? "").trim();
    try {
      await postJson("/api/admin/organizers", { name, granted, reason: String(fields.get("reason") ?? "") });
      if (current()) await organizersView(show, current);
    } catch (err) {
      said.textContent = err instanceof ApiError ? `${err.message} (${err.code})` : String(err?.message ?? err);
      said.classList.add("error");
    }
  });
  show(
    h("h1", {}, "Organizers"),
    h("p", { class: "muted" }, "Organizers create and run events (docs/tournaments.md). Every grant and revocation is kept in the log below."),
    form,
    said,
    h("h2", {}, "Holding the role"),
    data.organizers.length === 0
      ? h("p", { class: "muted", testid: "no-organizers" }, "Nobody yet.")
      : h("ul", { testid: "organizers" }, data.organizers.map((o) => h("li", { "data-account": o.account }, h("b", {}, o.name), ` (${o.account}) since ${when(o.since)}`))),
    h("h2", {}, "Log"),
    h("table", { testid: "organizer-log" },
      h("thead", {}, h("tr", {}, ["When", "Who", "Account", "", "Reason"].map((t) => h("th", {}, t)))),
      h("tbody", {}, [...data.log].reverse().map((e) =>
        h("tr", {}, h("td", {}, when(e.at)), h("td", {}, e.actor), h("td", {}, e.name), h("td", {}, e.granted ? "granted" : "revoked"), h("td", {}, e.reason))))),
  );
}
