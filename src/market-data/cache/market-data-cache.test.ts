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
    const cache = new MarketDataCache(() => 0, { maxEntries: 2 });
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

  it('stays under its byte bound with many distinct entries, evicting the least recently used', async () => {
    let now = 0;
    const cache = new MarketDataCache(() => now, { maxBytes: 10_000, sizeOf: () => 1_000 });
    for (let i = 0; i < 500; i++) {
      now++;
      await cache.getOrLoad(
        `key-${i}`,
        async () => i,
        () => 60_000,
      );
      expect(cache.stats().bytes).toBeLessThanOrEqual(10_000);
    }
    expect(cache.stats()).toMatchObject({ entries: expect.any(Number), misses: 500 });
    expect(cache.stats().entries).toBeLessThan(10);
    expect(
      (
        await cache.getOrLoad(
          'key-499',
          async () => -1,
          () => 60_000,
        )
      ).hit,
    ).toBe(true);
    expect(
      (
        await cache.getOrLoad(
          'key-0',
          async () => -1,
          () => 60_000,
        )
      ).value,
    ).toBe(-1);
  });

  it('serves an answer larger than the whole bound without keeping it', async () => {
    const cache = new MarketDataCache(() => 0, { maxBytes: 1_000 });
    const big = Array.from({ length: 100 }, (_, i) => ({ time: new Date(i), close: i }));
    const first = await cache.getOrLoad(
      'big',
      async () => big,
      () => 60_000,
    );
    expect(first.value).toBe(big);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0, oversized: 1 });
    expect(
      (
        await cache.getOrLoad(
          'big',
          async () => big,
          () => 60_000,
        )
      ).hit,
    ).toBe(false);
  });

  it('releases expired entries, not only the least recently used', async () => {
    let now = 0;
    const cache = new MarketDataCache(() => now, { sizeOf: () => 100 });
    await cache.getOrLoad(
      'short',
      async () => 1,
      () => 1_000,
    );
    await cache.getOrLoad(
      'long',
      async () => 2,
      () => 3_600_000,
    );
    now += 120_000;
    await cache.getOrLoad(
      'new',
      async () => 3,
      () => 3_600_000,
    );
    expect(cache.stats()).toMatchObject({ entries: 2, bytes: 2 * 100 + 2 * ('long'.length + 'new'.length) });
  });

  it('asks before an upstream load only, and a refusal shares nothing', async () => {
    const cache = new MarketDataCache(() => 0);
    let asked = 0;
    let release!: (v: number) => void;
    const slow = () => new Promise<number>((r) => (release = r));
    const options = { beforeLoad: () => void asked++ };
    const first = cache.getOrLoad('k', slow, () => 1_000, options);
    const joined = cache.getOrLoad('k', slow, () => 1_000, options);
    release(7);
    await Promise.all([first, joined]);
    await cache.getOrLoad('k', slow, () => 1_000, options);
    expect(asked).toBe(1);
    const refuse = {
      beforeLoad: () => {
        throw new Error('over budget');
      },
    };
    await expect(
      cache.getOrLoad(
        'other',
        async () => 1,
        () => 1_000,
        refuse,
      ),
    ).rejects.toThrow('over budget');
    expect(
      (
        await cache.getOrLoad(
          'other',
          async () => 2,
          () => 1_000,
        )
      ).value,
    ).toBe(2);
  });

  it('keeps a value obtained elsewhere for the rest of its lifetime, as a hit of its age', async () => {
    let now = 10_000;
    const cache = new MarketDataCache(() => now);
    let loads = 0;
    const load = async () => `loaded ${++loads}`;
    expect(cache.has('k')).toBe(false);
    cache.put('k', 'shared', 5_000, 1_500);
    expect(cache.has('k')).toBe(true);
    expect(await cache.getOrLoad('k', load, () => 5_000)).toEqual({
      value: 'shared',
      hit: true,
      ageMs: 1_500,
      ttlMs: 5_000,
    });
    now += 3_499;
    expect((await cache.getOrLoad('k', load, () => 5_000)).value).toBe('shared');
    now += 1;
    expect(cache.has('k')).toBe(false);
    expect(await cache.getOrLoad('k', load, () => 5_000)).toMatchObject({ value: 'loaded 1', hit: false });
    // Already past its lifetime: not kept.
    cache.put('old', 'shared', 5_000, 5_000);
    expect(cache.has('old')).toBe(false);
  });

  it('counts a load under way as present', async () => {
    const cache = new MarketDataCache(() => 0);
    let release!: (v: number) => void;
    const pending = cache.getOrLoad(
      'k',
      () => new Promise<number>((r) => (release = r)),
      () => 1_000,
    );
    expect(cache.has('k')).toBe(true);
    release(1);
    await pending;
    expect(cache.has('k')).toBe(true);
  });

  it('keeps what an expired entry said until a load replaces it, without counting a read', async () => {
    let now = 0;
    const cache = new MarketDataCache(() => now);
    expect(cache.lastKnown('k')).toBeUndefined();
    await cache.getOrLoad(
      'k',
      async () => 'first',
      () => 1_000,
    );
    now += 5_000;
    expect(cache.lastKnown('k')).toBe('first');
    // A reload that fails, or one under way, leaves it readable.
    await expect(
      cache.getOrLoad(
        'k',
        async () => Promise.reject(new Error('down')),
        () => 1_000,
      ),
    ).rejects.toThrow('down');
    expect(cache.lastKnown('k')).toBe('first');
    let finish: (value: string) => void = () => {};
    const reload = cache.getOrLoad(
      'k',
      () => new Promise<string>((resolve) => (finish = resolve)),
      () => 1_000,
    );
    expect(cache.lastKnown('k')).toBe('first');
    finish('second');
    await reload;
    expect(cache.lastKnown('k')).toBe('second');
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 3 });
  });
});
