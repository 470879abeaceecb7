import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../platform/errors.ts';
import { parseInstrument } from '../instruments.ts';
import type { UniverseEntry } from '../providers/provider.ts';
import {
  checkSearchLimit,
  instrumentFromTicker,
  MAX_QUERY_LENGTH,
  matchScore,
  mergeMatches,
  normaliseQuery,
  searchUniverse,
} from './instrument-search.ts';

const entry = (symbol: string, name: string, hint?: { assetClass?: 'crypto' }): UniverseEntry => ({
  instrument: parseInstrument(symbol, hint),
  name,
  exchange: null,
  sector: null,
});

const UNIVERSE = [
  entry('AAPL', 'Apple Inc.'),
  entry('MSFT', 'Microsoft Corporation'),
  entry('AMZN', 'Amazon.com Inc.'),
  entry('AA', 'Alcoa Corporation'),
  entry('BTC/USDT', 'Bitcoin / USDT'),
  entry('BTC/USD', 'Bitcoin / USD'),
  entry('PINE', 'Pineapple Holdings'),
];

describe('instrument search', () => {
  it('finds a company by name and a ticker by its prefix', () => {
    expect(searchUniverse(UNIVERSE, 'apple', 10).map((m) => m.instrument.symbol)).toEqual(['AAPL', 'PINE']);
    expect(searchUniverse(UNIVERSE, 'aap', 10)[0]?.instrument.symbol).toBe('AAPL');
    expect(searchUniverse(UNIVERSE, 'corp', 10).map((m) => m.instrument.symbol)).toEqual(['MSFT', 'AA']);
  });

  it('ranks the exact symbol first, then shorter symbol prefixes', () => {
    expect(searchUniverse(UNIVERSE, 'aa', 10).map((m) => m.instrument.symbol)).toEqual(['AA', 'AAPL']);
    expect(matchScore('AAPL', parseInstrument('AAPL'), 'Apple Inc.')).toBe(100);
    expect(matchScore('zzz', parseInstrument('AAPL'), 'Apple Inc.')).toBe(0);
  });

  it('finds crypto pairs by coin, joined pair and name, in universe order', () => {
    expect(searchUniverse(UNIVERSE, 'btc', 10).map((m) => m.instrument.symbol)).toEqual([
      'BTC/USDT',
      'BTC/USD',
    ]);
    expect(searchUniverse(UNIVERSE, 'btcusdt', 10).map((m) => m.instrument.symbol)).toEqual(['BTC/USDT']);
    expect(searchUniverse(UNIVERSE, 'bitcoin', 1)).toHaveLength(1);
  });

  it('merges the matches of several providers: first name wins, each instrument once, quotable only', () => {
    const match = (symbol: string, name: string) => ({
      instrument: parseInstrument(symbol),
      name,
      exchange: null,
    });
    const merged = mergeMatches(
      [
        [match('AAPL', 'Apple Inc.'), match('APLE', 'Apple Hospitality')],
        [match('aapl', 'APPLE INC'), match('ZZZZ', 'Nobody quotes it'), match('PINE', 'Pineapple')],
      ],
      (i) => i.symbol !== 'ZZZZ',
      10,
    );
    expect(merged.map((m) => [m.instrument.symbol, m.name])).toEqual([
      ['AAPL', 'Apple Inc.'],
      ['APLE', 'Apple Hospitality'],
      ['PINE', 'Pineapple'],
    ]);
    expect(mergeMatches([[match('AAPL', 'A'), match('MSFT', 'M')]], () => true, 1)).toHaveLength(1);
  });

  it('validates the query and the number of results', () => {
    expect(normaliseQuery('  apple   inc ')).toBe('apple inc');
    expect(() => normaliseQuery('  ')).toThrow(ValidationError);
    expect(() => normaliseQuery('x'.repeat(MAX_QUERY_LENGTH + 1))).toThrow(/query: must be at most/);
    expect(checkSearchLimit(10)).toBe(10);
    expect(() => checkSearchLimit(0)).toThrow(/first: must be between 1 and 50, got 0/);
    expect(() => checkSearchLimit(51)).toThrow(ValidationError);
  });

  it('writes provider tickers in Vigil notation and skips what it cannot write', () => {
    expect(instrumentFromTicker('VOD.L', 'equity')).toEqual({
      symbol: 'VOD',
      assetClass: 'equity',
      market: 'UK',
    });
    expect(instrumentFromTicker('BRK-B', 'equity')?.symbol).toBe('BRK.B');
    expect(instrumentFromTicker('SPY', 'etf')).toMatchObject({ symbol: 'SPY', assetClass: 'etf' });
    expect(instrumentFromTicker('BTC-USD', 'crypto')?.symbol).toBe('BTC/USD');
    expect(instrumentFromTicker('EURUSD=X', 'fx')?.symbol).toBe('EUR/USD');
    expect(instrumentFromTicker('^GSPC', 'index')?.symbol).toBe('^GSPC');
    expect(instrumentFromTicker('AAPL.SN', 'equity')).toBeUndefined();
    expect(instrumentFromTicker('AAPL260918C00200000', 'equity')).toBeUndefined();
  });
});
