import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseInstrument } from '../../instruments.ts';
import type { StreamTick } from '../../types.ts';
import type { MarketDataProvider } from '../provider.ts';
import { ProviderError } from '../provider-errors.ts';
import { createSimulatedProvider } from './simulated.provider.ts';

const SATURDAY = Date.parse('2025-06-14T15:00:00Z');
const AAPL = parseInstrument('AAPL');
const BTC = parseInstrument('BTC/USDT');

function provider(startMs: number, activity: 'normal' | 'demo' = 'normal') {
  let now = startMs;
  const p = createSimulatedProvider({
    seed: 'unit',
    activity,
    tickMs: 100,
    clock: { now: () => new Date(now) },
  });
  return { p, advance: (ms: number) => (now += ms) };
}

async function kindOf(pending: Promise<unknown>): Promise<string> {
  return pending.then(
    () => 'value',
    (e: unknown) => (e instanceof ProviderError ? e.kind : String(e)),
  );
}

describe('simulated provider: streams', () => {
  afterEach(() => vi.useRealTimers());

  it('ticks crypto on one shared timer, stays silent while the US market is shut', () => {
    vi.useFakeTimers();
    const { p, advance } = provider(SATURDAY);
    const btc: StreamTick[] = [];
    const aapl: StreamTick[] = [];
    const stopBtc = p.stream!({ instrument: BTC, onTick: (t) => btc.push(t), onError: () => {} });
    const stopAapl = p.stream!({ instrument: AAPL, onTick: (t) => aapl.push(t), onError: () => {} });
    expect(vi.getTimerCount()).toBe(1);
    for (let i = 0; i < 5; i++) {
      advance(100);
      vi.advanceTimersByTime(100);
    }
    expect(btc).toHaveLength(5);
    expect(aapl).toHaveLength(0);
    expect(btc[4]!.asOf.getTime()).toBe(SATURDAY + 500);
    expect(btc.every((t) => t.size !== null && t.size > 0)).toBe(true);
    // A clock that does not move yields no duplicate ticks.
    vi.advanceTimersByTime(300);
    expect(btc).toHaveLength(5);
    stopBtc();
    stopAapl();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('streams listed instruments during the session with whole-share sizes', () => {
    vi.useFakeTimers();
    const { p, advance } = provider(Date.parse('2025-06-13T14:00:00Z'));
    const ticks: StreamTick[] = [];
    const stop = p.stream!({ instrument: AAPL, onTick: (t) => ticks.push(t), onError: () => {} });
    advance(100);
    vi.advanceTimersByTime(100);
    stop();
    expect(ticks).toHaveLength(1);
    expect(Number.isInteger(ticks[0]!.size)).toBe(true);
  });
});

describe('simulated provider: requests', () => {
  const { p } = provider(Date.parse('2025-06-11T15:03:17Z'));
  const signal = new AbortController().signal;

  it('honours an aborted signal in every call', async () => {
    const aborted = AbortSignal.abort();
    const calls: Array<(s: AbortSignal) => Promise<unknown>> = [
      (s) => p.quote!({ instrument: AAPL, signal: s }),
      (s) =>
        p.bars!({
          instrument: AAPL,
          interval: '1d',
          start: new Date('2025-01-01'),
          end: new Date('2025-02-01'),
          signal: s,
        }),
      (s) => p.profile!({ instrument: AAPL, signal: s }),
      (s) => p.cryptoStats!({ instrument: BTC, signal: s }),
      (s) => p.orderBook!({ instrument: BTC, depth: 5, signal: s }),
      (s) => p.funding!({ instrument: BTC, signal: s }),
      (s) =>
        p.earnings!({
          instrument: AAPL,
          from: new Date('2025-01-01'),
          to: new Date('2025-06-01'),
          signal: s,
        }),
      (s) => p.transfers!({ since: new Date('2025-06-11'), minUsd: 0, signal: s }),
      (s) => p.venueStatus!({ signal: s }),
    ];
    for (const call of calls) {
      expect(await kindOf(call(aborted))).toBe('timeout');
      expect(await kindOf(call(signal))).toBe('value');
    }
  });

  it('tells unknown instruments from unsupported requests', async () => {
    expect(await kindOf(p.quote!({ instrument: parseInstrument('ZZZZ'), signal }))).toBe('unknown_symbol');
    expect(
      await kindOf(
        p.profile!({ instrument: parseInstrument('NOPE/USDT', { assetClass: 'crypto' }), signal }),
      ),
    ).toBe('unknown_symbol');
    expect(await kindOf(p.funding!({ instrument: AAPL, signal }))).toBe('unsupported');
    expect(
      await kindOf(
        p.earnings!({ instrument: parseInstrument('QQQ'), from: new Date(0), to: new Date(), signal }),
      ),
    ).toBe('unsupported');
    expect(await kindOf(p.orderBook!({ instrument: BTC, depth: 0, signal }))).toBe('unsupported');
    expect(
      await kindOf(
        p.bars!({ instrument: BTC, interval: '1d', start: new Date('x'), end: new Date(), signal }),
      ),
    ).toBe('unsupported');
  });

  it('quotes every instrument of its universe', async () => {
    for (const entry of p.universe!()) {
      const quote = await p.quote!({ instrument: entry.instrument, signal });
      expect(quote.price, entry.instrument.symbol).toBeGreaterThan(0);
      expect(quote.asOf.getTime()).toBeLessThanOrEqual(Date.parse('2025-06-11T15:03:17Z'));
    }
  });

  it('quotes published series as of their release', async () => {
    const cpi = await p.quote!({ instrument: parseInstrument('CPI'), signal });
    expect(cpi.asOf.toISOString()).toBe('2025-05-13T12:30:00.000Z');
    expect(cpi.change).toBeCloseTo(cpi.price - cpi.previousClose!, 6);
    const bars = await p.bars!({
      instrument: parseInstrument('CPI'),
      interval: '1d',
      start: new Date('2024-01-01'),
      end: new Date('2025-01-01'),
      signal,
    });
    expect(bars).toHaveLength(12);
    expect(bars.every((b) => b.open === b.close && b.volume === null)).toBe(true);
  });
});

describe('simulated provider: demo activity', () => {
  it('is the normal market plus extras: the same daily closes outside the demo coins', async () => {
    const signal = new AbortController().signal;
    const normal: MarketDataProvider = provider(SATURDAY).p;
    const demo: MarketDataProvider = provider(SATURDAY, 'demo').p;
    const range = {
      interval: '1d' as const,
      start: new Date('2024-01-01'),
      end: new Date('2024-03-01'),
      signal,
    };
    const closes = async (p: MarketDataProvider, symbol: string) =>
      (await p.bars!({ ...range, instrument: parseInstrument(symbol) })).map((b) => b.close);
    expect(await closes(demo, 'AAPL')).toEqual(await closes(normal, 'AAPL'));
    expect(await closes(demo, 'BTC/USDT')).toEqual(await closes(normal, 'BTC/USDT'));
  });
});
