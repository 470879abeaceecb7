import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import { parseInstrument } from '../../src/market-data/instruments.ts';
import { MarketDataService } from '../../src/market-data/market-data.service.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { createProviders } from '../../src/market-data/providers/registry.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { createTestApp, graphql, type TestApp } from '../support/app.ts';
import { ManualClock } from '../support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const EXECUTE = `query ($q: String!) { executeFkDsl(query: $q) { errors statements { result: resultJson error { code } } } }`;
const MIB = 1024 * 1024;

/**
 * Bar requests are computed from the clock ("the last year up to now"), so the cache must key them
 * by aligned range or no repeat ever hits, and must be bounded in bytes or every answer is kept.
 */
describe('bar cache', () => {
  // A Wednesday, 11:00 in New York: the US market is open, so bar entries live one minute.
  const clock = new ManualClock(Date.parse('2025-06-11T15:00:00Z'));
  const config = parseConfig({ NODE_ENV: 'test' });
  const simulated = createProviders(config.marketData, clock, config.watchdogs)[0]!;
  let barCalls = 0;
  // The simulated market, counting the bar calls that reach it.
  const counted: MarketDataProvider = Object.assign(Object.create(simulated) as MarketDataProvider, {
    bars: (call: Parameters<NonNullable<MarketDataProvider['bars']>>[0]) => {
      barCalls++;
      return simulated.bars!(call);
    },
  });
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '1000' }, overrides: { clock, providers: [counted] } });
  });
  afterAll(async () => t?.close());

  const run = async (q: string) => {
    const { body } = await graphql<{ executeFkDsl: Json }>(t.app, EXECUTE, { q });
    expect(body.errors).toBeUndefined();
    expect(body.data!.executeFkDsl.errors).toBe(0);
    return body.data!.executeFkDsl.statements;
  };

  /** Runs `q` once, then `times` more a moment apart; returns the bar calls the repeats made. */
  const repeatedBarCalls = async (q: string, times: number) => {
    await run(q);
    const before = barCalls;
    for (let i = 0; i < times; i++) {
      await clock.advance(1_500);
      await run(q);
    }
    return barCalls - before;
  };

  it('serves a repeated EVALUATE from the cache', async () => {
    expect(await repeatedBarCalls('EVALUATE AAPL: VOLATILITY(1y)', 5)).toBe(0);
    expect(await repeatedBarCalls('EVALUATE MSFT: TECHNICAL(RSI, MACD)', 5)).toBe(0);
  });

  it('serves a repeated SCAN over a list from the cache', async () => {
    expect(await repeatedBarCalls('SCAN [AAPL, MSFT, NVDA, KO] WHERE VOLATILITY(1y) > 0', 5)).toBe(0);
  });

  it('serves a repeated ten-year SCAN of a market from the cache, within its byte bound', async () => {
    expect(await repeatedBarCalls('SCAN US WHERE VOLATILITY(10y) > 0 LIMIT 1', 3)).toBe(0);
    const stats = t.app.deps.marketData.cacheStats();
    expect(stats.bytes).toBeGreaterThan(0);
    expect(stats.bytes).toBeLessThanOrEqual(stats.maxBytes);
  });

  it('stays under its byte bound with many distinct requests', async () => {
    const service = new MarketDataService(
      [counted],
      clock,
      createLogger('silent'),
      {},
      { cacheMaxBytes: MIB },
    );
    const now = clock.now();
    const symbols = ['AAPL', 'MSFT', 'NVDA', 'KO', 'PEP', 'JPM', 'XOM', 'SPY'];
    for (let days = 100; days < 400; days += 20) {
      for (const symbol of symbols) {
        const start = new Date(now.getTime() - days * 86_400_000);
        await service.bars(parseInstrument(symbol), '1d', start, now);
        expect(service.cacheStats().bytes).toBeLessThanOrEqual(MIB);
      }
    }
    expect(service.cacheStats()).toMatchObject({ maxBytes: MIB, evictions: expect.any(Number) });
    expect(service.cacheStats().evictions).toBeGreaterThan(0);
  });

  it('serves but does not keep an answer larger than the whole bound', async () => {
    const service = new MarketDataService(
      [counted],
      clock,
      createLogger('silent'),
      {},
      { cacheMaxBytes: MIB },
    );
    const btc = parseInstrument('BTC/USDT');
    const now = clock.now();
    const start = new Date(now.getTime() - 8_000 * 3_600_000);
    const before = barCalls;
    const first = await service.bars(btc, '1h', start, now);
    expect(first.value.length).toBeGreaterThan(7_000);
    expect(service.cacheStats()).toMatchObject({ entries: 0, bytes: 0, oversized: 1 });
    await service.bars(btc, '1h', start, now);
    expect(barCalls - before).toBe(2);
  });
});
