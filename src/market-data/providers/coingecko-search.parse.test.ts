import { describe, expect, it } from 'vitest';
import { parseCoinSearch } from './coingecko-search.parse.ts';
import { ProviderError } from './provider-errors.ts';

// The shape of CoinGecko's /search answer (no recording of it is kept).
const coin = (id: string, symbol: string, name: string, rank: number | null) => ({
  id,
  name,
  api_symbol: id,
  symbol,
  market_cap_rank: rank,
  thumb: `https://assets.coingecko.com/coins/images/1/thumb/${id}.png`,
  large: `https://assets.coingecko.com/coins/images/1/large/${id}.png`,
});

describe('coingecko search', () => {
  it('keeps the real coin of a known ticker, the first of any other, and writes them against USDT', () => {
    const body = {
      coins: [
        coin('bitcoin', 'BTC', 'Bitcoin', 1),
        coin('wrapped-bitcoin', 'WBTC', 'Wrapped Bitcoin', 20),
        coin('bitcoin-bep2', 'BTC', 'Bitcoin BEP2', null),
        coin('bitcoin-cash', 'BCH', 'Bitcoin Cash', 25),
        coin('tether', 'usdt', 'Tether', 3),
        coin('wbtc-clone', 'WBTC', 'Some Wrapped Bitcoin', null),
        coin('odd', 'B$T', 'Not a ticker', null),
      ],
      exchanges: [],
      icos: [],
      categories: [],
      nfts: [],
    };
    expect(parseCoinSearch(body).map((m) => [m.instrument.symbol, m.instrument.base, m.name])).toEqual([
      ['BTC/USDT', 'BTC', 'Bitcoin'],
      ['WBTC/USDT', 'WBTC', 'Wrapped Bitcoin'],
      ['BCH/USDT', 'BCH', 'Bitcoin Cash'],
      ['USDT/USD', 'USDT', 'Tether'],
    ]);
  });

  it('refuses an answer without coins', () => {
    expect(() => parseCoinSearch({ error: 'x' })).toThrow(ProviderError);
    expect(parseCoinSearch({ coins: [] })).toEqual([]);
  });
});
