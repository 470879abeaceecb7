import type PgBoss from 'pg-boss';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type QueueEngine, QueueWorker } from './queue-worker.ts';

/** An in-memory queue: jobs waiting, fetched (active), completed and failed; each fetch recorded. */
function fakeEngine() {
  const waiting: PgBoss.Job<unknown>[] = [];
  const state = {
    waiting,
    fetches: [] as Array<{ asked: number; got: number }>,
    completed: [] as string[][],
    failed: [] as Array<{ ids: string[]; message: string }>,
    /** When set, the next fetch waits for it (to send jobs while a fetch is under way). */
    hold: undefined as Promise<void> | undefined,
  };
  let next = 0;
  const add = (n: number, expireInSeconds = 60) => {
    for (let i = 0; i < n; i++) {
      const id = `j${++next}`;
      waiting.push({ id, name: 'q', data: { id }, expireInSeconds } as unknown as PgBoss.Job<unknown>);
    }
  };
  const engine: QueueEngine = {
    async fetch(_name, { batchSize }) {
      const hold = state.hold;
      state.hold = undefined;
      // The read happens first: jobs sent while the fetch is held are not in it.
      const jobs = waiting.splice(0, batchSize);
      await hold;
      state.fetches.push({ asked: batchSize, got: jobs.length });
      return jobs;
    },
    async complete(_name, ids) {
      state.completed.push(ids);
    },
    async fail(_name, ids, data) {
      state.failed.push({ ids, message: (data as { message: string }).message });
    },
  };
  return { engine, state, add };
}

/** A handler whose jobs end when told to, counting how many run at once. */
function controlled() {
  const ends = new Map<string, (error?: Error) => void>();
  const probe = { peak: 0, running: 0 };
  const run = (job: PgBoss.Job<unknown>) =>
    new Promise<void>((resolve, reject) => {
      probe.running++;
      probe.peak = Math.max(probe.peak, probe.running);
      ends.set(job.id, (error) => {
        probe.running--;
        ends.delete(job.id);
        if (error) reject(error);
        else resolve();
      });
    });
  const end = (id: string, error?: Error) => ends.get(id)?.(error);
  return { run, end, ends, probe };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const workers: QueueWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop(0)));
  vi.useRealTimers();
});

function worker(engine: QueueEngine, run: (job: PgBoss.Job<unknown>) => Promise<unknown>, slots: number) {
  const errors: unknown[] = [];
  const w = new QueueWorker({
    queue: 'q',
    slots,
    pollingMs: 60_000,
    engine,
    run,
    onError: (error) => errors.push(error),
  });
  workers.push(w);
  return { w, errors };
}

describe('QueueWorker', () => {
  it('fetches as many jobs as it has free slots, and one more fetch for each slot freed', async () => {
    const { engine, state, add } = fakeEngine();
    const h = controlled();
    add(10);
    const { w } = worker(engine, h.run, 4);
    w.start();
    await vi.waitFor(() => expect(h.probe.running).toBe(4));
    expect(state.fetches).toEqual([{ asked: 4, got: 4 }]);
    // A slow job keeps only its own slot: the others are taken up again as their jobs end.
    h.end('j2');
    h.end('j3');
    await vi.waitFor(() => expect(h.probe.running).toBe(4));
    expect(state.fetches.at(-1)).toEqual({ asked: 2, got: 2 });
    for (const id of [...h.ends.keys()]) h.end(id);
    await vi.waitFor(() => expect(state.waiting).toHaveLength(0));
    for (const id of [...h.ends.keys()]) h.end(id);
    await vi.waitFor(() => expect(h.probe.running).toBe(0));
    expect(h.probe.peak).toBe(4);
    await vi.waitFor(() => expect(state.completed.flat().sort()).toHaveLength(10));
  });

  it('while a backlog waits, gathers freed slots for one fetch: a quarter of them, or 25 ms', async () => {
    const { engine, state, add } = fakeEngine();
    const h = controlled();
    add(20);
    const { w } = worker(engine, h.run, 8);
    w.start();
    await vi.waitFor(() => expect(h.probe.running).toBe(8));
    h.end('j1');
    await settle();
    await settle();
    expect(state.fetches).toHaveLength(1);
    h.end('j2');
    await vi.waitFor(() => expect(state.fetches).toHaveLength(2));
    expect(state.fetches[1]).toEqual({ asked: 2, got: 2 });
    // One slot alone is filled too, a moment later.
    h.end('j3');
    await vi.waitFor(() => expect(state.fetches).toHaveLength(3));
    expect(state.fetches[2]).toEqual({ asked: 1, got: 1 });
  });

  it('completes the jobs that end together in one statement and fails a failed one by itself', async () => {
    const { engine, state, add } = fakeEngine();
    const h = controlled();
    add(3);
    const { w, errors } = worker(engine, h.run, 3);
    w.start();
    await vi.waitFor(() => expect(h.probe.running).toBe(3));
    h.end('j1');
    h.end('j2', new Error('refused'));
    h.end('j3');
    await vi.waitFor(() => expect(state.completed.flat()).toHaveLength(2));
    expect(state.completed).toEqual([['j1', 'j3']]);
    expect(state.failed).toEqual([{ ids: ['j2'], message: 'refused' }]);
    expect(errors).toHaveLength(1);
  });

  it('stops fetching once a fetch comes back short, until woken', async () => {
    const { engine, state, add } = fakeEngine();
    const { w } = worker(engine, async () => {}, 8);
    w.start();
    await vi.waitFor(() => expect(state.fetches).toHaveLength(1));
    await settle();
    expect(state.fetches).toEqual([{ asked: 8, got: 0 }]);
    add(2);
    w.wake();
    await vi.waitFor(() => expect(state.completed.flat()).toEqual(['j1', 'j2']));
    expect(state.fetches).toHaveLength(2);
  });

  it('fetches again when woken during a fetch that could not see the new job', async () => {
    const { engine, state, add } = fakeEngine();
    const { w } = worker(engine, async () => {}, 8);
    let release = () => {};
    state.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    w.start();
    await settle();
    add(1);
    w.wake();
    release();
    await vi.waitFor(() => expect(state.completed.flat()).toEqual(['j1']));
    expect(state.fetches.map((f) => f.got)).toEqual([0, 1]);
  });

  it('fails a job that runs past its expiry and frees its slot', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { engine, state, add } = fakeEngine();
    add(1, 2);
    const { w } = worker(engine, () => new Promise(() => {}), 1);
    w.start();
    await vi.waitFor(() => expect(w.running).toBe(1));
    await vi.advanceTimersByTimeAsync(2_100);
    expect(state.failed).toEqual([{ ids: ['j1'], message: 'the job ran longer than its 2 s' }]);
    expect(w.running).toBe(0);
  });

  it('on stop, waits for running jobs, then fails the ones still running', async () => {
    const { engine, state, add } = fakeEngine();
    const h = controlled();
    add(2);
    const { w } = worker(engine, h.run, 2);
    w.start();
    await vi.waitFor(() => expect(h.probe.running).toBe(2));
    setTimeout(() => h.end('j1'), 20);
    await w.stop(200);
    expect(state.completed).toEqual([['j1']]);
    expect(state.failed).toEqual([{ ids: ['j2'], message: 'the instance stopped while the job ran' }]);
    add(1);
    w.wake();
    await settle();
    expect(state.fetches).toHaveLength(1);
  });
});
