import { describe, expect, it } from 'vitest';
import { DestinationHealth } from './destination-health.ts';

function health(random = () => 0.5) {
  let now = 1_000_000;
  const h = new DestinationHealth({ now: () => now, random, pauseAfter: 3, baseMs: 5_000, maxMs: 60_000 });
  return { h, advance: (ms: number) => (now += ms), now: () => now };
}

describe('DestinationHealth', () => {
  it('pauses a destination after three failures in a row, not before, and not others', () => {
    const { h } = health();
    for (let i = 0; i < 2; i++) {
      expect(h.admit('webhook:a')).toEqual({ go: true });
      h.settle('webhook:a', 'failed');
    }
    expect(h.admit('webhook:a')).toEqual({ go: true });
    expect(h.paused).toBe(0);
    h.settle('webhook:a', 'failed');
    expect(h.paused).toBe(1);
    expect(h.admit('webhook:a')).toMatchObject({ go: false });
    expect(h.admit('webhook:b')).toEqual({ go: true });
    expect(h.blocked()).toEqual(['webhook:a']);
  });

  it('an answer in between starts the count again', () => {
    const { h } = health();
    h.settle('d', 'failed');
    h.settle('d', 'failed');
    h.settle('d', 'answered');
    h.settle('d', 'failed');
    h.settle('d', 'failed');
    expect(h.paused).toBe(0);
  });

  it('after a pause one probe goes; its failure pauses twice as long, its answer ends the pause', () => {
    const { h, advance } = health();
    for (let i = 0; i < 3; i++) h.settle('d', 'failed');
    const first = h.admit('d');
    expect(first).toEqual({ go: false, until: expect.any(Number) });
    advance(5_000);
    expect(h.admit('d')).toEqual({ go: true });
    // The others wait while the probe is under way.
    expect(h.admit('d')).toMatchObject({ go: false });
    expect(h.blocked()).toEqual(['d']);
    h.settle('d', 'failed');
    expect(h.nextOpening()).toBeDefined();
    advance(9_999);
    expect(h.admit('d')).toMatchObject({ go: false });
    advance(1);
    expect(h.admit('d')).toEqual({ go: true });
    h.settle('d', 'answered');
    expect(h.paused).toBe(0);
    expect(h.admit('d')).toEqual({ go: true });
    expect(h.admit('d')).toEqual({ go: true });
  });

  it('pauses are jittered by ±25 % and capped', () => {
    expect(health(() => 0).h.pauseMs(1)).toBe(3_750);
    expect(health(() => 1).h.pauseMs(1)).toBe(6_250);
    expect(health(() => 0.5).h.pauseMs(3)).toBe(20_000);
    expect(health(() => 0.5).h.pauseMs(30)).toBe(60_000);
  });

  it('failures of attempts that began before the pause do not lengthen it', () => {
    const { h } = health();
    for (let i = 0; i < 3; i++) h.settle('d', 'failed');
    const until = h.nextOpening();
    h.settle('d', 'failed');
    h.settle('d', 'failed');
    expect(h.nextOpening()).toBe(until);
  });

  it('an outcome that says nothing of the destination frees the probe without ending the pause', () => {
    const { h, advance } = health();
    for (let i = 0; i < 3; i++) h.settle('d', 'failed');
    advance(10_000);
    expect(h.admit('d')).toEqual({ go: true });
    h.settle('d', 'none');
    expect(h.admit('d')).toEqual({ go: true });
  });
});

describe('DestinationHealth.healthy', () => {
  it('is a destination that answered within a minute and has not failed since', () => {
    const { h, advance } = health();
    expect(h.healthy('d')).toBe(false);
    h.settle('d', 'answered');
    expect(h.healthy('d')).toBe(true);
    h.settle('d', 'failed');
    expect(h.healthy('d')).toBe(false);
    h.settle('d', 'answered');
    advance(60_001);
    expect(h.healthy('d')).toBe(false);
  });
});
