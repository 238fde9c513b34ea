// The review API from the admin pages: the token lives in sessionStorage (this tab only, gone when
// it closes) and goes in the Authorization header of every request; never in a URL.
//
// The same pages in the players' mode (games.html, <body data-mode="player">, on the game port
// under /games/): the token is the session token the game page keeps for this browser's player
// (localStorage "jantaku.session_token"), and the routes are the player's own, /api/me/games/...

const TOKEN_KEY = "jantaku.admin.token";
const SESSION_KEY = "jantaku.session_token"; // static/js/protocol.js TOKEN_KEY
const PLAYER_TOKEN_KEY = "jantaku.player.token"; // a registered player's or a bot's API token, pasted

/** True on the players' pages (games.html). */
export const PLAYER_MODE = globalThis.document?.body?.dataset?.mode === "player";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// Players' mode: a pasted player or bot token (this tab only) first, else this browser's guest session.
export function getToken(storage = globalThis.sessionStorage) {
  if (PLAYER_MODE) return storage?.getItem(PLAYER_TOKEN_KEY) || (globalThis.localStorage?.getItem(SESSION_KEY) ?? "");
  return storage?.getItem(TOKEN_KEY) ?? "";
}

export function setToken(token, storage = globalThis.sessionStorage) {
  const key = PLAYER_MODE ? PLAYER_TOKEN_KEY : TOKEN_KEY;
  if (token) storage.setItem(key, token.trim());
  else storage.removeItem(key);
}

async function request(path, { accept = "application/json", method = "GET", body = undefined } = {}) {
  const headers = { Accept: accept };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    response = await fetch(path, { method, headers, body: payload, cache: "no-store", credentials: "omit" });
  } catch (err) {
    throw new ApiError(0, "network", `cannot reach the server: ${err.message}`);
  }
  if (!response.ok) {
    let code = "http_" + response.status;
    let message = response.statusText || `HTTP ${response.status}`;
    try {
      const body = await response.json();
      code = body.error?.code ?? code;
      message = body.error?.message ?? message;
    } catch {
      // not JSON: keep the status text
    }
    throw new ApiError(response.status, code, message);
  }
  return response;
}

export async function getJson(path) {
  return (await request(path)).json();
}

// An action (the organizer role): a JSON body posted with the token.
export async function postJson(path, body) {
  return (await request(path, { method: "POST", body })).json();
}

// Query string from an object, leaving out empty values.
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const text = q.toString();
  return text ? `?${text}` : "";
}

// Download an export: fetched with the token, saved through a temporary blob URL.
export async function download(path, filename) {
  const response = await request(path, { accept: "*/*" });
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const GAMES = PLAYER_MODE ? "/api/me/games" : "/api/admin/games";

export const api = {
  me: () => getJson("/api/me"),
  games: (params) => getJson(GAMES + query(params)),
  game: (id) => getJson(`${GAMES}/${encodeURIComponent(id)}`),
  replay: (id) => getJson(`${GAMES}/${encodeURIComponent(id)}/replay`),
  walls: (id) => getJson(`/api/admin/games/${encodeURIComponent(id)}/walls`),
  viewer: (id) => getJson(`${GAMES}/${encodeURIComponent(id)}/viewer`),
  audit: (params) => getJson("/api/admin/audit" + query(params)),
  exportPath: (id, format) => `${GAMES}/${encodeURIComponent(id)}/export${query({ format, download: true })}`,
};
