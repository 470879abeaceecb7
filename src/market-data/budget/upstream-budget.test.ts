import { describe, expect, it } from 'vitest';
import { UpstreamBudget } from './upstream-budget.ts';

const budget = (now = () => 0) =>
  new UpstreamBudget({ maxSymbolsPerOperation: 3, callsPerClientPerMinute: 2 }, now);

describe('UpstreamBudget', () => {
  it('caps distinct instruments per operation, repeats of one instrument counting once', async () => {
    const b = budget();
    await b.runOperation('a', async () => {
      for (const key of ['X', 'Y', 'X', 'Z', 'Y']) b.admit(key);
      expect(() => b.admit('W')).toThrow(expect.objectContaining({ code: 'TOO_MANY_SYMBOLS' }));
    });
    // A new operation starts with a fresh count.
    await b.runOperation('a', async () => b.admit('W'));
  });

  it("charges the operation's client, each client against its own share", async () => {
    const b = budget();
    await b.runOperation('a', async () => {
      b.charge();
      b.charge();
      expect(() => b.charge()).toThrow(
        expect.objectContaining({ code: 'RATE_LIMITED', details: { limit: 2, retryAfterSeconds: 30 } }),
      );
    });
    await b.runOperation('b', async () => b.charge());
  });

  it('neither caps nor charges background work, nor timers an operation left behind', async () => {
    const b = budget();
    for (let i = 0; i < 10; i++) b.charge();
    for (let i = 0; i < 10; i++) b.admit(`bg-${i}`);
    // A timer the operation started (a poll loop) that runs after the operation settled.
    let fired!: Promise<unknown>;
    await b.runOperation('a', async () => {
      fired = new Promise((resolve) =>
        setImmediate(() => {
          try {
            for (let i = 0; i < 10; i++) b.charge();
            resolve('not charged');
          } catch (error) {
            resolve(error);
          }
        }),
      );
    });
    expect(await fired).toBe('not charged');
  });
});
