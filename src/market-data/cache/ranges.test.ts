import { describe, expect, it } from 'vitest';
import { alignBarRange, cut } from './ranges.ts';

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);

describe('bar ranges', () => {
  it('keys "the last year up to now" the same all day long', () => {
    const a = at('2024-05-06T14:00:00.123Z');
    const b = at('2024-05-06T14:00:07.456Z');
    const ra = alignBarRange('1d', new Date(a.getTime() - 365 * DAY), a, a);
    const rb = alignBarRange('1d', new Date(b.getTime() - 365 * DAY), b, b);
    expect(rb).toMatchObject({ start: ra.start, until: ra.until });
    expect(ra.start.toISOString()).toBe('2023-05-07T00:00:00.000Z');
    expect(ra.until.toISOString()).toBe('2024-05-07T00:00:00.000Z');
    expect(rb.fetchEnd).toEqual(b);
  });

  it('aligns hourly requests to the hour and past ranges to their covering bars', () => {
    const now = at('2024-05-06T14:25:00Z');
    expect(alignBarRange('1h', at('2024-05-01T03:59:59Z'), now, now)).toMatchObject({
      start: at('2024-05-01T03:00:00Z'),
      until: at('2024-05-06T15:00:00Z'),
    });
    const past = alignBarRange('1d', at('2024-01-01T12:00:00Z'), at('2024-02-01T12:00:00Z'), now);
    expect(past).toMatchObject({ until: at('2024-02-02T00:00:00Z'), fetchEnd: at('2024-02-02T00:00:00Z') });
  });

  it('cuts each caller its own range out of the covering one', () => {
    const bars = [0, 1, 2, 3, 4].map((d) => ({ time: new Date(d * DAY + 13.5 * 3_600_000) }));
    const time = (b: { time: Date }) => b.time;
    expect(cut(bars, time, new Date(0), new Date(10 * DAY))).toBe(bars);
    expect(cut(bars, time, new Date(DAY + 15 * 3_600_000), new Date(4 * DAY)).map((b) => b.time)).toEqual([
      bars[2]!.time,
      bars[3]!.time,
    ]);
    expect(cut(bars, time, new Date(0), bars[1]!.time, true)).toHaveLength(2);
  });
});
