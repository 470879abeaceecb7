import { describe, expect, it } from 'vitest';
import { acknowledgedNotice, groupEvent, groupNotice, resolvedNotice } from './notice.fixtures.ts';
import {
  acknowledgedLine,
  clip,
  durationText,
  eventOneLiner,
  fitCount,
  groupHeadline,
  highestSeverity,
  keptLines,
  labelsText,
  moreLine,
  noticeTitle,
  packLines,
  resolvedLine,
  resolvedReasonText,
  resolvedTimes,
} from './notice-text.ts';

describe('durationText', () => {
  it('says the two largest units', () => {
    expect(durationText(0)).toBe('0s');
    expect(durationText(45)).toBe('45s');
    expect(durationText(750)).toBe('12m 30s');
    expect(durationText(3_720)).toBe('1h 2m');
    expect(durationText(3_725)).toBe('1h 2m');
    expect(durationText(3_600)).toBe('1h');
    expect(durationText(3_605)).toBe('1h');
    expect(durationText(2 * 86_400 + 3 * 3_600 + 59)).toBe('2d 3h');
    expect(durationText(-5)).toBe('0s');
  });
});

describe('resolution and acknowledgement', () => {
  it('names the reason, and who resolved it with the note', () => {
    expect(resolvedReasonText({ ...resolvedNotice, reason: 'cleared', by: null, note: null })).toBe(
      'condition cleared',
    );
    expect(resolvedReasonText({ ...resolvedNotice, reason: 'timeout', by: null, note: null })).toBe(
      'not repeated for the resolve timeout',
    );
    expect(resolvedLine(resolvedNotice)).toBe('Resolved after 12m 30s (resolved by alice: fixed upstream)');
    expect(resolvedReasonText({ ...resolvedNotice, note: 'two\nlines' })).toBe(
      'resolved by alice: two lines',
    );
    expect(resolvedReasonText({ ...resolvedNotice, note: null })).toBe('resolved by alice');
    expect(resolvedTimes(resolvedNotice)).toEqual([
      ['Started', '2025-01-02T03:00:00Z'],
      ['Resolved', '2025-01-02T03:12:30Z'],
      ['Duration', '12m 30s'],
    ]);
    expect(acknowledgedLine(acknowledgedNotice)).toBe('Acknowledged by bob: looking');
    expect(acknowledgedLine({ ...acknowledgedNotice, note: null })).toBe('Acknowledged by bob');
  });
});

describe('titles and headlines', () => {
  it('titles each kind', () => {
    expect(noticeTitle('Watch', { kind: 'event', incidentKey: 'x/-' })).toBe('Watch');
    expect(noticeTitle('Watch', { kind: 'event', incidentKey: 'x/-' }, true)).toBe('[test] Watch');
    expect(noticeTitle('Watch', groupNotice(2))).toBe('Watch (watchdog=unusual_volume, asset=AAPL)');
    expect(noticeTitle('Watch', groupNotice(2, true))).toBe(
      '[still firing] Watch (watchdog=unusual_volume, asset=AAPL)',
    );
    expect(noticeTitle('Watch', { ...groupNotice(1), labels: {} })).toBe('Watch');
    expect(noticeTitle('Watch', resolvedNotice)).toBe('[RESOLVED] Watch');
    expect(noticeTitle('Watch', acknowledgedNotice)).toBe('[ACKNOWLEDGED] Watch');
  });

  it('orders labels watchdog, asset, event_type', () => {
    expect(labelsText({ event_type: 'e', asset: 'A', watchdog: 'w' })).toBe(
      'watchdog=w, asset=A, event_type=e',
    );
  });

  it('counts the events and names their conditions, at most three', () => {
    expect(groupHeadline(groupNotice(1))).toBe('1 event: unusual_volume on AAPL');
    expect(groupHeadline(groupNotice(5))).toBe(
      '5 events: unusual_volume on AAPL, price_anomaly on MSFT, unusual_volume on BTC/USDT, …',
    );
    const same = { ...groupNotice(1), events: [groupEvent(0), groupEvent(6), groupEvent(1)] };
    expect(groupHeadline(same)).toBe('3 events: unusual_volume on AAPL (2), price_anomaly on MSFT');
    expect(groupHeadline({ ...same, repeat: true })).toMatch(/^Still firing: 3 events: /);
    const marketWide = { ...groupNotice(1), events: [{ ...groupEvent(0), asset: null }] };
    expect(groupHeadline(marketWide)).toBe('1 event: unusual_volume');
  });

  it('puts an event on one bounded line', () => {
    const line = eventOneLiner(groupEvent(2, `two\nlines ${'x'.repeat(500)}`));
    expect(line).toMatch(/^2025-01-02T03:02:00Z HIGH unusual_volume BTC\/USDT: two lines x+…$/);
    expect(line).not.toContain('\n');
    expect(line.length).toBeLessThan(300);
  });

  it('finds the worst severity', () => {
    expect(highestSeverity([groupEvent(0), groupEvent(1)])).toBe('medium');
    expect(highestSeverity(groupNotice(3).events)).toBe('high');
  });
});

describe('cutting lists', () => {
  it('keeps the most items that fit, with the count of the rest', () => {
    const items = Array.from({ length: 100 }, (_, i) => `item ${i}`);
    const fits = (kept: readonly string[], left: number) =>
      [...kept, ...(left ? [moreLine(left)] : [])].join('\n').length <= 200;
    const count = fitCount(items, fits);
    const text = keptLines(items, count).join('\n');
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text.endsWith(`and ${100 - count} more`)).toBe(true);
    expect(keptLines(items, count + 1).join('\n').length).toBeGreaterThan(200);
    expect(fitCount(items, () => true)).toBe(100);
    expect(fitCount(items, (kept) => kept.length === 0)).toBe(0);
  });

  it('packs lines into texts of a bounded length', () => {
    const chunks = packLines(['aaaa', 'bbbb', 'cccc', 'd'.repeat(20)], 10);
    expect(chunks).toEqual(['aaaa\nbbbb', 'cccc', `${'d'.repeat(9)}…`]);
    expect(packLines([], 10)).toEqual([]);
  });

  it('clips by characters, not UTF-16 units', () => {
    expect(clip('😀😀😀', 2)).toBe('😀…');
    expect(clip('abc', 3)).toBe('abc');
  });
});
