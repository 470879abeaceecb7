import { MINUTE_MS } from './calendar.ts';
import type { DailyPath, DayRecord } from './daily.ts';
import type { DayPlan } from './day-plan.ts';
import type { FactorModel } from './factors.ts';
import { type Rand, stream } from './rng.ts';

/**
 * The minute path of one trading day, drawn through the day plan's pins: free minute increments
 * (common-factor and idiosyncratic shocks, U-shaped intraday volatility for US sessions) are bent
 * into a Brownian bridge between consecutive pins, then made to reach exactly the planned high and
 * low (reachExtreme). Each minute is further split into SUBSTEPS points (a bridge between the
 * minute's open and close) that give the minute's high and low and the live price inside the minute.
 */
export const SUBSTEPS = 12;

export interface MinutePath {
  readonly day: number;
  readonly openMs: number;
  readonly minutes: number;
  readonly logOpen: number;
  /** Log price relative to the open at each minute boundary (minutes + 1 values). */
  readonly y: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly volume: Float64Array;
  readonly sigma: Float64Array;
  readonly dayHigh: number;
  readonly dayLow: number;
}

/** How a path's minutes are shaped beyond its daily model (provided by market.ts). */
export interface IntradayShape {
  /** Multiplier of common-factor loadings at a global minute, given the day's decoupled regime. */
  loading(minute: number, decoupled: boolean): number;
  /** Extra volume multiplier at a global minute (demo bursts). */
  burst(minute: number): number;
  /** Volume of the previous trading day (bursts early in a day must stand out against it too). */
  readonly previousVolume: number;
}

const S_MINUTE = stream('minute-idio');
const S_SUB = stream('sub-minute');
const S_MINUTE_VOLUME = stream('minute-volume');

/** Intraday volatility and volume profiles: U-shaped for US sessions, gently diurnal around the clock. */
function profiles(path: DailyPath, record: DayRecord): { vol: Float64Array; volume: Float64Array } {
  const minutes = record.session.minutes;
  const vol = new Float64Array(minutes);
  const volume = new Float64Array(minutes);
  const calendar = path.spec.calendar;
  for (let m = 0; m < minutes; m++) {
    if (calendar === 'us') {
      vol[m] = 1 + 1.2 * Math.exp(-m / 25) + 0.8 * Math.exp(-(minutes - 1 - m) / 25);
      volume[m] = 1 + 3 * Math.exp(-m / 20) + 2.2 * Math.exp(-(minutes - 1 - m) / 18);
    } else {
      const hour = (((record.session.openMs + m * MINUTE_MS) / 3_600_000) % 24) + 0.5 / 60;
      const active = Math.exp(-(((hour - 15) / 5) ** 2));
      vol[m] = 0.75 + 0.5 * active;
      volume[m] = 0.6 + 0.8 * active;
    }
  }
  return { vol, volume };
}

export function buildMinutePath(
  rand: Rand,
  factors: FactorModel,
  path: DailyPath,
  record: DayRecord,
  shape: IntradayShape,
  integerVolume: boolean,
): MinutePath {
  const { plan, session } = record;
  const minutes = session.minutes;
  const first = Math.floor(session.openMs / MINUTE_MS);
  const { vol, volume: volumeProfile } = profiles(path, record);
  const sigma = minuteSigmas(record.sigma, vol);
  const walk = freeWalk(rand, factors, path, record, shape, first, sigma);
  const y = throughPins(walk, plan);
  const { high, low } = minuteRanges(rand, path.id, first, y, sigma, plan);
  const weights = volumeWeights(rand, path.id, record, shape, first, y, sigma, volumeProfile);
  const volume =
    record.volume > 0 ? allocateVolume(weights, record.volume, integerVolume) : new Float64Array(minutes);
  return {
    day: record.day,
    openMs: session.openMs,
    minutes,
    logOpen: record.logOpen,
    y,
    high,
    low,
    volume,
    sigma,
    dayHigh: plan.high,
    dayLow: plan.low,
  };
}

/** Each minute's share of the day's volatility, by the intraday volatility profile. */
function minuteSigmas(daySigma: number, vol: Float64Array): Float64Array {
  const minutes = vol.length;
  let volTotal = 0;
  for (let m = 0; m < minutes; m++) volTotal += vol[m]!;
  const sigma = new Float64Array(minutes);
  for (let m = 0; m < minutes; m++) sigma[m] = daySigma * Math.sqrt(vol[m]! / volTotal);
  return sigma;
}

/** Free walk with the day's factor structure (common-factor and idiosyncratic minute shocks). */
function freeWalk(
  rand: Rand,
  factors: FactorModel,
  path: DailyPath,
  record: DayRecord,
  shape: IntradayShape,
  first: number,
  sigma: Float64Array,
): Float64Array {
  const minutes = sigma.length;
  const loadings = path.loadings;
  const shocks = loadings.map(([f]) => factors.minuteShocks(f, first, minutes));
  const walk = new Float64Array(minutes + 1);
  for (let m = 0; m < minutes; m++) {
    const k = shape.loading(first + m, record.decoupled);
    let systematic = 0;
    for (let i = 0; i < loadings.length; i++) systematic += loadings[i]![1] * shocks[i]![m]!;
    const idio = Math.sqrt(Math.max(0.02, 1 - k * k * path.systematicVariance));
    walk[m + 1] = walk[m]! + sigma[m]! * (k * systematic + idio * rand.normal(S_MINUTE, path.id, first + m));
  }
  return walk;
}

/** The walk bent through the plan's pins, reaching exactly the planned high and low. */
function throughPins(walk: Float64Array, plan: DayPlan): Float64Array {
  const y = new Float64Array(walk.length);
  const pinT = [...plan.pinT];
  const pinV = [...plan.pinV];
  for (let i = 0; i + 1 < pinT.length; i++) bridge(y, walk, pinT[i]!, pinV[i]!, pinT[i + 1]!, pinV[i + 1]!);
  reachExtreme(y, pinT, pinV, plan.high, 1);
  reachExtreme(y, pinT, pinV, plan.low, -1);
  return y;
}

/** Each minute's high and low, from its SUBSTEPS points between the minute's open and close. */
function minuteRanges(
  rand: Rand,
  pathId: number,
  first: number,
  y: Float64Array,
  sigma: Float64Array,
  plan: DayPlan,
): { high: Float64Array; low: Float64Array } {
  const minutes = sigma.length;
  const high = new Float64Array(minutes);
  const low = new Float64Array(minutes);
  const sub = new Float64Array(SUBSTEPS + 1);
  for (let m = 0; m < minutes; m++) {
    subPoints(rand, pathId, first + m, y[m]!, y[m + 1]!, sigma[m]!, plan.high, plan.low, sub);
    let hi = sub[0]!;
    let lo = sub[0]!;
    for (let s = 1; s <= SUBSTEPS; s++) {
      if (sub[s]! > hi) hi = sub[s]!;
      if (sub[s]! < lo) lo = sub[s]!;
    }
    high[m] = hi;
    low[m] = lo;
  }
  return { high, low };
}

/**
 * How the day's volume spreads over its minutes (relative weights): the intraday profile, noise,
 * more on big moves, rare random bursts, and the demo's bursts. None for a day without volume.
 */
function volumeWeights(
  rand: Rand,
  pathId: number,
  record: DayRecord,
  shape: IntradayShape,
  first: number,
  y: Float64Array,
  sigma: Float64Array,
  volumeProfile: Float64Array,
): Float64Array {
  const minutes = sigma.length;
  const weights = new Float64Array(minutes);
  if (!(record.volume > 0)) return weights;
  for (let m = 0; m < minutes; m++) {
    const move = Math.min(3, Math.abs(y[m + 1]! - y[m]!) / sigma[m]!);
    const burst = rand.uniform(S_MINUTE_VOLUME, pathId, first + m, 1);
    let demoBurst = shape.burst(first + m);
    if (demoBurst > 1 && m < 60) demoBurst *= Math.max(1, shape.previousVolume / record.volume);
    const noise = Math.exp(0.45 * rand.normal(S_MINUTE_VOLUME, pathId, first + m, 0));
    // A demo burst must stand out every time, against minutes that held the same coin's earlier
    // bursts too: its size varies only 1-1.3x (no below-average noise, and no big move or random
    // burst on top that would hide the coin's next one).
    weights[m] =
      demoBurst > 1
        ? volumeProfile[m]! * Math.min(1.3, Math.max(1, noise)) * demoBurst
        : volumeProfile[m]! *
          noise *
          (1 + 0.5 * Math.max(0, move - 1)) *
          (burst < 0.0015 ? 4 + 8 * (burst / 0.0015) : 1);
  }
  return weights;
}

/** The day's volume over its minutes by weight; cumulative rounding makes them sum exactly to it. */
function allocateVolume(weights: Float64Array, dayVolume: number, integerVolume: boolean): Float64Array {
  const minutes = weights.length;
  let total = 0;
  for (let m = 0; m < minutes; m++) total += weights[m]!;
  const scale = integerVolume ? 1 : 1e6;
  const dayUnits = Math.round(dayVolume * scale);
  const volume = new Float64Array(minutes);
  let cumulative = 0;
  let allocated = 0;
  for (let m = 0; m < minutes; m++) {
    cumulative += weights[m]!;
    const upTo = m === minutes - 1 ? dayUnits : Math.round((dayUnits * cumulative) / total);
    volume[m] = (upTo - allocated) / scale;
    allocated = upTo;
  }
  return volume;
}

/** Bends the free walk between two pins into a bridge through both (adds a constant drift). */
function bridge(y: Float64Array, walk: Float64Array, ta: number, va: number, tb: number, vb: number): void {
  const excess = walk[tb]! - walk[ta]! - (vb - va);
  for (let m = ta + 1; m < tb; m++) y[m] = va + walk[m]! - walk[ta]! - ((m - ta) / (tb - ta)) * excess;
  y[ta] = va;
  y[tb] = vb;
}

/**
 * Makes the path's maximum (side 1) or minimum (side -1) exactly `target`, changing its increments
 * as little as possible. When the drawn path falls short, a new pin at its own highest point (kept
 * away from the neighbouring pins) is raised to the target: a tent-shaped drift that cannot create a
 * higher point elsewhere. Where the path overshoots, the segment's deviation from its chord is scaled
 * down (a constant factor per segment keeps the segment's correlations intact). The new pin joins
 * `pinT`/`pinV` so that the other side's adjustment leaves it alone.
 */
function reachExtreme(y: Float64Array, pinT: number[], pinV: number[], target: number, side: 1 | -1): void {
  const beyond = (v: number) => side * (v - target);
  if (!pinV.some((v) => beyond(v) >= 0)) {
    let best = 0;
    for (let m = 1; m < y.length - 1; m++) if (side * y[m]! > side * y[best]!) best = m;
    const i = pinT.findIndex((t) => t > best);
    const [ta, tb] = [pinT[i - 1]!, pinT[i]!];
    const keep = Math.min(30, Math.floor((tb - ta) / 10));
    let apex = -1;
    for (let m = ta + Math.max(1, keep); m <= tb - Math.max(1, keep); m++) {
      if (apex < 0 || side * y[m]! > side * y[apex]!) apex = m;
    }
    // A path that already goes beyond the target is brought back by scaling below, not by a tent
    // (a tent the other way would move the opposite extreme, which may be fixed already).
    const lift = apex > ta ? target - y[apex]! : 0;
    if (apex > ta && apex < tb && side * lift > 0 && beyond(y[best]!) < 0) {
      for (let m = ta + 1; m < tb; m++)
        y[m]! += lift * (m <= apex ? (m - ta) / (apex - ta) : (tb - m) / (tb - apex));
      y[apex] = target;
      pinT.splice(i, 0, apex);
      pinV.splice(i, 0, target);
    }
  }
  for (let i = 0; i + 1 < pinT.length; i++) {
    const [ta, tb, va, vb] = [pinT[i]!, pinT[i + 1]!, pinV[i]!, pinV[i + 1]!];
    // Largest factor s <= 1 with chord + s * deviation within the target everywhere in the segment
    // (closed form: the tightest ratio over the points that deviate towards the target).
    let scale = 1;
    for (let m = ta + 1; m < tb; m++) {
      const chord = va + ((m - ta) / (tb - ta)) * (vb - va);
      const deviation = y[m]! - chord;
      if (side * deviation > 0 && beyond(y[m]!) > 0) scale = Math.min(scale, (target - chord) / deviation);
    }
    if (scale === 1) continue;
    for (let m = ta + 1; m < tb; m++) {
      const chord = va + ((m - ta) / (tb - ta)) * (vb - va);
      y[m] = chord + scale * (y[m]! - chord);
      if (beyond(y[m]!) > 0) y[m] = target;
    }
  }
  // The extreme itself, exactly (a scaled segment reaches it up to rounding), pinned so that the
  // other side's adjustment keeps it.
  let extreme = 0;
  for (let m = 1; m < y.length; m++) if (side * y[m]! > side * y[extreme]!) extreme = m;
  if (Math.abs(y[extreme]! - target) < 1e-9) y[extreme] = target;
  const at = pinT.findIndex((t) => t >= extreme);
  if (pinT[at] !== extreme) {
    pinT.splice(at, 0, extreme);
    pinV.splice(at, 0, y[extreme]!);
  }
}

/** The SUBSTEPS + 1 points of a minute: a bridge from its open to its close, inside the day's range. */
export function subPoints(
  rand: Rand,
  pathId: number,
  minute: number,
  open: number,
  close: number,
  sigma: number,
  dayHigh: number,
  dayLow: number,
  out: Float64Array,
): Float64Array {
  const step = sigma / Math.sqrt(SUBSTEPS);
  let walk = 0;
  out[0] = 0;
  for (let s = 1; s <= SUBSTEPS; s++) {
    walk += step * rand.fastNormal(S_SUB, pathId, minute, s);
    out[s] = walk;
  }
  const end = walk;
  for (let s = 0; s <= SUBSTEPS; s++) {
    const f = s / SUBSTEPS;
    const v = open + f * (close - open) + out[s]! - f * end;
    out[s] = v > dayHigh ? dayHigh : v < dayLow ? dayLow : v;
  }
  out[0] = open;
  out[SUBSTEPS] = close;
  return out;
}
