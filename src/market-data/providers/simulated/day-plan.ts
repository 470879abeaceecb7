import { type Rand, stream } from './rng.ts';

/**
 * The skeleton of one trading day of one path, in log price relative to the day's open: the pinned
 * points the minute path must pass through (open, close, the corners of flash events) and the day's
 * high and low. The daily bar follows from the plan alone; the minute path (intraday.ts) is drawn to
 * pass through the pins and to reach exactly the planned high and low, so a decade of daily bars
 * never needs a minute path and a day's minutes always aggregate to its daily bar.
 */
export interface DayPlan {
  readonly minutes: number;
  /** Close relative to open (log). */
  readonly close: number;
  readonly pinT: readonly number[];
  readonly pinV: readonly number[];
  readonly high: number;
  readonly low: number;
}

/** A short, violent move: the price jumps by `depth` within two minutes, then partly reverts. */
export interface FlashEvent {
  readonly start: number;
  readonly direction: 1 | -1;
  readonly depth: number;
  readonly recovery: number;
  readonly recoveryMinutes: number;
}

export const EVENT_MOVE_MINUTES = 2;
/** Events this close to the end of the day are drawn as a move into the close (see planDay). */
const INTO_CLOSE = 6;

const S_EVENT = stream('flash-event');
const S_DEMO_EVENT = stream('demo-flash-event');
const S_PLAN = stream('day-plan');

/** The normal-mode flash event of a day, if the day has one (probability `perDay`). */
export function normalEvent(rand: Rand, pathId: number, day: number, minutes: number, perDay: number) {
  if (!(rand.uniform(S_EVENT, pathId, day, 0) < perDay)) return undefined;
  const u = (k: number) => rand.uniform(S_EVENT, pathId, day, k);
  return {
    start: 5 + Math.floor(u(1) * (minutes - 40)),
    direction: u(2) < 0.65 ? -1 : 1,
    depth: Math.min(0.25, 0.055 - 0.03 * Math.log(u(3))),
    recovery: 0.3 + 0.4 * u(4),
    recoveryMinutes: 8 + Math.floor(u(5) * 13),
  } satisfies FlashEvent;
}

/** A demo-mode flash event starting at minute `start` of the day (its slot decides the draw). */
export function demoEvent(rand: Rand, pathId: number, slot: number, start: number): FlashEvent {
  const u = (k: number) => rand.uniform(S_DEMO_EVENT, pathId, slot, k);
  return {
    start,
    direction: u(1) < 0.6 ? -1 : 1,
    depth: 0.09 + 0.07 * u(2),
    recovery: 0.3 + 0.3 * u(3),
    recoveryMinutes: 8 + Math.floor(u(4) * 7),
  };
}

/**
 * Pins for one day. `close` and `sigma` (sd of the intraday log return) come from the daily model;
 * events must not overlap (the caller drops clashing ones). An event that would run past the end of
 * the day is drawn as a move into the close (the price stands `depth` away a few minutes before the
 * close and ends at the close), so the daily close stays the model's and the move still happened.
 */
export function planDay(
  rand: Rand,
  pathId: number,
  day: number,
  minutes: number,
  close: number,
  sigma: number,
  events: readonly FlashEvent[],
): DayPlan {
  // The day's natural extremes: the running maximum and minimum of a Brownian bridge from 0 to
  // `close` have closed-form distributions, so the daily high and low are drawn without a path.
  const variance = Math.max(sigma * sigma, 1e-12);
  const high =
    (close + Math.sqrt(close * close - 2 * variance * Math.log(rand.uniform(S_PLAN, pathId, day, 1)))) / 2;
  const low =
    (close - Math.sqrt(close * close - 2 * variance * Math.log(rand.uniform(S_PLAN, pathId, day, 2)))) / 2;
  if (events.length === 0) {
    return { minutes, close, pinT: [0, minutes], pinV: [0, close], high, low };
  }
  const pinT: number[] = [0];
  const pinV: number[] = [0];
  const perMinute = variance / minutes;
  for (const e of [...events].sort((a, b) => a.start - b.start)) {
    const lastT = pinT.at(-1)!;
    // An event may start at the open itself (a demo slot at midnight), not at or before a later pin.
    if (e.start <= lastT && pinT.length > 1) continue;
    if (e.start > minutes - INTO_CLOSE) {
      if (e.start < minutes) {
        pinT.push(e.start);
        pinV.push(close - e.direction * e.depth);
      }
      break;
    }
    // The level just before the event: about where the day's bridge from the open to the close
    // stands at its start (not where the last event left it: what events leave behind would add up
    // over a day of demo events and be undone in a rush into the close), with the bridge's spread
    // from the last pin. For the day's first event this is the bridge from the open.
    const span = minutes - lastT;
    const mean = (close * e.start) / minutes;
    const sd = Math.sqrt((perMinute * (e.start - lastT) * (minutes - e.start)) / span);
    const v0 = e.start === 0 ? 0 : mean + sd * rand.normal(S_PLAN, pathId, day, 100 + e.start);
    if (e.start > 0) {
      pinT.push(e.start);
      pinV.push(v0);
    }
    pinT.push(e.start + EVENT_MOVE_MINUTES);
    pinV.push(v0 + e.direction * e.depth);
    const end = e.start + EVENT_MOVE_MINUTES + e.recoveryMinutes;
    if (end <= minutes - 2) {
      pinT.push(end);
      pinV.push(v0 + e.direction * e.depth * (1 - e.recovery));
    }
  }
  pinT.push(minutes);
  pinV.push(close);
  return { minutes, close, pinT, pinV, high: Math.max(high, ...pinV), low: Math.min(low, ...pinV) };
}
