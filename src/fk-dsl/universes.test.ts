import { describe, expect, it } from 'vitest';
import type { UniverseEntry } from '../market-data/providers/provider.ts';
import { FkDslQueryError } from './errors.ts';
import { SCAN_UNIVERSES, scanUniverse } from './universes.ts';

const SETTINGS = { US: ['AAPL', 'SPY'], CRYPTO: ['BTC/USDT', 'ETH/USDT'] };
const entry = (instrument: UniverseEntry['instrument']): UniverseEntry => ({
  instrument,
  name: instrument.symbol,
  exchange: null,
  sector: null,
});
const LISTED: UniverseEntry[] = [
  entry({ symbol: 'MSFT', assetClass: 'equity', market: 'US' }),
  entry({ symbol: 'VOD', assetClass: 'equity', market: 'UK' }),
  entry({ symbol: 'QQQ', assetClass: 'etf', market: 'US' }),
  entry({ symbol: 'SOL/USDT', assetClass: 'crypto', base: 'SOL', quote: 'USDT' }),
  entry({ symbol: 'SOL/BTC', assetClass: 'crypto', base: 'SOL', quote: 'BTC' }),
];
const symbols = (u: { instruments: readonly { symbol: string }[] }) => u.instruments.map((i) => i.symbol);

describe('SCAN universes', () => {
  it('come from the settings when no provider lists instruments', () => {
    const us = scanUniverse('us', [], SETTINGS, 250);
    expect(us).toMatchObject({ name: 'US', source: 'configuration' });
    expect(symbols(us)).toEqual(['AAPL', 'SPY']);
    expect(symbols(scanUniverse('CRYPTO', [], SETTINGS, 250))).toEqual(['BTC/USDT', 'ETH/USDT']);
    expect(symbols(scanUniverse('ETF', [], SETTINGS, 250))).toEqual([]);
    expect(symbols(scanUniverse('ALL', [], SETTINGS, 3))).toEqual(['AAPL', 'SPY', 'BTC/USDT']);
  });

  it("come from a provider's own list when there is one: US listings, ETFs, one USDT pair per coin", () => {
    expect(scanUniverse('US', LISTED, SETTINGS, 250)).toMatchObject({ source: 'providers' });
    expect(symbols(scanUniverse('US', LISTED, SETTINGS, 250))).toEqual(['MSFT', 'QQQ']);
    expect(symbols(scanUniverse('ETF', LISTED, SETTINGS, 250))).toEqual(['QQQ']);
    expect(symbols(scanUniverse('CRYPTO', LISTED, SETTINGS, 250))).toEqual(['SOL/USDT']);
    expect(scanUniverse('ALL', LISTED, SETTINGS, 250).source).toBe('providers');
  });

  it('names every universe it accepts, and refuses another naming it', () => {
    for (const name of SCAN_UNIVERSES) expect(scanUniverse(name, [], SETTINGS, 250).name).toBe(name);
    expect(() => scanUniverse('EU', [], SETTINGS, 250)).toThrow(FkDslQueryError);
    expect(() => scanUniverse('EU', [], SETTINGS, 250)).toThrow(/unknown universe EU/);
  });
});
