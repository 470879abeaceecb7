import { describe, expect, it } from 'vitest';
import type { PriceThresholdTrigger, VolumeThresholdTrigger } from './alert.model.ts';
import { crossingEvent, priceStep, volumeStep } from './thresholds.ts';

const above: PriceThresholdTrigger = {
  type: 'price_threshold',
  symbol: 'BTC/USDT',
  priceThreshold: 100,
  direction: 'above',
  hysteresisPercent: 1,
};
const below: PriceThresholdTrigger = { ...above, direction: 'below' };
const volume: VolumeThresholdTrigger = { type: 'volume_threshold', symbol: 'AAPL', volumeThreshold: 1_000 };

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

describe('crossing events', () => {
  it('name the crossing, once per alert per minute, with the reading in the data', () => {
    const now = new Date('2025-06-11T15:00:42Z');
    const asOf = new Date('2025-06-11T15:00:30Z');
    expect(crossingEvent(below, { value: 99, assetType: 'crypto', asOf }, now)).toEqual({
      id: `price_threshold:${Math.floor(now.getTime() / 60_000)}`,
      type: 'price_threshold',
      severity: 'medium',
      description: 'BTC/USDT price 99 is below the threshold 100',
      asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
      occurredAt: now,
      watchdog: null,
      data: { price: 99, threshold: 100, direction: 'below', as_of: '2025-06-11T15:00:30.000Z' },
      sample: false,
    });
    expect(crossingEvent(volume, { value: 1_200, assetType: 'equity', asOf }, now)).toMatchObject({
      type: 'volume_threshold',
      description: 'AAPL volume 1200 is above the threshold 1000',
      data: { volume: 1_200, threshold: 1_000, direction: 'above' },
    });
  });
});
