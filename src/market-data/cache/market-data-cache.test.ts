import { describe, expect, it } from 'vitest';
import { MarketDataCache } from './market-data-cache.ts';

describe('MarketDataCache', () => {
  it('serves a fresh entry from the cache, reporting the hit and its age', async () => {
    let now = 1_000;
    const cache = new MarketDataCache(() => now);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.getOrLoad('k', load, () => 5_000)).toEqual({
      value: 1,
      hit: false,
      ageMs: 0,
      ttlMs: 5_000,
    });
    now += 2_000;
    expect(await cache.getOrLoad('k', load, () => 5_000)).toEqual({
      value: 1,
      hit: true,
      ageMs: 2_000,
      ttlMs: 5_000,
    });
    now += 3_000;
    expect(await cache.getOrLoad('k', load, () => 5_000)).toMatchObject({ value: 2, hit: false });
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 2 });
  });

  it('shares one upstream call between concurrent identical requests', async () => {
    const cache = new MarketDataCache(() => 0);
    let loads = 0;
    let release!: (v: string) => void;
    const load = () => {
      loads++;
      return new Promise<string>((r) => {
        release = r;
      });
    };
    const first = cache.getOrLoad('q', load, () => 1000);
    const second = cache.getOrLoad('q', load, () => 1000);
    release('price');
    expect(await first).toMatchObject({ value: 'price', hit: false });
    expect(await second).toMatchObject({ value: 'price', hit: true });
    expect(loads).toBe(1);
  });

  it('does not cache failures, and lets the next request try again', async () => {
    const cache = new MarketDataCache(() => 0);
    await expect(
      cache.getOrLoad(
        'x',
        () => Promise.reject(new Error('upstream down')),
        () => 1000,
      ),
    ).rejects.toThrow('upstream down');
    expect(
      await cache.getOrLoad(
        'x',
        async () => 'ok',
        () => 1000,
      ),
    ).toMatchObject({ value: 'ok', hit: false });
  });

  it('evicts the least recently used entry when full', async () => {
    const cache = new MarketDataCache(() => 0, 2);
    await cache.getOrLoad(
      'a',
      async () => 1,
      () => 1000,
    );
    await cache.getOrLoad(
      'b',
      async () => 2,
      () => 1000,
    );
    await cache.getOrLoad(
      'a',
      async () => 99,
      () => 1000,
    ); // touch a
    await cache.getOrLoad(
      'c',
      async () => 3,
      () => 1000,
    ); // evicts b
    expect(
      (
        await cache.getOrLoad(
          'a',
          async () => 99,
          () => 1000,
        )
      ).hit,
    ).toBe(true);
    expect(
      (
        await cache.getOrLoad(
          'b',
          async () => 22,
          () => 1000,
        )
      ).value,
    ).toBe(22);
  });
});
