import { describe, expect, it } from 'vitest';
import { reachability } from './check.ts';

const at = (m: number) => new Date(Date.UTC(2025, 5, 14, 12, m));

describe('exchange_outage check', () => {
  it('maps venue status to reachability: slow answers by latency, no answer by cause', () => {
    const v = { venue: 'x', checkedAt: at(0) };
    expect(reachability({ ...v, status: 'up', latencyMs: 40, detail: null }).outcome).toBe('ok');
    expect(reachability({ ...v, status: 'degraded', latencyMs: 3_000, detail: 'slow answer' })).toMatchObject(
      {
        outcome: 'ok',
        latencyMs: 3_000,
      },
    );
    expect(reachability({ ...v, status: 'degraded', latencyMs: 80, detail: 'key refused' }).outcome).toBe(
      'error',
    );
    expect(
      reachability({ ...v, status: 'down', latencyMs: null, detail: 'simulated: timeout' }).outcome,
    ).toBe('timeout');
    expect(reachability({ ...v, status: 'down', latencyMs: null, detail: 'HTTP 503' }).outcome).toBe('error');
  });
});
