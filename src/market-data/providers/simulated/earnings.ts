import type { EarningsReport } from '../../types.ts';
import { DAY_MS, dayIndexOf, dayStartMs, sessionOf, tradingDayOnOrAfter } from './calendar.ts';
import { hashString, type Rand, stream } from './rng.ts';
import { EQUITIES } from './universe.ts';
import type { ListedSpec } from './universe-data.ts';
import { rotation } from './watched.ts';

/**
 * Quarterly earnings of the simulated equities. The timing and the surprise of each report are keyed
 * draws (known before any price exists, so the daily model can gap the price on the first session
 * after a report); EPS levels follow the simulated price (price / target P/E / 4), so P/E ratios stay
 * realistic whatever path the price took.
 *
 * Surprise mix per report: 80 % within +-5 %, 14 % between 10 and 20 %, 6 % between 20 and 45 %.
 * Demo activity adds a synthetic report every 20-40 s, in rotation over the watched shares (the
 * universe when none are watched), kept for 7 days.
 */
const S_EARNINGS = stream('earnings');
const S_DEMO_EARNINGS = stream('demo-earnings');

export const DEMO_REPORT_SLOT_MS = 30_000;
const DEMO_REPORT_JITTER_MS = 10_000;
export const DEMO_REPORT_RETENTION_MS = 7 * DAY_MS;
/** At least this many slots per share: a week of reports of one share stays a few thousand. */
const MIN_DEMO_REPORT_CYCLE = 8;
/** Upcoming reports are listed this far ahead (an earnings calendar, no values). */
const UPCOMING_MS = 100 * DAY_MS;

interface Scheduled {
  readonly quarter: number;
  readonly periodEndMs: number;
  readonly reportMs: number;
  /** First trading day whose price reflects the report. */
  readonly gapDay: number;
  readonly surprise: number;
}

/** Quarter 0 ends on 2014-12-31, reported early in 2015. */
function periodEnd(quarter: number): number {
  return Date.UTC(2014, 12 + quarter * 3, 0);
}

function quarterOf(ms: number): number {
  const date = new Date(ms);
  return (date.getUTCFullYear() - 2015) * 4 + Math.floor(date.getUTCMonth() / 3) + 1;
}

/** Surprise as a fraction; `large` shifts the mix towards big beats and misses (demo reports). */
function drawSurprise(u: (k: number) => number, n: (k: number) => number, large: boolean): number {
  const [small, medium] = large ? [0.3, 0.65] : [0.8, 0.94];
  const kind = u(10);
  const sign = u(11) < 0.7 ? 1 : -1;
  if (kind < small) return Math.max(-0.05, Math.min(0.05, 0.02 + 0.02 * n(12)));
  if (kind < medium) return sign * (0.1 + 0.1 * u(13));
  return sign * (0.2 + (large ? 0.4 : 0.25) * u(14));
}

const roundEps = (eps: number) =>
  Math.abs(eps) >= 0.05 ? Math.round(eps * 100) / 100 : Math.round(eps * 1e4) / 1e4;

export class EarningsBook {
  readonly #schedules = new Map<string, Scheduled[]>();
  readonly #gaps = new Map<string, { gaps: Map<number, number>; lastDay: number }>();
  readonly #demoOrder: readonly (string | undefined)[];

  /** `watchedEquities`: the shares demo reports rotate over; every share when empty. */
  constructor(
    private readonly rand: Rand,
    private readonly demo: boolean,
    watchedEquities: readonly string[] = [],
  ) {
    this.#demoOrder =
      watchedEquities.length > 0
        ? rotation(rand, S_DEMO_EARNINGS, watchedEquities, MIN_DEMO_REPORT_CYCLE)
        : rotation(
            rand,
            S_DEMO_EARNINGS,
            EQUITIES.map((e) => e.symbol),
          );
  }

  #scheduled(symbol: string, quarter: number): Scheduled {
    const id = hashString(symbol);
    const u = (k: number) => this.rand.uniform(S_EARNINGS, id, quarter, k);
    const n = (k: number) => this.rand.normal(S_EARNINGS, id, quarter, k);
    const end = periodEnd(quarter);
    const lagDays = 20 + (id % 20) + Math.floor(u(1) * 4);
    const day = tradingDayOnOrAfter('us', dayIndexOf(end) + lagDays);
    const session = sessionOf('us', day)!;
    const beforeOpen = (id >>> 8) % 2 === 0;
    const reportMs = beforeOpen ? session.openMs - 2 * 3_600_000 : session.openMs + 395 * 60_000;
    return {
      quarter,
      periodEndMs: end,
      reportMs,
      gapDay: beforeOpen ? day : tradingDayOnOrAfter('us', day + 1),
      surprise: drawSurprise(u, n, false),
    };
  }

  /** Reports of a symbol from quarter 0 to well past `ms` (the schedule is public in advance). */
  #schedule(symbol: string, ms: number): Scheduled[] {
    let list = this.#schedules.get(symbol);
    const needed = quarterOf(ms + UPCOMING_MS) + 2;
    if (!list || list.length < needed) {
      list = Array.from({ length: Math.max(needed, 48) }, (_, q) => this.#scheduled(symbol, q));
      this.#schedules.set(symbol, list);
    }
    return list;
  }

  /** Log-price gap the report of a quarter adds on its first session (0 on other days). */
  gapOn(symbol: string, day: number): number {
    let known = this.#gaps.get(symbol);
    if (!known || day > known.lastDay) {
      const gaps = new Map<number, number>();
      for (const s of this.#schedule(symbol, dayStartMs(day) + 400 * DAY_MS)) {
        const noise = this.rand.normal(S_EARNINGS, hashString(symbol), s.quarter, 20);
        gaps.set(s.gapDay, 0.3 * s.surprise + 0.025 * noise);
      }
      known = { gaps, lastDay: Math.max(...gaps.keys()) - 100 };
      this.#gaps.set(symbol, known);
    }
    return known.gaps.get(day) ?? 0;
  }

  /**
   * Reports with reportDate in [fromMs, toMs]. Past reports carry both EPS figures; upcoming ones (up to
   * 100 days ahead) only the estimate. `priceAt` gives the last traded price at an instant.
   */
  reports(
    spec: ListedSpec,
    fromMs: number,
    toMs: number,
    nowMs: number,
    priceAt: (ms: number) => number | undefined,
  ): EarningsReport[] {
    const out: EarningsReport[] = [];
    const pe = spec.targetPe ?? 20;
    const last = Math.min(toMs, nowMs + UPCOMING_MS);
    for (const s of this.#schedule(spec.symbol, Math.max(nowMs, fromMs))) {
      if (s.reportMs < fromMs || s.reportMs > last) continue;
      const price = priceAt(Math.min(s.periodEndMs + DAY_MS, nowMs));
      if (price === undefined) continue;
      const noise = this.rand.normal(S_EARNINGS, hashString(spec.symbol), s.quarter, 21);
      const estimate = roundEps((price / pe / 4) * (1 + 0.03 * noise));
      const reported = s.reportMs <= nowMs ? roundEps(estimate * (1 + s.surprise)) : null;
      out.push(report(spec.symbol, s.reportMs, s.periodEndMs, estimate, reported));
    }
    if (this.demo) out.push(...this.#demoReports(spec, fromMs, Math.min(toMs, nowMs), nowMs, priceAt));
    return out.sort((a, b) => a.reportDate.getTime() - b.reportDate.getTime());
  }

  /** Sum of the last four reported EPS at `nowMs` (regular reports only), or null without four. */
  trailingEps(spec: ListedSpec, nowMs: number, priceAt: (ms: number) => number | undefined): number | null {
    const past = this.reports(spec, nowMs - 500 * DAY_MS, nowMs, nowMs, priceAt).filter(
      (r) => r.reportedEps !== null && !isDemo(r),
    );
    if (past.length < 4) return null;
    return past.slice(-4).reduce((sum, r) => sum + r.reportedEps!, 0);
  }

  #demoReports(
    spec: ListedSpec,
    fromMs: number,
    toMs: number,
    nowMs: number,
    priceAt: (ms: number) => number | undefined,
  ): EarningsReport[] {
    const position = this.#demoOrder.indexOf(spec.symbol);
    if (position < 0) return [];
    const n = this.#demoOrder.length;
    const start = Math.max(fromMs, nowMs - DEMO_REPORT_RETENTION_MS);
    const out: EarningsReport[] = [];
    const firstSlot = Math.floor(start / DEMO_REPORT_SLOT_MS) - 1;
    let slot = firstSlot + ((((position - firstSlot) % n) + n) % n);
    for (; slot * DEMO_REPORT_SLOT_MS <= toMs; slot += n) {
      const u = (k: number) => this.rand.uniform(S_DEMO_EARNINGS, slot, k);
      const at = slot * DEMO_REPORT_SLOT_MS + Math.floor(u(1) * DEMO_REPORT_JITTER_MS);
      if (at < start || at > toMs) continue;
      const price = priceAt(at);
      if (price === undefined) continue;
      const surprise = drawSurprise(u, (k) => this.rand.normal(S_DEMO_EARNINGS, slot, k), true);
      const estimate = roundEps(
        (price / (spec.targetPe ?? 20) / 4) * (1 + 0.02 * this.rand.normal(S_DEMO_EARNINGS, slot, 2)),
      );
      out.push(report(spec.symbol, at, null, estimate, roundEps(estimate * (1 + surprise))));
    }
    return out;
  }
}

/** Demo reports are the ones without a fiscal period (they report no quarter of their own). */
const isDemo = (r: EarningsReport) => r.fiscalPeriodEnd === null;

function report(
  symbol: string,
  reportMs: number,
  periodEndMs: number | null,
  estimate: number,
  reported: number | null,
): EarningsReport {
  const surprisePercent =
    reported !== null && estimate !== 0
      ? Math.round(((reported - estimate) / Math.abs(estimate)) * 1e4) / 100
      : null;
  return {
    symbol,
    reportDate: new Date(reportMs),
    fiscalPeriodEnd: periodEndMs === null ? null : new Date(periodEndMs),
    reportedEps: reported,
    estimatedEps: estimate,
    surprisePercent,
  };
}
