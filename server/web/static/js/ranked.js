// Ranked play in the browser (docs/ranking.md): sign up, sign in, sign out, change password; the
// player's rank and the rooms they may enter, in the lobby; each seat's rank at the table; the
// leaderboard and profiles with a rating chart drawn here as SVG (nothing fetched from elsewhere).
//
// The API lives on the hub's HTTP port (`--http-port`, by default the page's port + 1; `?api=`
// overrides it). The session token the API gives is the one the websocket uses: after signing in,
// the page stores it and reconnects as the player.

const TOKEN_KEY = "jantaku.session_token";
const SVG = "http://www.w3.org/2000/svg";

/** The ranked API's base URL: `?api=` if given, else this host on the next port. */
/** The seat count of the three-player (sanma-...) rooms, whose ranks are kept apart (GET /api/rooms: seats). */
export const SANMA_SEATS = 3;

/** The leaderboard rooms of each kind of board: players and bot ladder, four-player or sanma. */
export function boardRoom(sanma, ladder) {
  return `${sanma ? "sanma-" : ""}${ladder ? "ladder" : "open"}`;
}

export function apiBase(location) {
  const override = new URLSearchParams(location.search).get("api");
  if (override) return override.replace(/\/$/, "");
  const port = Number(location.port || (location.protocol === "https:" ? 443 : 80)) + 1;
  return `${location.protocol}//${location.hostname}:${port}`;
}

function h(doc, tag, attrs = {}, ...children) {
  const node = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "className") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const LENGTH_LABEL = { east: "East only", east_south: "East-South" };

/** "1 game", "3 games". */
export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}

/**
 * An API error in words: a refused sign-up or password says what a name or a password must be,
 * rather than the validator's "invalid body.password". `data` is the error body, `status` the HTTP
 * status.
 */
export function accountErrorText(data, status) {
  const error = data?.error;
  const fields = (error?.details ?? []).map((d) => String(d.loc?.[d.loc.length - 1] ?? ""));
  if (error?.code === "invalid_request" && fields.length) {
    const words = [];
    if (fields.some((f) => f.endsWith("password"))) {
      words.push("A password must be 8 to 128 characters long, and not only spaces.");
    }
    if (fields.includes("name")) {
      words.push("A name is 1 to 32 letters, digits, \"_\", \".\" or \"-\", starting with a letter or a digit.");
    }
    if (words.length) return words.join(" ");
  }
  return error?.message ?? `HTTP ${status}`;
}

/** An order of the rank keys ("new", "9k" … "1k", "1d" … "10d", "tenhoui"): higher is better. */
export function rankOrder(key) {
  const m = /^(\d+)([kd])$/.exec(String(key));
  if (m) return m[2] === "k" ? 10 - Number(m[1]) : 9 + Number(m[1]);
  return key === "tenhoui" ? 100 : 0;
}

/**
 * What a rated match changed for the player, from their standing for its length before and after:
 * null when it was not rated (the games count did not move). `rank`: "promoted" | "demoted" | null.
 */
export function climbOf(before, after) {
  if (!before || !after || after.games <= before.games) return null;
  const step = rankOrder(after.rank) - rankOrder(before.rank);
  return {
    before,
    after,
    points: after.points - before.points,
    rating: after.rating - before.rating,
    rank: step > 0 ? "promoted" : step < 0 ? "demoted" : null,
  };
}

export function standingText(s) {
  const target = s.target === null ? "" : ` / ${s.target}`;
  return `${s.rank_label} ${s.points}${target} pt · R ${Math.round(s.rating)}`;
}

/** An SVG polyline of R after each rated match (and the start), scaled to the box. */
/**
 * Where a recent game on ``profileName``'s profile links to: the player's own replay on /games/ (with
 * every hand's tenhou.net/6 viewer link) when the signed-in account ``me`` is that player; nothing
 * otherwise (a game's log is readable by its players only: docs/ranking.md).
 */
export function replayLink(matchId, profileName, me) {
  if (!me || me.kind === "guest" || me.name !== profileName) return null;
  return `/games/#/game/${encodeURIComponent(matchId)}/replay`;
}

export function ratingChart(doc, points, width = 320, height = 120) {
  const svg = doc.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", String(width));
  svg.setAttribute("height", String(height));
  svg.setAttribute("role", "img");
  svg.setAttribute("data-testid", "rating-chart");
  const values = [1500, ...points.map((p) => p.rating)];
  const lo = Math.min(...values) - 10;
  const hi = Math.max(...values) + 10;
  const x = (i) => (values.length === 1 ? width / 2 : 8 + (i * (width - 16)) / (values.length - 1));
  const y = (v) => height - 8 - ((v - lo) * (height - 16)) / (hi - lo);
  const base = doc.createElementNS(SVG, "line");
  for (const [k, v] of Object.entries({ x1: 0, x2: width, y1: y(1500), y2: y(1500), class: "chart-base" })) base.setAttribute(k, String(v));
  const line = doc.createElementNS(SVG, "polyline");
  line.setAttribute("points", values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
  line.setAttribute("class", "chart-line");
  line.setAttribute("fill", "none");
  const title = doc.createElementNS(SVG, "title");
  title.textContent = `R over ${points.length} rated matches: ${values.map((v) => Math.round(v)).join(", ")}`;
  svg.append(title, base, line);
  return svg;
}

export class Ranked {
  constructor({ doc, app, storage, location, fetch }) {
    this.doc = doc;
    this.app = app;
    this.storage = storage;
    this.location = location;
    this.fetch = fetch ?? ((...args) => globalThis.fetch(...args));
    this.base = apiBase(location);
    this.me = null; // {account, standings, rooms}
    this.seatRanks = new Map(); // name -> "1 dan" (or "" for none)
    this.ladders = new Map(); // "room/length" -> Promise of Map(bot name -> rank label), from the bot ladder
    this.climb = null; // {matchId, ...climbOf()}: the last ranked match's change, for its final screen
    this.box = doc.getElementById("ranked");
    this.view = doc.getElementById("ranked-view");
  }

  get token() {
    return this.storage?.getItem(TOKEN_KEY) ?? null;
  }

  async call(method, path, body = null, auth = true) {
    const headers = {};
    if (body !== null) headers["Content-Type"] = "application/json";
    if (auth && this.token) headers.Authorization = `Bearer ${this.token}`;
    const response = await this.fetch(`${this.base}${path}`, {
      method,
      headers,
      body: body === null ? undefined : JSON.stringify(body),
    });
    const data = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) {
      const error = new Error(accountErrorText(data, response.status));
      error.code = data?.error?.code;
      throw error;
    }
    return data;
  }

  /**
   * The hub's welcome says who this page plays as. A guest has no ranked standing: the card offers
   * to sign up (keeping the guest's games) without asking the API, which would answer 401.
   */
  onWelcome(player) {
    if (player?.kind === "guest") {
      this.me = { account: player, standings: [], sanma_standings: [], rooms: [] };
      this.render();
      return;
    }
    this.refresh();
  }

  async refresh() {
    this.me = null;
    if (this.token) {
      try {
        this.me = await this.call("GET", "/api/accounts/me");
      } catch {
        this.me = null;
      }
    }
    this.render();
  }

  /** Keep the session token and reconnect as that account. */
  _become(token) {
    this.storage.setItem(TOKEN_KEY, token);
    this.location.reload();
  }

  async signUp(name, password) {
    const guest = this.me?.account.kind === "guest" ? this.token : null;
    const body = { name, password };
    let done;
    try {
      // the guest's games stay its own, when the API knows this guest's session
      done = await this.call("POST", "/api/accounts/register", guest ? { ...body, guest_session: guest } : body, false);
    } catch (exc) {
      if (!guest || exc.code !== "unauthenticated") throw exc;
      done = await this.call("POST", "/api/accounts/register", body, false); // a new player, then
    }
    this._become(done.session_token);
  }

  async signIn(name, password) {
    const done = await this.call("POST", "/api/accounts/signin", { name, password }, false);
    this._become(done.session_token);
  }

  async signOut() {
    try {
      await this.call("POST", "/api/accounts/signout");
    } finally {
      this.storage.removeItem(TOKEN_KEY);
      this.location.reload();
    }
  }

  async changePassword(oldPassword, newPassword) {
    const done = await this.call("POST", "/api/accounts/password", { old_password: oldPassword, new_password: newPassword });
    this._become(done.session_token);
  }

  queue(room) {
    const app = this.app;
    app.lastJoin = { kind: "queue" };
    app.joinRequest = app.conn.join({ type: "queue", preset: room.queue });
    app.queued = { preset: room.queue, players_waiting: 1 };
    app.render();
  }

  // ---- the lobby card ------------------------------------------------------------------------

  render() {
    if (!this.box) return;
    const doc = this.doc;
    const me = this.me;
    const error = h(doc, "p", { className: "ranked-error", "data-testid": "ranked-error", role: "alert" });
    const guard = (fn) => async (event) => {
      event?.preventDefault?.();
      error.textContent = "";
      try {
        await fn();
      } catch (exc) {
        error.textContent = exc.message;
      }
    };
    const links = h(
      doc,
      "div",
      { className: "field-row" },
      h(doc, "button", { type: "button", className: "ghost", "data-testid": "show-leaderboard", onclick: guard(() => this.showLeaderboard("open", "east")) }, "Leaderboard"),
    );
    if (!me || me.account.kind === "guest") {
      const name = h(doc, "input", { id: "ranked-name", "data-testid": "ranked-name", autocomplete: "username", maxlength: 32, placeholder: "name" });
      const password = h(doc, "input", { id: "ranked-password", "data-testid": "ranked-password", type: "password", autocomplete: "current-password", maxlength: 128, placeholder: "password (8+)" });
      this.box.replaceChildren(
        h(doc, "h2", {}, "Ranked"),
        h(doc, "p", { className: "hint" }, me ? "Sign up to play ranked: the games you played as a guest stay yours." : "Sign up or sign in to play ranked."),
        h(doc, "form", { className: "field-row", onsubmit: guard(() => this.signIn(name.value, password.value)) }, name, password),
        h(
          doc,
          "div",
          { className: "field-row" },
          h(doc, "button", { type: "button", className: "primary", "data-testid": "sign-up", onclick: guard(() => this.signUp(name.value, password.value)) }, "Sign up"),
          h(doc, "button", { type: "button", "data-testid": "sign-in", onclick: guard(() => this.signIn(name.value, password.value)) }, "Sign in"),
        ),
        error,
        links,
      );
      return;
    }
    const standings = me.standings.map((s) =>
      h(doc, "li", { "data-testid": `my-rank-${s.length}` }, `${LENGTH_LABEL[s.length]}: ${standingText(s)} · ${plural(s.games, "game")}`),
    );
    for (const s of me.sanma_standings ?? []) {
      standings.push(
        h(doc, "li", { "data-testid": `my-rank-sanma-${s.length}` }, `Sanma ${LENGTH_LABEL[s.length].toLowerCase()}: ${standingText(s)} · ${plural(s.games, "game")}`),
      );
    }
    const rooms = me.rooms
      .filter((r) => r.may_enter)
      .map((r) =>
        h(doc, "button", { type: "button", "data-testid": `room-${r.queue}`, title: r.requirement, onclick: () => this.queue(r) }, `${r.label} · ${LENGTH_LABEL[r.length]}`),
      );
    const oldPw = h(doc, "input", { type: "password", "data-testid": "old-password", autocomplete: "current-password", placeholder: "current password" });
    const newPw = h(doc, "input", { type: "password", "data-testid": "new-password", autocomplete: "new-password", placeholder: "new password" });
    links.append(
      h(doc, "button", { type: "button", className: "ghost", "data-testid": "show-profile", onclick: guard(() => this.showProfile(me.account.name)) }, "My profile"),
      h(doc, "button", { type: "button", className: "ghost", "data-testid": "sign-out", onclick: guard(() => this.signOut()) }, "Sign out"),
    );
    this.box.replaceChildren(
      h(doc, "h2", {}, "Ranked"),
      h(doc, "p", { "data-testid": "ranked-account" }, `Signed in as ${me.account.name}`),
      h(doc, "ul", { className: "my-ranks" }, standings),
      h(doc, "p", { className: "hint" }, "Rooms you may enter (ranked tables wait for a full table of players, four, or three in sanma rooms; no bots):"),
      h(doc, "div", { className: "field-row rooms", "data-testid": "ranked-rooms" }, rooms),
      links,
      h(
        doc,
        "details",
        {},
        h(doc, "summary", {}, "Change password"),
        h(doc, "form", { className: "field-row", onsubmit: guard(() => this.changePassword(oldPw.value, newPw.value)) }, oldPw, newPw, h(doc, "button", { type: "submit", "data-testid": "change-password" }, "Change")),
      ),
      error,
    );
  }

  // ---- leaderboard and profile ---------------------------------------------------------------

  _open(title, ...content) {
    const doc = this.doc;
    this.view.replaceChildren(
      h(
        doc,
        "div",
        { className: "help-card ranked-card" },
        h(doc, "h2", {}, title),
        ...content,
        h(doc, "button", { type: "button", className: "primary", "data-testid": "close-ranked-view", onclick: () => (this.view.hidden = true) }, "Close"),
      ),
    );
    this.view.hidden = false;
  }

  async showLeaderboard(room, length) {
    const doc = this.doc;
    const board = await this.call("GET", `/api/leaderboard?room=${encodeURIComponent(room)}&length=${encodeURIComponent(length)}`, null, false);
    const sanma = room.startsWith("sanma-");
    const ladder = room.endsWith("ladder");
    const switches = ["east", "east_south"].map((l) =>
      h(doc, "button", { type: "button", className: l === length ? "primary" : "ghost", onclick: () => this.showLeaderboard(room, l) }, LENGTH_LABEL[l]),
    );
    switches.push(
      h(doc, "button", { type: "button", className: ladder ? "primary" : "ghost", onclick: () => this.showLeaderboard(boardRoom(sanma, !ladder), length) }, ladder ? "Players" : "Bot ladder"),
      h(doc, "button", { type: "button", className: sanma ? "primary" : "ghost", "data-testid": "leaderboard-sanma", onclick: () => this.showLeaderboard(boardRoom(!sanma, ladder), length) }, sanma ? "Four-player" : "Sanma"),
    );
    const rows = board.entries.map((e) =>
      h(
        doc,
        "tr",
        {},
        h(doc, "td", {}, String(e.position)),
        h(doc, "td", {}, h(doc, "button", { type: "button", className: "link", onclick: () => this.showProfile(e.name) }, e.name)),
        h(doc, "td", {}, `${e.standing.rank_label} ${e.standing.points}`),
        h(doc, "td", {}, String(Math.round(e.standing.rating))),
        h(doc, "td", {}, String(e.standing.games)),
      ),
    );
    this._open(
      `Leaderboard · ${sanma ? "sanma " : ""}${ladder ? "bot ladder" : "players"} · ${LENGTH_LABEL[length]}`,
      h(doc, "div", { className: "field-row" }, switches),
      h(doc, "table", { "data-testid": "leaderboard" }, h(doc, "tr", {}, ...["#", "name", "rank", "R", "games"].map((t) => h(doc, "th", {}, t))), rows),
      h(doc, "p", { className: "hint" }, `${board.total} ranked`),
    );
  }

  async showProfile(name) {
    const doc = this.doc;
    const p = await this.call("GET", `/api/players/${encodeURIComponent(name)}`, null, false);
    const boards = [{ prefix: "", title: "", figures: p }];
    if (p.sanma) boards.push({ prefix: "sanma-", title: "Sanma ", figures: p.sanma });
    const sections = boards.flatMap(({ prefix, title, figures }) => this._profileSections(p, prefix, title, figures));
    this._open(`${p.name}${p.kind === "bot" ? " (bot)" : ""}`, ...sections);
  }

  /** One board's sections of a profile (four-player, or sanma: "sanma-" in the test ids). */
  _profileSections(p, prefix, title, figures) {
    const doc = this.doc;
    return figures.standings.map((s) => {
      const history = figures.history[s.length] ?? [];
      const dist = s.placements.map((n, i) => `${i + 1}st 2nd 3rd 4th`.split(" ")[i] + ` ${n}`).join(" · ");
      const st = figures.stats?.[s.length];
      const pc = (v) => (v === null || v === undefined ? "–" : `${(100 * v).toFixed(1)}%`);
      const num = (v) => (v === null || v === undefined ? "–" : String(Math.round(v)));
      const stats = st && st.hands
        ? h(doc, "p", { "data-testid": `profile-stats-${prefix}${s.length}` },
            `${st.matches === 1 ? "The last match" : `Last ${st.matches} matches`}, ${plural(st.hands, "hand")}: win ${pc(st.win_rate)} · deal-in ${pc(st.deal_in_rate)} · ` +
              `tsumo ${pc(st.tsumo_share)} of wins · average win ${num(st.average_win)} · average deal-in ${num(st.average_deal_in)} · ` +
              `tenpai at draws ${pc(st.tenpai_at_draws)} · riichi ${pc(st.riichi_rate)} · calls ${pc(st.call_rate)}`)
        : null;
      const recent = history.slice(-10).reverse().map((c) => {
        const href = replayLink(c.match_id, p.name, this.me?.account);
        const game = href ? h(doc, "a", { href, "data-testid": "recent-replay", title: "Replay this game" }, c.match_id) : c.match_id;
        return h(doc, "li", {}, game, `: ${c.placement}. place, R ${Math.round(c.rating)}`);
      });
      return h(
        doc,
        "section",
        { "data-testid": `profile-${prefix}${s.length}` },
        h(doc, "h3", {}, `${title}${title ? LENGTH_LABEL[s.length].toLowerCase() : LENGTH_LABEL[s.length]}`),
        h(doc, "p", { "data-testid": `profile-rank-${prefix}${s.length}` }, standingText(s)),
        h(doc, "p", {}, `${plural(s.games, "game")} · average placement ${s.average_placement ?? "–"} · ${dist}`),
        stats,
        history.length ? ratingChart(doc, history) : h(doc, "p", { className: "hint" }, "No rated match yet."),
        recent.length ? h(doc, "ul", { className: "recent" }, recent) : null,
      );
    });
  }

  // ---- the table: each seat's rank ------------------------------------------------------------

  /**
   * Called after the side panel is drawn: add each seat's rank (fetched once per name). A guest has
   * none; a registered player's comes from their profile; a bot's from the bot ladder (a table's
   * built-in bots have no account, so asking for their profile would only be a 404).
   */
  decorateSeats(side, players, lengthOf, seats = players?.length) {
    if (!side || !players) return;
    const sanma = seats === SANMA_SEATS; // a three-player table shows the sanma ranks
    players.forEach((player, seat) => {
      const row = side.querySelector(`[data-testid="player-${seat}"] .p-name`);
      if (!row || !player || (player.kind !== "player" && player.kind !== "bot")) return;
      const key = `${player.name}/${lengthOf}/${sanma ? "sanma" : ""}`;
      if (!this.seatRanks.has(key)) {
        this.seatRanks.set(key, "");
        const label =
          player.kind === "bot"
            ? this._ladder(lengthOf, sanma).then((ladder) => ladder.get(player.name) ?? "")
            : this.call("GET", `/api/players/${encodeURIComponent(player.name)}`, null, false).then(
                (p) => (sanma ? p.sanma?.standings ?? [] : p.standings).find((x) => x.length === lengthOf)?.rank_label ?? "",
              );
        label
          .then((text) => {
            this.seatRanks.set(key, text);
            if (text) this.app.render();
          })
          .catch(() => {});
      }
      const label = this.seatRanks.get(key);
      if (label) row.append(h(this.doc, "small", { className: "p-rank", "data-testid": `seat-rank-${seat}` }, ` ${label}`));
    });
  }

  /** The bot ladder's ranks for one game length (asked once), four-player or sanma. */
  _ladder(length, sanma = false) {
    const key = `${boardRoom(sanma, true)}/${length}`;
    if (!this.ladders.has(key)) {
      const path = `/api/leaderboard?room=${boardRoom(sanma, true)}&length=${encodeURIComponent(length)}&limit=200`;
      const ladder = this.call("GET", path, null, false)
        .then((board) => new Map(board.entries.map((e) => [e.name, e.standing.rank_label])))
        .catch(() => new Map());
      this.ladders.set(key, ladder);
    }
    return this.ladders.get(key);
  }

  // ---- the end of a ranked match: the lobby's card and the climb -----------------------------

  /**
   * The match `matchId` (of length `length`) ended: read the standing again (the lobby's card shows
   * it at once) and, if the match was rated, keep what it changed for its final screen. The rating
   * is written as the match ends, so the page asks a few times until the games count moves.
   */
  async onMatchEnd(matchId, length, waits = [300, 1200, 3000], seats = undefined) {
    if (!this.me || this.me.account.kind === "guest") return;
    const mine = () => (seats === SANMA_SEATS ? this.me?.sanma_standings ?? [] : this.me?.standings ?? []);
    const before = mine().find((s) => s.length === length) ?? null;
    for (const wait of [0, ...waits ?? [300, 1200, 3000]]) {
      if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
      await this.refresh();
      const after = mine().find((s) => s.length === length) ?? null;
      const climb = climbOf(before, after);
      if (climb) {
        this.climb = { matchId, sanma: seats === SANMA_SEATS, ...climb };
        this.app.render();
        return;
      }
    }
  }

  /** Called after the result dialog is drawn: the climb under the final standings of a rated match. */
  decorateResult(box, matchId) {
    const climb = this.climb;
    const end = box?.querySelector('[data-testid="match-end"]');
    if (!climb || climb.matchId !== matchId || !end) return;
    const doc = this.doc;
    const { before, after } = climb;
    const sign = (n) => (n > 0 ? `+${n}` : String(n));
    const rank =
      climb.rank === "promoted"
        ? h(doc, "p", { className: "climb-rank promoted", "data-testid": "climb-rank" }, `Promoted to ${after.rank_label}!`)
        : climb.rank === "demoted"
          ? h(doc, "p", { className: "climb-rank demoted", "data-testid": "climb-rank" }, `Demoted to ${after.rank_label}`)
          : null;
    end.append(
      h(
        doc,
        "div",
        { className: "climb", "data-testid": "climb" },
        h(doc, "h4", {}, `Ranked${climb.sanma ? " sanma" : ""} · ${LENGTH_LABEL[after.length] ?? after.length}`),
        h(
          doc,
          "table",
          {},
          h(doc, "tr", {}, h(doc, "td", {}, "Rank"), h(doc, "td", {}, before.rank_label), h(doc, "td", {}, "→"), h(doc, "td", { "data-testid": "climb-rank-after" }, after.rank_label)),
          h(
            doc,
            "tr",
            {},
            h(doc, "td", {}, "Points"),
            h(doc, "td", {}, `${before.points}${before.target === null ? "" : ` / ${before.target}`}`),
            h(doc, "td", {}, "→"),
            h(doc, "td", { "data-testid": "climb-points" }, `${after.points}${after.target === null ? "" : ` / ${after.target}`}`),
            h(doc, "td", { className: climb.points >= 0 ? "plus" : "minus" }, `(${sign(climb.points)})`),
          ),
          h(
            doc,
            "tr",
            {},
            h(doc, "td", {}, "R"),
            h(doc, "td", {}, String(Math.round(before.rating))),
            h(doc, "td", {}, "→"),
            h(doc, "td", { "data-testid": "climb-rating" }, String(Math.round(after.rating))),
            h(doc, "td", { className: climb.rating >= 0 ? "plus" : "minus" }, `(${sign(Math.round(climb.rating))})`),
          ),
        ),
        rank,
      ),
    );
  }
}
