import { describe, expect, it } from 'vitest';
import { ValidationError } from '../platform/errors.ts';
import { instrumentKey, parseInstrument, resolveInstrument, yahooSymbol } from './instruments.ts';

describe('parseInstrument', () => {
  it.each([
    ['AAPL', { symbol: 'AAPL', assetClass: 'equity', market: 'US' }],
    ['brk.b', { symbol: 'BRK.B', assetClass: 'equity', market: 'US' }],
    ['BRK-B', { symbol: 'BRK.B', assetClass: 'equity', market: 'US' }],
    ['VOD.L', { symbol: 'VOD', assetClass: 'equity', market: 'UK' }],
    ['sap.de', { symbol: 'SAP', assetClass: 'equity', market: 'DE' }],
    ['BTC/USDT', { symbol: 'BTC/USDT', assetClass: 'crypto', base: 'BTC', quote: 'USDT' }],
    ['btc-usd', { symbol: 'BTC/USD', assetClass: 'crypto', base: 'BTC', quote: 'USD' }],
    ['ETHUSDT', { symbol: 'ETH/USDT', assetClass: 'crypto', base: 'ETH', quote: 'USDT' }],
    ['EURUSD=X', { symbol: 'EUR/USD', assetClass: 'fx', base: 'EUR', quote: 'USD' }],
    ['eur/usd', { symbol: 'EUR/USD', assetClass: 'fx', base: 'EUR', quote: 'USD' }],
    ['^GSPC', { symbol: '^GSPC', assetClass: 'index' }],
    ['us10y', { symbol: 'US10Y', assetClass: 'macro' }],
  ])('reads %s', (input, expected) => {
    expect(parseInstrument(input)).toEqual(expected);
  });

  it('treats a bare coin as crypto only when told, with the given quote asset', () => {
    expect(parseInstrument('BTC')).toMatchObject({ assetClass: 'equity', symbol: 'BTC' });
    expect(parseInstrument('btc', { assetClass: 'crypto', quote: 'usdc' })).toEqual({
      symbol: 'BTC/USDC',
      assetClass: 'crypto',
      base: 'BTC',
      quote: 'USDC',
    });
  });

  it('honours a market argument and refuses a contradicting suffix', () => {
    expect(parseInstrument('7203', { market: 'jp' })).toEqual({
      symbol: '7203',
      assetClass: 'equity',
      market: 'JP',
    });
    expect(() => parseInstrument('VOD.L', { market: 'US' })).toThrow(/listed in UK, but market US was given/);
  });

  it.each([
    ['', 'symbol: must not be empty'],
    ['AAPL$', 'contains characters no symbol has'],
    ['A'.repeat(30), 'at most 24 characters'],
    ['BTC/', 'is not a BASE/QUOTE pair'],
    ['AAPL', 'unknown market "XX"', { market: 'XX' }],
    ['BTC/BTC', 'base and quote asset are both BTC'],
  ])('rejects %j with a message naming the field', (input, message, hint: { market?: string } = {}) => {
    let error: unknown;
    try {
      parseInstrument(input, hint);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain(message);
  });

  it('maps to Yahoo tickers and stable keys', () => {
    expect(yahooSymbol(parseInstrument('BRK.B'))).toBe('BRK-B');
    expect(yahooSymbol(parseInstrument('VOD.L'))).toBe('VOD.L');
    expect(yahooSymbol(parseInstrument('BTC/USDT'))).toBe('BTC-USD');
    expect(yahooSymbol(parseInstrument('EUR/USD'))).toBe('EURUSD=X');
    expect(instrumentKey(parseInstrument('aapl'))).toBe('equity:US:AAPL');
    expect(instrumentKey(parseInstrument('btc-usdt'))).toBe('crypto:BTC/USDT');
  });
});

describe('resolveInstrument', () => {
  it.each([
    ['BTC', 'BTC/USDT'],
    ['btc', 'BTC/USDT'],
    ['BTCUSDT', 'BTC/USDT'],
    ['BTC-USD', 'BTC/USD'],
    ['btc/usdt', 'BTC/USDT'],
    ['eth', 'ETH/USDT'],
  ])('reads the crypto form %j as %s, like search-by-coin', (written, symbol) => {
    expect(resolveInstrument(written)).toMatchObject({ symbol, assetClass: 'crypto' });
  });

  it('keeps listed tickers, stablecoins and explicit asset classes as written', () => {
    expect(resolveInstrument('AAPL')).toEqual({ symbol: 'AAPL', assetClass: 'equity', market: 'US' });
    expect(resolveInstrument('BTC', { assetClass: 'equity' })).toMatchObject({
      symbol: 'BTC',
      assetClass: 'equity',
    });
    expect(resolveInstrument('USDT')).toMatchObject({ symbol: 'USDT', assetClass: 'equity' });
    expect(resolveInstrument('BTC/USDT', { assetClass: 'equity' })).toMatchObject({ assetClass: 'crypto' });
    expect(resolveInstrument('SOL', { assetClass: 'crypto', quote: 'USDC' }).symbol).toBe('SOL/USDC');
    expect(resolveInstrument('VOD', { market: 'UK' })).toMatchObject({ symbol: 'VOD', market: 'UK' });
    expect(resolveInstrument('CPI')).toMatchObject({ assetClass: 'macro' });
    expect(resolveInstrument('VIX', { assetClass: 'equity' })).toMatchObject({ assetClass: 'macro' });
  });
});
