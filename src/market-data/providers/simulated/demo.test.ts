import { describe, expect, it } from 'vitest';
import { parseInstrument } from '../../instruments.ts';
import { ANTI_WINDOW_MINUTES, DemoSchedule, watchedPaths } from './demo.ts';
import { Rand } from './rng.ts';
import { createSimulatedProvider } from './simulated.provider.ts';

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
