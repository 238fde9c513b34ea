// The moderators' review queue (docs/social.md, "Reports"): #/reports lists the reports (open ones
// first by default), #/report/ID shows one with the context the server stored (the lines around the
// reported line, the channel or match and its step), the reported player's sanctions, and the
// actions: dismiss, chat ban or suspend, each with a reason (and a length for a sanction). Every
// name and line goes into the page as text, never as HTML.

import { ApiError, getToken, query } from "./api.js";
import { h } from "./dom.js";

async function call(method, path, body) {
  const headers = { Accept: "application/json", Authorization: `Bearer ${getToken()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, cache: "no-store", credentials: "omit", body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data?.error?.code ?? `http_${response.status}`, data?.error?.message ?? response.statusText);
  return data;
}

function when(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  return new Date(seconds * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

const STATUSES = ["open", "actioned", "dismissed", ""];

export async function reportsView(params, current, show) {
  const status = params.get("status") ?? "open";
  const data = await call("GET", "/api/admin/reports" + query({ status }));
  if (!current()) return;
  const tabs = h("p", { class: "filters" }, STATUSES.map((s) => [h("a", { href: `#/reports?status=${s}`, class: s === status ? "active" : "", testid: `reports-${s || "all"}` }, s || "all"), " "]));
  const rows = data.reports.map((r) =>
    h(
      "tr",
      { testid: "report-row" },
      h("td", {}, h("a", { href: `#/report/${r.id}` }, `#${r.id}`)),
      h("td", {}, when(r.created_at)),
      h("td", {}, r.place),
      h("td", {}, r.reporter),
      h("td", {}, h("b", {}, r.target)),
      h("td", { class: "reason" }, r.reason),
      h("td", {}, r.status),
    ),
  );
  show(
    h("h1", {}, "Reports"),
    tabs,
    rows.length
      ? h("table", { testid: "reports" }, h("thead", {}, h("tr", {}, ["#", "When", "Where", "By", "About", "Reason", "Status"].map((t) => h("th", {}, t)))), h("tbody", {}, rows))
      : h("p", { class: "muted", testid: "reports-empty" }, status === "open" ? "No report is waiting for review." : "No report."),
  );
}

function contextLines(context) {
  const lines = context.lines ?? [];
  if (!lines.length) return h("p", { class: "muted" }, "No chat line: the report is about the player.");
  return h(
    "ol",
    { class: "report-lines", testid: "report-lines" },
    lines.map((line) =>
      h(
        "li",
        { class: line.id === context.line_id ? "reported" : "", testid: line.id === context.line_id ? "reported-line" : "context-line" },
        h("span", { class: "muted" }, when(line.at), " "),
        h("b", {}, line.name ?? line.account_id ?? "?"),
        line.seat !== undefined && line.seat !== null ? h("span", { class: "muted" }, ` (seat ${line.seat + 1})`) : null,
        ": ",
        line.text ?? `[stamp ${line.stamp}]`,
      ),
    ),
  );
}

export async function reportView(id, current, show, showError) {
  const r = await call("GET", `/api/admin/reports/${encodeURIComponent(id)}`);
  if (!current()) return;
  const c = r.context ?? {};
  const where = c.channel ? `lobby channel ${c.channel}` : c.match_id ? `table ${c.match_id}${c.step !== undefined && c.step !== null ? `, step ${c.step}` : ""}` : "—";
  const sanctions = r.sanctions.length
    ? h("ul", { testid: "report-sanctions" }, r.sanctions.map((s) => h("li", {}, `#${s.id} ${s.kind} from ${when(s.starts)} until ${s.ends ? when(s.ends) : "lifted"}${s.lifted_at ? ` (lifted ${when(s.lifted_at)})` : ""}: `, s.reason)))
    : h("p", { class: "muted" }, "No sanction so far.");
  let actions;
  if (r.status === "open") {
    const form = h(
      "form",
      { class: "card filters", testid: "resolve-form" },
      h("label", {}, "Action", h("select", { name: "action", testid: "resolve-action" }, h("option", { value: "dismiss" }, "Dismiss"), h("option", { value: "chat_ban" }, "Chat ban"), h("option", { value: "suspend" }, "Suspend"))),
      h("label", {}, "Minutes (empty: until lifted)", h("input", { name: "minutes", type: "number", min: "1", testid: "resolve-minutes" })),
      h("label", { class: "grow" }, "Reason (required, stored)", h("input", { name: "reason", required: true, maxlength: "500", testid: "resolve-reason" })),
      h("button", { type: "submit", testid: "resolve-submit" }, "Resolve"),
    );
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const f = new FormData(form);
      const body = { action: String(f.get("action")), reason: String(f.get("reason") ?? "").trim() };
      const minutes = String(f.get("minutes") ?? "").trim();
      if (minutes && body.action !== "dismiss") body.minutes = Number(minutes);
      try {
        await call("POST", `/api/admin/reports/${encodeURIComponent(id)}/resolve`, body);
        location.hash = `#/report/${encodeURIComponent(id)}?done=1`;
        await reportView(id, current, show, showError);
      } catch (err) {
        showError(err);
      }
    });
    actions = form;
  } else {
    actions = h("p", { testid: "report-resolution" }, `${r.status} by ${r.resolved_by} at ${when(r.resolved_at)}: `, r.resolution ?? "", r.sanction_id ? ` (sanction #${r.sanction_id})` : "");
  }
  show(
    h("h1", {}, h("a", { href: "#/reports" }, "Reports"), ` › #${r.id}`),
    h(
      "div",
      { class: "card", testid: "report" },
      h("p", {}, h("b", {}, r.reporter), " reported ", h("b", { testid: "report-target" }, r.target), ` (${r.target_id}) on ${when(r.created_at)}, in ${where}.`),
      h("p", {}, "Reason: ", h("q", { testid: "report-reason" }, r.reason)),
      h("p", {}, "Status: ", h("b", { testid: "report-status" }, r.status)),
    ),
    h("h2", {}, "What was said"),
    contextLines(c),
    h("h2", {}, "Sanctions of ", r.target),
    sanctions,
    h("h2", {}, "Action"),
    actions,
  );
}
