import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.ts';
import { MIGRATIONS_FOLDER } from '../app-database.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../platform/db/database.ts';
import { runMigrations } from '../platform/db/migrate.ts';
import { createLogger } from '../platform/observability/logger.ts';
import type { StoredAlertEvent } from './alert-event.wire.ts';
import * as tables from './alerts.sql.ts';
import { alertEpisodes, alertFirings, alertGroups, type FiringStatus } from './alerts.sql.ts';
import { episodeById, firingById, listEpisodes, listFirings } from './firings.repository.ts';

/** The record's reads on the embedded database (or, with DATABASE_URL, a fresh Postgres database). */

const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 12, minute));
const event = (id: string, minute: number): StoredAlertEvent => ({
  event_id: id,
  type: 'flash_crash',
  severity: 'critical',
  description: `event ${id}`,
  asset: { symbol: 'BTC/USDT', asset_type: 'crypto' },
  timestamp: at(minute).toISOString(),
  watchdog: 'price_anomaly',
  data: { change: -0.12 },
  metadata: {},
});

describe('firings.repository', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const mine = { owner: 'owner-a', id: 'btc' };

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({
      url: database.url,
      pgliteDir: pgliteDirFor(database.dataDir),
      logger: createLogger('silent'),
      tables,
    });
    // A Postgres test database starts empty (the embedded one is a migrated copy: nothing to do).
    await runMigrations(handle, MIGRATIONS_FOLDER);
    const db = handle.db;
    await db.insert(alertEpisodes).values([
      {
        id: 'ep-open',
        owner: 'owner-a',
        alertId: 'btc',
        incidentKey: 'flash_crash/BTC/USDT',
        startedAt: at(3),
        lastEventAt: at(4),
        lastEvent: event('e4', 4),
        firings: 2,
      },
      {
        id: 'ep-acked',
        owner: 'owner-a',
        alertId: 'btc',
        incidentKey: 'flash_crash/ETH/USDT',
        startedAt: at(2),
        lastEventAt: at(2),
        lastEvent: event('e2', 2),
        acknowledgedAt: at(5),
        acknowledgedBy: 'ops',
        acknowledgementNote: 'looking',
      },
      {
        id: 'ep-done',
        owner: 'owner-a',
        alertId: 'btc',
        incidentKey: 'flash_crash/BTC/USDT',
        startedAt: at(0),
        lastEventAt: at(1),
        lastEvent: event('e1', 1),
        resolvedAt: at(2),
        resolvedReason: 'manual',
        resolvedBy: 'ops',
        resolutionNote: 'fixed',
      },
      {
        id: 'ep-other',
        owner: 'owner-b',
        alertId: 'btc',
        incidentKey: 'flash_crash/BTC/USDT',
        startedAt: at(9),
        lastEventAt: at(9),
        lastEvent: event('x', 9),
      },
    ]);
    await db.insert(alertGroups).values({
      id: 'g1',
      owner: 'owner-a',
      alertId: 'btc',
      groupKey: 'watchdog=price_anomaly',
      labels: { watchdog: 'price_anomaly' },
      createdAt: at(3),
      lastEventAt: at(4),
    });
    const firing = (id: string, minute: number, status: FiringStatus, more: object = {}) => ({
      id,
      owner: 'owner-a',
      alertId: 'btc',
      eventId: `event-${id}`,
      status,
      event: event(`event-${id}`, minute),
      firedAt: at(minute),
      ...more,
    });
    await db
      .insert(alertFirings)
      .values([
        firing('f0', 0, 'fired', { episodeId: 'ep-done' }),
        firing('f1', 1, 'silenced', { silencedBy: 'silence:s1' }),
        firing('f3', 3, 'grouped', { episodeId: 'ep-open', groupId: 'g1' }),
        firing('f4', 4, 'acknowledged', { episodeId: 'ep-open' }),
        firing('t5', 5, 'test'),
        { ...firing('o6', 6, 'fired', { episodeId: 'ep-other' }), owner: 'owner-b' },
      ]);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.cleanup();
  });

  it('lists an alert’s firings newest first with their episode and group, bounded and by status', async () => {
    const all = await listFirings(handle.db, mine, { limit: 10 });
    expect(all.map((f) => f.id)).toEqual(['t5', 'f4', 'f3', 'f1', 'f0']);
    const grouped = all.find((f) => f.id === 'f3')!;
    expect(grouped).toMatchObject({
      status: 'grouped',
      kind: 'event',
      groupKey: 'watchdog=price_anomaly',
      episode: { id: 'ep-open', state: 'firing', firings: 2, incidentKey: 'flash_crash/BTC/USDT' },
    });
    expect(grouped.event).toMatchObject({ id: 'event-f3', type: 'flash_crash', occurredAt: at(3) });
    expect(all.find((f) => f.id === 'f1')).toMatchObject({ silencedBy: 'silence:s1', episode: null });
    expect(all.find((f) => f.id === 'f0')?.episode).toMatchObject({
      state: 'resolved',
      resolvedReason: 'manual',
      resolvedBy: 'ops',
      resolutionNote: 'fixed',
    });

    expect((await listFirings(handle.db, mine, { limit: 2 })).map((f) => f.id)).toEqual(['t5', 'f4']);
    const held = await listFirings(handle.db, mine, { limit: 10, statuses: ['acknowledged', 'silenced'] });
    expect(held.map((f) => f.id)).toEqual(['f4', 'f1']);
    expect(await listFirings(handle.db, mine, { limit: 10, statuses: [] })).toHaveLength(5);
  });

  it('finds a firing by id only within its alert and owner', async () => {
    expect(await firingById(handle.db, mine, 'f4')).toMatchObject({ id: 'f4', episode: { id: 'ep-open' } });
    expect(await firingById(handle.db, mine, 'o6')).toBeNull();
    expect(await firingById(handle.db, { owner: 'owner-b', id: 'btc' }, 'f4')).toBeNull();
    expect(await firingById(handle.db, { owner: 'owner-a', id: 'eth' }, 'f4')).toBeNull();
  });

  it('lists an alert’s episodes, latest started first, by state', async () => {
    const all = await listEpisodes(handle.db, mine, { limit: 10 });
    expect(all.map((e) => [e.id, e.state])).toEqual([
      ['ep-open', 'firing'],
      ['ep-acked', 'acknowledged'],
      ['ep-done', 'resolved'],
    ]);
    expect(all[1]).toMatchObject({
      acknowledgedBy: 'ops',
      acknowledgementNote: 'looking',
      acknowledgedAt: at(5),
    });
    const ids = async (states: ('firing' | 'acknowledged' | 'resolved')[]) =>
      (await listEpisodes(handle.db, mine, { limit: 10, states })).map((e) => e.id);
    expect(await ids(['firing'])).toEqual(['ep-open']);
    expect(await ids(['acknowledged'])).toEqual(['ep-acked']);
    expect(await ids(['firing', 'resolved'])).toEqual(['ep-open', 'ep-done']);
    expect((await listEpisodes(handle.db, mine, { limit: 1 })).map((e) => e.id)).toEqual(['ep-open']);
    expect(await episodeById(handle.db, mine, 'ep-acked')).toMatchObject({ state: 'acknowledged' });
    expect(await episodeById(handle.db, mine, 'ep-other')).toBeNull();
  });
});
