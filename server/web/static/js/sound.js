// Table sounds, synthesised with the Web Audio API: nothing is fetched, no sound file ships.
//
// discard: a short wooden click; call: two quick notes; riichi: a rising chime; win: a bright
// arpeggio. The browser only lets a page play sound after a click or a key press, so the audio
// context is created (or resumed) on the first one. `played` lists what was played, for tests.

const SOUNDS = {
  discard: [{ type: "triangle", freq: 820, to: 300, start: 0, dur: 0.06, gain: 0.35 }],
  call: [
    { type: "square", freq: 523, start: 0, dur: 0.09, gain: 0.12 },
    { type: "square", freq: 784, start: 0.1, dur: 0.12, gain: 0.12 },
  ],
  riichi: [
    { type: "sine", freq: 440, to: 880, start: 0, dur: 0.35, gain: 0.3 },
    { type: "triangle", freq: 1320, start: 0.2, dur: 0.3, gain: 0.12 },
  ],
  win: [523, 659, 784, 1047].map((freq, i) => ({ type: "triangle", freq, start: i * 0.09, dur: 0.4, gain: 0.22 })),
};

export const SOUND_NAMES = Object.keys(SOUNDS);

export class Sounds {
  /** AudioContext: the constructor to use (injectable; none: silent). */
  constructor({ enabled = true, AudioContext = globalThis.AudioContext ?? globalThis.webkitAudioContext } = {}) {
    this.enabled = enabled;
    this.AudioContext = AudioContext;
    this.ctx = null;
    this.played = [];
  }

  /** Called on a user gesture: only then may a page start audio. */
  unlock() {
    if (!this.enabled || !this.AudioContext) return;
    try {
      if (!this.ctx) this.ctx = new this.AudioContext();
      if (this.ctx.state === "suspended") this.ctx.resume().catch(() => {});
    } catch {
      this.AudioContext = null; // no audio here: stay silent
    }
  }

  setEnabled(enabled) {
    this.enabled = enabled;
    if (enabled) this.unlock();
  }

  play(name) {
    const notes = SOUNDS[name];
    if (!notes || !this.enabled) return;
    this.played.push(name);
    const ctx = this.ctx;
    if (!ctx || ctx.state !== "running") return;
    const t0 = ctx.currentTime + 0.01;
    for (const n of notes) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = n.type;
      osc.frequency.setValueAtTime(n.freq, t0 + n.start);
      if (n.to) osc.frequency.exponentialRampToValueAtTime(n.to, t0 + n.start + n.dur);
      gain.gain.setValueAtTime(0.0001, t0 + n.start);
      gain.gain.exponentialRampToValueAtTime(n.gain, t0 + n.start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + n.start + n.dur);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0 + n.start);
      osc.stop(t0 + n.start + n.dur + 0.02);
    }
  }
}

/** The sound of one event (for the table's own events as they arrive), or null. */
export function soundOf(event) {
  switch (event?.type) {
    case "tile_discarded":
      return event.riichi ? "riichi" : "discard";
    case "meld_called":
      return "call";
    case "hand_won":
      return "win";
    default:
      return null;
  }
}

const PRIORITY = { win: 4, riichi: 3, call: 2, discard: 1 };

/** Of several sounds due at once (a burst of events), the one worth playing. */
export function loudest(names) {
  let best = null;
  for (const name of names) if (!best || PRIORITY[name] > PRIORITY[best]) best = name;
  return best;
}
