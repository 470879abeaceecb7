import { describe, expect, it } from 'vitest';
import type { WatchdogEventListener } from './event-bus.ts';
import { ANY_EVENT } from './event-filter.ts';
import { eventIterator } from './event-iterator.ts';
import { ReplayOverlap, replayQuery } from './event-replay.ts';
import type { WatchdogEvent } from './events.repository.ts';

const event = (id: string): WatchdogEvent => ({
  id,
  watchdog: 'price_anomaly',
  eventType: 'price_anomaly',
  severity: 'high',
  symbol: 'AAPL',
  asset: { symbol: 'AAPL', assetType: 'equity' },
  description: 'moved',
  data: {},
  occurredAt: new Date(0),
  createdAt: new Date(0),
});

function feed() {
  const state: { listener?: WatchdogEventListener; stopped: number } = { stopped: 0 };
  const subscribe = (listener: WatchdogEventListener) => {
    state.listener = listener;
    return () => {
      state.stopped++;
    };
  };
  return { state, subscribe };
}

describe('eventIterator', () => {
  it('yields events in order, waiting for the next one', async () => {
    const { state, subscribe } = feed();
    const it = eventIterator(subscribe);
    const first = it.next();
    state.listener!(event('a'));
    state.listener!(event('b'));
    expect((await first).value?.id).toBe('a');
    expect((await it.next()).value?.id).toBe('b');
  });

  it('keeps at most maxQueued events for a slow reader, dropping the oldest', async () => {
    const { state, subscribe } = feed();
    const it = eventIterator(subscribe, 2);
    for (const id of ['a', 'b', 'c']) state.listener!(event(id));
    expect((await it.next()).value?.id).toBe('b');
    expect((await it.next()).value?.id).toBe('c');
  });

  it('stops the feed once when the reader returns, ending a pending next', async () => {
    const { state, subscribe } = feed();
    const it = eventIterator(subscribe);
    const pending = it.next();
    await it.return!();
    await it.return!();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(state.stopped).toBe(1);
    state.listener!(event('late'));
    expect((await it.next()).done).toBe(true);
  });

  it('offers events to a consumer unless the reader holds one; a declined one and every event after it go to the reader, in order', async () => {
    const { state, subscribe } = feed();
    const it = eventIterator(subscribe);
    const pushed: string[] = [];
    let accept: boolean | 'throw' = true;
    // Queued before a consumer came, nothing read yet: offered as it attaches, up to the first declined.
    state.listener!(event('a'));
    state.listener!(event('b'));
    const batches: string[][] = [];
    it.offerTo(
      (e) => {
        if (accept === 'throw') throw new Error('consumer failed');
        if (accept) pushed.push(e.id);
        return accept;
      },
      (offerAll) => {
        const before = pushed.length;
        offerAll();
        batches.push(pushed.slice(before));
      },
    );
    expect(pushed).toEqual(['a', 'b']);
    // Both queued events were offered inside one batch; events after it are offered one by one.
    expect(batches).toEqual([['a', 'b']]);
    state.listener!(event('c'));
    accept = false;
    state.listener!(event('d'));
    accept = true;
    state.listener!(event('e'));
    expect(pushed).toEqual(['a', 'b', 'c']);
    expect((await it.next()).value?.id).toBe('d');
    // The reader holds 'd' until it asks again: 'f' waits behind 'e'.
    state.listener!(event('f'));
    expect((await it.next()).value?.id).toBe('e');
    expect((await it.next()).value?.id).toBe('f');
    // Still holding 'f', nothing queued: 'f2' is not offered either.
    state.listener!(event('f2'));
    expect(pushed).toEqual(['a', 'b', 'c']);
    expect((await it.next()).value?.id).toBe('f2');
    const read = it.next();
    state.listener!(event('g'));
    accept = 'throw';
    state.listener!(event('h'));
    expect(pushed).toEqual(['a', 'b', 'c', 'g']);
    expect((await read).value?.id).toBe('h');
    await it.return!();
    accept = true;
    state.listener!(event('i'));
    expect(pushed).toEqual(['a', 'b', 'c', 'g']);
  });

  it('yields a replay before the live events queued meanwhile, each event once, in one batch when pushed', async () => {
    const { state, subscribe } = feed();
    const it = eventIterator(subscribe, 2);
    // Heard while the replay was read: B, stored before the read.
    state.listener!(event('B'));
    const stored = [event('A'), event('B'), event('C')];
    const query = replayQuery({ last: 3, afterId: undefined, since: undefined }, ANY_EVENT);
    it.replay(stored, new ReplayOverlap(query, stored));
    // C's own notification comes after the replay (not a second time), then D, stored after the read.
    state.listener!(event('C'));
    state.listener!(event('D'));
    const pushed: string[][] = [];
    it.offerTo(
      (e) => {
        pushed.at(-1)?.push(e.id);
        return true;
      },
      (offerAll) => {
        pushed.push([]);
        offerAll();
      },
    );
    expect(pushed).toEqual([['A', 'B', 'C', 'D']]);
    state.listener!(event('E'));
    expect(pushed).toEqual([['A', 'B', 'C', 'D', 'E']]);
  });

  it('keeps a replay whole for a reader that pulls, however small the live bound', async () => {
    const { state, subscribe } = feed();
    const it = eventIterator(subscribe, 1);
    const waiting = it.next();
    const stored = [event('A'), event('B'), event('C')];
    it.replay(
      stored,
      new ReplayOverlap(replayQuery({ last: 3, afterId: undefined, since: undefined }, ANY_EVENT), stored),
    );
    state.listener!(event('D'));
    const ids = [(await waiting).value?.id];
    for (let i = 0; i < 3; i++) ids.push((await it.next()).value?.id);
    expect(ids).toEqual(['A', 'B', 'C', 'D']);
  });
});
