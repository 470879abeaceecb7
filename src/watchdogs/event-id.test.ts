import { describe, expect, it } from 'vitest';
import type { Clock } from '../platform/clock.ts';
import { EVENT_ID_LENGTH, EventIdGenerator, eventIdTime, isEventId, lowestEventIdAt } from './event-id.ts';

function clockAt(ms: number): Clock & { ms: number } {
  const clock = { ms, now: () => new Date(clock.ms) };
  return clock;
}

describe('event ids', () => {
  it('are 26 Crockford base32 characters that carry their millisecond', () => {
    const at = Date.parse('2025-06-11T15:00:00.123Z');
    const id = new EventIdGenerator(clockAt(at)).next();
    expect(id).toHaveLength(EVENT_ID_LENGTH);
    expect(isEventId(id)).toBe(true);
    expect(id).not.toMatch(/[ILOU]/);
    expect(eventIdTime(id)).toBe(at);
  });

  it('sort by time across milliseconds, whatever the random part', () => {
    const clock = clockAt(1_000);
    const high = new EventIdGenerator(clock, (n) => new Uint8Array(n).fill(255));
    const low = new EventIdGenerator(clock, (n) => new Uint8Array(n));
    const first = high.next();
    clock.ms += 1;
    const second = low.next();
    expect(first < second).toBe(true);
  });

  it('strictly increase within one millisecond and when the clock steps back', () => {
    const clock = clockAt(Date.parse('2025-06-11T15:00:00Z'));
    const ids = new EventIdGenerator(clock);
    const made = Array.from({ length: 1_000 }, () => ids.next());
    clock.ms -= 5_000;
    made.push(ids.next(), ids.next());
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
    expect(eventIdTime(made.at(-1)!)).toBe(Date.parse('2025-06-11T15:00:00Z'));
  });

  it('differ between generators in the same millisecond', () => {
    const clock = clockAt(42);
    const ids = new Set(Array.from({ length: 100 }, () => new EventIdGenerator(clock).next()));
    expect(ids.size).toBe(100);
  });

  it('lowestEventIdAt bounds every id made from that millisecond on', () => {
    const at = Date.parse('2025-06-11T15:00:00Z');
    const lowest = lowestEventIdAt(at);
    expect(isEventId(lowest)).toBe(true);
    expect(eventIdTime(lowest)).toBe(at);
    const clock = clockAt(at - 1);
    const ids = new EventIdGenerator(clock, (n) => new Uint8Array(n).fill(255));
    const before = ids.next();
    clock.ms = at;
    const after = new EventIdGenerator(clock, (n) => new Uint8Array(n)).next();
    expect(before < lowest).toBe(true);
    expect(lowest <= after).toBe(true);
  });

  it('rejects what is not an id', () => {
    for (const bad of [
      '',
      'x',
      '01ARZ3NDEKTSV4RRFFQ69G5FAVX',
      '01ARZ3NDEKTSV4RRFFQ69G5FAI',
      '81ARZ3NDEKTSV4RRFFQ69G5FAV',
    ]) {
      expect(isEventId(bad)).toBe(false);
    }
    expect(isEventId('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe(true);
  });
});
