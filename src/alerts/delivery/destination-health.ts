/**
 * Which destinations (a webhook's host, an SMTP server, a chat bot) may be tried now. A destination
 * whose attempts fail PAUSE_AFTER times in a row (no answer, a timeout, HTTP 5xx, 429 or 408, SMTP
 * 421) is paused for 5 s, then 10 s, 20 s ... up to 5 minutes, each ±25 % (instances and
 * destinations that failed together do not come back together). When a pause ends, one attempt
 * goes as a probe while the others wait: an answer ends the pause for all, another failure starts
 * a longer one. Deliveries to a paused destination are held, not attempted (their attempts are not
 * used up) and not dropped; they hold no worker.
 *
 * Per instance and in memory: an instance that starts knows no failure yet, and finds a dead
 * destination again after PAUSE_AFTER attempts. Time comes from `now` (tests pin it).
 */

/** Failures in a row that pause a destination. */
export const PAUSE_AFTER = 3;
export const BASE_PAUSE_MS = 5_000;
export const MAX_PAUSE_MS = 5 * 60_000;
/** A destination that answered this recently (and has not failed since) is healthy. */
const HEALTHY_MS = 60_000;
/** Destinations remembered at most (the least recently seen are forgotten first). */
const MAX_REMEMBERED = 10_000;

/** What an attempt's outcome says of its destination. */
export type DestinationSignal = 'answered' | 'failed' | 'none';

export interface DestinationHealthOptions {
  readonly now: () => number;
  readonly random?: () => number;
  readonly pauseAfter?: number;
  readonly baseMs?: number;
  readonly maxMs?: number;
}

interface State {
  /** Failures in a row. */
  failures: number;
  /** Pauses in a row (0: not paused since its last answer). */
  pauses: number;
  /** Until when attempts are held. */
  until: number;
  /** A probe is under way (after a pause, one attempt at a time until one is answered). */
  probing: boolean;
}

/** An attempt may go now, or is held until a time. */
export type Admission = { readonly go: true } | { readonly go: false; readonly until: number };

export class DestinationHealth {
  readonly #o: Required<DestinationHealthOptions>;
  readonly #states = new Map<string, State>();
  /** When each destination last answered (least recently first). */
  readonly #answered = new Map<string, number>();

  constructor(options: DestinationHealthOptions) {
    this.#o = {
      random: Math.random,
      pauseAfter: PAUSE_AFTER,
      baseMs: BASE_PAUSE_MS,
      maxMs: MAX_PAUSE_MS,
      ...options,
    };
  }

  /** Whether an attempt to `destination` may start now; one that goes must be `settle`d. */
  admit(destination: string): Admission {
    const state = this.#states.get(destination);
    if (!state || state.pauses === 0) return { go: true };
    const now = this.#o.now();
    if (state.until > now) return { go: false, until: state.until };
    // The pause is over: one probe at a time; the others wait about as long as a probe may take.
    if (state.probing) return { go: false, until: now + this.#o.baseMs };
    state.probing = true;
    return { go: true };
  }

  /**
   * The attempt that `admit` let go has ended, saying `signal` of its destination. True when the
   * destination was paused or probed: its held deliveries may have a turn now.
   */
  settle(destination: string, signal: DestinationSignal): boolean {
    const state = this.#states.get(destination);
    const held = (state?.pauses ?? 0) > 0;
    if (signal === 'answered') {
      this.#states.delete(destination);
      this.#answered.delete(destination);
      this.#answered.set(destination, this.#o.now());
      if (this.#answered.size > MAX_REMEMBERED) this.#answered.delete(this.#answered.keys().next().value!);
      return held;
    }
    if (signal === 'none') {
      if (state?.probing) state.probing = false;
      return held;
    }
    const s = state ?? { failures: 0, pauses: 0, until: 0, probing: false };
    // Re-inserted: the map's order is least recently seen first.
    this.#states.delete(destination);
    this.#states.set(destination, s);
    s.failures++;
    const now = this.#o.now();
    // A failure of an attempt that started before the pause does not lengthen it.
    const probeFailed = s.probing;
    if (probeFailed || (s.pauses === 0 && s.failures >= this.#o.pauseAfter)) {
      s.pauses++;
      s.until = now + this.pauseMs(s.pauses);
      s.probing = false;
    }
    this.#forgetOldest();
    return probeFailed;
  }

  /** How long the `n`th pause in a row lasts (jittered). */
  pauseMs(n: number): number {
    const base = Math.min(this.#o.baseMs * 2 ** (n - 1), this.#o.maxMs);
    return Math.round(base * (0.75 + 0.5 * this.#o.random()));
  }

  /**
   * Whether `destination` answered within the last HEALTHY_MS and has not failed since: one that
   * is new, or hangs, is not (a burst past an owner's share goes only to a proven receiver).
   */
  healthy(destination: string): boolean {
    const at = this.#answered.get(destination);
    return at !== undefined && at > this.#o.now() - HEALTHY_MS && !this.#states.has(destination);
  }

  /** Destinations that admit no attempt now: paused, or probed by an attempt under way. */
  blocked(): string[] {
    const now = this.#o.now();
    const out: string[] = [];
    for (const [d, s] of this.#states) if (s.pauses > 0 && (s.until > now || s.probing)) out.push(d);
    return out;
  }

  /** Destinations paused: the pause under way, or over and no answer since (probed, or about to be). */
  get paused(): number {
    let n = 0;
    for (const s of this.#states.values()) if (s.pauses > 0) n++;
    return n;
  }

  /** The end of the pause that ends first; undefined when none is paused. */
  nextOpening(): number | undefined {
    const now = this.#o.now();
    let first: number | undefined;
    for (const s of this.#states.values()) {
      if (s.pauses > 0 && s.until > now && (first === undefined || s.until < first)) first = s.until;
    }
    return first;
  }

  #forgetOldest(): void {
    for (const [d, s] of this.#states) {
      if (this.#states.size <= MAX_REMEMBERED) return;
      if (!s.probing) this.#states.delete(d);
    }
  }
}
