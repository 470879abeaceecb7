import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../src/app-database.ts';
import { executeJob } from '../../src/fk-dsl/fk-dsl.jobs.ts';
import { type InstanceRegistry, TaskQueue, type TaskSettings } from '../../src/fk-dsl/task-queue.ts';
import { fkDslTasks } from '../../src/fk-dsl/tasks.sql.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../../src/platform/db/database.ts';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { serviceInstances } from '../../src/server-info/instances.sql.ts';
import { ServerInfoService } from '../../src/server-info/server-info.service.ts';
import { createTestApp, graphql, type TestApp } from '../support/app.ts';
import { createTestDatabase, drivers, type TestDatabase } from '../support/databases.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const logger = createLogger('silent');
const SELF = randomUUID();
const MINUTE = 60_000;
const SETTINGS: TaskSettings = {
  maxPendingTasksPerClient: 20,
  maxResultBytes: 1_024,
  taskMaxAttempts: 3,
  taskRetentionDays: 2,
};

/** Every reading is one second after the previous one, so start times never tie. */
function steppingClock() {
  let at = Date.parse('2025-06-11T15:00:00Z');
  return {
    now: () => {
      at += 1_000;
      return new Date(at);
    },
    peek: () => new Date(at),
  };
}

const alone: InstanceRegistry = {
  instanceId: SELF,
  liveInstanceIds: async () => [SELF],
  onHeartbeat: () => () => {},
};

describe.each(drivers)('FK-DSL background tasks on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let clock: ReturnType<typeof steppingClock>;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    handle = await openDatabase({ url: database.url, pgliteDir: pgliteDirFor(database.dataDir), logger });
    await runMigrations(handle, MIGRATIONS_FOLDER);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.cleanup();
  });
  beforeEach(async () => {
    clock = steppingClock();
    await handle.db.delete(fkDslTasks);
    await handle.db.delete(serviceInstances);
  });

  /** A queue whose jobs are only recorded and whose runs record the query and echo it back. */
  function queue(settings: Partial<TaskSettings> = {}, instances = alone) {
    const sent: string[] = [];
    const ran: string[] = [];
    const gates = new Map<string, Promise<void>>();
    const tasks = new TaskQueue({
      db: handle.db,
      jobs: {
        send: async (_job, input) => {
          sent.push((input as { taskId: string }).taskId);
          return randomUUID();
        },
      },
      clock,
      logger,
      settings: { ...SETTINGS, ...settings },
      instances,
      run: async (query) => {
        ran.push(query);
        await gates.get(query);
        if (query === 'BIG') return { rows: 'x'.repeat(2_000) };
        return { query };
      },
      publicError: (error) => ({ code: 'INTERNAL', message: String(error) }),
    });
    const drain = async () => {
      while (await tasks.runNext()) {}
    };
    return { tasks, sent, ran, gates, drain };
  }

  const row = async (id: string) =>
    (await handle.db.select().from(fkDslTasks).where(eq(fkDslTasks.id, id)))[0]!;

  it('refuses a client more unfinished tasks than FKDSL_MAX_PENDING_TASKS_PER_CLIENT, and only that client', async () => {
    const { tasks, sent } = queue({ maxPendingTasksPerClient: 3 });
    for (const q of ['A1', 'A2', 'A3']) await tasks.submit(q, 'client-a', 'client-a');
    const refused = await tasks.submit('A4', 'client-a', 'client-a').catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'TOO_MANY_TASKS',
      details: { limit: 3, setting: 'FKDSL_MAX_PENDING_TASKS_PER_CLIENT' },
      message: expect.stringContaining('FKDSL_MAX_PENDING_TASKS_PER_CLIENT'),
    });
    expect(sent).toHaveLength(3);
    await expect(tasks.submit('B1', 'client-b', 'client-b')).resolves.toMatchObject({
      status: 'queued',
      clientId: 'client-b',
    });
    // A finished task no longer counts.
    await tasks.runNext();
    await expect(tasks.submit('A4', 'client-a', 'client-a')).resolves.toMatchObject({ status: 'queued' });
  });

  it('holds the cap when one client submits many at the same moment', async () => {
    const { tasks } = queue({ maxPendingTasksPerClient: 3 });
    const answers = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => tasks.submit(`C${i}`, 'client-c', 'client-c')),
    );
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(3);
    for (const a of answers.filter((a) => a.status === 'rejected')) {
      expect((a as PromiseRejectedResult).reason).toMatchObject({ code: 'TOO_MANY_TASKS' });
    }
  });

  it("runs another client's task next instead of after one client's whole backlog", async () => {
    const { tasks, ran, drain } = queue();
    for (let i = 1; i <= 6; i++) await tasks.submit(`A${i}`, 'client-a', 'client-a');
    await tasks.submit('B1', 'client-b', 'client-b');
    await drain();
    expect(ran).toEqual(['A1', 'B1', 'A2', 'A3', 'A4', 'A5', 'A6']);
  });

  it('takes turns between clients, and favours the client with nothing running', async () => {
    const { tasks, ran, gates, drain } = queue();
    for (const q of ['A1', 'A2', 'A3']) await tasks.submit(q, 'client-a', 'client-a');
    for (const q of ['B1', 'B2', 'B3']) await tasks.submit(q, 'client-b', 'client-b');
    let release!: () => void;
    gates.set('A1', new Promise((resolve) => (release = resolve)));
    const first = tasks.runNext();
    // A1 is running (held); the next free worker picks B1, not the older A2.
    await expect.poll(() => ran).toEqual(['A1']);
    await tasks.runNext();
    release();
    await first;
    await drain();
    expect(ran).toEqual(['A1', 'B1', 'A2', 'B2', 'A3', 'B3']);
  });

  it('fails a task whose result is over FKDSL_MAX_RESULT_BYTES instead of storing part of it', async () => {
    const { tasks, drain } = queue({ maxResultBytes: 1_024 });
    const big = await tasks.submit('BIG', 'client-a', 'client-a');
    const small = await tasks.submit('SMALL', 'client-a', 'client-a');
    await drain();
    expect(await row(big.id)).toMatchObject({
      status: 'failed',
      result: null,
      error: {
        code: 'RESULT_TOO_LARGE',
        message: expect.stringMatching(/over the 1024 bytes.*FKDSL_MAX_RESULT_BYTES/),
      },
    });
    expect(await row(small.id)).toMatchObject({
      status: 'completed',
      result: { query: 'SMALL' },
      error: null,
    });
  });

  it('requeues or fails the running tasks of instances that stopped, and leaves live ones alone', async () => {
    const serverInfo = new ServerInfoService(handle.db, clock, logger, 'postgres', 'test', SELF);
    const now = clock.peek().getTime();
    const peer = (id: string, lastSeenAt: number) => ({
      id,
      hostname: 'h',
      pid: 1,
      version: 'test',
      startedAt: new Date(now - 60 * MINUTE),
      lastSeenAt: new Date(lastSeenAt),
    });
    const [live, stale, gone] = [randomUUID(), randomUUID(), randomUUID()];
    await handle.db
      .insert(serviceInstances)
      .values([peer(live, now - 10_000), peer(stale, now - 10 * MINUTE)]);
    const running = (instanceId: string | null, attempts = 1) => ({
      id: randomUUID(),
      query: 'Q',
      status: 'running' as const,
      clientId: 'client-a',
      createdAt: new Date(now - 20 * MINUTE),
      startedAt: new Date(now - 17 * MINUTE),
      instanceId,
      attempts,
    });
    const tasks = {
      noHeartbeat: running(gone),
      oldHeartbeat: running(stale),
      legacy: running(null),
      livePeer: running(live),
      // Marked as this instance's, but this queue is not running it: stranded, so requeued too.
      mine: running(SELF),
      exhausted: running(gone, 3),
    };
    await handle.db.insert(fkDslTasks).values(Object.values(tasks));
    const q = queue({}, serverInfo);

    await q.tasks.recoverLostTasks();
    await q.tasks.recoverLostTasks();

    for (const task of [tasks.noHeartbeat, tasks.oldHeartbeat, tasks.legacy, tasks.mine]) {
      expect(await row(task.id)).toMatchObject({
        status: 'queued',
        instanceId: null,
        error: { code: 'INSTANCE_LOST', message: expect.stringContaining('queued to run again') },
      });
    }
    expect(q.sent.sort()).toEqual(
      [tasks.noHeartbeat.id, tasks.oldHeartbeat.id, tasks.legacy.id, tasks.mine.id].sort(),
    );
    expect(await row(tasks.livePeer.id)).toMatchObject({ status: 'running', instanceId: live });
    expect(await row(tasks.exhausted.id)).toMatchObject({
      status: 'failed',
      error: { code: 'INSTANCE_LOST', message: expect.stringContaining('FKDSL_TASK_MAX_ATTEMPTS') },
    });

    await q.drain();
    expect(await row(tasks.noHeartbeat.id)).toMatchObject({ status: 'completed', error: null, attempts: 2 });
  });

  it('recovers on each heartbeat, and the heartbeat forgets instances gone for three live windows', async () => {
    const serverInfo = new ServerInfoService(handle.db, clock, logger, 'postgres', 'test', SELF);
    await serverInfo.register();
    const q = queue({}, serverInfo);
    await q.tasks.startRecovery();
    const now = clock.peek().getTime();
    const [recent, gone] = [randomUUID(), randomUUID()];
    const peer = (id: string, ago: number) => ({
      id,
      hostname: 'h',
      pid: 1,
      version: 'test',
      startedAt: new Date(now - 60 * MINUTE),
      lastSeenAt: new Date(now - ago),
    });
    await handle.db.insert(serviceInstances).values([peer(recent, 60_000), peer(gone, 3 * MINUTE)]);
    const orphan = randomUUID();
    await handle.db.insert(fkDslTasks).values({
      id: orphan,
      query: 'Q',
      status: 'running',
      clientId: 'client-a',
      createdAt: new Date(now),
      startedAt: new Date(now),
      instanceId: gone,
      attempts: 1,
    });

    await serverInfo.heartbeat();

    const ids = (await handle.db.select().from(serviceInstances)).map((r) => r.id).sort();
    expect(ids).toEqual([SELF, recent].sort());
    expect(await row(orphan)).toMatchObject({ status: 'queued', error: { code: 'INSTANCE_LOST' } });
    expect(q.sent).toEqual([orphan]);
    q.tasks.stopRecovery();
    await serverInfo.deregister();
  });

  it('treats every other instance as gone on the embedded database, which one process holds', async () => {
    const serverInfo = new ServerInfoService(handle.db, clock, logger, 'pglite', 'test', SELF);
    const other = randomUUID();
    const now = clock.now();
    await handle.db
      .insert(serviceInstances)
      .values({ id: other, hostname: 'h', pid: 1, version: 'test', startedAt: now, lastSeenAt: now });
    expect(await serverInfo.liveInstanceIds()).toEqual([SELF]);
  });

  it('keeps the outcome of the newer run when a task was recovered while its old run went on', async () => {
    const { tasks, gates } = queue();
    const task = await tasks.submit('SLOW', 'client-a', 'client-a');
    let release!: () => void;
    gates.set('SLOW', new Promise((resolve) => (release = resolve)));
    const run = tasks.runNext();
    await expect.poll(async () => (await row(task.id)).status).toBe('running');
    const other = randomUUID();
    await handle.db.update(fkDslTasks).set({ instanceId: other }).where(eq(fkDslTasks.id, task.id));
    release();
    await run;
    expect(await row(task.id)).toMatchObject({ status: 'running', instanceId: other, result: null });
  });

  it("requeues this instance's own task when its run ended without storing an outcome", async () => {
    const { tasks } = queue();
    const task = await tasks.submit('STRANDED', 'client-a', 'client-a');
    // A run claimed it and then lost its database before storing the outcome: the row says this
    // (live) instance runs it, but nothing here does any more.
    const startedAt = new Date(clock.peek().getTime() - 5 * MINUTE);
    await handle.db
      .update(fkDslTasks)
      .set({ status: 'running', instanceId: SELF, startedAt, attempts: 1 })
      .where(eq(fkDslTasks.id, task.id));
    await tasks.recoverLostTasks();
    expect(await row(task.id)).toMatchObject({ status: 'queued', instanceId: null });
  });

  it('leaves alone a task this instance is running, however long it runs', async () => {
    const { tasks, gates } = queue();
    const task = await tasks.submit('LONG', 'client-a', 'client-a');
    let release!: () => void;
    gates.set('LONG', new Promise((resolve) => (release = resolve)));
    const run = tasks.runNext();
    await expect.poll(async () => (await row(task.id)).status).toBe('running');
    await handle.db
      .update(fkDslTasks)
      .set({ startedAt: new Date(clock.peek().getTime() - 10 * MINUTE) })
      .where(eq(fkDslTasks.id, task.id));
    await tasks.recoverLostTasks();
    expect(await row(task.id)).toMatchObject({ status: 'running', instanceId: SELF });
    release();
    await run;
    expect(await row(task.id)).toMatchObject({ status: 'completed' });
  });

  it('deletes finished tasks older than FKDSL_TASK_RETENTION_DAYS, and nothing else', async () => {
    const { tasks } = queue({ taskRetentionDays: 2 });
    const now = clock.peek().getTime();
    const day = 86_400_000;
    const task = (status: 'completed' | 'queued', finishedDaysAgo: number | null) => ({
      id: randomUUID(),
      query: 'Q',
      status,
      clientId: 'client-a',
      createdAt: new Date(now - 10 * day),
      finishedAt: finishedDaysAgo === null ? null : new Date(now - finishedDaysAgo * day),
    });
    const [old, recent, unfinished] = [task('completed', 3), task('completed', 1), task('queued', null)];
    await handle.db.insert(fkDslTasks).values([old, recent, unfinished]);
    expect(await tasks.deleteExpiredTasks()).toBe(1);
    const left = await handle.db.select({ id: fkDslTasks.id }).from(fkDslTasks);
    expect(left.map((r) => r.id).sort()).toEqual([recent.id, unfinished.id].sort());
  });
});

describe('submitFkDsl on every surface', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '1000', FKDSL_MAX_PENDING_TASKS_PER_CLIENT: '2' } });
    // The job engine runs but no worker is registered, so what is queued stays queued.
    await t.app.deps.jobs.start();
    // Creates the queue now: on PGlite a first send inside a transaction would wait for itself.
    await t.app.deps.jobs.queueSize(executeJob);
  });
  afterAll(async () => t?.close());

  it('refuses a client more queued tasks than the limit, naming it, as GraphQL and as a tool route', async () => {
    const SUBMIT = 'mutation ($q: String!) { submitFkDsl(query: $q) { taskId status } }';
    const answers: Json[] = [];
    for (let i = 0; i < 3; i++) {
      answers.push((await graphql(t.app, SUBMIT, { q: `EVALUATE AAPL: SMA(${i + 2})` })).body);
    }
    expect(answers.slice(0, 2).map((a) => a.data.submitFkDsl.status)).toEqual(['QUEUED', 'QUEUED']);
    expect(answers[2].errors[0]).toMatchObject({
      message: expect.stringContaining('FKDSL_MAX_PENDING_TASKS_PER_CLIENT'),
      extensions: { code: 'TOO_MANY_TASKS', limit: 2 },
    });
    const rest = await t.app.fetch('/mcp/tools/execute-fk-dsl', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'EVALUATE AAPL: PRICE', async: true }),
    });
    expect(rest.status).toBe(429);
    expect(((await rest.json()) as Json).error.code).toBe('TOO_MANY_TASKS');
    const stored = await t.app.deps.database.db.execute(sql`select 1 from fk_dsl_tasks`);
    expect(Array.isArray(stored) ? stored.length : (stored as Json).rows.length).toBe(2);
  });
});

describe('an app starting after an instance was killed mid-task', () => {
  let t: TestApp;
  afterAll(async () => t?.close());

  it('runs the task again at start, without waiting for the job to expire', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '1000' } });
    const id = randomUUID();
    const now = t.app.deps.clock.now();
    await t.app.deps.database.db.insert(fkDslTasks).values({
      id,
      query: 'EVALUATE AAPL: PRICE',
      status: 'running',
      clientId: 'client-a',
      createdAt: now,
      startedAt: now,
      instanceId: randomUUID(),
      attempts: 1,
    });
    await t.app.startWithoutListening();
    const poll = 'query ($id: ID!) { fkDslTask(taskId: $id) { status error { code } result { errors } } }';
    const task = await vi.waitFor(
      async () => {
        const { body } = await graphql<{ fkDslTask: Json }>(t.app, poll, { id });
        expect(body.data?.fkDslTask.status).toBe('COMPLETED');
        return body.data!.fkDslTask;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(task).toMatchObject({ error: null, result: { errors: 0 } });
  });
});
