import { describe, expect, it } from 'vitest';
import type { WatchdogEventListener } from './event-bus.ts';
import { eventIterator } from './event-iterator.ts';
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

  it('offers events to a consumer while the reader waits; a declined one and every event until it waits again go to the reader, in order', async () => {
    const { state, subscribe } = feed();
    const it = eventIterator(subscribe);
    const pushed: string[] = [];
    let accept: boolean | 'throw' = true;
    it.offerTo((e) => {
      if (accept === 'throw') throw new Error('consumer failed');
      if (accept) pushed.push(e.id);
      return accept;
    });
    // Nobody reads yet: queued, not offered.
    state.listener!(event('a'));
    expect(pushed).toEqual([]);
    expect((await it.next()).value?.id).toBe('a');
    let read = it.next();
    state.listener!(event('b'));
    accept = false;
    state.listener!(event('c'));
    accept = true;
    state.listener!(event('d'));
    expect(pushed).toEqual(['b']);
    expect((await read).value?.id).toBe('c');
    expect((await it.next()).value?.id).toBe('d');
    read = it.next();
    state.listener!(event('e'));
    accept = 'throw';
    state.listener!(event('f'));
    expect(pushed).toEqual(['b', 'e']);
    expect((await read).value?.id).toBe('f');
    await it.return!();
    state.listener!(event('g'));
    expect(pushed).toEqual(['b', 'e']);
  });
});
