import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config.ts';
import type { Instrument } from '../../types.ts';
import type { MarketDataProvider } from '../provider.ts';
import { Derivatives } from './derivatives.ts';
import { Rand } from './rng.ts';
import { createSimulatedProvider } from './simulated.provider.ts';
import { EQUITIES, TRADED_COINS, universeEntries } from './universe.ts';
import { watchedAssets } from './watched.ts';

/**
 * The watchdogs' conditions, evaluated on the provider's own answers the way a watchdog would:
 * in demo activity every condition must hold somewhere at each of 30 consecutive minutes; in normal
 * activity each must occur now and then over a simulated stretch, and not all the time.
 */
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const signal = new AbortController().signal;
/** The correlation watchdog's default pairs (WATCHDOG_CORRELATION_PAIRS unset). */
const WATCHED = parseConfig({}).watchdogs.correlationPairs;
/** The watchdogs' default symbols (WATCHDOG_SYMBOLS unset: the scan universes). */
const SYMBOLS = parseConfig({}).watchdogs.symbols;

function setup(activity: 'normal' | 'demo', startIso: string) {
  let now = Date.parse(startIso);
  const provider = createSimulatedProvider({
    seed: 'watchdogs',
    activity,
    tickMs: 1_000,
    clock: { now: () => new Date(now) },
    correlationPairs: WATCHED,
    watchedSymbols: SYMBOLS,
  });
  return { provider, at: (ms: number) => (now = ms), now: () => now };
}

const instrument = (symbol: string): Instrument =>
  universeEntries.find((e) => e.instrument.symbol === symbol)!.instrument;
const coins = TRADED_COINS.map((c) => `${c.symbol}/USDT`);
const watched = watchedAssets(SYMBOLS);
const watchedCoins = watched.coins.map((c) => `${c}/USDT`);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const returns = (closes: number[]) => closes.slice(1).map((c, i) => Math.log(c / closes[i]!));
function correlation(a: number[], b: number[]): number {
  const [ma, mb] = [mean(a), mean(b)];
  let c = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < a.length; i++) {
    c += (a[i]! - ma) * (b[i]! - mb);
    va += (a[i]! - ma) ** 2;
    vb += (b[i]! - mb) ** 2;
  }
  return c / Math.sqrt(va * vb);
}

const minuteBars = (p: MarketDataProvider, symbol: string, fromMs: number, toMs: number) =>
  p.bars!({
    instrument: instrument(symbol),
    interval: '1m',
    start: new Date(fromMs),
    end: new Date(toMs),
    signal,
  });
const dailyBars = (p: MarketDataProvider, symbol: string, from: string, toMs: number) =>
  p.bars!({
    instrument: instrument(symbol),
    interval: '1d',
    start: new Date(from),
    end: new Date(toMs),
    signal,
  });
const bookDepth = async (p: MarketDataProvider, symbol: string) => {
  const book = await p.orderBook!({ instrument: instrument(symbol), depth: 20, signal });
  return [...book.bids, ...book.asks].reduce((s, l) => s + l.size, 0);
};

describe('demo activity: every watchdog has something to see among the watched symbols at every minute', () => {
  it('holds for 30 consecutive minutes across midnight UTC on a weekend', async () => {
    // 00:00 UTC Sunday: the US market is shut, a new crypto day begins inside the window.
    const sim = setup('demo', '2025-06-14T23:45:17Z');
    const { provider: p } = sim;
    const start = sim.now();
    const typicalDepth = new Map<string, number>();
    for (const symbol of watchedCoins) {
      const samples: number[] = [];
      for (let t = start - 7 * DAY; t < start; t += 2 * HOUR) {
        sim.at(t);
        samples.push(await bookDepth(p, symbol));
      }
      typicalDepth.set(symbol, mean(samples));
    }
    for (let k = 0; k < 30; k++) {
      const now = sim.at(start + k * MINUTE);
      const minuteStart = Math.floor(now / MINUTE) * MINUTE;
      const seen = new Set<string>();

      for (const symbol of watchedCoins) {
        const bars = await minuteBars(p, symbol, minuteStart - 5 * MINUTE, now);
        // A move beyond 5 % within the last 5 minutes: the price now against each open since.
        if (bars.some((b) => Math.abs(bars.at(-1)!.close / b.open - 1) > 0.05)) seen.add('price_anomaly');
        // The check's reading: each minute completed since the last cycle against the 30 before it,
        // at its default threshold (3x).
        const recent = await minuteBars(p, symbol, minuteStart - 32 * MINUTE, minuteStart);
        for (const cut of [recent, recent.slice(0, -1)]) {
          const baseline = mean(cut.slice(-31, -1).map((b) => b.volume!));
          if (cut.at(-1)!.volume! > 3 * baseline) seen.add('unusual_volume');
        }
        if ((await p.funding!({ instrument: instrument(symbol), signal })).rate > 0.001)
          seen.add('funding_rate');
        if ((await bookDepth(p, symbol)) < 0.5 * typicalDepth.get(symbol)!) seen.add('liquidity_drop');
      }
      for (const [a, b] of WATCHED.filter(([x]) => x.includes('/'))) {
        const ra = returns(
          (await minuteBars(p, a, minuteStart - 361 * MINUTE, minuteStart)).map((x) => x.close),
        );
        const rb = returns(
          (await minuteBars(p, b, minuteStart - 361 * MINUTE, minuteStart)).map((x) => x.close),
        );
        if (Math.abs(correlation(ra.slice(-30), rb.slice(-30)) - correlation(ra, rb)) > 0.5) {
          seen.add('correlation_breakdown');
        }
      }
      if ((await p.venueStatus!({ signal })).some((v) => v.status !== 'up')) seen.add('exchange_outage');
      const whales = await p.transfers!({ since: new Date(now - MINUTE), minUsd: 1_000_000, signal });
      if (whales.length >= 2) seen.add('whale_movement');
      for (const e of watched.equities) {
        const reports = await p.earnings!({
          instrument: instrument(e),
          from: new Date(now - MINUTE),
          to: new Date(now),
          signal,
        });
        if (reports.some((r) => r.surprisePercent !== null)) seen.add('earnings_anomaly');
      }
      expect([...seen].sort(), new Date(now).toISOString()).toEqual([
        'correlation_breakdown',
        'earnings_anomaly',
        'exchange_outage',
        'funding_rate',
        'liquidity_drop',
        'price_anomaly',
        'unusual_volume',
        'whale_movement',
      ]);
    }
  });

  it('reports earnings every 20-40 s, with large surprises frequent', async () => {
    const sim = setup('demo', '2025-06-11T15:00:00Z');
    const reports = (
      await Promise.all(
        EQUITIES.map((e) =>
          sim.provider.earnings!({
            instrument: instrument(e.symbol),
            from: new Date(sim.now() - HOUR),
            to: new Date(sim.now()),
            signal,
          }),
        ),
      )
    )
      .flat()
      .filter((r) => r.fiscalPeriodEnd === null)
      .sort((a, b) => a.reportDate.getTime() - b.reportDate.getTime());
    const gaps = reports.slice(1).map((r, i) => r.reportDate.getTime() - reports[i]!.reportDate.getTime());
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(20_000);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(40_000);
    const large = reports.filter((r) => Math.abs(r.surprisePercent!) > 10).length;
    expect(large / reports.length).toBeGreaterThan(0.5);
  });
});

describe('normal activity: each watchdog condition occurs now and then', () => {
  const sim = setup('normal', '2025-06-11T15:03:17Z');
  const p = sim.provider;
  const end = sim.now();

  it('earnings: quarterly reports, mostly small surprises, some beyond 10 % and 20 %', async () => {
    const reports = (
      await Promise.all(
        EQUITIES.map((e) =>
          p.earnings!({
            instrument: instrument(e.symbol),
            from: new Date(end - 730 * DAY),
            to: new Date(end + 90 * DAY),
            signal,
          }),
        ),
      )
    ).flat();
    const past = reports.filter((r) => r.reportDate.getTime() <= end);
    const upcoming = reports.filter((r) => r.reportDate.getTime() > end);
    expect(past.length).toBeGreaterThanOrEqual(EQUITIES.length * 7);
    expect(upcoming.length).toBeGreaterThan(0);
    expect(
      upcoming.every((r) => r.reportedEps === null && r.surprisePercent === null && r.estimatedEps !== null),
    ).toBe(true);
    const surprises = past.map((r) => Math.abs(r.surprisePercent!));
    expect(surprises.filter((s) => s <= 5).length / surprises.length).toBeGreaterThan(0.65);
    expect(surprises.filter((s) => s > 10).length).toBeGreaterThan(5);
    expect(surprises.filter((s) => s > 20).length).toBeGreaterThan(1);
  });

  it('unusual volume: days beyond 3x and 5x their 30-day average, a few times a year', async () => {
    let over3 = 0;
    let over5 = 0;
    let days = 0;
    for (const symbol of [...EQUITIES.map((e) => e.symbol), ...coins]) {
      const bars = await dailyBars(p, symbol, '2024-05-01', end);
      for (let i = 30; i < bars.length; i++) {
        const ratio = bars[i]!.volume! / mean(bars.slice(i - 30, i).map((b) => b.volume!));
        days++;
        if (ratio > 3) over3++;
        if (ratio > 5) over5++;
      }
    }
    expect(over3).toBeGreaterThan(50);
    expect(over5).toBeGreaterThan(10);
    expect(over3 / days).toBeLessThan(0.05);
  });

  it('whale movements: transfers above USD 1M several times an hour, not every minute', async () => {
    const transfers = await p.transfers!({ since: new Date(end - 6 * HOUR), minUsd: 1_000_000, signal });
    expect(transfers.length).toBeGreaterThan(30);
    const minutes = new Set(transfers.map((t) => Math.floor(t.time.getTime() / MINUTE)));
    expect(minutes.size).toBeLessThan(6 * 60 * 0.5);
  });

  it('funding: usually small, above 0.1 % in a few periods, above 0.3 % rarely', async () => {
    // A year of 8-hour periods for every perpetual, read from the rate model the provider uses
    // (asking the provider would build a year of minute paths just for the mark prices).
    const derivatives = new Derivatives(Rand.fromSeed('watchdogs'), false);
    const rates: number[] = [];
    for (let t = end - 365 * DAY; t < end; t += 8 * HOUR) {
      for (const coin of TRADED_COINS) rates.push(derivatives.fundingRate(coin.symbol, t));
    }
    const share = (limit: number) => rates.filter((r) => Math.abs(r) > limit).length / rates.length;
    expect(share(0.0003)).toBeLessThan(0.08);
    expect(share(0.001)).toBeGreaterThan(0.005);
    expect(share(0.001)).toBeLessThan(0.06);
    expect(share(0.003)).toBeGreaterThan(0);
    expect(share(0.003)).toBeLessThan(0.005);
    const now = await p.funding!({ instrument: instrument('BTC/USDT'), signal });
    expect(now.rate).toBe(derivatives.fundingRate('BTC', end));
  });

  it('liquidity: depth occasionally below 0.5x and 0.3x of its 7-day average', async () => {
    const step = 20 * MINUTE;
    let below5 = 0;
    let below3 = 0;
    let samples = 0;
    for (const symbol of coins.slice(0, 6)) {
      const depths: number[] = [];
      for (let t = end - 30 * DAY; t < end; t += step) {
        sim.at(t);
        depths.push(await bookDepth(p, symbol));
      }
      const week = (7 * DAY) / step;
      for (let i = week; i < depths.length; i++) {
        const average = mean(depths.slice(i - week, i));
        samples++;
        if (depths[i]! < 0.5 * average) below5++;
        if (depths[i]! < 0.3 * average) below3++;
      }
    }
    sim.at(end);
    expect(below5).toBeGreaterThan(0);
    expect(below3).toBeGreaterThan(0);
    expect(below5 / samples).toBeLessThan(0.03);
  });

  it('correlation breakdown: 7- and 90-day correlations part by > 0.5 a few times a year', async () => {
    for (const [a, b] of WATCHED) {
      const ra = returns((await dailyBars(p, a, '2023-06-01', end)).map((x) => x.close));
      const rb = returns((await dailyBars(p, b, '2023-06-01', end)).map((x) => x.close));
      let episodes = 0;
      let hitDays = 0;
      let previous = false;
      for (let i = 90; i < ra.length; i++) {
        const hit =
          Math.abs(
            correlation(ra.slice(i - 7, i), rb.slice(i - 7, i)) -
              correlation(ra.slice(i - 90, i), rb.slice(i - 90, i)),
          ) > 0.5;
        if (hit) hitDays++;
        if (hit && !previous) episodes++;
        previous = hit;
      }
      expect(episodes, `${a}-${b}`).toBeGreaterThan(1);
      expect(hitDays / (ra.length - 90), `${a}-${b}`).toBeLessThan(0.25);
    }
  });

  it('exchange outages: venues mostly up, sometimes degraded or down for a few minutes', async () => {
    const counts = { up: 0, degraded: 0, down: 0 };
    for (let t = end - 3 * DAY; t < end; t += MINUTE) {
      sim.at(t);
      for (const v of await p.venueStatus!({ signal })) {
        counts[v.status]++;
        if (v.status === 'up') expect(v.latencyMs).toBeLessThanOrEqual(120);
        if (v.status === 'degraded') expect(v.latencyMs).toBeGreaterThan(1_000);
        if (v.status === 'down') expect(v.latencyMs).toBeNull();
        expect(v.detail).toMatch(/^simulated/);
      }
    }
    sim.at(end);
    expect(counts.degraded).toBeGreaterThan(0);
    expect(counts.down).toBeGreaterThan(0);
    expect(counts.up / (counts.up + counts.degraded + counts.down)).toBeGreaterThan(0.97);
  });

  it('price anomalies: 5-minute moves beyond 5 % somewhere in the universe every few days', async () => {
    let episodes = 0;
    let minutes = 0;
    let flagged = 0;
    for (const symbol of coins) {
      const bars = await minuteBars(p, symbol, end - 14 * DAY, end);
      let previous = false;
      for (let i = 5; i < bars.length; i++) {
        const hit = Math.abs(bars[i]!.close / bars[i - 5]!.close - 1) > 0.05;
        minutes++;
        if (hit) flagged++;
        if (hit && !previous) episodes++;
        previous = hit;
      }
    }
    expect(episodes).toBeGreaterThanOrEqual(3);
    expect(flagged / minutes).toBeLessThan(0.001);
  });
});
