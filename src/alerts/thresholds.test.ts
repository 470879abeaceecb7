import { describe, expect, it } from 'vitest';
import { priceStep, volumeStep } from './thresholds.ts';

const above = {
  type: 'price_threshold',
  symbol: 'BTC/USDT',
  price_threshold: 100,
  direction: 'above',
  hysteresis_percent: 1,
} as const;
const below = { ...above, direction: 'below' } as const;
const volume = { type: 'volume_threshold', symbol: 'AAPL', volume_threshold: 1_000 } as const;

/** Runs a series of values through a step function, returning the values that fired. */
function run<T>(
  step: (t: T, v: number, armed: boolean) => { fire: boolean; armed: boolean },
  t: T,
  values: number[],
) {
  let armed = true;
  const fired: number[] = [];
  for (const v of values) {
    const next = step(t, v, armed);
    if (next.fire) fired.push(v);
    armed = next.armed;
  }
  return fired;
}

describe('threshold triggers', () => {
  it('fire on crossing, not while crossed, and re-arm only past the hysteresis band', () => {
    // 99.5 is inside the 1 % band (99..100): no re-arm, so 100.5 does not fire again.
    expect(run(priceStep, above, [99, 100, 101, 102, 99.5, 100.5, 98.9, 101])).toEqual([101, 101]);
    expect(run(priceStep, below, [101, 99, 98, 100.5, 99, 101.1, 99.9])).toEqual([99, 99.9]);
  });

  it('a value exactly at the threshold has not crossed it', () => {
    expect(run(priceStep, above, [100, 100])).toEqual([]);
    expect(run(volumeStep, volume, [1_000])).toEqual([]);
  });

  it('volume fires once per exceedance and re-arms when back at or under the threshold', () => {
    expect(run(volumeStep, volume, [500, 1_200, 5_000, 900, 1_100])).toEqual([1_200, 1_100]);
  });
});
