import { describe, expect, it } from 'vitest';
import { demoEvent, EVENT_MOVE_MINUTES, type FlashEvent, normalEvent, planDay } from './day-plan.ts';
import { Rand } from './rng.ts';

const rand = Rand.fromSeed('plans');

describe('day plans', () => {
  it('draws the high and low of a Brownian bridge without a path', () => {
    // For a bridge from 0 to 0 with variance v, E[max] = sqrt(pi v / 8) (and the min mirrors it).
    const sigma = 0.02;
    const highs: number[] = [];
    const lows: number[] = [];
    for (let day = 0; day < 4_000; day++) {
      const plan = planDay(rand, 1, day, 390, 0, sigma, []);
      highs.push(plan.high);
      lows.push(plan.low);
      expect(plan.pinT).toEqual([0, 390]);
      expect(plan.high).toBeGreaterThanOrEqual(0);
      expect(plan.low).toBeLessThanOrEqual(0);
    }
    const expected = Math.sqrt((Math.PI * sigma * sigma) / 8);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(highs) / expected).toBeCloseTo(1, 1);
    expect(-mean(lows) / expected).toBeCloseTo(1, 1);
  });

  it('keeps the open and close inside the range whatever the close', () => {
    for (const close of [-0.08, -0.01, 0, 0.02, 0.1]) {
      const plan = planDay(rand, 2, 10, 1440, close, 0.03, []);
      expect(plan.high).toBeGreaterThanOrEqual(Math.max(0, close));
      expect(plan.low).toBeLessThanOrEqual(Math.min(0, close));
      expect(plan.pinV).toEqual([0, close]);
    }
  });

  it('pins flash events: the move within two minutes, then a partial recovery', () => {
    const crash: FlashEvent = { start: 600, direction: -1, depth: 0.12, recovery: 0.5, recoveryMinutes: 10 };
    const plan = planDay(rand, 3, 20, 1440, 0.01, 0.03, [crash]);
    const at = (t: number) => plan.pinV[plan.pinT.indexOf(t)]!;
    expect(plan.pinT).toEqual([0, 600, 600 + EVENT_MOVE_MINUTES, 612, 1440]);
    expect(at(602) - at(600)).toBeCloseTo(-0.12, 12);
    expect(at(612) - at(600)).toBeCloseTo(-0.06, 12);
    expect(plan.low).toBeLessThanOrEqual(at(602));
    expect(plan.high).toBeGreaterThanOrEqual(Math.max(...plan.pinV));
  });

  it('draws an event at the very end of the day as a move into the close', () => {
    const late: FlashEvent = { start: 1437, direction: -1, depth: 0.09, recovery: 0.5, recoveryMinutes: 10 };
    const plan = planDay(rand, 4, 30, 1440, 0.02, 0.03, [late]);
    expect(plan.pinT).toEqual([0, 1437, 1440]);
    expect(plan.pinV[1]! - plan.pinV[2]!).toBeCloseTo(0.09, 12);
  });

  it('draws events in their documented ranges', () => {
    let normal = 0;
    for (let day = 0; day < 20_000; day++) {
      const e = normalEvent(rand, 5, day, 1440, 12 / 365);
      if (!e) continue;
      normal++;
      expect(e.depth).toBeGreaterThanOrEqual(0.055);
      expect(e.depth).toBeLessThanOrEqual(0.25);
      expect(e.start).toBeGreaterThanOrEqual(5);
      expect(e.start + EVENT_MOVE_MINUTES + e.recoveryMinutes).toBeLessThan(1440 - 2);
    }
    expect(normal / 20_000).toBeCloseTo(12 / 365, 2);
    for (let slot = 0; slot < 1_000; slot++) {
      const e = demoEvent(rand, 6, slot, 100);
      expect(e.depth).toBeGreaterThanOrEqual(0.075);
      expect(e.depth).toBeLessThanOrEqual(0.16);
      expect(e.recoveryMinutes).toBeLessThanOrEqual(14);
    }
  });
});
