import { describe, expect, it } from 'vitest';
import { withCallPriority } from '../../budget/call-priority.ts';
import { ProviderError } from '../provider-errors.ts';
import { ProviderLimiter } from './provider-limiter.ts';

const signal = () => AbortSignal.timeout(5_000);
const background = (limiter: ProviderLimiter) => withCallPriority('background', () => limiter.take(signal()));
const interactive = (limiter: ProviderLimiter) => limiter.take(signal());

describe('ProviderLimiter: interactive callers first', () => {
  it('keeps a token for clients while background work takes the rest (a 5-a-minute provider)', async () => {
    // Alpha Vantage's shape: 4 a minute, burst 2, one kept; a call may wait 8 s at most.
    const limiter = new ProviderLimiter({
      provider: 'alphavantage',
      ratePerSecond: 4 / 60,
      burst: 2,
      maxWaitMs: 8_000,
    });
    expect(limiter.interactiveReserve).toBe(1);
    await background(limiter);
    // The next spare token is 15 s away, past the deadline: skipped at once, not queued.
    const skipped = await background(limiter).catch((e: unknown) => e);
    expect(skipped).toBeInstanceOf(ProviderError);
    expect(skipped).toMatchObject({
      kind: 'deferred',
      message: expect.stringMatching(
        /background call skipped for want of provider budget \(4 calls a minute, 1 kept/,
      ),
    });
    // The client's call finds the kept token at once.
    const started = performance.now();
    await interactive(limiter);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('lets waiting background work go only after the interactive calls booked meanwhile', async () => {
    const limiter = new ProviderLimiter({ provider: 'p', ratePerSecond: 20, burst: 2, maxWaitMs: 2_000 });
    await background(limiter);
    await interactive(limiter);
    const order: string[] = [];
    const waiting = background(limiter).then(() => order.push('background'));
    await new Promise((r) => setTimeout(r, 5));
    const client = interactive(limiter).then(() => order.push('interactive'));
    await Promise.all([waiting, client]);
    expect(order).toEqual(['interactive', 'background']);
  });

  it('skips background work whose wait outlasts its caller', async () => {
    const limiter = new ProviderLimiter({ provider: 'p', ratePerSecond: 1, burst: 2 });
    await background(limiter);
    const controller = new AbortController();
    const waiting = withCallPriority('background', () => limiter.take(controller.signal)).catch(
      (e: unknown) => e,
    );
    controller.abort();
    expect(await waiting).toMatchObject({ kind: 'deferred' });
  });

  it('refuses a reserve that leaves background work nothing', () => {
    expect(
      () => new ProviderLimiter({ provider: 'p', ratePerSecond: 1, burst: 2, interactiveReserve: 2 }),
    ).toThrow(/p: interactiveReserve must be a whole number from 0 to burst - 1 \(1\); got 2/);
    // A burst of one keeps nothing back by default.
    expect(new ProviderLimiter({ provider: 'p', ratePerSecond: 1, burst: 1 }).interactiveReserve).toBe(0);
  });
});
