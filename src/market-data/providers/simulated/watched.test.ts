import { describe, expect, it } from 'vitest';
import { Rand, stream } from './rng.ts';
import { rotation, watchedAssets } from './watched.ts';

const rand = Rand.fromSeed('watched');

describe('watched assets', () => {
  it('reads coins, listings and shares the way the watchdogs read symbols, in universe order', () => {
    const assets = watchedAssets([
      'LINK/USDT',
      'btc/usdc',
      'BTC/USDT', // the same coin again
      'eth', // a bare coin reads as ETH/USDT
      'USDC/USDT', // a stablecoin: no funding, no episodes
      'SPY', // an ETF: a listing, no earnings
      'MSFT',
      '^GSPC', // an index: no volume of its own
      'EUR/USD',
      'ZZZZ', // not listed
      'not a symbol!',
    ]);
    expect(assets).toEqual({
      coins: ['BTC', 'ETH', 'LINK'],
      listed: ['MSFT', 'SPY'],
      equities: ['MSFT'],
    });
    expect(watchedAssets([])).toEqual({ coins: [], listed: [], equities: [] });
  });
});

describe('rotation', () => {
  const items = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J'];

  it('is a seeded permutation of the items when they fill the minimum', () => {
    const order = rotation(rand, stream('test'), items, 4);
    expect([...order].sort()).toEqual(items);
    expect(rotation(rand, stream('test'), items, 4)).toEqual(order);
    expect(rotation(Rand.fromSeed('other'), stream('test'), items, 4)).not.toEqual(order);
  });

  it('spreads empty slots between few items', () => {
    expect(rotation(rand, stream('test'), ['A'], 8)).toEqual(['A', ...new Array(7).fill(undefined)]);
    const order = rotation(rand, stream('test'), ['A', 'B', 'C', 'D', 'E', 'F'], 8);
    expect(order).toHaveLength(8);
    expect(order.filter((x) => x !== undefined).sort()).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    // No two empty slots side by side (cyclically): the gaps between items stay as short as they can.
    for (let i = 0; i < order.length; i++) {
      expect(order[i] === undefined && order[(i + 1) % order.length] === undefined).toBe(false);
    }
  });
});
