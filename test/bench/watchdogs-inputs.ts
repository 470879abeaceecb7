import { unknownSymbol } from '../../src/market-data/providers/provider-errors.ts';
import type { Bar, EarningsReport, FundingRate } from '../../src/market-data/types.ts';
import { detectCorrelationBreakdown } from '../../src/watchdogs/kinds/correlation-breakdown/detector.ts';
import { detectEarningsAnomaly } from '../../src/watchdogs/kinds/earnings-anomaly/detector.ts';
import {
  detectExchangeOutage,
  type ReachabilityResult,
} from '../../src/watchdogs/kinds/exchange-outage/detector.ts';
import { detectFundingRate } from '../../src/watchdogs/kinds/funding-rate/detector.ts';
import { type DepthSample, detectLiquidityDrop } from '../../src/watchdogs/kinds/liquidity-drop/detector.ts';
import { detectPriceAnomaly, type PricePoint } from '../../src/watchdogs/kinds/price-anomaly/detector.ts';
import { detectUnusualVolume } from '../../src/watchdogs/kinds/unusual-volume/detector.ts';
import { detectWhaleMovement, type LargeMove } from '../../src/watchdogs/kinds/whale-movement/detector.ts';
import type { WatchdogName } from '../../src/watchdogs/registry.ts';
import { createFakeProvider, type FakeProvider } from '../support/fake-provider.ts';

/**
 * Deterministic synthetic inputs for the watchdogs benchmark: for the eight detectors over N
 * watched symbols, shaped like one daily-timescale cycle with a few anomalies planted (so the
 * finding-building paths run too), with for each detector a plain pass that reads every number the
 * detector reads, as the baseline; and a provider serving bars for any number of symbols.
 */
export interface DetectorCase {
  readonly name: WatchdogName;
  /** What the input holds, for the table. */
  readonly shape: string;
  /** Runs the detector; returns how many findings it made. */
  detect(): number;
  /** Sums every number the detector reads (returned so the work cannot be optimised away). */
  plainPass(): number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

export const symbolOf = (i: number) => `S${String(i + 1).padStart(4, '0')}`;

/** mulberry32: a small seeded generator, so every run sees the same inputs. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** 91 daily bars per symbol ending today; pairs (2k, 2k+1) co-move, every 10th pair breaks in the last week. */
function dailyBars(n: number, now: number, rnd: () => number): Map<string, Bar[]> {
  const today = Math.floor(now / DAY) * DAY;
  const out = new Map<string, Bar[]>();
  let partner: number[] = [];
  for (let s = 0; s < n; s++) {
    const leader = s % 2 === 0;
    const breaks = Math.floor(s / 2) % 10 === 0;
    const own: number[] = [];
    const bars: Bar[] = [];
    let close = 50 + (s % 200);
    for (let d = 0; d <= 90; d++) {
      const noise = (rnd() - 0.5) * 0.02;
      const shared = leader ? noise : (breaks && d > 83 ? -1 : 1) * partner[d]! * 0.9 + noise * 0.3;
      own.push(shared);
      close *= 1 + shared;
      const volume = Math.round(1e6 * (0.8 + 0.4 * rnd()) * (d === 90 && s % 20 === 0 ? 4 : 1));
      bars.push({
        time: new Date(today - (90 - d) * DAY),
        open: close,
        high: close,
        low: close,
        close,
        volume,
      });
    }
    if (leader) partner = own;
    out.set(symbolOf(s), bars);
  }
  return out;
}

export function detectorCases(n: number, nowDate: Date, seed = 7): DetectorCase[] {
  const now = nowDate.getTime();
  const rnd = random(seed + n);
  const symbols = Array.from({ length: n }, (_, i) => symbolOf(i));
  const bars = dailyBars(n, now, rnd);
  const pairs = Array.from(
    { length: Math.floor(n / 2) },
    (_, k) => [symbols[2 * k]!, symbols[2 * k + 1]!] as const,
  );
  const volumeSeries = symbols.map((symbol) => ({ symbol, bars: bars.get(symbol)!.slice(-31) }));
  const priceSeries = symbols.map((symbol, s) => {
    const drift = s % 50 === 0 ? -0.009 : s % 25 === 0 ? 0.005 : 0;
    const points: PricePoint[] = [];
    let price = 50 + (s % 200);
    for (let m = 15; m >= 0; m--) {
      points.push({ time: new Date(now - m * MINUTE), price });
      price *= 1 + drift + (rnd() - 0.5) * 0.002;
    }
    return { symbol, points };
  });
  const rates: FundingRate[] = symbols.map((symbol, s) => ({
    symbol,
    venue: 'venue-a',
    rate: s % 20 === 0 ? 0.002 : (rnd() - 0.5) * 0.0004,
    intervalHours: [8, 8, 4, 1][s % 4]!,
    markPrice: 100,
    nextFundingTime: null,
    asOf: nowDate,
  }));
  // Seven days of 5-minute depth samples per book: 2,016 each.
  const books = symbols.map((symbol, s) => {
    const history: DepthSample[] = [];
    for (let k = 2016; k >= 1; k--)
      history.push({ time: new Date(now - k * 5 * MINUTE), depth: 1e6 * (0.9 + 0.2 * rnd()) });
    return { symbol, venue: 'venue-a', depth: 1e6 * (s % 20 === 0 ? 0.25 : 0.95), history };
  });
  const reports: EarningsReport[] = symbols.map((symbol, s) => {
    const estimatedEps = 1 + rnd();
    return {
      symbol,
      reportDate: new Date(now - (s % 3 === 0 ? 5 * DAY : rnd() * 2 * DAY)),
      fiscalPeriodEnd: null,
      estimatedEps,
      reportedEps: estimatedEps * (s % 10 === 0 ? 1.25 : 1 + (rnd() - 0.5) * 0.1),
      surprisePercent: null,
    };
  });
  const moves: LargeMove[] = Array.from({ length: Math.max(1, Math.floor(n / 10)) }, (_, k) => ({
    id: `m${k}`,
    symbol: symbols[k % 20]!,
    kind: k % 2 === 0 ? 'trade' : 'transfer',
    amount: 10 + k,
    usdValue: 5e5 + rnd() * 5e7,
    time: new Date(now - rnd() * 20 * MINUTE),
  }));
  const probes: ReachabilityResult[] = Array.from({ length: 20 }, (_, k) => ({
    venue: `venue-${k}`,
    outcome: k === 3 ? 'error' : k === 7 ? 'timeout' : 'ok',
    latencyMs: k === 7 ? null : k === 11 ? 3_000 : 50 + Math.round(rnd() * 450),
    ...(k === 3 ? { detail: 'HTTP 503' } : {}),
  }));

  // Each pass reads what its detector reads: volumes for unusual_volume, times and closes for correlation.
  const sumVolumes = (list: readonly Bar[]) => {
    let t = 0;
    for (const b of list) t += b.volume ?? 0;
    return t;
  };
  const sumCloses = (list: readonly Bar[]) => {
    let t = 0;
    for (const b of list) t += b.time.getTime() + b.close;
    return t;
  };
  return [
    {
      name: 'earnings_anomaly',
      shape: `${n} reports`,
      detect: () => detectEarningsAnomaly({ now: nowDate, reports }).length,
      plainPass: () =>
        reports.reduce((t, r) => t + r.reportDate.getTime() + r.reportedEps! + r.estimatedEps!, 0),
    },
    {
      name: 'unusual_volume',
      shape: `${n} x 31 daily bars`,
      detect: () => detectUnusualVolume({ series: volumeSeries }).length,
      plainPass: () => volumeSeries.reduce((t, s) => t + sumVolumes(s.bars), 0),
    },
    {
      name: 'whale_movement',
      shape: `${moves.length} large moves`,
      detect: () => detectWhaleMovement({ now: nowDate, moves }).length,
      plainPass: () => moves.reduce((t, m) => t + m.time.getTime() + m.usdValue, 0),
    },
    {
      name: 'funding_rate',
      shape: `${n} rates`,
      detect: () => detectFundingRate({ rates }).length,
      plainPass: () => rates.reduce((t, r) => t + r.rate + r.intervalHours, 0),
    },
    {
      name: 'liquidity_drop',
      shape: `${n} books x 2016 samples`,
      detect: () => detectLiquidityDrop({ now: nowDate, books }).length,
      plainPass: () => {
        let t = 0;
        for (const b of books) {
          t += b.depth;
          for (const s of b.history) t += s.time.getTime() + s.depth;
        }
        return t;
      },
    },
    {
      name: 'correlation_breakdown',
      shape: `${pairs.length} pairs x 91 daily bars`,
      detect: () => detectCorrelationBreakdown({ now: nowDate, pairs, bars }).length,
      plainPass: () => pairs.reduce((t, [a, b]) => t + sumCloses(bars.get(a)!) + sumCloses(bars.get(b)!), 0),
    },
    {
      name: 'exchange_outage',
      shape: `${probes.length} venues`,
      detect: () => detectExchangeOutage({ probes }).length,
      plainPass: () => probes.reduce((t, p) => t + (p.latencyMs ?? 0), 0),
    },
    {
      name: 'price_anomaly',
      shape: `${n} x 16 minute prices`,
      detect: () => detectPriceAnomaly({ now: nowDate, series: priceSeries }).length,
      plainPass: () =>
        priceSeries.reduce((t, s) => t + s.points.reduce((u, p) => u + p.time.getTime() + p.price, 0), 0),
    },
  ];
}

/**
 * The shared fake provider with the bars it lacks, priced from its `prices`: daily bars (every 20th
 * symbol's session under way at 4x volume) and 1-minute bars (every 20th symbol rising 0.5 % a
 * minute, so the price check has findings to make).
 */
export function benchMarketProvider(symbols: readonly string[], now: Date): FakeProvider {
  const fake = createFakeProvider('bench', { capabilities: ['quote', 'bars'] });
  for (const [i, s] of symbols.entries()) fake.prices.set(s, 50 + (i % 200));
  fake.bars = async ({ instrument, interval, start, end }) => {
    fake.calls.bars++;
    const base = fake.prices.get(instrument.symbol);
    if (base === undefined) throw unknownSymbol(fake.id, instrument.symbol);
    if (interval !== '1m' && interval !== '1d') throw new Error(`no ${interval} bars`);
    const hot = Number(instrument.symbol.slice(1)) % 20 === 0;
    const step = interval === '1m' ? MINUTE : DAY;
    const bars: Bar[] = [];
    for (let t = Math.ceil(start.getTime() / step) * step; t < end.getTime(); t += step) {
      const k = Math.floor(t / step);
      const close =
        interval === '1m' ? base * (hot ? 1.005 : 1.0001) ** (k % 60) : base * (1 + 0.01 * Math.sin(k));
      const spike = interval === '1d' && hot && t + step > now.getTime() ? 4 : 1;
      const volume = (1e6 + 1e4 * (k % 7)) * spike;
      bars.push({ time: new Date(t), open: close, high: close, low: close, close, volume });
    }
    return bars;
  };
  return fake;
}
