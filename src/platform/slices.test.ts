import { describe, expect, it } from 'vitest';
import { nextSlice, SLICE_MS, sliceSpent } from './slices.ts';

const STEP_MS = 4;

/** Stands for a unit of CPU-bound work: the clock moves STEP_MS while the loop is held. */
function step(): void {
  const end = performance.now() + STEP_MS;
  while (performance.now() < end) {}
}

describe('time slices', () => {
  it('runs one slice of work per turn of the event loop, however many tasks share it', async () => {
    // A timer marks each turn: timers run once per turn, before the immediates that start slices.
    let turn = 0;
    let done = false;
    const tick = () => {
      turn++;
      if (!done) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const stepsPerTurn = new Map<number, number>();
    const task = async () => {
      for (let i = 0; i < 5; i++) {
        while (sliceSpent()) await nextSlice();
        step();
        stepsPerTurn.set(turn, (stepsPerTurn.get(turn) ?? 0) + 1);
      }
    };
    const started = turn;
    await Promise.all(Array.from({ length: 20 }, task));
    done = true;
    expect([...stepsPerTurn.values()].reduce((a, b) => a + b, 0)).toBe(100);
    // The turn the tasks started in also ran the test's own code: count from the next one.
    const steps = [...stepsPerTurn].filter(([t]) => t !== started).map(([, n]) => n);
    // A slice ends at the first step that finds SLICE_MS spent; other tasks wait for a later turn.
    expect(Math.max(...steps)).toBeLessThanOrEqual(Math.ceil(SLICE_MS / STEP_MS));
    expect(steps.length).toBeGreaterThanOrEqual(100 / Math.ceil(SLICE_MS / STEP_MS) - 2);
  });

  it('lets work that stays under a slice go on without waiting', async () => {
    while (sliceSpent()) await nextSlice();
    expect(sliceSpent()).toBe(false);
  });
});
