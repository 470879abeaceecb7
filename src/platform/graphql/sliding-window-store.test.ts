import { getGraphQLRateLimiter } from '@envelop/rate-limiter/get-graphql-rate-limiter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SlidingWindowStore } from './sliding-window-store.ts';

describe('SlidingWindowStore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  const id = { contextIdentity: 'ip:1.2.3.4', fieldIdentity: 'serverInfo' };
  const client = id.contextIdentity;

  it('says when the oldest call that blocks the next one leaves the window', () => {
    const store = new SlidingWindowStore();
    const t0 = Date.now();
    store.setForIdentity(id, [t0 - 50_000, t0 - 20_000, t0 - 10_000], 60_000);
    // max 3 in 60 s: the call at t0-50s frees a slot at t0+10s.
    expect(store.retryAfterSeconds(id, 3, 60_000)).toBe(10);
    // max 2: the call at t0-20s must also have left, at t0+40s.
    expect(store.retryAfterSeconds(id, 2, 60_000)).toBe(40);
  });

  it('never answers less than one second', () => {
    const store = new SlidingWindowStore();
    store.setForIdentity(id, [Date.now() - 59_999], 60_000);
    expect(store.retryAfterSeconds(id, 1, 60_000)).toBe(1);
  });

  it('forgets clients whose calls have all left the window', () => {
    const store = new SlidingWindowStore();
    const other = { contextIdentity: 'ip:5.6.7.8', fieldIdentity: 'serverInfo' };
    store.setForIdentity(id, [Date.now()], 1_000);
    vi.advanceTimersByTime(5_000);
    store.setForIdentity(other, [Date.now()], 1_000);
    expect(store.getForIdentity(id)).toEqual([]);
    expect(store.getForIdentity(other)).toHaveLength(1);

    // Counting sweeps too: the other client is gone one window later.
    vi.advanceTimersByTime(5_000);
    expect(store.charge(client, ['serverInfo'], 5, 1_000, Date.now())).toBe(-1);
    expect(store.getForIdentity(other)).toEqual([]);
    expect(store.getForIdentity(id)).toEqual([Date.now()]);
  });

  it('counts each entry of an operation, and none of them when one is over the limit', () => {
    const store = new SlidingWindowStore();
    const t0 = Date.now();
    const quote = { contextIdentity: client, fieldIdentity: 'quote' };
    expect(store.charge(client, ['serverInfo', 'quote', 'serverInfo'], 3, 60_000, t0)).toBe(-1);
    expect(store.getForIdentity(id)).toEqual([t0, t0]);
    expect(store.getForIdentity(quote)).toEqual([t0]);
    // The second serverInfo would be a fourth call: refused, and the quote and first serverInfo
    // this operation counted are taken back.
    expect(store.charge(client, ['quote', 'serverInfo', 'serverInfo'], 3, 60_000, t0 + 1)).toBe(2);
    expect(store.getForIdentity(id)).toEqual([t0, t0]);
    expect(store.getForIdentity(quote)).toEqual([t0]);
    // Once the first calls leave the window, the same operation fits.
    expect(store.charge(client, ['quote', 'serverInfo', 'serverInfo'], 3, 60_000, t0 + 60_000)).toBe(-1);
    expect(store.getForIdentity(id)).toEqual([t0 + 60_000, t0 + 60_000]);
  });

  it('gives back exactly the calls one operation counted, even after others were counted', () => {
    const store = new SlidingWindowStore();
    const t0 = Date.now();
    store.setForIdentity(id, [t0 - 1_000], 60_000);
    store.charge(client, ['serverInfo', 'serverInfo'], 10, 60_000, t0);
    // Another operation of the same client counts a call meanwhile.
    store.charge(client, ['serverInfo'], 10, 60_000, t0 + 5);
    store.refund(client, ['serverInfo', 'serverInfo'], t0);
    expect(store.getForIdentity(id)).toEqual([t0 - 1_000, t0 + 5]);
    // A refund for calls that have left the window (or a forgotten client) gives back nothing.
    store.refund(client, ['serverInfo'], t0 - 1);
    store.refund('ip:9.9.9.9', ['serverInfo'], t0);
    expect(store.getForIdentity(id)).toEqual([t0 - 1_000, t0 + 5]);
  });

  it('decides as a plain list of timestamps would, across growth and wrap-around', () => {
    const store = new SlidingWindowStore();
    const windowMs = 1_000;
    const max = 37;
    const reference: number[] = [];
    let now = Date.now();
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let step = 0; step < 5_000; step++) {
      now += Math.floor(random() * 60);
      const live = reference.filter((t) => t + windowMs > now);
      const allowed = live.length < max;
      expect(store.charge(client, ['serverInfo'], max, windowMs, now)).toBe(allowed ? -1 : 0);
      reference.length = 0;
      reference.push(...live);
      if (allowed) reference.push(now);
      if (allowed && random() < 0.1) {
        store.refund(client, ['serverInfo'], now);
        reference.pop();
      }
    }
    const held = store.getForIdentity(id).filter((t) => t + windowMs > now);
    expect(held).toEqual(reference);
    expect(reference.length).toBeGreaterThan(max / 2);
  });

  it("serves @envelop/rate-limiter's own limiter under the same keys", async () => {
    const store = new SlidingWindowStore();
    const limiter = getGraphQLRateLimiter({ identifyContext: () => client, store });
    const call = () =>
      limiter('serverInfo', { args: {}, context: {} }, { max: 2, window: '60s', uncountRejected: true });
    expect(await call()).toBeUndefined();
    expect(await call()).toBeUndefined();
    expect(await call()).toMatch(/serverInfo/);
    expect(store.getForIdentity(id)).toHaveLength(2);
    expect(store.charge(client, ['serverInfo'], 2, 60_000, Date.now())).toBe(0);
  });
});
