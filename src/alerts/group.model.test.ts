import { describe, expect, it } from 'vitest';
import { flushAfterEvent, groupOf, repeatAfter } from './group.model.ts';

const grouping = {
  groupBy: [],
  groupWaitSeconds: 30,
  groupIntervalSeconds: 300,
  repeatIntervalSeconds: 3600,
} as const;
const at = (s: number) => new Date(Date.UTC(2026, 0, 5, 15, 0, s));
const event = {
  watchdog: 'liquidity_drop',
  asset: { symbol: 'AAPL', assetType: 'equity' },
  type: 'liquidity_drop',
} as const;

describe('groupOf', () => {
  it('keys a group by the labels the alert groups by, in a fixed order', () => {
    expect(groupOf({ groupBy: ['event_type', 'watchdog'] }, event)).toEqual({
      key: 'watchdog=liquidity_drop,event_type=liquidity_drop',
      labels: { watchdog: 'liquidity_drop', event_type: 'liquidity_drop' },
    });
    expect(groupOf({ groupBy: ['asset'] }, event).key).toBe('asset=AAPL');
  });

  it('puts every event in one group when the alert groups by nothing', () => {
    expect(groupOf({ groupBy: [] }, event)).toEqual({ key: '*', labels: {} });
  });

  it('names an event about no asset, or of no watchdog, with a dash', () => {
    expect(
      groupOf({ groupBy: ['watchdog', 'asset'] }, { watchdog: null, asset: null, type: 'price_threshold' })
        .key,
    ).toBe('watchdog=-,asset=-');
  });
});

describe('flushAfterEvent', () => {
  it('sends a new group after group_wait from its creation', () => {
    expect(flushAfterEvent(grouping, { createdAt: at(0), lastSentAt: null }, null, at(1))).toEqual(at(30));
    // A later event does not push the first notification back.
    expect(flushAfterEvent(grouping, { createdAt: at(0), lastSentAt: null }, at(30), at(20))).toEqual(at(30));
  });

  it('sends news of a notified group no sooner than group_interval after the last notification', () => {
    const group = { createdAt: at(0), lastSentAt: at(30) };
    expect(flushAfterEvent(grouping, group, null, at(40))).toEqual(new Date(at(30).getTime() + 300_000));
    // Past the interval: at once.
    const late = new Date(at(30).getTime() + 400_000);
    expect(flushAfterEvent(grouping, group, null, late)).toEqual(late);
  });

  it('keeps a sooner notification already due (a reminder is moved forward, never back)', () => {
    const group = { createdAt: at(0), lastSentAt: at(30) };
    expect(flushAfterEvent(grouping, group, at(45), at(40))).toEqual(at(45));
  });
});

describe('repeatAfter', () => {
  it('reminds after repeat_interval', () => {
    expect(repeatAfter(grouping, at(0))).toEqual(new Date(at(0).getTime() + 3_600_000));
  });
});
