import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config.ts';
import { parseInstrument } from '../../instruments.ts';
import { capableOf, resolve, roundSignificant, universeEntries } from './universe.ts';

describe('simulated universe', () => {
  it('holds the instruments the watchdogs and tools expect', () => {
    const symbols = new Set(universeEntries.map((e) => e.instrument.symbol));
    for (const s of ['SPY', 'QQQ', 'AAPL', 'MSFT', 'TSLA', 'NVDA', 'BRK.B', '^GSPC', '^NDX', '^DJI'])
      expect(symbols).toContain(s);
    for (const coin of ['BTC', 'ETH', 'SOL', 'USDT', 'USDC']) {
      for (const quote of ['USDT', 'USDC', 'USD'].filter((q) => q !== coin))
        expect(symbols).toContain(`${coin}/${quote}`);
    }
    for (const s of [
      'EUR/USD',
      'GBP/USD',
      'USD/JPY',
      'US10Y',
      'CPI',
      'VIX',
      'DXY',
      'UNEMPLOYMENT',
      'GDP',
      'FED_RATE',
    ]) {
      expect(symbols).toContain(s);
    }
    expect(universeEntries.filter((e) => e.instrument.market === 'US').length).toBeGreaterThanOrEqual(30);
    expect(
      new Set(universeEntries.map((e) => `${e.instrument.assetClass}:${e.instrument.symbol}`)).size,
    ).toBe(universeEntries.length);
    // The correlation watchdog's default pairs are all instruments of the simulated market.
    for (const [a, b] of parseConfig({}).watchdogs.correlationPairs) {
      expect(resolve(parseInstrument(a))).toBeDefined();
      expect(resolve(parseInstrument(b))).toBeDefined();
    }
  });

  it('resolves what users type, and nothing else', () => {
    expect(resolve(parseInstrument('spy'))?.instrument).toEqual({
      symbol: 'SPY',
      assetClass: 'etf',
      market: 'US',
    });
    expect(resolve(parseInstrument('BRK-B'))?.name).toBe('Berkshire Hathaway Inc.');
    expect(resolve({ symbol: 'AAPL', assetClass: 'equity' })).toBeDefined();
    expect(resolve(parseInstrument('AAPL', { market: 'UK' }))).toBeUndefined();
    expect(resolve(parseInstrument('btc-usd'))?.instrument.symbol).toBe('BTC/USD');
    expect(resolve(parseInstrument('EURUSD=X'))?.currency).toBe('USD');
    expect(resolve(parseInstrument('ZZZZ'))).toBeUndefined();
    expect(resolve(parseInstrument('NOPE/USDT', { assetClass: 'crypto' }))).toBeUndefined();
    expect(resolve({ symbol: 'BTC', assetClass: 'equity' })).toBeUndefined();
  });

  it('offers each capability only where it makes sense', () => {
    const can = (capability: Parameters<typeof capableOf>[0], symbol: string) =>
      capableOf(
        capability,
        resolve(parseInstrument(symbol, symbol.includes('/') ? { assetClass: 'crypto' } : {}))!,
      );
    expect(can('earnings', 'AAPL')).toBe(true);
    expect(can('earnings', 'SPY')).toBe(false);
    expect(can('profile', 'SPY')).toBe(true);
    expect(can('profile', 'BTC/USDT')).toBe(true);
    expect(can('profile', '^GSPC')).toBe(false);
    expect(can('orderBook', 'BTC/USDT')).toBe(true);
    expect(can('orderBook', 'AAPL')).toBe(false);
    expect(can('funding', 'ETH/USDC')).toBe(true);
    expect(can('funding', 'USDC/USDT')).toBe(false);
    expect(can('stream', 'VIX')).toBe(true);
    expect(can('stream', 'CPI')).toBe(false);
    expect(can('bars', 'GDP')).toBe(true);
  });

  it('rounds crypto prices to six significant digits, monotonically', () => {
    expect(roundSignificant(95_123.456)).toBe(95_123.5);
    expect(roundSignificant(0.000123456789)).toBe(0.000123457);
    let previous = 0;
    for (let x = 0.9999; x < 1.0001; x += 0.0000013) {
      const r = roundSignificant(x);
      expect(r).toBeGreaterThanOrEqual(previous);
      previous = r;
    }
  });
});
