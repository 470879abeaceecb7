import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sourced } from '../src/market-data/arbitration/lineage.ts';
import {
  findSharedEntry,
  sweepSharedEntries,
  upsertSharedEntry,
} from '../src/market-data/cache/shared-cache.repository.ts';
import { parseInstrument } from '../src/market-data/instruments.ts';
import { queryRows } from '../src/platform/db/raw.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { createTestDatabase, serverUrl, type TestDatabase } from './support/databases.ts';
import { createFakeProvider, type FakeProvider } from './support/fake-provider.ts';
import { ManualClock } from './support/manual-clock.ts';

/**
 * Several instances on one Postgres database answer from one another's provider calls: a quote or a
 * range of bars fetched by one is served by the others (same value, same lineage, no provider call)
 * until it expires by the same lifetimes as the local cache. Each instance has its own counting fake
 * provider under the same id, priced differently, so an answer shows where it was fetched.
 */

// A Wednesday, 10:00 in New York: the US market trades, a quote lives 5 s, a finished range of bars 6 h.
const OPEN = Date.parse('2026-11-18T15:00:00Z');
const DAY = 86_400_000;

interface Instance {
  readonly t: TestApp;
  readonly provider: FakeProvider;
}

async function instance(
  database: TestDatabase,
  clock: ManualClock,
  price: number,
  env: Record<string, string> = {},
) {
  const provider = createFakeProvider('fake', { capabilities: ['quote', 'bars'] });
  for (const symbol of ['AAPL', 'MSFT', 'NVDA', 'TSLA']) provider.prices.set(symbol, price);
  const t = await createTestApp({ database, env, overrides: { providers: [provider], clock } });
  return { t, provider };
}

const quote = (i: Instance, symbol: string) => i.t.app.deps.marketData.quote(parseInstrument(symbol));
const bars = (i: Instance, symbol: string) =>
  i.t.app.deps.marketData.bars(
    parseInstrument(symbol),
    '1d',
    new Date(OPEN - 30 * DAY),
    new Date(OPEN - 2 * DAY),
  );
const written = (i: Instance) => i.t.app.deps.marketData.sharedCache?.idle();

function withoutCache<T>(answer: Sourced<T>) {
  const { cache, ...lineage } = answer.lineage;
  return { value: answer.value, lineage };
}

async function sharedResults(i: Instance): Promise<Record<string, number>> {
  const metric = await i.t.app.deps.metrics.registry
    .getSingleMetric('vigil_market_data_shared_cache_total')!
    .get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.result), v.value]));
}

describe.skipIf(!serverUrl)('answers shared by two instances on one Postgres database', () => {
  const clock = new ManualClock(OPEN);
  let database: TestDatabase;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    a = await instance(database, clock, 101);
    b = await instance(database, clock, 202);
  });
  afterAll(async () => {
    await b?.t.close();
    await a?.t.close();
    await database?.cleanup();
  });

  it('serves a quote fetched through one instance from the other, with its value and lineage', async () => {
    const first = await quote(a, 'AAPL');
    await written(a);
    const second = await quote(b, 'AAPL');

    expect(a.provider.calls.quote).toBe(1);
    expect(b.provider.calls.quote).toBe(0);
    expect(second.value.price).toBe(101);
    expect(withoutCache(second)).toStrictEqual(withoutCache(first));
    expect(second.lineage.used).toEqual(['fake']);
    expect(second.lineage.cache).toMatchObject({ hit: true, ttlMs: 5_000 });
    expect(second.lineage.cache.ageMs).toBeLessThan(5_000);
    expect(first.lineage.cache).toEqual({ hit: false, ageMs: 0, ttlMs: 5_000 });
    // Kept by the second instance for the rest of its lifetime: no second lookup.
    await quote(b, 'AAPL');
    expect(await sharedResults(b)).toMatchObject({ hit: 1, miss: 0, stale: 0, error: 0 });
    expect(await sharedResults(a)).toMatchObject({ miss: 1, write: 1, error: 0 });
  });

  it('serves bars the same way', async () => {
    const first = await bars(a, 'MSFT');
    await written(a);
    const second = await bars(b, 'MSFT');

    expect(a.provider.calls.bars).toBe(1);
    expect(b.provider.calls.bars).toBe(0);
    expect(first.value.length).toBeGreaterThan(20);
    expect(withoutCache(second)).toStrictEqual(withoutCache(first));
    expect(second.lineage.cache).toMatchObject({ hit: true, ttlMs: 6 * 3_600_000 });
  });

  it("fetches an answer again once expired by the instances' clocks, and shares the new one", async () => {
    await quote(a, 'NVDA');
    await written(a);
    await clock.advance(6_000);
    const staleBefore = (await sharedResults(b)).stale ?? 0;

    const again = await quote(b, 'NVDA');
    expect(b.provider.calls.quote).toBe(1);
    expect(again.value.price).toBe(202);
    expect(again.lineage.cache.hit).toBe(false);
    expect((await sharedResults(b)).stale).toBe(staleBefore + 1);

    // The first instance's own copy has expired too: it now reads the second's answer.
    await written(b);
    const callsBefore = a.provider.calls.quote;
    const fromB = await quote(a, 'NVDA');
    expect(a.provider.calls.quote).toBe(callsBefore);
    expect(withoutCache(fromB)).toStrictEqual(withoutCache(again));
  });

  it("fetches an answer again once expired in the database's time, whatever the instance's clock says", async () => {
    await quote(a, 'TSLA');
    await written(a);
    const aged = await queryRows<{ key: string }>(
      a.t.app.deps.database.db,
      sql`update market_data_shared_cache set written_at = written_at - interval '6 seconds',
        expires_at = expires_at - interval '6 seconds' where key like '%|quote|%TSLA%' returning key`,
    );
    expect(aged).toHaveLength(1);
    const callsBefore = b.provider.calls.quote;

    const late = await quote(b, 'TSLA');
    expect(b.provider.calls.quote).toBe(callsBefore + 1);
    expect(late.value.price).toBe(202);
  });
});

describe.skipIf(!serverUrl)('MARKET_DATA_SHARED_CACHE=off on Postgres', () => {
  const clock = new ManualClock(OPEN);
  let database: TestDatabase;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const env = { MARKET_DATA_SHARED_CACHE: 'off' };
    a = await instance(database, clock, 101, env);
    b = await instance(database, clock, 202, env);
  });
  afterAll(async () => {
    await b?.t.close();
    await a?.t.close();
    await database?.cleanup();
  });

  it('leaves each instance to its own cache and providers', async () => {
    expect(a.t.app.deps.marketData.sharedCache).toBeUndefined();
    await quote(a, 'AAPL');
    const other = await quote(b, 'AAPL');
    expect(a.provider.calls.quote).toBe(1);
    expect(b.provider.calls.quote).toBe(1);
    expect(other.value.price).toBe(202);
    const rows = await queryRows<{ n: number }>(
      a.t.app.deps.database.db,
      sql`select count(*)::int as n from market_data_shared_cache`,
    );
    expect(rows[0]?.n).toBe(0);
    expect(await sharedResults(a)).toMatchObject({ hit: 0, miss: 0, write: 0 });
  });
});

describe.skipIf(!serverUrl)('bounds of the shared table', () => {
  const clock = new ManualClock(OPEN);
  let database: TestDatabase;
  let a: Instance;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // The smallest byte bound, 1 MiB: one shared entry may take 64 KiB.
    a = await instance(database, clock, 101, { MARKET_DATA_CACHE_MAX_BYTES: String(1024 * 1024) });
  });
  afterAll(async () => {
    await a?.t.close();
    await database?.cleanup();
  });

  const keys = async () =>
    (
      await queryRows<{ key: string }>(
        a.t.app.deps.database.db,
        sql`select key from market_data_shared_cache order by key`,
      )
    ).map((r) => r.key);

  it('does not share an answer over its share of the byte bound', async () => {
    const shared = a.t.app.deps.marketData.sharedCache!;
    const fiveYears = await a.t.app.deps.marketData.bars(
      parseInstrument('AAPL'),
      '1d',
      new Date(OPEN - 5 * 365 * DAY),
      new Date(OPEN - 2 * DAY),
    );
    await quote(a, 'AAPL');
    await shared.idle();
    expect(fiveYears.value.length).toBeGreaterThan(1_800);
    expect(shared.stats()).toMatchObject({ oversized: 1, entryBound: 65_536 });
    expect(await keys()).toEqual([expect.stringContaining('|quote|')]);
  });

  it('sweeps expired rows, then the soonest to expire while over the bounds, a batch at a time', async () => {
    const db = a.t.app.deps.database.db;
    await db.execute(sql`delete from market_data_shared_cache`);
    const write = (key: string, bytes: number, ttlMs: number, ageMs: number) =>
      upsertSharedEntry(db, { key, payload: '{}', bytes, ttlMs, ageMs });
    await write('expired-1', 10, 1_000, 5_000);
    await write('expired-2', 10, 1_000, 5_000);
    await write('short', 400, 60_000, 0);
    await write('middle', 400, 120_000, 0);
    await write('long', 400, 180_000, 0);

    // One row per run: the batch bound holds.
    expect(await sweepSharedEntries(db, { maxBytes: 1_000, maxEntries: 100, batch: 1 })).toBe(1);
    expect(await sweepSharedEntries(db, { maxBytes: 1_000, maxEntries: 100, batch: 10 })).toBe(2);
    expect(await keys()).toEqual(['long', 'middle']);
    expect(await sweepSharedEntries(db, { maxBytes: 1_000, maxEntries: 1, batch: 10 })).toBe(1);
    expect(await keys()).toEqual(['long']);
    expect(await sweepSharedEntries(db, { maxBytes: 1_000, maxEntries: 1, batch: 10 })).toBe(0);
  });

  it('keeps the answer obtained last when two instances write one key', async () => {
    const db = a.t.app.deps.database.db;
    await upsertSharedEntry(db, { key: 'k', payload: '"newer"', bytes: 8, ttlMs: 60_000, ageMs: 0 });
    await upsertSharedEntry(db, { key: 'k', payload: '"older"', bytes: 8, ttlMs: 60_000, ageMs: 3_000 });
    expect((await findSharedEntry(db, 'k'))?.payload).toBe('"newer"');
  });
});

describe('on the embedded database', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ driver: 'pglite' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('shares nothing: one process, its own cache, no database round trip', () => {
    expect(t.app.deps.database.mode).toBe('pglite');
    expect(t.app.deps.marketData.sharedCache).toBeUndefined();
  });
});
