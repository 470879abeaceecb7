import { describe, expect, it } from 'vitest';
import type { EventFilter } from './alert.model.ts';
import { type MatchableEvent, matchesFilter } from './matcher.ts';

const any: EventFilter = { eventTypes: [], severities: [], assets: [], watchdogs: [] };
const event: MatchableEvent = {
  type: 'price_anomaly',
  severity: 'high',
  watchdog: 'price_anomaly',
  asset: { symbol: 'AAPL' },
};

describe('matchesFilter', () => {
  it('matches anything with an empty filter', () => {
    expect(matchesFilter(any, event)).toBe(true);
  });

  it('ORs the values of one field and ANDs the fields', () => {
    expect(matchesFilter({ ...any, severities: ['critical', 'high'] }, event)).toBe(true);
    expect(matchesFilter({ ...any, severities: ['critical'] }, event)).toBe(false);
    expect(matchesFilter({ ...any, severities: ['high'], eventTypes: ['flash_crash'] }, event)).toBe(false);
    expect(
      matchesFilter(
        {
          eventTypes: ['price_anomaly'],
          severities: ['high'],
          assets: ['MSFT', 'AAPL'],
          watchdogs: ['price_anomaly'],
        },
        event,
      ),
    ).toBe(true);
  });

  it('compares assets by symbol, case-insensitively, and lets asset-less events through', () => {
    expect(matchesFilter({ ...any, assets: ['MSFT'] }, event)).toBe(false);
    expect(matchesFilter({ ...any, assets: ['AAPL'] }, { ...event, asset: { symbol: 'aapl' } })).toBe(true);
    expect(matchesFilter({ ...any, assets: ['MSFT'] }, { ...event, asset: null })).toBe(true);
  });

  it('does not match a watchdog filter for an event without a watchdog (a price threshold)', () => {
    expect(matchesFilter({ ...any, watchdogs: ['price_anomaly'] }, { ...event, watchdog: null })).toBe(false);
  });

  it('does not match an event-type filter for the alerts’ own events', () => {
    const crossing: MatchableEvent = { ...event, type: 'price_threshold', watchdog: null };
    expect(matchesFilter({ ...any, eventTypes: ['price_anomaly'] }, crossing)).toBe(false);
    expect(matchesFilter(any, crossing)).toBe(true);
  });
});
