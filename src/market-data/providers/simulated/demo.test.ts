import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config.ts';
import { parseInstrument } from '../../instruments.ts';
import { dayIndexOf, MINUTE_MS, sessionOf } from './calendar.ts';
import { ANTI_WINDOW_MINUTES, DemoSchedule, watchedPaths } from './demo.ts';
import { Derivatives } from './derivatives.ts';
import { Rand } from './rng.ts';
import { createSimulatedProvider } from './simulated.provider.ts';
import { ANOMALY_COINS, TRADED_COINS } from './universe.ts';
import { watchedAssets } from './watched.ts';

const rand = Rand.fromSeed('demo');
const keys = (pairs: ReturnType<typeof watchedPaths>) => pairs.map(([a, b]) => [a.key, b.key]);

describe('watched pairs in the simulated market', () => {
  it('maps pairs to price paths and leaves out what the simulation cannot move', () => {
    const paths = watchedPaths([
      ['BTC/USDT', 'eth/usdc'],
      ['ZZZZ', 'AAPL'], // not listed
      ['GDP', 'AAPL'], // published, not traded: no price path
      ['SPY', '^GSPC'], // one path
      ['not a symbol!', 'MSFT'],
      ['EUR/USD', 'USD/JPY'],
      ['KO', 'PEP'],
    ]);
    expect(keys(paths)).toEqual([
      ['BTC', 'ETH'],
      ['EUR/USD', 'USD/JPY'],
      ['KO', 'PEP'],
    ]);
  });

  it('turns the second member against its factors in demo windows and leaves other paths alone', () => {
    const demo = new DemoSchedule(rand, true, [
      ['AAPL', 'MSFT'],
      ['ZZZZ', 'NVDA'],
    ]);
    // The first listed pair's window opens at minute 0 of every period.
    expect(demo.loading('MSFT', 0, false, 0.5)).toBeLessThan(0);
    expect(demo.loading('MSFT', ANTI_WINDOW_MINUTES, false, 0.5)).toBeGreaterThan(1);
    expect(demo.loading('AAPL', 0, false, 0.5)).toBeGreaterThan(1);
    // A pair with an unknown symbol is ignored: NVDA keeps its ordinary loadings.
    expect(demo.loading('NVDA', 0, false, 0.5)).toBe(1);
    expect(new DemoSchedule(rand, true).loading('MSFT', 0, false, 0.5)).toBe(1);
  });

  it('accepts pairs it does not know without failing', async () => {
    const provider = createSimulatedProvider({
      seed: 'demo',
      activity: 'demo',
      tickMs: 1_000,
      clock: { now: () => new Date('2025-06-11T15:00:00Z') },
      correlationPairs: [
        ['NOPE/USDT', 'BTC/USDT'],
        ['AAPL', 'ZZZZ'],
      ],
    });
    const quote = await provider.quote!({
      instrument: parseInstrument('BTC/USDT'),
      signal: new AbortController().signal,
    });
    expect(quote.price).toBeGreaterThan(0);
  });
});

describe('demo rotations over the watched symbols', () => {
  const { symbols, correlationPairs } = parseConfig({}).watchdogs;
  const assets = watchedAssets(symbols);
  const start = Math.floor(Date.parse('2025-06-14T22:00:00Z') / MINUTE_MS);
  const minutes = Array.from({ length: 8 * 60 }, (_, i) => start + i);
  const coins = TRADED_COINS.map((c) => c.symbol);

  it('bursts a watched coin every minute, and a lone watched coin one minute in eight', () => {
    const demo = new DemoSchedule(rand, true, correlationPairs, assets);
    for (const m of minutes) {
      const bursting = coins.filter((c) => demo.burst(c, m) > 1);
      expect(bursting).toHaveLength(1);
      expect(assets.coins).toContain(bursting[0]);
    }
    const lone = new DemoSchedule(rand, true, [], watchedAssets(['SOL/USDT']));
    const solMinutes = minutes.filter((m) => lone.burst('SOL', m) > 1);
    expect(solMinutes.length).toBe(minutes.length / 8);
    expect(minutes.every((m) => coins.every((c) => c === 'SOL' || lone.burst(c, m) === 1))).toBe(true);
  });

  it('puts flash moves on watched coins outside the watched pairs, apart on each coin', () => {
    const demo = new DemoSchedule(rand, true, correlationPairs, assets);
    const day = dayIndexOf(Date.parse('2025-06-14T12:00:00Z'));
    const session = sessionOf('crypto', day)!;
    const starts = new Map<string, number[]>();
    for (const coin of coins) {
      const events = demo.events(coin, session);
      if (events.length > 0)
        starts.set(
          coin,
          events.map((e) => e.start),
        );
    }
    expect([...starts.keys()].sort()).toEqual(['BNB', 'DOGE', 'LINK', 'LTC']);
    const all = [...starts.values()].flat().sort((a, b) => a - b);
    // One move every 5 minutes (4 coins share the rotation), each coin's 20 minutes apart.
    expect(all.slice(1).every((s, i) => s - all[i]! === 5)).toBe(true);
    for (const own of starts.values()) expect(own.slice(1).every((s, i) => s - own[i]! >= 17)).toBe(true);
    // Without watched symbols: today's rotation over the anomaly coins, every 3 minutes.
    const universe = new DemoSchedule(rand, true, correlationPairs);
    const fallback = coins.filter((c) => universe.events(c, session).length > 0).sort();
    expect(fallback).toEqual([...ANOMALY_COINS].sort());
  });

  it('spikes funding and drains books of watched coins only', () => {
    const derivatives = new Derivatives(rand, true, assets.coins);
    const normal = new Derivatives(rand, false);
    for (const m of minutes.filter((_, i) => i % 10 === 0)) {
      const ms = m * MINUTE_MS;
      const spiking = coins.filter((c) => derivatives.fundingRate(c, ms) - normal.fundingRate(c, ms) > 0.001);
      const drained = coins.filter((c) => derivatives.liquidity(c, ms) < normal.liquidity(c, ms) * 0.5);
      expect(spiking.length).toBe(1);
      expect(assets.coins).toContain(spiking[0]);
      expect(drained.length).toBe(1);
      expect(assets.coins).toContain(drained[0]);
    }
  });
});
