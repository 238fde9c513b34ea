// Shared helpers of the browser client's JS tests (run by tests/web/test_js.py, or directly with
// `node --test tests/web/js/`).
import { readFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const STATIC = join(ROOT, "server", "web", "static", "js");

/** The example session of docs/protocol.md: [{dir: "→"|"←", message}] in order. */
export function exampleSession() {
  const text = readFileSync(join(ROOT, "docs", "protocol.md"), "utf8");
  const section = text.split("## Example session")[1].split("\n## ")[0];
  const out = [];
  for (const block of section.matchAll(/```text\n([\s\S]*?)```/g)) {
    for (const line of block[1].split("\n")) {
      if (line.startsWith("→ ") || line.startsWith("← ")) {
        let message;
        try {
          message = JSON.parse(line.slice(2));
        } catch {
          message = null; // the example's deliberately malformed lines are client lines
        }
        out.push({ dir: line[0], message });
      }
    }
  }
  return out;
}

/** The fixtures written by tests/web/test_js.py (null when run without them). */
export function fixtures() {
  const path = process.env.JANTAKU_WEB_FIXTURES;
  if (!path || !existsSync(path)) return null;
  return JSON.parse(readFileSync(path, "utf8"));
}
