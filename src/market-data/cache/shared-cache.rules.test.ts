import { describe, expect, it } from 'vitest';
import {
  MAX_SHARED_ENTRY_BYTES,
  MAX_SHARED_KEY_CHARS,
  SHARED_FORMAT,
  sharedAge,
  sharedEntryBound,
  sharedEntryBytes,
  sharedFreshness,
  sharedKey,
  sweepDue,
} from './shared-cache.rules.ts';

describe('the shared key', () => {
  it('puts the format and the configured providers, in order, before the local key', () => {
    expect(sharedKey(['yahoo', 'finnhub'], 'quote|equity:AAPL|')).toBe(
      `${SHARED_FORMAT}|yahoo,finnhub|quote|equity:AAPL|`,
    );
    // Another order of preference can give another answer: not the same entry.
    expect(sharedKey(['finnhub', 'yahoo'], 'quote|equity:AAPL|')).not.toBe(
      sharedKey(['yahoo', 'finnhub'], 'quote|equity:AAPL|'),
    );
  });

  it('is not given to a key too long to share', () => {
    const prefix = `${SHARED_FORMAT}|simulated|`.length;
    expect(sharedKey(['simulated'], 'x'.repeat(MAX_SHARED_KEY_CHARS - prefix))).toBeDefined();
    expect(sharedKey(['simulated'], 'x'.repeat(MAX_SHARED_KEY_CHARS - prefix + 1))).toBeUndefined();
  });
});

describe('freshness of a shared row', () => {
  it('is fresh while younger than its lifetime, with the rest of it left', () => {
    expect(sharedFreshness(1_500, 5_000)).toEqual({ state: 'fresh', ageMs: 1_500, remainingMs: 3_500 });
    expect(sharedFreshness(4_999, 5_000)).toEqual({ state: 'fresh', ageMs: 4_999, remainingMs: 1 });
  });

  it('is stale from the end of its lifetime on, as in the local cache', () => {
    expect(sharedFreshness(5_000, 5_000)).toEqual({ state: 'stale' });
    expect(sharedFreshness(60_000, 5_000)).toEqual({ state: 'stale' });
    expect(sharedFreshness(0, 0)).toEqual({ state: 'stale' });
  });

  it('counts a row stamped ahead of the reader as new, and anything unreadable as stale', () => {
    expect(sharedFreshness(-3, 2_000)).toEqual({ state: 'fresh', ageMs: 0, remainingMs: 2_000 });
    expect(sharedFreshness(Number.NaN, 2_000)).toEqual({ state: 'stale' });
  });
});

describe('the age of a shared answer', () => {
  it('is the older of its database age and its age by the reader since it was obtained', () => {
    // The reader's clock agrees with the database's.
    expect(sharedAge(1_000, 9_000, 10_000)).toBe(1_000);
    // The reader's clock runs ahead (or the instance's time moved on): its own measure counts.
    expect(sharedAge(1_000, 4_000, 10_000)).toBe(6_000);
    // The reader's clock runs behind the writer's: the database's measure still holds.
    expect(sharedAge(3_000, 12_000, 10_000)).toBe(3_000);
    expect(sharedFreshness(sharedAge(1_000, 4_000, 10_000), 5_000)).toEqual({ state: 'stale' });
  });
});

describe('the size of a shared entry', () => {
  it('is a sixteenth of the byte bound, at most 1 MiB', () => {
    expect(sharedEntryBound(1024 * 1024)).toBe(65_536);
    expect(sharedEntryBound(64 * 1024 * 1024)).toBe(MAX_SHARED_ENTRY_BYTES);
  });

  it('counts key and payload in UTF-8 bytes', () => {
    expect(sharedEntryBytes('ab', '{"x":1}')).toBe(9);
    expect(sharedEntryBytes('k', '"€"')).toBe(1 + 5);
  });
});

describe('when a write is followed by a sweep', () => {
  const interval = 60_000;
  const bound = 1_000_000;
  it('sweeps first, then once per interval', () => {
    expect(sweepDue({ sweptAt: undefined, bytesSince: 0, lastRunFull: false }, 0, interval, bound)).toBe(
      true,
    );
    expect(sweepDue({ sweptAt: 0, bytesSince: 10, lastRunFull: false }, 59_999, interval, bound)).toBe(false);
    expect(sweepDue({ sweptAt: 0, bytesSince: 10, lastRunFull: false }, 60_000, interval, bound)).toBe(true);
  });

  it('sweeps sooner when the last run left rows behind or much was written since', () => {
    expect(sweepDue({ sweptAt: 0, bytesSince: 0, lastRunFull: true }, 1, interval, bound)).toBe(true);
    expect(sweepDue({ sweptAt: 0, bytesSince: 250_000, lastRunFull: false }, 1, interval, bound)).toBe(true);
    expect(sweepDue({ sweptAt: 0, bytesSince: 249_999, lastRunFull: false }, 1, interval, bound)).toBe(false);
  });
});
