import { describe, expect, it } from 'vitest';
import { HealthBoard } from './health.ts';

describe('HealthBoard', () => {
  it('keeps configured order while there is no evidence', () => {
    const board = new HealthBoard(() => 0);
    expect(board.rank(['yahoo', 'finnhub'], 'quote')).toEqual(['yahoo', 'finnhub']);
  });

  it('ranks a failing provider below a working one', () => {
    let now = 0;
    const board = new HealthBoard(() => now);
    for (let i = 0; i < 5; i++) {
      now += 1000;
      board.record('yahoo', 'quote', { ok: false, latencyMs: 8000, errorKind: 'timeout' }, 'timeout');
      board.record('finnhub', 'quote', { ok: true, latencyMs: 120 });
    }
    expect(board.rank(['yahoo', 'finnhub'], 'quote')).toEqual(['finnhub', 'yahoo']);
    const yahoo = board.snapshot().find((s) => s.provider === 'yahoo')!;
    expect(yahoo).toMatchObject({ calls: 5, failures: 5, lastError: 'timeout' });
    expect(yahoo.errorRate).toBeGreaterThan(0.9);
  });

  it('prefers the faster and fresher of two working providers', () => {
    const board = new HealthBoard(() => 0);
    board.record('slow', 'quote', { ok: true, latencyMs: 2000, stalenessMs: 1000 });
    board.record('fast', 'quote', { ok: true, latencyMs: 100, stalenessMs: 1000 });
    board.record('stale', 'quote', { ok: true, latencyMs: 100, stalenessMs: 900_000 });
    expect(board.rank(['slow', 'stale', 'fast'], 'quote')).toEqual(['fast', 'slow', 'stale']);
  });

  it('does not count answers about the data (unknown symbol) as failures', () => {
    const board = new HealthBoard(() => 0);
    board.record('yahoo', 'quote', { ok: false, latencyMs: 50, errorKind: 'unknown_symbol' });
    expect(board.score('yahoo', 'quote')).toBe(1);
  });

  it('forgives old failures as time passes', () => {
    let now = 0;
    const board = new HealthBoard(() => now, 60_000);
    board.record('yahoo', 'quote', { ok: false, latencyMs: 100, errorKind: 'upstream' });
    const bad = board.score('yahoo', 'quote');
    now += 10 * 60_000;
    board.record('yahoo', 'quote', { ok: true, latencyMs: 100 });
    expect(board.score('yahoo', 'quote')).toBeGreaterThan(bad * 5);
  });
});
