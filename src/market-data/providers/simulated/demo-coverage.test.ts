import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config.ts';
import { resolveInstrument } from '../../instruments.ts';
import type { Bar } from '../../types.ts';
import { Derivatives } from './derivatives.ts';
import { Rand } from './rng.ts';
import { createSimulatedProvider } from './simulated.provider.ts';
import { watchedAssets } from './watched.ts';

/**
 * Demo activity with default settings, from a newcomer's side: whatever the instant they start at,
 * within three one-minute watchdog cycles each rotating condition shows on a symbol the watchdogs
 * watch (the rotations used to visit unwatched coins for hours at a time).
 */
const MINUTE = 60_000;
const DAY = 86_400_000;
const SEED = 'vigil';
const signal = new AbortController().signal;
const { symbols, correlationPairs } = parseConfig({}).watchdogs;
const watched = watchedAssets(symbols);
const coins = watched.coins.map((c) => `${c}/USDT`);
const barSymbols = [...coins, ...watched.listed];

/** 50 start instants over eight weeks, from a seeded generator (any second of any day). */
function startInstants(): number[] {
  const rand = Rand.fromSeed('demo-coverage');
  const from = Date.parse('2025-05-05T00:00:00Z');
  return Array.from({ length: 50 }, (_, i) => from + Math.floor(rand.uniform(1, i) * 56 * DAY));
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The move of the last 5 minutes: the close now against each open since, at its largest. */
function fiveMinuteMove(bars: readonly Bar[]): number {
  const last = bars.at(-1)!.close;
  return Math.max(...bars.map((b) => Math.abs(last / b.open - 1)));
}

/** A completed minute among the last two beyond 5x the mean of the 30 before it (the check's reading). */
function burst(bars: readonly Bar[]): boolean {
  return [1, 2].some((k) => {
    const cut = bars.slice(0, bars.length - k + 1);
    const volume = cut.at(-1)!.volume!;
    return volume > 5 * mean(cut.slice(-31, -1).map((b) => b.volume!));
  });
}

describe('demo activity covers the watched symbols', () => {
  it('shows every rotating condition on a watched symbol within 3 minutes of any start', async () => {
    let now = 0;
    const provider = createSimulatedProvider({
      seed: SEED,
      activity: 'demo',
      tickMs: 1_000,
      clock: { now: () => new Date(now) },
      correlationPairs,
      watchedSymbols: symbols,
    });
    // The book depth model the provider uses: depth is its level size times this factor, so the
    // factor against its 7-day mean is the depth against its usual depth.
    const derivatives = new Derivatives(Rand.fromSeed(SEED), true, watched.coins);
    const starts = startInstants();
    expect(starts.some((t) => [0, 6].includes(new Date(t).getUTCDay()))).toBe(true);
    const missed: string[] = [];
    for (const start of starts) {
      const seen = new Set<string>();
      for (let k = 0; k < 3; k++) {
        now = start + k * MINUTE;
        const minuteStart = Math.floor(now / MINUTE) * MINUTE;
        for (const symbol of coins) {
          const instrument = resolveInstrument(symbol);
          const coin = instrument.base!;
          if ((await provider.funding!({ instrument, signal })).rate > 0.001) seen.add('funding');
          const week: number[] = [];
          for (let t = now - 7 * DAY; t < now; t += 30 * MINUTE) week.push(derivatives.liquidity(coin, t));
          if (derivatives.liquidity(coin, now) < 0.5 * mean(week)) seen.add('drain');
        }
        for (const symbol of barSymbols) {
          const instrument = resolveInstrument(symbol);
          const bars = (from: number, to: number) =>
            provider.bars!({
              instrument,
              interval: '1m',
              start: new Date(from),
              end: new Date(to),
              signal,
            });
          const recent = await bars(minuteStart - 32 * MINUTE, minuteStart);
          if (recent.length >= 32 && burst(recent)) seen.add('burst');
          if (coins.includes(symbol)) {
            if (fiveMinuteMove(await bars(minuteStart - 5 * MINUTE, now)) > 0.05) seen.add('move');
          }
        }
      }
      const absent = ['burst', 'drain', 'funding', 'move'].filter((c) => !seen.has(c));
      if (absent.length > 0) missed.push(`${new Date(start).toISOString()}: ${absent.join(', ')}`);
    }
    expect(missed).toEqual([]);
  }, 120_000);
});
