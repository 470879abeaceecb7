import { describe, expect, it } from 'vitest';
import { watchedPriceResources } from './market-data.mcp.ts';

describe('watchedPriceResources', () => {
  it('names one price resource per watched instrument, in order, as configured, each once', () => {
    const listed = watchedPriceResources([
      'AAPL',
      'btc/usdt',
      'VOD.L',
      'aapl',
      'BTC/USDT',
      'EURUSD=X',
      '$$',
      '^GSPC',
    ]);
    expect(listed.map((r) => r.uri)).toEqual([
      'vigil://prices/AAPL',
      'vigil://prices/BTC%2FUSDT',
      // The London listing keeps its suffix: its canonical symbol (VOD) would name the US one.
      'vigil://prices/VOD.L',
      'vigil://prices/EURUSD%3DX',
      'vigil://prices/%5EGSPC',
    ]);
    expect(listed[1]).toEqual({
      uri: 'vigil://prices/BTC%2FUSDT',
      name: 'price:BTC/USDT',
      title: 'Latest price of BTC/USDT',
      description: 'The latest arbitrated price of BTC/USDT, a symbol the watchdogs watch.',
    });
  });
});
