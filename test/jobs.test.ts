import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { MIGRATIONS_FOLDER } from '../src/app-database.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { queryRows } from '../src/platform/db/raw.ts';
import { defineJob, InvalidJobPayloadError } from '../src/platform/jobs/job.ts';
import { Jobs } from '../src/platform/jobs/jobs.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createTestDatabase, drivers, type TestDatabase } from './support/databases.ts';

const logger = createLogger('silent');

const noteJob = defineJob({
  name: 'test.note',
  schema: z.object({ text: z.string().min(1), at: z.iso.datetime() }),
  options: { retryLimit: 0 },
});
const tickJob = defineJob({ name: 'test.tick', schema: z.object({ source: z.literal('cron') }) });

/**
 * A job handler that takes `ms` per job, then calls `after` with the job's `n` (which may throw to
 * fail it); `peak` is the most jobs that ran at once, `ran` the jobs that finished.
 */
function overlapProbe(ms: number, after: (n: number) => void = () => {}) {
  let running = 0;
  const probe = {
    peak: 0,
    ran: [] as number[],
    handler: async ({ n }: { n: number }) => {
      running++;
      probe.peak = Math.max(probe.peak, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running--;
      probe.ran.push(n);
      after(n);
    },
  };
  return probe;
}

describe.each(drivers)('jobs on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let jobs: Jobs;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    handle = await openDatabase({ url: database.url, pgliteDir: pgliteDirFor(database.dataDir), logger });
    await runMigrations(handle, MIGRATIONS_FOLDER);
    await handle.db.execute(
      sql`create table if not exists job_probe (id serial primary key, note text not null)`,
    );
    jobs = new Jobs(handle, { logger, cronMonitorIntervalSeconds: 1, cronWorkerIntervalSeconds: 1 });
    await jobs.start();
  });

  afterAll(async () => {
    await jobs?.stop(1_000);
    await handle?.close();
    await database?.cleanup();
  });

  it('refuses, rather than deadlocks, a send in a transaction before the job has a queue', async () => {
    const fresh = defineJob({ name: 'test.no-queue-yet', schema: z.object({}) });
    await expect(handle.db.transaction((tx) => jobs.send(fresh, {}, { tx }))).rejects.toThrow(
      /has no queue yet/,
    );
    await jobs.ensureQueue(fresh);
    await expect(handle.db.transaction((tx) => jobs.send(fresh, {}, { tx }))).resolves.toEqual(
      expect.any(String),
    );
  });

  it('drops a job sent inside a transaction that rolls back, with the rows written beside it', async () => {
    const before = await jobs.queueSize(noteJob);
    const rollback = new Error('roll back on purpose');
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into job_probe (note) values ('rolled back')`);
        const id = await jobs.send(noteJob, { text: 'never', at: new Date().toISOString() }, { tx });
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(await jobs.queueSize(noteJob)).toBe(before);
    const probe = await queryRows(
      handle.db,
      sql`select count(*)::int as n from job_probe where note = 'rolled back'`,
    );
    expect(probe[0]?.n).toBe(0);
  });

  it('keeps a job sent inside a transaction that commits, and runs it with the validated payload', async () => {
    const at = new Date().toISOString();
    const id = await handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into job_probe (note) values ('committed')`);
      return jobs.send(noteJob, { text: 'kept', at }, { tx });
    });
    expect(id).toBeTruthy();
    const received = new Promise<{ data: unknown; id: string }>((resolve) => {
      void jobs.work(noteJob, async (data, job) => resolve({ data, id: job.id }), {
        pollingIntervalSeconds: 0.5,
      });
    });
    const job = await received;
    expect(job).toEqual({ data: { text: 'kept', at }, id });
  });

  it('runs up to its concurrency in parallel and settles each job on its own', async () => {
    const batchJob = defineJob({
      name: 'test.batch',
      schema: z.object({ n: z.number().int() }),
      options: { retryLimit: 0 },
    });
    await jobs.ensureQueue(batchJob);
    const ids: string[] = [];
    for (let n = 0; n < 6; n++) ids.push((await jobs.send(batchJob, { n }))!);
    const probe = overlapProbe(50, (n) => {
      if (n % 3 === 0) throw new Error(`job ${n} refused`);
    });
    await jobs.work(batchJob, probe.handler, { concurrency: 6, pollingIntervalSeconds: 0.5 });
    await vi.waitFor(
      async () => {
        const states = await Promise.all(ids.map((id) => jobs.jobState(batchJob, id)));
        expect(states).toEqual(['failed', 'completed', 'completed', 'failed', 'completed', 'completed']);
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(probe.ran.sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(probe.peak).toBeGreaterThan(1);
  });

  it('wakes idle workers for jobs committed in a transaction instead of waiting for their poll', async () => {
    const wakeJob = defineJob({ name: 'test.wake', schema: z.object({ n: z.number().int() }) });
    const ran: number[] = [];
    // A poll far longer than the test: only a wake gets these jobs run.
    await jobs.work(wakeJob, async ({ n }) => void ran.push(n), { pollingIntervalSeconds: 600 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await handle.db.transaction((tx) => jobs.sendMany(wakeJob, [{ n: 1 }, { n: 2 }], { tx }));
    jobs.wake(wakeJob);
    await vi.waitFor(() => expect(ran.sort()).toEqual([1, 2]), { timeout: 5_000, interval: 50 });
  });

  it('fills every free slot from a backlog that only its poll found', async () => {
    const backlogJob = defineJob({ name: 'test.backlog', schema: z.object({ n: z.number().int() }) });
    const probe = overlapProbe(300);
    await jobs.work(backlogJob, probe.handler, { concurrency: 4, pollingIntervalSeconds: 0.5 });
    // The worker fetches once as it starts and finds nothing; after that only its poll looks.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Committed in a transaction and not woken: found the way jobs sent by another instance are.
    await handle.db.transaction((tx) =>
      jobs.sendMany(
        backlogJob,
        Array.from({ length: 8 }, (_, n) => ({ n })),
        { tx },
      ),
    );
    await vi.waitFor(() => expect(probe.ran).toHaveLength(8), { timeout: 10_000, interval: 50 });
    // One fetch took a job for each of the four slots.
    expect(probe.peak).toBeGreaterThanOrEqual(3);
    expect(probe.ran.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('hands a handler its payload exactly as sent, quotes, backslashes and all', async () => {
    const textJob = defineJob({
      name: 'test.text',
      schema: z.object({ text: z.string(), list: z.array(z.string()) }),
    });
    const payload = {
      text: `it's "quoted" \\ back\\slashed\n{braces}, commas; $1 and ' ); delete from job_probe; --`,
      list: ['a,b', '"c"', "d'e", '\\f', '{g}', 'NULL'],
    };
    const count = async () =>
      (await queryRows(handle.db, sql`select count(*)::int as n from job_probe`))[0]?.n;
    const before = await count();
    const received: unknown[] = [];
    await jobs.work(textJob, async (data) => void received.push(data), { pollingIntervalSeconds: 0.5 });
    // Sent alone and inside a transaction: both paths to the job table (on the embedded database,
    // both are prepared statements with the values written as literals).
    await jobs.send(textJob, payload);
    await handle.db.transaction((tx) => jobs.send(textJob, payload, { tx }));
    jobs.wake(textJob);
    await vi.waitFor(() => expect(received).toEqual([payload, payload]), { timeout: 10_000, interval: 50 });
    expect(await count()).toBe(before);
  });

  it('rejects an invalid payload at send time, naming the field', async () => {
    await expect(jobs.send(noteJob, { text: '', at: 'yesterday' } as never)).rejects.toThrow(
      InvalidJobPayloadError,
    );
    await expect(jobs.send(noteJob, { text: '', at: 'yesterday' } as never)).rejects.toThrow(/text: .*at: /);
  });

  it('turns a due cron schedule into a job', async () => {
    const ran = new Promise<unknown>((resolve) => {
      void jobs.work(tickJob, async (data) => resolve(data), { pollingIntervalSeconds: 0.5 });
    });
    // Every minute: the previous tick is always less than 60 s ago, so the schedule is due now.
    await jobs.schedule(tickJob, '* * * * *', { source: 'cron' });
    await expect(ran).resolves.toEqual({ source: 'cron' });
    await jobs.unschedule(tickJob);
  });
});

describe('job payloads are validated again when run', () => {
  it('fails a job whose stored payload does not match the schema, without calling the handler', async () => {
    const database = await createTestDatabase('pglite');
    const handle = await openDatabase({ pgliteDir: pgliteDirFor(database.dataDir), logger });
    const jobs = new Jobs(handle, { logger });
    try {
      await jobs.start();
      // An older producer with a looser schema enqueued this payload.
      const loose = defineJob({ name: noteJob.name, schema: z.object({ text: z.string() }) });
      const id = (await jobs.send(loose, { text: 'no timestamp' }))!;
      let called = false;
      await jobs.work(
        noteJob,
        async () => {
          called = true;
        },
        { pollingIntervalSeconds: 0.5 },
      );
      await vi.waitFor(async () => expect(await jobs.jobState(noteJob, id)).toBe('failed'), {
        timeout: 10_000,
        interval: 100,
      });
      expect(called).toBe(false);
    } finally {
      await jobs.stop(1_000);
      await handle.close();
      await database.cleanup();
    }
  });
});
