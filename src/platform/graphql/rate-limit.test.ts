import { parse } from 'graphql';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { operationToRun, SlidingWindowStore } from './rate-limit.ts';

describe('SlidingWindowStore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  const id = { contextIdentity: 'ip:1.2.3.4', fieldIdentity: 'serverInfo' };

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
  });

  it('gives back exactly the calls one operation recorded, even after others were counted', () => {
    const store = new SlidingWindowStore();
    const t0 = Date.now();
    store.setForIdentity(id, [t0 - 1_000], 60_000);
    const receipt = store.record(() => store.setForIdentity(id, [t0 - 1_000, t0, t0], 60_000));
    // Another operation of the same client counts a call meanwhile.
    store.setForIdentity(id, [t0 - 1_000, t0, t0, t0], 60_000);
    store.refund(receipt);
    expect(store.getForIdentity(id)).toEqual([t0 - 1_000, t0]);
  });

  it('gives the calls back at once when counting throws', () => {
    const store = new SlidingWindowStore();
    const refused = new Error('over the limit');
    expect(() =>
      store.record(() => {
        store.setForIdentity(id, [Date.now()], 60_000);
        throw refused;
      }),
    ).toThrow(refused);
    expect(store.getForIdentity(id)).toEqual([]);
  });
});

describe('operationToRun', () => {
  const doc = parse(
    'query A { serverInfo { version } } query B($s: String!) { quote(symbol: $s) { id } } fragment F on Query { __typename }',
  );

  it('keeps the operation that runs and the fragments, and the same object for the same choice', () => {
    const pruned = operationToRun(doc, 'B');
    expect(pruned.definitions.map((d) => (d as { name?: { value: string } }).name?.value)).toEqual([
      'B',
      'F',
    ]);
    expect(operationToRun(doc, 'B')).toBe(pruned);
  });

  it('leaves single-operation documents and unclear choices alone', () => {
    const single = parse('{ serverInfo { version } }');
    expect(operationToRun(single, undefined)).toBe(single);
    expect(operationToRun(doc, undefined)).toBe(doc);
  });
});
