/**
 * Duplicates only where unavoidable. Delivery is at-least-once; a message goes twice only when its
 * receiver took it and Vigil could not learn or record that. Two ways that happened without need:
 * the record of an accepted attempt failed (the database stopped for a moment) and the delivery
 * was made again once its claim lapsed; and a receiver that answered 2xx but was slow to send the
 * rest of its answer had the attempt counted as failed and retried. And an instance killed
 * between a receiver's acceptance and its record: its acceptances are noted locally first.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AlertService } from '../src/alerts/alert.service.ts';
import type { AlertEvent } from '../src/alerts/alert-event.model.ts';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { alertDeliveries } from '../src/alerts/alerts.sql.ts';
import { AcceptanceJournal } from '../src/alerts/delivery/acceptance-journal.ts';
import { deliverJob } from '../src/alerts/delivery/delivery.jobs.ts';
import type { AttemptRequest } from '../src/alerts/delivery/delivery.model.ts';
import { recoverDeliveries } from '../src/alerts/delivery/delivery.recovery.ts';
import { DeliveryRunner } from '../src/alerts/delivery/delivery.runner.ts';
import { parseAllowedHosts } from '../src/alerts/delivery/ssrf.ts';
import type { DeliveryContext } from '../src/alerts/delivery/types.ts';
import { sendWebhook } from '../src/alerts/delivery/webhook.ts';
import { insertTestFiring } from '../src/alerts/firing.repository.ts';
import { SecretBox } from '../src/alerts/secrets.ts';
import { modules } from '../src/modules.ts';
import { effectiveScopes, type Principal } from '../src/platform/access/principal.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { Jobs } from '../src/platform/jobs/jobs.ts';
import { tablesOf } from '../src/platform/module.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createTestDatabase, drivers, type TestDatabase } from './support/databases.ts';
import { ManualClock } from './support/manual-clock.ts';

const logger = createLogger('silent');
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../src/migrations', import.meta.url));
const owner: Principal = { kind: 'key', id: 'k-dup', name: 'dup', scopes: effectiveScopes(['write']) };

const event = (id: string): AlertEvent => ({
  id,
  type: 'flash_crash',
  severity: 'critical',
  description: 'BTC/USDT fell 12% in 4 minutes',
  asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
  occurredAt: new Date('2025-06-11T15:00:00.000Z'),
  watchdog: 'price_anomaly',
  data: {},
  sample: false,
});

describe.each(drivers)('an accepted delivery is recorded, not sent again, on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let jobs: Jobs;
  const clock = new ManualClock(Date.parse('2025-06-11T15:00:00Z'));
  const sent: AttemptRequest[] = [];
  /** Statements run through `execute` (the attempts' records) that fail before reaching the database. */
  let failingRecords = 0;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    handle = await openDatabase({
      url: database.url,
      pgliteDir: pgliteDirFor(database.dataDir),
      logger,
      tables: tablesOf(modules),
      poolSize: 3,
    });
    await runMigrations(handle, MIGRATIONS_FOLDER);
    jobs = new Jobs(handle, { logger });
    await jobs.start();
    await jobs.ensureQueue(deliverJob);
  });
  afterAll(async () => {
    await jobs?.stop(1_000);
    await handle?.close();
    await database?.cleanup();
  });

  it('a record that fails when the receiver already accepted is written on a later try', async () => {
    const store = new AlertService({ db: handle.db, clock, logger, secrets: new SecretBox(randomBytes(32)) });
    const alert = await store.create(
      owner,
      parseAlertInput({
        alert_id: 'dup',
        name: 'dup',
        trigger: { type: 'watchdog_event' },
        delivery_methods: ['webhook'],
        webhook_config: { url: 'https://hooks.example.com/dup' },
      }),
    );
    const firingId = randomUUID();
    await insertTestFiring(handle.db, { id: firingId, alert, event: event('e-dup'), at: clock.now() });
    const deliveryId = randomUUID();
    await handle.db.insert(alertDeliveries).values({
      id: deliveryId,
      firingId,
      owner: owner.id,
      alertId: 'dup',
      method: 'webhook',
      target: 'https://hooks.example.com/dup',
      status: 'pending',
      createdAt: clock.now(),
      updatedAt: clock.now(),
    });
    // The records go through `execute`; the first one fails as a stopped database does.
    const db = new Proxy(handle.db, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name !== 'execute' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (failingRecords > 0) {
            failingRecords--;
            return Promise.reject(
              Object.assign(new Error('terminating connection'), { cause: { code: '57P01' } }),
            );
          }
          return value.apply(target, args);
        };
      },
    });
    const runner = new DeliveryRunner({
      database: { ...handle, db },
      jobs,
      clock,
      logger,
      maxAttempts: 3,
      attemptTimeoutMs: 1_000,
      deliver: async (request) => {
        sent.push(request);
        return { status: 'delivered', responseCode: 200, latencyMs: 3 };
      },
    });
    failingRecords = 1;
    const first = await runner.run(deliveryId).catch((error: Error) => `threw: ${error.message}`);
    expect(first).toBe('delivered');
    const [row] = await handle.db.select().from(alertDeliveries).where(eq(alertDeliveries.id, deliveryId));
    expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
    // Its claim would have lapsed by now: the sweep and a second job find nothing to send.
    await clock.advance(runner.staleClaimMs + 1);
    await recoverDeliveries(runner, { database: handle, jobs, clock, logger });
    expect(await runner.run(deliveryId)).toBe('done');
    expect(sent.map((r) => r.deliveryId)).toEqual([deliveryId]);
  });

  it('an instance killed between the acceptance and its record: the next one records it from the note', async () => {
    const alert = await new AlertService({
      db: handle.db,
      clock,
      logger,
      secrets: new SecretBox(randomBytes(32)),
    }).get(owner, 'dup');
    const firingId = randomUUID();
    await insertTestFiring(handle.db, { id: firingId, alert, event: event('e-kill'), at: clock.now() });
    const deliveryId = randomUUID();
    await handle.db.insert(alertDeliveries).values({
      id: deliveryId,
      firingId,
      owner: owner.id,
      alertId: 'dup',
      method: 'webhook',
      target: 'https://hooks.example.com/dup',
      status: 'pending',
      createdAt: clock.now(),
      updatedAt: clock.now(),
    });
    const dir = mkdtempSync(join(tmpdir(), 'vigil-journal-'));
    const path = join(dir, 'alert-acceptances.journal');
    const deliver = async (request: AttemptRequest) => {
      sent.push(request);
      return { status: 'delivered' as const, responseCode: 200, latencyMs: 3 };
    };
    try {
      // The first instance: its records never reach the database (it is killed first).
      const stalled = new Proxy(handle.db, {
        get: (target, name, receiver) =>
          name === 'execute' ? () => new Promise(() => {}) : Reflect.get(target, name, receiver),
      });
      const killed = new DeliveryRunner({
        database: { ...handle, db: stalled },
        jobs,
        clock,
        logger,
        maxAttempts: 3,
        attemptTimeoutMs: 1_000,
        deliver,
        journal: new AcceptanceJournal(path, logger),
      });
      void killed.run(deliveryId);
      for (let i = 0; i < 200 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 10));
      killed.stop();
      const before = sent.length;
      // The next instance, on the same data directory.
      const next = new DeliveryRunner({
        database: handle,
        jobs,
        clock,
        logger,
        maxAttempts: 3,
        attemptTimeoutMs: 1_000,
        deliver,
        journal: new AcceptanceJournal(path, logger),
      });
      await clock.advance(next.staleClaimMs + 1);
      await recoverDeliveries(next, { database: handle, jobs, clock, logger });
      const [row] = await handle.db.select().from(alertDeliveries).where(eq(alertDeliveries.id, deliveryId));
      expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(await next.run(deliveryId)).toBe('done');
      expect(sent.length).toBe(before);
      expect(existsSync(path)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a receiver that accepted', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('is not sent the message again when the rest of its answer is slow to come', async () => {
    let requests = 0;
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        requests++;
        // 200 and the start of a body at once; the rest never comes.
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        response.write('{"ok":');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const ctx: DeliveryContext = {
      deliveryId: 'dlv-slow-body',
      attempt: 1,
      notice: { kind: 'event', incidentKey: 'test/-' },
      alert: { id: 'a', name: 'a', description: null },
      event: event('e-slow'),
      now: new Date(),
      signal: new AbortController().signal,
      test: false,
    };
    const outcome = await sendWebhook({ url, method: 'POST', headers: {} }, ctx, {
      timeoutMs: 500,
      allowedHosts: parseAllowedHosts(['127.0.0.1']),
    });
    expect(outcome).toMatchObject({ status: 'delivered', responseCode: 200 });
    expect(requests).toBe(1);
  });
});
