import { describe, expect, it } from 'vitest';
import { alignCloses, alignedLogReturns } from './bar-alignment.ts';

const bar = (iso: string, close: number) => ({ time: new Date(iso), close });

describe('bar alignment', () => {
  const a = [
    bar('2024-01-02T14:30:00Z', 10),
    bar('2024-01-03T14:30:00Z', 11),
    bar('2024-01-04T14:30:00Z', 12),
  ];

  it('keeps the times both series have, in the order of the first', () => {
    const b = [bar('2024-01-04T14:00:00Z', 3), bar('2024-01-02T14:45:00Z', 1)];
    expect(alignCloses(a, b)).toEqual({
      times: [a[0]!.time, a[2]!.time],
      a: [10, 12],
      b: [1, 3],
    });
  });

  it('matches daily bars stamped at different hours only by day', () => {
    const b = [bar('2024-01-02T00:00:00Z', 1), bar('2024-01-03T00:00:00Z', 2)];
    expect(alignCloses(a, b).a).toEqual([]);
    expect(alignCloses(a, b, 'day')).toEqual({ times: [a[0]!.time, a[1]!.time], a: [10, 11], b: [1, 2] });
  });

  it('gives log returns between consecutive common times', () => {
    const b = [bar('2024-01-02T00:00:00Z', 1), bar('2024-01-04T00:00:00Z', 2)];
    const r = alignedLogReturns(a, b, 'day');
    expect([...r.a]).toEqual([Math.log(12 / 10)]);
    expect([...r.b]).toEqual([Math.log(2)]);
  });
});
