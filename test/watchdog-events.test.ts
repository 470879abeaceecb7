import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../src/app-database.ts';
import { modules } from '../src/modules.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { tablesOf } from '../src/platform/module.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { type EventQueryInput, matchesEventFilter, parseEventQuery } from '../src/watchdogs/event-filter.ts';
import {
  deleteWatchdogEventsBefore,
  queryWatchdogEvents,
  type WatchdogEvent,
} from '../src/watchdogs/events.repository.ts';
import { createTestDatabase, drivers, type TestDatabase } from './support/databases.ts';
import { ManualClock } from './support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: errors are checked by their fields.
type Json = any;

const logger = createLogger('silent');

async function open(database: TestDatabase): Promise<DatabaseHandle> {
  const handle = await openDatabase({
    url: database.url,
    pgliteDir: pgliteDirFor(database.dataDir),
    logger,
    tables: tablesOf(modules),
    poolSize: 3,
  });
  await runMigrations(handle, MIGRATIONS_FOLDER);
  return handle;
}

const event = (over: Partial<NewWatchdogEvent> = {}): NewWatchdogEvent => ({
  watchdog: 'price_anomaly',
  eventType: 'price_anomaly',
  severity: 'high',
  symbol: 'AAPL',
  asset: { symbol: 'AAPL', assetType: 'equity' },
  description: 'AAPL moved +6.00% in 5 minutes',
  data: { change: 0.06, threshold: 0.05 },
  ...over,
});

/** Resolves with the first `count` events `bus` delivers (rejects after `ms`). */
function collect(bus: WatchdogEventBus, count: number, ms = 1_000): Promise<WatchdogEvent[]> {
  return new Promise((resolve, reject) => {
    const seen: WatchdogEvent[] = [];
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`heard ${seen.length} of ${count} events within ${ms} ms`));
    }, ms);
    const stop = bus.subscribe((e) => {
      seen.push(e);
      if (seen.length === count) {
        clearTimeout(timer);
        stop();
        resolve(seen);
      }
    });
  });
}

describe.each(drivers)('watchdog events on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let clock: ManualClock;
  let bus: WatchdogEventBus;
  const start = Date.parse('2025-06-11T15:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    handle = await open(database);
    clock = new ManualClock(start);
    bus = new WatchdogEventBus({ database: handle, clock, logger });
    await bus.start();
  });
  afterAll(async () => {
    await bus?.stop();
    await handle?.close();
    await database?.cleanup();
  });

  const publish = (e: NewWatchdogEvent) => handle.db.transaction((tx) => bus.publish(tx, e));
  const query = (input: EventQueryInput) => queryWatchdogEvents(handle.db, parseEventQuery(input));
  const refusal = (input: EventQueryInput) => {
    try {
      parseEventQuery(input);
      return 'accepted';
    } catch (error) {
      const e = error as Json;
      return `${e.code}:${e.details?.field}`;
    }
  };

  it('stores events, publishes them on commit, and filters them newest first with cursors', async () => {
    await handle.db.execute(sql`delete from watchdog_events`);
    const heard = collect(bus, 5);
    const stored: WatchdogEvent[] = [];
    stored.push(await publish(event()));
    await clock.advance(1_000);
    stored.push(
      await publish(
        event({
          severity: 'critical',
          eventType: 'flash_crash',
          symbol: 'TSLA',
          asset: { symbol: 'TSLA', assetType: 'equity' },
        }),
      ),
    );
    await clock.advance(1_000);
    stored.push(
      await publish(
        event({
          watchdog: 'exchange_outage',
          eventType: 'exchange_outage',
          symbol: null,
          asset: null,
          severity: 'medium',
        }),
      ),
    );
    await clock.advance(1_000);
    stored.push(
      await publish(event({ watchdog: 'unusual_volume', eventType: 'unusual_volume', severity: 'low' })),
    );
    await clock.advance(1_000);
    stored.push(await publish(event({ occurredAt: new Date(start - 3_600_000) })));
    expect((await heard).map((e) => e.id)).toEqual(stored.map((e) => e.id));
    expect(stored[0]).toMatchObject({
      occurredAt: new Date(start),
      createdAt: new Date(start),
      data: event().data,
    });

    const ids = (page: { events: WatchdogEvent[] }) => page.events.map((e) => e.id);
    const [a, b, c, d, e] = stored.map((s) => s.id);
    expect(ids(await query({}))).toEqual([e, d, c, b, a]);
    expect(ids(await query({ severities: ['critical', 'low'] }))).toEqual([d, b]);
    expect(ids(await query({ eventTypes: ['flash_crash'] }))).toEqual([b]);
    expect(ids(await query({ watchdogs: ['exchange_outage', 'unusual_volume'] }))).toEqual([d, c]);
    // An event about no asset passes any symbol filter.
    expect(ids(await query({ symbols: ['tsla'] }))).toEqual([c, b]);
    expect(ids(await query({ since: new Date(start + 1_000), until: new Date(start + 3_000) }))).toEqual([
      c,
      b,
    ]);
    expect(ids(await query({ until: new Date(start) }))).toEqual([e]);
    expect(ids(await query({ severities: ['high'], symbols: ['AAPL'] }))).toEqual([e, a]);

    const first = await query({ limit: 2 });
    expect(ids(first)).toEqual([e, d]);
    const second = await query({ limit: 2, cursor: first.nextCursor });
    expect(ids(second)).toEqual([c, b]);
    const third = await query({ limit: 2, cursor: second.nextCursor });
    expect(ids(third)).toEqual([a]);
    expect(third.nextCursor).toBeNull();
    expect(ids(await query({ limit: 1, severities: ['high'], cursor: first.nextCursor }))).toEqual([a]);

    for (const s of stored) {
      expect(
        matchesEventFilter(s, parseEventQuery({ symbols: ['TSLA'], since: new Date(start + 1_000) })),
      ).toBe(s.id === b || s.id === c);
    }
  });

  it('refuses bad filters by naming the field', () => {
    expect(refusal({ limit: 0 })).toBe('BAD_USER_INPUT:limit');
    expect(refusal({ limit: 1_001 })).toBe('BAD_USER_INPUT:limit');
    expect(refusal({ limit: 2.5 })).toBe('BAD_USER_INPUT:limit');
    expect(refusal({ limit: 1 })).toBe('accepted');
    expect(refusal({ limit: 1_000 })).toBe('accepted');
    expect(refusal({ severities: ['urgent'] })).toBe('BAD_USER_INPUT:severities');
    expect(refusal({ eventTypes: ['arbitrage_opportunity'] })).toBe('BAD_USER_INPUT:eventTypes');
    expect(refusal({ watchdogs: ['price'] })).toBe('BAD_USER_INPUT:watchdogs');
    expect(refusal({ symbols: [' '] })).toBe('BAD_USER_INPUT:symbols');
    expect(refusal({ symbols: Array.from({ length: 101 }, (_, i) => `S${i}`) })).toBe(
      'BAD_USER_INPUT:symbols',
    );
    expect(refusal({ since: 'yesterday' })).toBe('BAD_USER_INPUT:since');
    expect(refusal({ until: new Date(Number.NaN) })).toBe('BAD_USER_INPUT:until');
    expect(refusal({ since: '2025-06-11T15:00:00Z', until: '2025-06-11T15:00:00Z' })).toBe(
      'BAD_USER_INPUT:until',
    );
    expect(refusal({ cursor: 'not-a-cursor' })).toBe('BAD_USER_INPUT:cursor');
    expect(refusal({ cursor: Buffer.from('e1:not-an-id').toString('base64url') })).toBe(
      'BAD_USER_INPUT:cursor',
    );
  });

  it('publishes nothing for an insert that was rolled back', async () => {
    const heard: string[] = [];
    const stop = bus.subscribe((e) => {
      heard.push(e.id);
    });
    let doomed = '';
    await expect(
      handle.db.transaction(async (tx) => {
        doomed = (await bus.publish(tx, event({ description: 'rolled back' }))).id;
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    // A committed event afterwards is heard; the rolled-back one before it never is.
    const next = collect(bus, 1);
    const kept = await publish(event({ description: 'kept' }));
    expect((await next).map((e) => e.id)).toEqual([kept.id]);
    stop();
    expect(heard).toEqual([kept.id]);
    expect(doomed).not.toBe('');
    expect((await query({})).events.map((e) => e.id)).not.toContain(doomed);
  });

  it('keeps a slow or failing listener from holding up the others', async () => {
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const stopSlow = bus.subscribe(() => blocked);
    const stopFailing = bus.subscribe(() => {
      throw new Error('listener bug');
    });
    const heard = collect(bus, 3);
    for (let i = 0; i < 3; i++) await publish(event({ description: `fast ${i}` }));
    expect((await heard).map((e) => e.description)).toEqual(['fast 0', 'fast 1', 'fast 2']);
    release();
    stopSlow();
    stopFailing();
  });

  it('bounds its listeners', async () => {
    const small = new WatchdogEventBus({ database: handle, clock, logger, maxListeners: 2 });
    const stops = [small.subscribe(() => {}), small.subscribe(() => {})];
    expect(() => small.subscribe(() => {})).toThrow(expect.objectContaining({ code: 'SUBSCRIPTION_LIMIT' }));
    stops[0]!();
    expect(() => small.subscribe(() => {})).not.toThrow();
  });

  it('deletes events older than the retention cut-off', async () => {
    await handle.db.execute(sql`delete from watchdog_events`);
    await publish(event({ occurredAt: new Date(start - 10 * 86_400_000) }));
    await publish(event({ occurredAt: new Date(start - 2 * 86_400_000) }));
    const recent = await publish(event({ occurredAt: new Date(start) }));
    expect(await deleteWatchdogEventsBefore(handle.db, new Date(start - 86_400_000))).toBe(2);
    expect((await query({})).events.map((e) => e.id)).toEqual([recent.id]);
    expect(await deleteWatchdogEventsBefore(handle.db, new Date(start - 86_400_000))).toBe(0);
  });
});

describe.runIf(drivers.includes('postgres'))('watchdog events across instances', () => {
  let database: TestDatabase;
  let first: DatabaseHandle;
  let second: DatabaseHandle;
  let writer: WatchdogEventBus;
  let reader: WatchdogEventBus;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    first = await open(database);
    second = await open(database);
    const clock = new ManualClock();
    writer = new WatchdogEventBus({ database: first, clock, logger });
    reader = new WatchdogEventBus({ database: second, clock, logger });
    await writer.start();
    await reader.start();
  });
  afterAll(async () => {
    await writer?.stop();
    await reader?.stop();
    await first?.close();
    await second?.close();
    await database?.cleanup();
  });

  it('an event written through one handle is heard by the other within a second', async () => {
    const there = collect(reader, 1, 1_000);
    const here = collect(writer, 1, 1_000);
    const stored = await first.db.transaction((tx) => writer.publish(tx, event()));
    expect((await there)[0]).toEqual(stored);
    expect((await here)[0]).toEqual(stored);
  });

  it('catches up on events committed while its notification connection was down', async () => {
    const heard = collect(reader, 2, 5_000);
    // Drop the reader's LISTEN connection: postgres.js reconnects and listens again.
    const reconnected = new Promise<void>((resolve) => {
      void second.listen('vigil_test_reconnect', () => {}, resolve);
    });
    await reconnected;
    const killed = await first.db.execute(
      sql`select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'
            and application_name = 'vigil'`,
    );
    expect((killed as unknown as unknown[]).length).toBeGreaterThan(0);
    const a = await first.db.transaction((tx) => writer.publish(tx, event({ description: 'during outage' })));
    const b = await first.db.transaction((tx) => writer.publish(tx, event({ description: 'after' })));
    expect((await heard).map((e) => e.id)).toEqual([a.id, b.id]);
  });
});
