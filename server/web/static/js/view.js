// The receiver's view of one match, folded event by event.
//
// A line-by-line port of client_protocol/tracker.py (MatchTracker): the server's `snapshot` is
// defined as this fold, so a view rebuilt here equals the snapshot the server would send, and a
// client that resumes from a snapshot continues exactly as if it had seen every event. The view has
// the shape of a snapshot's `view` (snake_case keys, see docs/protocol.md#snapshots).
//
// Pure module: no DOM, no network (tests/web/js/view.test.mjs runs it under node).

/** Draws from the live wall in a hand without kans (136 - 14 dead wall - 4 x 13 dealt). */
export const LIVE_WALL_DRAWS = 70;
/** Three seats: 108 tiles (no 2m-8m) - 14 dead wall - 3 x 13 dealt. */
export const LIVE_WALL_DRAWS_3 = 55;
/** The live wall's draws by the deal's seat count (the rulesets' tiles: 136 for four, 108 for three). */
const LIVE_WALL_BY_SEATS = new Map([
  [3, LIVE_WALL_DRAWS_3],
  [4, LIVE_WALL_DRAWS],
]);
/** Seats shown before a deal or a seating says how many: the default preset's (tenhou). */
export const DEFAULT_SEATS = 4;

const SUITS = "mpsz";

/** Display order key: by suit (m, p, s, z), then number; a red five just after its plain fives. */
export function tileSortKey(tile) {
  const digit = Number(tile[0]);
  return [SUITS.indexOf(tile[1]), digit || 5, digit === 0 ? 1 : 0];
}

export function compareTiles(a, b) {
  const ka = tileSortKey(a);
  const kb = tileSortKey(b);
  for (let i = 0; i < 3; i++) {
    if (ka[i] !== kb[i]) return ka[i] - kb[i];
  }
  return 0;
}

/** A sorted copy (stable, like Python's sorted). */
export function sortTiles(tiles) {
  return [...tiles].sort(compareTiles);
}

/** The tile with a red five read as its plain five. */
export function tileKind(tile) {
  return tile[0] === "0" ? `5${tile[1]}` : tile;
}

/** The stream contradicts itself, or events are missing: the client should `resume`. */
export class TrackerError extends Error {
  constructor(message) {
    super(message);
    this.name = "TrackerError";
  }
}

const clone = (value) => (value === null || value === undefined ? value : structuredClone(value));

export class MatchTracker {
  constructor(matchId, seat) {
    this.matchId = matchId;
    this.seat = seat;
    this.version = 0;
    this._match = null;
    this._scores = [];
    this._round = null;
    this._dora = [];
    this._tilesLeft = 0;
    this._turn = null;
    this._hands = [];
    this._drawn = [];
    this._handSizes = [];
    this._melds = [];
    this._rivers = [];
    this._riichi = [];
    this._norths = []; // norths set aside this hand, per seat (three players)
    this._results = [];
    this._matchResult = null;
  }

  /** A tracker that continues from a `snapshot` message ({match_id, version, view}). */
  static fromSnapshot(snapshot) {
    const view = snapshot.view;
    const t = new MatchTracker(snapshot.match_id, view.seat);
    t.version = snapshot.version;
    t._match = clone(view.match);
    t._scores = [...view.scores];
    t._round = clone(view.round);
    t._dora = [...view.dora_indicators];
    t._tilesLeft = view.tiles_left;
    t._turn = view.turn;
    t._hands = view.seats.map((s) => (s.hand === null ? null : [...s.hand]));
    t._drawn = view.seats.map((s) => s.drawn);
    t._handSizes = view.seats.map((s) => s.hand_size);
    t._melds = view.seats.map((s) => clone(s.melds));
    t._rivers = view.seats.map((s) => clone(s.river));
    t._riichi = view.seats.map((s) => s.riichi);
    t._norths = view.seats.map((s) => s.norths ?? 0);
    t._results = clone(view.results);
    t._matchResult = clone(view.match_result);
    return t;
  }

  /** The current view, a fresh copy with the shape of a snapshot's `view`. */
  view() {
    return {
      seat: this.seat,
      match: clone(this._match),
      scores: [...this._scores],
      round: clone(this._round),
      dora_indicators: [...this._dora],
      tiles_left: this._tilesLeft,
      turn: this._turn,
      seats: this._hands.map((hand, s) => ({
        seat: s,
        hand: hand === null ? null : [...hand],
        drawn: this._drawn[s],
        hand_size: this._handSizes[s],
        melds: clone(this._melds[s]),
        river: clone(this._rivers[s]),
        riichi: this._riichi[s],
        norths: this._norths[s],
      })),
      results: clone(this._results),
      match_result: clone(this._matchResult),
    };
  }

  /** The `snapshot` message of the current state. */
  snapshot() {
    return { type: "snapshot", match_id: this.matchId, version: this.version, view: this.view() };
  }

  /**
   * Fold one `event` message; false (and no change) for an already seen version.
   * Throws TrackerError for another match's event or a gap in the versions.
   */
  apply(message) {
    if (message.match_id !== this.matchId) {
      throw new TrackerError(`event of match ${message.match_id} given to tracker of ${this.matchId}`);
    }
    if (message.version <= this.version) return false;
    if (message.version !== this.version + 1) {
      throw new TrackerError(`event version ${message.version} after ${this.version}: events are missing`);
    }
    this.fold(message.event);
    this.version = message.version;
    return true;
  }

  /** Update the view with one event (no version bookkeeping). */
  fold(event) {
    const seat = event.seat;
    if (seat !== undefined && seat !== null && !(seat >= 0 && seat < this._hands.length)) {
      throw new TrackerError(`${event.type} for seat ${seat} outside a dealt hand`);
    }
    switch (event.type) {
      case "match_started":
        this._match = clone(event);
        this._scores = [...event.scores];
        break;
      case "round_started":
        this._startRound(event);
        break;
      case "tile_drawn": {
        if (!event.rinshan) this._tilesLeft -= 1; // a kan already paid for its replacement tile
        this._turn = seat;
        this._handSizes[seat] += 1;
        this._drawn[seat] = event.tile;
        const hand = this._hands[seat];
        if (hand !== null && event.tile !== null) {
          hand.push(event.tile);
          hand.sort(compareTiles);
        }
        break;
      }
      case "tile_discarded": {
        this._turn = seat;
        this._handSizes[seat] -= 1;
        this._drawn[seat] = null;
        this._take(seat, [event.tile]);
        const river = this._rivers[seat];
        const sideways =
          event.riichi || (river.some((t) => t.riichi && t.called) && !river.some((t) => t.sideways));
        river.push({
          tile: event.tile,
          tsumogiri: event.tsumogiri,
          riichi: event.riichi,
          sideways,
          called: false,
        });
        break;
      }
      case "riichi_accepted":
        this._riichi[seat] = true;
        this._scores = [...event.scores];
        if (this._round !== null) this._round = { ...this._round, riichi_sticks: event.riichi_sticks };
        break;
      case "meld_called":
        this._meld(event);
        break;
      case "north_declared":
        this._tilesLeft -= 1; // its replacement comes from the dead wall, which takes one
        this._handSizes[seat] -= 1;
        this._drawn[seat] = null;
        this._take(seat, [event.tile]);
        this._norths[seat] += 1;
        break;
      case "dora_revealed":
        this._dora.push(event.indicator);
        break;
      case "hand_won":
      case "hand_drawn":
        this._results.push(clone(event));
        this._scores = [...event.scores];
        break;
      case "wall_revealed":
        break; // public proof of the deal; nothing in the view changes
      case "round_ended":
        this._scores = [...event.scores];
        if (this._round !== null) this._round = { ...this._round, riichi_sticks: event.riichi_sticks };
        break;
      case "match_ended":
        this._matchResult = clone(event);
        this._scores = [...event.scores];
        break;
      default:
        // Within one protocol version the server only adds optional things: an event type this
        // client does not know changes nothing it shows (docs/protocol.md, "Unknown fields").
        break;
    }
  }

  _startRound(event) {
    const n = event.hands.length;
    this._round = {
      hand_index: event.hand_index,
      round_wind: event.round_wind,
      kyoku: event.kyoku,
      honba: event.honba,
      riichi_sticks: event.riichi_sticks,
      dealer: event.dealer,
      wall_commitment: event.wall_commitment,
    };
    this._scores = [...event.scores];
    this._dora = [event.dora_indicator];
    this._tilesLeft = LIVE_WALL_BY_SEATS.get(n) ?? LIVE_WALL_DRAWS;
    this._turn = null;
    this._hands = event.hands.map((h) => (h === null ? null : sortTiles(h)));
    this._drawn = new Array(n).fill(null);
    this._handSizes = event.hands.map((h) => (h === null ? 13 : h.length));
    this._melds = Array.from({ length: n }, () => []);
    this._rivers = Array.from({ length: n }, () => []);
    this._riichi = new Array(n).fill(false);
    this._norths = new Array(n).fill(0);
    this._results = [];
  }

  _meld(event) {
    const seat = event.seat;
    const meld = clone(event.meld);
    this._turn = seat;
    const type = event.meld_type;
    if (type === "daiminkan" || type === "ankan" || type === "kakan") this._tilesLeft -= 1;
    this._handSizes[seat] -= event.consumed.length;
    this._drawn[seat] = null;
    this._take(seat, event.consumed);
    const melds = this._melds[seat];
    if (type === "kakan") {
      const kind = tileKind(meld.tiles[0]);
      const i = melds.findIndex((old) => old.type === "pon" && tileKind(old.tiles[0]) === kind);
      if (i < 0) throw new TrackerError(`kakan by seat ${seat} without a pon of ${kind}`);
      melds[i] = meld;
    } else {
      melds.push(meld);
    }
    if (type === "chi" || type === "pon" || type === "daiminkan") {
      const from = meld.from_seat;
      if (!(from >= 0 && from < this._rivers.length)) {
        throw new TrackerError(`call from seat ${from} outside the table`);
      }
      const river = this._rivers[from];
      if (river.length === 0) throw new TrackerError(`call from seat ${from}, whose river is empty`);
      river[river.length - 1] = { ...river[river.length - 1], called: true, sideways: false };
    }
  }

  _take(seat, tiles) {
    const hand = this._hands[seat];
    if (hand === null) return;
    for (const tile of tiles) {
      const i = hand.indexOf(tile);
      if (i < 0) throw new TrackerError(`seat ${seat} gives up ${tile} that is not in its hand ${hand}`);
      hand.splice(i, 1);
    }
  }
}
