import { describe, expect, it } from 'vitest';
import { ValidationError } from '../platform/errors.ts';
import { ANY_EVENT, parseEventQuery } from './event-filter.ts';
import { MAX_REPLAY_EVENTS, parseReplay, ReplayOverlap, replayQuery, replaySelects } from './event-replay.ts';
import type { WatchdogEvent } from './events.repository.ts';

const ID = '01JXP3YV8Q0000000000000000';

const event = (id: string, over: Partial<WatchdogEvent> = {}): WatchdogEvent => ({
  id,
  watchdog: 'price_anomaly',
  eventType: 'price_anomaly',
  severity: 'high',
  symbol: 'AAPL',
  asset: { symbol: 'AAPL', assetType: 'equity' },
  description: 'moved',
  data: {},
  occurredAt: new Date('2025-06-11T15:00:00Z'),
  createdAt: new Date('2025-06-11T15:00:00Z'),
  ...over,
});

function refusal(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return `${error.code}:${error.field}`;
  }
}

describe('parseReplay', () => {
  it('asks for nothing without since or last', () => {
    expect(parseReplay({})).toBeUndefined();
    expect(parseReplay({ since: null, last: null })).toBeUndefined();
  });

  it('reads last, an event id and a date-time', () => {
    expect(parseReplay({ last: 50 })).toEqual({ last: 50, afterId: undefined, since: undefined });
    expect(parseReplay({ since: ID })).toEqual({ last: MAX_REPLAY_EVENTS, afterId: ID, since: undefined });
    // Ids are Crockford base32: a lower-case spelling is the same id.
    expect(parseReplay({ since: ID.toLowerCase(), last: 3 })).toEqual({
      last: 3,
      afterId: ID,
      since: undefined,
    });
    expect(parseReplay({ since: '2025-06-11T15:00:00+02:00' })).toEqual({
      last: MAX_REPLAY_EVENTS,
      afterId: undefined,
      since: new Date('2025-06-11T13:00:00Z'),
    });
    expect(parseReplay({ since: '2025-06-11' })?.since).toEqual(new Date('2025-06-11T00:00:00Z'));
  });

  it('refuses what it cannot read, naming the argument', () => {
    expect(refusal(() => parseReplay({ last: 0 }))).toBe('BAD_USER_INPUT:last');
    expect(refusal(() => parseReplay({ last: MAX_REPLAY_EVENTS + 1 }))).toBe('BAD_USER_INPUT:last');
    expect(refusal(() => parseReplay({ last: 2.5 }))).toBe('BAD_USER_INPUT:last');
    expect(refusal(() => parseReplay({ last: MAX_REPLAY_EVENTS }))).toBe('accepted');
    expect(refusal(() => parseReplay({ since: 'yesterday' }))).toBe('BAD_USER_INPUT:since');
    expect(refusal(() => parseReplay({ since: '' }))).toBe('BAD_USER_INPUT:since');
    // Without an offset a time would be read in the server's zone.
    expect(refusal(() => parseReplay({ since: '2025-06-11T15:00:00' }))).toBe('BAD_USER_INPUT:since');
    expect(refusal(() => parseReplay({ since: '2025-13-40T10:00:00Z' }))).toBe('BAD_USER_INPUT:since');
    expect(refusal(() => parseReplay({ since: `${ID}0` }))).toBe('BAD_USER_INPUT:since');
    expect(refusal(() => parseReplay({ since: 'x'.repeat(10_000) }))).toBe('BAD_USER_INPUT:since');
  });
});

describe('replayQuery', () => {
  it('keeps the later of two times and the filter as it is', () => {
    const early = new Date('2025-06-11T10:00:00Z');
    const late = new Date('2025-06-11T12:00:00Z');
    const filter = parseEventQuery({ severities: ['critical'], since: early });
    const query = replayQuery({ last: 5, afterId: undefined, since: late }, filter);
    expect(query).toMatchObject({ last: 5, afterId: undefined });
    expect(query.filter).toMatchObject({ severities: ['critical'], since: late });
    expect(
      replayQuery({ last: 5, afterId: undefined, since: early }, { ...filter, since: late }).filter.since,
    ).toBe(late);
    expect(replayQuery({ last: 5, afterId: ID, since: undefined }, filter).filter.since).toBe(early);
    expect(replayQuery({ last: 5, afterId: ID, since: undefined }, ANY_EVENT).filter.since).toBeUndefined();
  });

  it('selects what the stored read selects: after the id, within the filter', () => {
    const query = replayQuery(
      { last: 5, afterId: '01JXP00000000000000000000B', since: undefined },
      parseEventQuery({ severities: ['high'] }),
    );
    expect(replaySelects(query, event('01JXP00000000000000000000C'))).toBe(true);
    expect(replaySelects(query, event('01JXP00000000000000000000B'))).toBe(false);
    expect(replaySelects(query, event('01JXP00000000000000000000D', { severity: 'low' }))).toBe(false);
  });
});

describe('ReplayOverlap', () => {
  const query = replayQuery({ last: 3, afterId: undefined, since: undefined }, ANY_EVENT);

  it('reports each replayed event once, and forgets them at the first newer live event it did not hold', () => {
    const replayed = ['01JXP00000000000000000000B', '01JXP00000000000000000000D'].map((id) => event(id));
    const overlap = new ReplayOverlap(query, replayed);
    // Stored before the read but not replayed (more matched than `last`): not a repeat.
    expect(overlap.repeats(event('01JXP00000000000000000000A'))).toBe(false);
    expect(overlap.repeats(event('01JXP00000000000000000000B'))).toBe(true);
    expect(overlap.repeats(event('01JXP00000000000000000000B'))).toBe(false);
    // Older than the newest replayed and not among them (another instance's clock): kept, the ids too.
    expect(overlap.repeats(event('01JXP00000000000000000000C'))).toBe(false);
    expect(overlap.size).toBe(1);
    expect(overlap.repeats(event('01JXP00000000000000000000E'))).toBe(false);
    expect(overlap.size).toBe(0);
    expect(overlap.repeats(event('01JXP00000000000000000000D'))).toBe(false);
  });

  it('is not moved on by live events the replay could not have selected', () => {
    const critical = replayQuery(
      { last: 3, afterId: undefined, since: undefined },
      parseEventQuery({ severities: ['critical'] }),
    );
    const overlap = new ReplayOverlap(critical, [
      event('01JXP00000000000000000000B', { severity: 'critical' }),
    ]);
    // A newer event of another severity says nothing about when the read happened.
    expect(overlap.repeats(event('01JXP00000000000000000000C'))).toBe(false);
    expect(overlap.size).toBe(1);
    expect(overlap.repeats(event('01JXP00000000000000000000B', { severity: 'critical' }))).toBe(true);
  });

  it('holds nothing for an empty replay', () => {
    const overlap = new ReplayOverlap(query, []);
    expect(overlap.size).toBe(0);
    expect(overlap.repeats(event('01JXP00000000000000000000B'))).toBe(false);
  });
});
