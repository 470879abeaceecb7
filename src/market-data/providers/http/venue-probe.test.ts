import { describe, expect, it } from 'vitest';
import { ProviderError } from '../provider-errors.ts';
import { probeVenue } from './venue-probe.ts';

const clock = { now: () => new Date('2026-01-05T15:00:00Z') };

describe('probeVenue', () => {
  it('is up when the probe answers quickly, degraded when slowly', async () => {
    expect(await probeVenue('x', async () => {}, clock)).toMatchObject({
      venue: 'x',
      status: 'up',
      detail: null,
      checkedAt: clock.now(),
    });
    const slow = await probeVenue('x', () => new Promise((r) => setTimeout(r, 1_050)), clock);
    expect(slow).toMatchObject({
      status: 'degraded',
      detail: expect.stringMatching(/^slow answer \(\d+ ms > 1000 ms\)$/),
    });
  });

  it('is down without latency when nothing answered', async () => {
    for (const kind of ['timeout', 'circuit_open'] as const) {
      expect(
        await probeVenue('x', () => Promise.reject(new ProviderError('x', kind, 'no answer')), clock),
      ).toMatchObject({
        status: 'down',
        latencyMs: null,
      });
    }
    expect(await probeVenue('x', () => Promise.reject(new Error('boom')), clock)).toMatchObject({
      status: 'down',
      detail: 'boom',
    });
  });

  it('is degraded when it answered something unusable', async () => {
    const refused = new ProviderError('x', 'unauthorized', 'refused (401)', { status: 401 });
    expect(await probeVenue('x', () => Promise.reject(refused), clock)).toMatchObject({
      status: 'degraded',
      latencyMs: expect.any(Number),
      detail: 'x: refused (401)',
    });
  });
});
