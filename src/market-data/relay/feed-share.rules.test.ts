import { describe, expect, it } from 'vitest';
import { fairShare, feedsToTake, feedToHandOver } from './feed-share.rules.ts';

const unowned = (n: number, forMs = 0) =>
  Array.from({ length: n }, (_, i) => ({ key: `k${i}`, unownedForMs: forMs }));

describe('feedsToTake', () => {
  it('takes no more than its fair share of new feeds', () => {
    expect(fairShare(50, 3)).toBe(17);
    const base = { instance: 'a', owned: 0, wanted: 50, liveInstances: 3, graceMs: 1_000 };
    expect(feedsToTake({ ...base, unowned: unowned(50) })).toHaveLength(17);
    expect(feedsToTake({ ...base, owned: 17, unowned: unowned(33) })).toEqual([]);
  });

  it('takes a feed left unowned past the grace period whatever its share', () => {
    const taken = feedsToTake({
      instance: 'a',
      owned: 17,
      wanted: 50,
      liveInstances: 3,
      graceMs: 1_000,
      unowned: unowned(3, 1_500),
    });
    expect(taken).toEqual(['k0', 'k1', 'k2']);
  });

  it('spreads: instances racing for the same feeds prefer different ones', () => {
    const base = { owned: 0, wanted: 10, liveInstances: 2, graceMs: 1_000, unowned: unowned(10) };
    const a = new Set(feedsToTake({ ...base, instance: 'a' }));
    const b = new Set(feedsToTake({ ...base, instance: 'b' }));
    expect(a.size).toBe(5);
    expect([...a].filter((k) => b.has(k)).length).toBeLessThan(5);
  });

  it('a lone instance takes everything it wants', () => {
    expect(
      feedsToTake({
        instance: 'a',
        owned: 0,
        wanted: 4,
        liveInstances: 1,
        graceMs: 1_000,
        unowned: unowned(4),
      }),
    ).toHaveLength(4);
  });
});

describe('feedToHandOver', () => {
  it('hands one feed over when over its share, only one another instance wants', () => {
    const base = { instance: 'a', wanted: 50, liveInstances: 3 };
    expect(feedToHandOver({ ...base, owned: 50, sharedOwned: ['k1', 'k2'] })).toMatch(/^k[12]$/);
    expect(feedToHandOver({ ...base, owned: 50, sharedOwned: [] })).toBeUndefined();
    expect(feedToHandOver({ ...base, owned: 17, sharedOwned: ['k1'] })).toBeUndefined();
  });
});
