import { describe, expect, it } from 'vitest';
import { createFakeProvider } from '../../test/support/fake-provider.ts';
import { systemClock } from '../platform/clock.ts';
import { createLogger } from '../platform/observability/logger.ts';
import { parseInstrument } from './instruments.ts';
import {
  MARKET_DATA_ERRORS,
  MarketDataUnavailableError,
  NotSupportedError,
  UnknownSymbolError,
} from './market-data.errors.ts';
import { MarketDataService } from './market-data.service.ts';
import { ProviderError } from './providers/provider-errors.ts';

const logger = createLogger('silent');
const aapl = parseInstrument('AAPL');

function service(...providers: ReturnType<typeof createFakeProvider>[]) {
  return new MarketDataService(providers, systemClock, logger, { timeoutMs: 500 });
}

describe('MarketDataService', () => {
  it('cross-checks a quote with two providers and says who agreed', async () => {
    const a = createFakeProvider('alpha');
    const b = createFakeProvider('beta');
    a.prices.set('AAPL', 200);
    b.prices.set('AAPL', 200.5);
    const { value, lineage } = await service(a, b).quote(aapl);
    expect([200, 200.5]).toContain(value.price);
    expect(lineage).toMatchObject({
      asked: ['alpha', 'beta'],
      agreement: 1,
      conflictResolved: false,
      simulated: false,
    });
    expect([...lineage.used].sort()).toEqual(['alpha', 'beta']);
    expect(lineage.cache.hit).toBe(false);
  });

  it('sets an outlier aside and names it in the lineage', async () => {
    const a = createFakeProvider('alpha');
    const b = createFakeProvider('beta');
    const c = createFakeProvider('gamma');
    for (const p of [a, b]) p.prices.set('AAPL', 200);
    c.prices.set('AAPL', 150);
    const svc = new MarketDataService([a, b, c], systemClock, logger, { fanout: 3 });
    const { value, lineage } = await svc.quote(aapl);
    expect(value.price).toBe(200);
    expect(lineage.rejected).toEqual([
      { provider: 'gamma', reason: expect.stringContaining('outlier: 150') },
    ]);
    expect(lineage.conflictResolved).toBe(true);
  });

  it('falls back to the next provider when the first fails, recording why', async () => {
    const a = createFakeProvider('alpha');
    const b = createFakeProvider('beta');
    a.fail(new ProviderError('alpha', 'upstream', 'upstream error (503)'));
    b.prices.set('AAPL', 201);
    const svc = new MarketDataService([a, b], systemClock, logger, { fanout: 1 });
    const { value, lineage } = await svc.quote(aapl);
    expect(value.price).toBe(201);
    expect(lineage).toMatchObject({ asked: ['alpha', 'beta'], used: ['beta'] });
    expect(lineage.rejected[0]).toMatchObject({
      provider: 'alpha',
      reason: expect.stringContaining('upstream'),
    });
    // The failure counts against alpha's health: next time beta is asked first.
    expect(svc.health().find((h) => h.provider === 'alpha')).toMatchObject({ failures: 1 });
  });

  it('answers with an error, never a value, when every provider fails', async () => {
    const a = createFakeProvider('alpha');
    a.fail(new ProviderError('alpha', 'rate_limited', 'rate limited (429)', { retryAfterMs: 30_000 }));
    const error = await service(a)
      .quote(aapl)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketDataUnavailableError);
    expect((error as MarketDataUnavailableError).code).toBe('MARKET_DATA_UNAVAILABLE');
    expect(MARKET_DATA_ERRORS.MARKET_DATA_UNAVAILABLE.status).toBe(503);
    expect((error as MarketDataUnavailableError).details).toMatchObject({
      symbol: 'AAPL',
      retryAfterSeconds: 30,
      attempts: [{ provider: 'alpha', kind: 'rate_limited' }],
    });
  });

  it('says a symbol is unknown when every provider says so', async () => {
    const a = createFakeProvider('alpha');
    const b = createFakeProvider('beta');
    const error = await service(a, b)
      .quote(parseInstrument('ZZZZ'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownSymbolError);
    expect((error as UnknownSymbolError).message).toBe(
      'unknown symbol ZZZZ: no provider knows it (alpha: does not know it; beta: does not know it)',
    );
  });

  it('refuses data no provider offers instead of asking one that cannot answer', async () => {
    const a = createFakeProvider('alpha', { capabilities: ['quote'] });
    await expect(service(a).venues.orderBook(parseInstrument('BTC/USDT'), 10)).rejects.toThrow(
      NotSupportedError,
    );
    await expect(service(a).venues.orderBook(parseInstrument('BTC/USDT'), 10)).rejects.toThrow(
      'no configured provider offers order books for BTC/USDT (providers: alpha)',
    );
  });

  it('serves repeats from the cache and shares one upstream call between concurrent requests', async () => {
    const a = createFakeProvider('alpha', { delayMs: 30 });
    a.prices.set('AAPL', 200);
    const svc = service(a);
    const [first, second] = await Promise.all([svc.quote(aapl), svc.quote(aapl)]);
    expect(a.calls.quote).toBe(1);
    expect([first.lineage.cache.hit, second.lineage.cache.hit].sort()).toEqual([false, true]);
    const third = await svc.quote(aapl);
    expect(third.lineage.cache.hit).toBe(true);
    expect(a.calls.quote).toBe(1);
  });

  it('asks only the preferred venue when it can answer', async () => {
    const a = createFakeProvider('alpha');
    const binance = createFakeProvider('binance');
    a.prices.set('BTC/USDT', 50_000);
    binance.prices.set('BTC/USDT', 50_010);
    const svc = service(a, binance);
    const { value, lineage } = await svc.quote(parseInstrument('BTC/USDT'), 'binance');
    expect(value.price).toBe(50_010);
    expect(lineage.asked).toEqual(['binance']);
    expect(svc.offers('binance', 'quote', parseInstrument('BTC/USDT'))).toBe(true);
    expect(svc.offers('kraken', 'quote', parseInstrument('BTC/USDT'))).toBe(false);
  });

  it('marks values of a provider that is not live as simulated', async () => {
    const sim = createFakeProvider('simulated', { live: false });
    sim.prices.set('AAPL', 200);
    expect((await service(sim).quote(aapl)).lineage.simulated).toBe(true);
  });

  it('hands out the live stream of a provider able to stream the instrument, none when no provider can', () => {
    const quotesOnly = createFakeProvider('alpha');
    const streamer = createFakeProvider('beta', {
      capabilities: ['quote', 'stream'],
      assetClasses: ['crypto'],
    });
    const svc = service(quotesOnly, streamer);
    expect(svc.liveStream(aapl)).toBeUndefined();
    const stream = svc.liveStream(parseInstrument('BTC/USDT'));
    expect(stream).toMatchObject({ provider: 'beta', live: true });
    const ticks: number[] = [];
    const errors: string[] = [];
    const stop = stream!.open({
      onTick: (tick) => ticks.push(tick.price),
      onError: (error) => errors.push(error.message),
    });
    expect(streamer.calls.streamsOpened).toBe(1);
    streamer.emit('BTC/USDT', 50_000);
    for (const sub of streamer.streams.get('BTC/USDT') ?? []) sub.onError(new Error('stream lost'));
    expect(ticks).toEqual([50_000]);
    expect(errors).toEqual(['stream lost']);
    stop();
    expect(streamer.calls.streamsClosed).toBe(1);
  });
});
