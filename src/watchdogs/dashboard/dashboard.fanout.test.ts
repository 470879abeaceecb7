import { describe, expect, it } from 'vitest';
import type { WatchdogEvent } from '../events.repository.ts';
import { eventBytes, type ReadResult, SharedRead } from './dashboard.fanout.ts';
import { dashboardMessages } from './dashboard.protocol.ts';
import { eventWire } from './dashboard.wire.ts';

const event = (id: string): WatchdogEvent => ({
  id,
  watchdog: 'price_anomaly',
  eventType: 'price_anomaly',
  severity: 'high',
  symbol: 'AAPL',
  asset: { symbol: 'AAPL', assetType: 'equity' },
  description: 'AAPL moved "+6%" ✓',
  data: { change: 0.06 },
  occurredAt: new Date('2025-06-11T15:00:00Z'),
  createdAt: new Date('2025-06-11T15:00:01Z'),
});

/** A read the test finishes by hand, counting how often it was started. */
function manualRead() {
  const pending: Array<(value: number) => void> = [];
  let started = 0;
  const read = () =>
    new Promise<number>((resolve) => {
      started++;
      pending.push(resolve);
    });
  return { read, pending, started: () => started };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('dashboard fan-out', () => {
  it('encodes an event message once, as the JSON of the message', () => {
    const e = event('01JXP0000000000000000000AA');
    const bytes = eventBytes(e);
    expect(eventBytes(e)).toBe(bytes);
    expect(bytes.toString('utf8')).toBe(JSON.stringify(dashboardMessages.event(eventWire(e))));
    expect(eventBytes({ ...e })).not.toBe(bytes);
  });

  it('reads once for every waiter that came before the read started, one read at a time', async () => {
    const { read, pending, started } = manualRead();
    const delivered: Array<{ waiters: readonly string[]; result: ReadResult<number> }> = [];
    const shared = new SharedRead<string, number>(read, (waiters, result) =>
      delivered.push({ waiters, result }),
    );
    shared.add('a');
    shared.add('b');
    // Connections accepted together share the read: it starts once the loop took them all in.
    expect(started()).toBe(0);
    await settled();
    expect(started()).toBe(1);
    shared.add('c');
    shared.add('gone');
    shared.delete('gone');
    expect(shared.waiting).toBe(1);
    pending.shift()!(1);
    await settled();
    expect(delivered).toEqual([{ waiters: ['a', 'b'], result: { ok: true, value: 1 } }]);
    // `c` came while the first read was under way: it gets the next one.
    await settled();
    expect(started()).toBe(2);
    pending.shift()!(2);
    await settled();
    expect(delivered[1]).toEqual({ waiters: ['c'], result: { ok: true, value: 2 } });
    await settled();
    expect(started()).toBe(2);
    shared.add('left');
    shared.delete('left');
    await settled();
    expect(started()).toBe(2);
    expect(delivered).toHaveLength(2);
  });

  it('hands a failed read to its waiters and reads again for the next', async () => {
    let calls = 0;
    const results: Array<ReadResult<number>> = [];
    const shared = new SharedRead<string, number>(
      async () => {
        if (++calls === 1) throw new Error('down');
        return calls;
      },
      (_waiters, result) => results.push(result),
    );
    shared.add('a');
    await settled();
    shared.add('b');
    await settled();
    expect(results).toEqual([
      { ok: false, error: new Error('down') },
      { ok: true, value: 2 },
    ]);
  });
});
