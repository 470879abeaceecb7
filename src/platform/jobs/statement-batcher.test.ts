import { describe, expect, it } from 'vitest';
import { StatementBatcher } from './statement-batcher.ts';

/** A flush that records each call and answers each item doubled, after `release()` when gated. */
function recorder(gated = false) {
  const calls: number[][] = [];
  const gates: Array<() => void> = [];
  const flush = async (items: readonly number[]) => {
    calls.push([...items]);
    if (gated) await new Promise<void>((resolve) => gates.push(resolve));
    if (items.includes(-1)) throw new Error('bad item');
    return items.map((n) => n * 2);
  };
  const release = () => {
    for (const open of gates.splice(0)) open();
  };
  return { calls, flush, release };
}

describe('StatementBatcher', () => {
  it('sends the items given together in one call and answers each its own output', async () => {
    const r = recorder();
    const batcher = new StatementBatcher(r.flush);
    expect(await Promise.all([1, 2, 3].map((n) => batcher.run(n)))).toEqual([2, 4, 6]);
    expect(r.calls).toEqual([[1, 2, 3]]);
  });

  it('sends the items that arrive during a call together in the next', async () => {
    const r = recorder(true);
    const batcher = new StatementBatcher(r.flush);
    const first = batcher.run(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.calls).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => batcher.run(n));
    r.release();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    r.release();
    expect(await Promise.all(later)).toEqual([4, 6, 8]);
    expect(r.calls).toEqual([[1], [2, 3, 4]]);
  });

  it('splits at max items', async () => {
    const r = recorder();
    const batcher = new StatementBatcher(r.flush, { max: 2 });
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.run(n)));
    expect(r.calls).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fails only the caller whose item fails a shared call', async () => {
    const r = recorder();
    const batcher = new StatementBatcher(r.flush);
    const results = await Promise.allSettled([1, -1, 3].map((n) => batcher.run(n)));
    expect(results.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[0]).toMatchObject({ value: 2 });
    expect(results[1]).toMatchObject({ reason: expect.objectContaining({ message: 'bad item' }) });
    expect(r.calls).toEqual([[1, -1, 3], [1], [-1], [3]]);
  });

  it('waits up to its window for company', async () => {
    const r = recorder();
    const batcher = new StatementBatcher(r.flush, { windowMs: 30 });
    const first = batcher.run(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = batcher.run(2);
    expect(r.calls).toEqual([]);
    await Promise.all([first, second]);
    expect(r.calls).toEqual([[1, 2]]);
  });

  it('idle() resolves once every item given has been written', async () => {
    const r = recorder(true);
    const batcher = new StatementBatcher(r.flush, { windowMs: 10_000 });
    const pending = [1, 2].map((n) => batcher.run(n));
    const idle = batcher.idle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.calls).toEqual([[1, 2]]);
    r.release();
    await idle;
    expect(await Promise.all(pending)).toEqual([2, 4]);
  });
});
