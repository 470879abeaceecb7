import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, graphql, type TestApp } from '../support/app.ts';
import { drivers, serverUrl } from '../support/databases.ts';

/**
 * Database faults reach clients as a retryable coded error (DATABASE_UNAVAILABLE, 503 with
 * Retry-After), never as "Unexpected error." in a 200; a locked table fails within the lock
 * timeout instead of holding the request and its connection; readiness fails when the schema is gone.
 */
const TASK_QUERY = '{ fkDslTask(taskId: "00000000-0000-4000-8000-000000000000") { status } }';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe.each(drivers)('database faults on %s', (driver) => {
  it('readiness fails when a table the app serves from is gone', async () => {
    t = await createTestApp({ driver, listen: true });
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);

    await t.app.deps.database.db.execute(sql`drop table fk_dsl_tasks`);
    const answer = await fetch(`${t.url}/readyz`);
    expect(answer.status).toBe(503);
    const body = (await answer.json()) as { checks: { database: { ok: boolean; error: string } } };
    expect(body.checks.database.ok).toBe(false);
    expect(body.checks.database.error).toMatch(/schema incomplete.*fk_dsl_tasks/);
    // Public answer: no statement text.
    expect(body.checks.database.error).not.toMatch(/select|to_regclass/i);
  });
});

describe('an embedded database that is gone', () => {
  it('answers 503 DATABASE_UNAVAILABLE with Retry-After on GraphQL and REST', async () => {
    t = await createTestApp({ driver: 'pglite' });
    const handle = t.app.deps.database;
    if (handle.mode !== 'pglite') throw new Error('expected the embedded database');
    await handle.pglite.close();

    const answer = await graphql(t.app, TASK_QUERY);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(answer.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/database is not available/),
      extensions: { code: 'DATABASE_UNAVAILABLE', retryAfterSeconds: 5 },
    });
    expect(JSON.stringify(answer.body)).not.toMatch(/select|fk_dsl_tasks|http/i);

    const rest = await t.app.fetch('/mcp/tools/get-task-status', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ taskId: '00000000-0000-4000-8000-000000000000' }),
    });
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('5');
    expect(((await rest.json()) as { error: { code: string } }).error.code).toBe('DATABASE_UNAVAILABLE');
  });
});

describe.runIf(serverUrl)('a table locked by another session on Postgres', () => {
  it('fails the request within the lock timeout with DATABASE_UNAVAILABLE', async () => {
    t = await createTestApp({ driver: 'postgres', env: { DB_LOCK_TIMEOUT_MS: '300' } });
    const other = postgres(t.database.url!, { max: 1, onnotice: () => {} });
    const locker = await other.reserve();
    try {
      await locker`begin`;
      await locker`lock table fk_dsl_tasks in access exclusive mode`;

      const answer = await graphql(t.app, TASK_QUERY);
      expect(answer.status).toBe(503);
      expect(answer.body.errors?.[0]?.extensions).toMatchObject({
        code: 'DATABASE_UNAVAILABLE',
        reason: 'lock timeout',
      });
      // The connection went back to the pool: once the lock is gone the same request is served.
      await locker`rollback`;
      const after = await graphql(t.app, TASK_QUERY);
      expect(after.body.errors?.[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    } finally {
      locker.release();
      await other.end();
    }
  });
});
