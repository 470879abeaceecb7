import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { anonymousPrincipal } from '../src/platform/access/principal.ts';
import { openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { queryRows } from '../src/platform/db/raw.ts';
import { createLogger, loggerOptions } from '../src/platform/observability/logger.ts';
import { WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { createTestDatabase, drivers, type TestDatabase } from './support/databases.ts';
import {
  crashAlert,
  crashEvent,
  EVENT_MARKER,
  failFirings,
  firingCounts,
  healFirings,
} from './support/firing-faults.ts';

/**
 * No firing lost: a watchdog event is committed, and its alerts fire in a second step. When that
 * step meets a transient database error (a lock held past DB_LOCK_TIMEOUT_MS), or the instance
 * dies between the two, every (alert, event) pair still fires, once, after recovery. The log lines
 * of the failures carry event ids, never the events or the statements' parameters.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ALERTS = ['crash-a', 'crash-b'];
const EVENTS = 4;
const anyone = anonymousPrincipal(false);
const ENV = {
  ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
  RATE_LIMIT_MAX: '10000',
  SECRETS_KEY: randomBytes(32).toString('hex'),
  DB_LOCK_TIMEOUT_MS: '300',
};

/** Answers every webhook with 200: deliveries are not what is tested here. */
let receiver: Server;
let hookUrl = '';
beforeAll(async () => {
  receiver = createServer((_, response) => response.end('{"ok":true}'));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every pair of ALERTS x `eventIds` fired exactly once (waits for the last ones). */
async function expectEachFiredOnce(t: TestApp, eventIds: readonly string[]): Promise<void> {
  const expected = new Map(ALERTS.flatMap((a) => eventIds.map((e) => [`${a} ${e}`, 1] as const)));
  const counts = await until(
    'firings per (alert, event)',
    () => firingCounts(t.app.deps.database.db, eventIds),
    (c) => c.size >= expected.size,
  );
  // A little later, still once each: no late duplicate.
  await new Promise((r) => setTimeout(r, 300));
  expect(await firingCounts(t.app.deps.database.db, eventIds)).toEqual(expected);
  expect(counts).toEqual(expected);
}

describe.each(drivers)('firing survives a transient failure on %s', (driver) => {
  let database: TestDatabase;
  let t: TestApp;
  const logs: Array<{ msg: string; eventId?: string; [key: string]: unknown }> = [];
  const raw: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    const logger = pino(loggerOptions('debug'), {
      write: (line: string) => {
        raw.push(line);
        logs.push(JSON.parse(line));
      },
    });
    t = await createTestApp({ listen: true, database, env: ENV, overrides: { logger } });
    for (const id of ALERTS)
      await t.app.deps.alerts.store.create(anyone, parseAlertInput(crashAlert(id, hookUrl)));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await database?.cleanup();
  });

  it('holds alert_firings past the lock timeout while events are stored; after it, each pair fires once', async () => {
    const db = t.app.deps.database.db;
    // Postgres: a second connection holds the table in an open transaction. The embedded database
    // has a single connection: there, every firing statement fails as a lock timeout does.
    let release: () => Promise<void>;
    if (driver === 'postgres') {
      const holder = postgres(database.url!, { max: 1, onnotice: () => {} });
      let unlock!: () => void;
      const locked = new Promise<void>((resolve) => {
        void holder.begin(async (tx) => {
          await tx`lock table alert_firings in access exclusive mode`;
          resolve();
          await new Promise<void>((r) => {
            unlock = r;
          });
        });
      });
      await locked;
      release = async () => {
        unlock();
        await holder.end({ timeout: 5 });
      };
    } else {
      await failFirings(db);
      release = () => healFirings(db);
    }

    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: createLogger('silent'),
    });
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++)
      ids.push((await db.transaction((tx) => bus.publish(tx, crashEvent(i)))).id);

    // Each event's firing has failed at least once (it waited past the lock timeout, or failed as
    // if it had), and the failure was logged with the event's id.
    await until(
      'events whose firing failed',
      async () => new Set(logs.filter((l) => /could not fire/.test(l.msg)).map((l) => l.eventId)),
      (failed) => ids.every((id) => failed.has(id)),
    );
    // The log lines name the event; they carry neither the event nor the statement's parameters.
    const failures = raw.filter((line) => /could not fire/.test(line));
    for (const line of failures) {
      expect(line).not.toContain(EVENT_MARKER);
      expect(line).not.toMatch(/params|parameters/);
    }
    expect(raw.join('')).not.toContain(EVENT_MARKER);

    await release();
    await expectEachFiredOnce(t, ids);
    const fired = await t.app.deps.alerts.store.get(anyone, ALERTS[0]!);
    expect(fired.triggerCount).toBe(EVENTS);
    // Operators see it: the lag from each event's commit to its firings', the failed attempts.
    const metrics = await (await t.app.fetch('/metrics')).text();
    expect(metrics).toMatch(new RegExp(`^vigil_alert_firing_lag_seconds_count ${EVENTS}$`, 'm'));
    expect(metrics).toMatch(
      new RegExp(`^vigil_alert_firings_total\\{outcome="fired"\\} ${EVENTS * ALERTS.length}$`, 'm'),
    );
    const failed = Number(/^vigil_alert_firing_failures_total (\d+)$/m.exec(metrics)?.[1]);
    expect(failed).toBeGreaterThanOrEqual(EVENTS);
  }, 60_000);
});

describe.each(drivers)('events that fire the same alerts at once on %s', (driver) => {
  let database: TestDatabase;
  let t: TestApp;
  const failures: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    const logger = pino(loggerOptions('warn'), {
      write: (line: string) => void (/could not fire/.test(line) && failures.push(line)),
    });
    t = await createTestApp({
      listen: true,
      database,
      // Firings of the same alerts wait for each other's row locks, longer on a busy machine: the
      // lock timeout is lifted so that a failure here is a deadlock (which Postgres reports after
      // its deadlock_timeout whatever the lock timeout), not a slow machine.
      env: { ...ENV, ALERT_MAX_FIRINGS_PER_MINUTE: '10000', DB_LOCK_TIMEOUT_MS: '60000' },
      overrides: { logger },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await database?.cleanup();
  });

  it('fire each alert for each event, at once and without a failed attempt', async () => {
    // Several firing jobs run at once, each updating every alert it fires: rows taken in the
    // order of each statement's plan deadlocked, and firings without a cooldown that committed
    // out of the order of their times were held as if in a cooldown.
    const alerts = Array.from({ length: 100 }, (_, i) => `many-${i}`);
    for (const id of alerts)
      await t.app.deps.alerts.store.create(anyone, parseAlertInput(crashAlert(id, hookUrl)));
    const db = t.app.deps.database.db;
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: createLogger('silent'),
    });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await db.transaction((tx) => bus.publish(tx, crashEvent(i)))).id);
    const counts = await until(
      'firings of 100 alerts x 20 events',
      () => firingCounts(db, ids),
      (c) => [...c.values()].reduce((a, b) => a + b, 0) >= 2_000,
    );
    expect([...counts.keys()].filter((k) => k.startsWith('many-'))).toHaveLength(2_000);
    expect(failures).toEqual([]);
    const held = await queryRows(
      db,
      sql`select status from alert_firings where status <> 'fired' and alert_id like 'many-%'`,
    );
    expect(held).toEqual([]);
  }, 60_000);
});

/** Lines the instance writes on stdout, one at a time. */
function lines(child: ChildProcess): () => Promise<string> {
  const queue: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else queue.push(line);
  });
  return () =>
    new Promise((resolve, reject) => {
      const ready = queue.shift();
      if (ready !== undefined) return resolve(ready);
      const timer = setTimeout(() => reject(new Error('the instance said nothing for 60 s')), 60_000);
      waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
}

describe.each(drivers)('firing survives an instance killed between event and firing on %s', (driver) => {
  let database: TestDatabase;
  let child: ChildProcess | undefined;
  let t: TestApp | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    const setup = await createTestApp({ database, env: ENV });
    for (const id of ALERTS)
      await setup.app.deps.alerts.store.create(anyone, parseAlertInput(crashAlert(id, hookUrl)));
    await setup.close();
  }, 60_000);
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await t?.close();
    await database?.cleanup();
  });

  it('a killed instance leaves its events to the next one, which fires each pair once', async () => {
    const { DATABASE_URL: _, ...inherited } = process.env;
    child = spawn(process.execPath, ['--import', 'tsx', 'test/support/firing-instance.ts'], {
      cwd: ROOT,
      env: {
        ...inherited,
        ...ENV,
        NODE_ENV: 'test',
        LOG_LEVEL: 'error',
        DATA_DIR: database.dataDir,
        WATCHDOGS_RUN: 'false',
        ...(database.url ? { DATABASE_URL: database.url } : {}),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    const next = lines(child);
    expect(await next()).toBe('ready');
    // Firing fails (as under a held lock) until the instance is gone: the events are stored, and
    // their firings have not happened when it dies.
    child.stdin!.write('fail\n');
    expect(await next()).toBe('failing');
    child.stdin!.write(`publish ${EVENTS}\n`);
    const ids = JSON.parse(await next()) as string[];
    expect(ids).toHaveLength(EVENTS);
    child.kill('SIGKILL');
    await exited;

    // The next instance starts on the same database, where firing works again.
    if (driver === 'postgres') {
      const admin = postgres(database.url!, { max: 1, onnotice: () => {} });
      await admin`drop trigger if exists vigil_test_fail_firings on alert_firings`;
      await admin.end();
    } else {
      const handle = await openDatabase({
        pgliteDir: pgliteDirFor(database.dataDir),
        logger: createLogger('silent'),
      });
      await healFirings(handle.db);
      await handle.close();
    }
    t = await createTestApp({ listen: true, database, env: ENV });
    await expectEachFiredOnce(t, ids);
  }, 120_000);
});
