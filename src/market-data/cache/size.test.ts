import { describe, expect, it } from 'vitest';
import { estimateBytes } from './size.ts';

const bar = (i: number) => ({
  time: new Date(i * 86_400_000),
  open: i + 0.5,
  high: i + 1.5,
  low: i - 0.5,
  close: i + 0.25,
  volume: 1000 + i,
});

describe('estimateBytes', () => {
  it('sizes a bar series close to what the heap holds (~260 bytes a bar)', () => {
    const perBar = estimateBytes(Array.from({ length: 2_520 }, (_, i) => bar(i))) / 2_520;
    expect(perBar).toBeGreaterThan(180);
    expect(perBar).toBeLessThan(400);
  });

  it('grows with the data, sampling long arrays', () => {
    const ten = estimateBytes(Array.from({ length: 10 }, (_, i) => bar(i)));
    const tenThousand = estimateBytes(Array.from({ length: 10_000 }, (_, i) => bar(i)));
    expect(tenThousand / ten).toBeGreaterThan(900);
    expect(estimateBytes({ value: 'x'.repeat(1_000) })).toBeGreaterThan(1_000);
  });
});
