/**
 * Analysis sessions through /graphql with the app's clock in the test's hand: the whole life
 * (create, track, extend, expire, archive, delete), tracking under concurrency and past the record
 * limit, analytics on a known data set, the upkeep job, and a restart on the embedded database.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { effectiveScopes, type Principal } from '../src/platform/access/principal.ts';
import { SESSION_LIMITS } from '../src/sessions/session.rules.ts';
import { upkeepJob } from '../src/sessions/sessions.jobs.ts';
import { analysisSessionQueries, analysisSessions } from '../src/sessions/sessions.sql.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { createTestDatabase, drivers, type TestDatabase } from './support/databases.ts';
import { ManualClock } from './support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are checked by the expectations.
type Json = any;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A Wednesday during US trading hours. */
const START = Date.parse('2025-06-11T15:03:17Z');

const SESSION = `id state isExpired isArchived totalQueries cacheHitRate queryTypeCounts expiresAt createdAt
  lastAccessedAt ttlHours timeRemainingHours assets tags userId sessionType context intermediateResults`;

async function gql(t: TestApp, query: string, variables: Json = {}): Promise<Json> {
  const response = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return response.json();
}

async function create(t: TestApp, args: Json): Promise<Json> {
  const answer = await gql(
    t,
    `mutation ($assets: [String!]!, $type: AnalysisSessionType!, $ttl: Float, $userId: String, $tags: [String!]) {
      createAnalysisSession(assets: $assets, sessionType: $type, ttlHours: $ttl, userId: $userId, tags: $tags) {
        session { ${SESSION} } requestedHours grantedHours capped maxTtlHours
      }
    }`,
    args,
  );
  expect(answer.errors).toBeUndefined();
  return answer.data.createAnalysisSession;
}

const info = async (t: TestApp, id: string, recent = 10) =>
  gql(
    t,
    `query ($id: ID!, $n: Int) { analysisSession(id: $id) { ${SESSION} recentQueries(limit: $n) { seq queryType parameters resultSummary symbols latencyMs cacheHit at } } }`,
    { id, n: recent },
  );

const track = (t: TestApp, id: string, symbol = 'AAPL') =>
  gql(
    t,
    'query ($s: String!, $id: String) { searchBySymbol(symbol: $s, depth: QUICK, sessionId: $id) { symbol sessionId } }',
    {
      s: symbol,
      id,
    },
  );

describe.each(drivers)('analysis sessions on %s', (driver) => {
  let database: TestDatabase;
  let clock: ManualClock;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    clock = new ManualClock(START);
    t = await createTestApp({
      listen: true,
      database,
      env: { SESSION_MAX_TTL_HOURS: '48', SESSION_MAX_QUERIES_PER_SESSION: '5', RATE_LIMIT_MAX: '10000' },
      overrides: { clock },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await database?.cleanup();
  });

  it('lives from creation through tracking, extension, expiry and archiving to deletion', async () => {
    const created = await create(t, {
      assets: ['aapl', 'MSFT', 'AAPL'],
      type: 'EQUITY',
      ttl: 2,
      userId: 'ana',
      tags: ['q3'],
    });
    const id = created.session.id;
    expect(created).toMatchObject({ requestedHours: 2, grantedHours: 2, capped: false, maxTtlHours: 48 });
    expect(created.session).toMatchObject({
      state: 'ACTIVE',
      assets: ['AAPL', 'MSFT'],
      tags: ['q3'],
      userId: 'ana',
      sessionType: 'EQUITY',
      totalQueries: 0,
      cacheHitRate: null,
      ttlHours: 2,
      expiresAt: new Date(START + 2 * HOUR).toISOString(),
    });

    // A tracked call: the record and the counters.
    const first = await track(t, id);
    expect(first.errors).toBeUndefined();
    expect(first.data.searchBySymbol).toMatchObject({ symbol: 'AAPL', sessionId: id });
    await track(t, id);
    const tracked = (await info(t, id)).data.analysisSession;
    expect(tracked.totalQueries).toBe(2);
    expect(tracked.queryTypeCounts).toEqual({ 'search-by-symbol': 2 });
    expect(tracked.recentQueries.map((q: Json) => q.seq)).toEqual([2, 1]);
    expect(tracked.recentQueries[1]).toMatchObject({
      queryType: 'search-by-symbol',
      parameters: { symbol: 'AAPL', depth: 'quick' },
      symbols: ['AAPL'],
      at: new Date(START).toISOString(),
    });
    expect(tracked.recentQueries[0].resultSummary).toMatch(/^AAPL \d/);
    // The second call was answered from the cache the first one filled.
    expect(tracked.recentQueries[0].cacheHit).toBe(true);
    expect(tracked.cacheHitRate).toBeGreaterThan(0);

    // Context and named results.
    const context = await gql(
      t,
      'mutation ($id: ID!) { updateSessionContext(id: $id, set: {thesis: "value", horizon: 3}) { context } }',
      { id },
    );
    expect(context.data.updateSessionContext.context).toEqual({ thesis: 'value', horizon: 3 });
    const removed = await gql(
      t,
      'mutation ($id: ID!) { updateSessionContext(id: $id, remove: ["horizon"]) { context } }',
      { id },
    );
    expect(removed.data.updateSessionContext.context).toEqual({ thesis: 'value' });
    await gql(
      t,
      'mutation ($id: ID!, $v: JSON!) { storeSessionResult(id: $id, name: "corr", value: $v) { id } }',
      {
        id,
        v: { AAPL_MSFT: 0.71 },
      },
    );
    expect(
      (await gql(t, 'query ($id: ID!) { sessionResult(id: $id, name: "corr") }', { id })).data.sessionResult,
    ).toEqual({
      AAPL_MSFT: 0.71,
    });
    const missing = await gql(t, 'query ($id: ID!) { sessionResult(id: $id, name: "nope") }', { id });
    expect(missing.errors[0].extensions.code).toBe('NOT_FOUND');

    // Extending adds to the current expiry; the max-TTL rule (48 h from creation) caps, and says so.
    await clock.advance(HOUR);
    const extended = await gql(
      t,
      'mutation ($id: ID!) { extendAnalysisSession(id: $id, hours: 10) { session { expiresAt } grantedHours capped } }',
      { id },
    );
    expect(extended.data.extendAnalysisSession).toEqual({
      session: { expiresAt: new Date(START + 12 * HOUR).toISOString() },
      grantedHours: 10,
      capped: false,
    });
    const capped = await gql(
      t,
      'mutation ($id: ID!) { extendAnalysisSession(id: $id, hours: 100) { session { expiresAt } grantedHours capped } }',
      { id },
    );
    expect(capped.data.extendAnalysisSession).toEqual({
      session: { expiresAt: new Date(START + 48 * HOUR).toISOString() },
      grantedHours: 36,
      capped: true,
    });

    // Expired: readable, not usable.
    await clock.advance(48 * HOUR);
    const expired = (await info(t, id)).data.analysisSession;
    expect(expired).toMatchObject({
      state: 'EXPIRED',
      isExpired: true,
      isArchived: false,
      timeRemainingHours: 0,
    });
    const late = await track(t, id);
    expect(late.errors[0].extensions.code).toBe('SESSION_EXPIRED');
    const noExtend = await gql(t, 'mutation ($id: ID!) { extendAnalysisSession(id: $id) { grantedHours } }', {
      id,
    });
    expect(noExtend.errors[0].extensions.code).toBe('SESSION_EXPIRED');
    expect((await info(t, id)).data.analysisSession.totalQueries).toBe(2);

    // The cleanup archives it; it is still readable; retention deletes it.
    const ran = await t.app.deps.sessions.upkeep.runDue();
    expect(ran['archive-expired']).toBeGreaterThanOrEqual(1);
    expect((await info(t, id)).data.analysisSession).toMatchObject({ state: 'ARCHIVED', isArchived: true });
    const listed = await gql(
      t,
      'query { analysisSessions(userId: "ana") { totalSessions } all: analysisSessions(userId: "ana", includeArchived: true) { totalSessions sessions { id } } }',
    );
    expect(listed.data.analysisSessions.totalSessions).toBe(0);
    expect(listed.data.all.sessions.map((s: Json) => s.id)).toContain(id);
    await clock.advance(31 * DAY);
    const later = await t.app.deps.sessions.upkeep.runDue();
    expect(later['delete-archived']).toBeGreaterThanOrEqual(1);
    expect((await info(t, id)).errors[0].extensions.code).toBe('NOT_FOUND');
  }, 60_000);

  it('counts concurrent tracked calls exactly, keeping the newest records past the limit', async () => {
    const { session } = await create(t, { assets: ['BTC/USDT'], type: 'CRYPTO', ttl: 5 });
    const calls = await Promise.all(Array.from({ length: 12 }, () => track(t, session.id, 'MSFT')));
    expect(calls.filter((c) => c.errors)).toEqual([]);
    const read = (await info(t, session.id, 100)).data.analysisSession;
    expect(read.totalQueries).toBe(12);
    expect(read.queryTypeCounts).toEqual({ 'search-by-symbol': 12 });
    // SESSION_MAX_QUERIES_PER_SESSION=5: the newest five records are kept, numbered without gaps.
    expect(read.recentQueries.map((q: Json) => q.seq)).toEqual([12, 11, 10, 9, 8]);
  }, 60_000);

  it('drops records kept under a larger limit with the daily upkeep', async () => {
    const { session } = await create(t, { assets: ['AAPL'], type: 'EQUITY', ttl: 5 });
    for (let i = 0; i < 7; i++) expect((await track(t, session.id)).errors).toBeUndefined();
    // Records 1 and 2, as a limit of 7 before a restart would have kept them.
    await t.app.deps.database.db.insert(analysisSessionQueries).values(
      [1, 2].map((seq) => ({
        sessionId: session.id,
        seq,
        queryType: 'search-by-symbol',
        parameters: {},
        resultSummary: 'kept under a larger limit',
        symbols: [],
        latencyMs: 1,
        cacheHit: null,
        at: new Date(clock.now()),
      })),
    );
    expect(await t.app.deps.sessions.upkeep.pruneRecords()).toBeGreaterThanOrEqual(2);
    const read = (await info(t, session.id, 100)).data.analysisSession;
    expect(read.recentQueries.map((q: Json) => q.seq)).toEqual([7, 6, 5, 4, 3]);
  }, 60_000);

  it('refuses bad input naming the field, and unknown sessions as NOT_FOUND', async () => {
    const bad = await gql(
      t,
      'mutation { createAnalysisSession(assets: [], sessionType: EQUITY) { capped } }',
    );
    expect(bad.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'assets' });
    const ttl = await gql(
      t,
      'mutation { createAnalysisSession(assets: ["AAPL"], sessionType: EQUITY, ttlHours: -1) { capped } }',
    );
    expect(ttl.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'ttlHours' });
    const unknown = await track(t, 'no-such-session');
    expect(unknown.errors[0].extensions.code).toBe('NOT_FOUND');
    const big = await create(t, { assets: ['AAPL'], type: 'EQUITY' });
    const tooBig = await gql(
      t,
      'mutation ($id: ID!, $v: JSON!) { storeSessionResult(id: $id, name: "big", value: $v) { id } }',
      {
        id: big.session.id,
        v: 'x'.repeat(70 * 1024),
      },
    );
    expect(tooBig.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'value' });
  });

  it('bounds the sessions one owner keeps open, and counts archived ones out', async () => {
    const flood: Principal = {
      kind: 'key',
      id: `flood-${driver}`,
      name: 'flood',
      scopes: effectiveScopes(['write']),
    };
    const store = t.app.deps.sessions.store;
    const made = [];
    for (let i = 0; i < SESSION_LIMITS.openPerOwner; i++) {
      made.push((await store.create(flood, { assets: ['AAPL'], sessionType: 'equity' })).view.row.id);
    }
    await expect(store.create(flood, { assets: ['AAPL'], sessionType: 'equity' })).rejects.toMatchObject({
      code: 'TOO_MANY_SESSIONS',
    });
    await store.archive(flood, made[0]!);
    await expect(store.create(flood, { assets: ['AAPL'], sessionType: 'equity' })).resolves.toBeDefined();
  }, 60_000);

  it('holds the per-owner cap and every extension with 40 callers at once', async () => {
    const racer: Principal = {
      kind: 'key',
      id: `race-${driver}`,
      name: 'race',
      scopes: effectiveScopes(['write']),
    };
    const store = t.app.deps.sessions.store;
    // Twenty places left under the cap, then forty creates at once: twenty get one.
    const now = clock.now();
    await t.app.deps.database.db.insert(analysisSessions).values(
      Array.from({ length: SESSION_LIMITS.openPerOwner - 20 }, (_, i) => ({
        id: `race-${driver}-${i}`,
        owner: racer.id,
        sessionType: 'equity',
        assets: ['AAPL'],
        tags: [],
        context: {},
        intermediateResults: {},
        status: 'active' as const,
        queryTypes: {},
        createdAt: now,
        lastAccessedAt: now,
        expiresAt: new Date(now.getTime() + DAY),
      })),
    );
    const creates = await Promise.allSettled(
      Array.from({ length: 40 }, () => store.create(racer, { assets: ['AAPL'], sessionType: 'equity' })),
    );
    expect(creates.filter((c) => c.status === 'fulfilled')).toHaveLength(20);
    for (const refused of creates.filter((c) => c.status === 'rejected')) {
      expect((refused as PromiseRejectedResult).reason).toMatchObject({ code: 'TOO_MANY_SESSIONS' });
    }
    expect((await store.list(racer, { limit: 1 })).total).toBe(SESSION_LIMITS.openPerOwner);

    // Forty extensions of an hour at once: forty hours added, none lost.
    const owner: Principal = { ...racer, id: `extend-${driver}` };
    const { view } = await store.create(owner, { assets: ['AAPL'], sessionType: 'equity', ttlHours: 1 });
    await Promise.all(Array.from({ length: 40 }, () => store.extend(owner, view.row.id, 1)));
    const after = await store.get(owner, view.row.id);
    expect(after.row.expiresAt.toISOString()).toBe(new Date(now.getTime() + 41 * HOUR).toISOString());
  }, 60_000);

  it('caps a time-to-live past the maximum at creation and says so', async () => {
    const created = await create(t, { assets: ['AAPL'], type: 'MACRO', ttl: 100 });
    expect(created).toMatchObject({ requestedHours: 100, grantedHours: 48, capped: true });
  });
});

describe('session analytics on a known data set', () => {
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock(START);
    t = await createTestApp({ listen: true, env: { RATE_LIMIT_MAX: '10000' }, overrides: { clock } });
  }, 60_000);
  afterAll(() => t?.close());

  it('adds up states, queries, durations, abandonment, assets, tags and types', async () => {
    const a = await create(t, {
      assets: ['AAPL', 'MSFT'],
      type: 'EQUITY',
      ttl: 1,
      userId: 'u1',
      tags: ['tech', 'q3'],
    });
    const b = await create(t, { assets: ['AAPL'], type: 'EQUITY', ttl: 10, userId: 'u1', tags: ['tech'] });
    const c = await create(t, { assets: ['BTC/USDT'], type: 'CRYPTO', ttl: 1, userId: 'u2' });
    await create(t, { assets: ['AAPL'], type: 'MACRO', ttl: 1, userId: 'u1' });
    for (let i = 0; i < 3; i++) expect((await track(t, a.session.id)).errors).toBeUndefined();
    await clock.advance(30 * 60_000);
    expect((await track(t, b.session.id)).errors).toBeUndefined();
    await gql(t, 'mutation ($id: ID!) { archiveAnalysisSession(id: $id) { id } }', { id: c.session.id });
    // a and the macro session expire (1 h); b stays active.
    await clock.advance(HOUR);

    const answer = await gql(
      t,
      `query { sessionAnalytics(userId: "u1", days: 7) { totalSessions activeSessions expiredSessions archivedSessions
        totalQueries avgQueriesPerSession avgDurationSeconds abandonmentRate cacheHitRate
        topAssets { name count } popularTags { name count } sessionTypeBreakdown { name count }
        queryTypeDistribution { name count } } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.sessionAnalytics).toEqual({
      totalSessions: 3,
      activeSessions: 1,
      expiredSessions: 2,
      archivedSessions: 0,
      totalQueries: 4,
      avgQueriesPerSession: 4 / 3,
      // a: 0 s (its queries at creation), b: 1800 s, macro: 0 s.
      avgDurationSeconds: 600,
      // Ended: a (3 queries) and macro (none).
      abandonmentRate: 0.5,
      cacheHitRate: expect.any(Number),
      topAssets: [
        { name: 'AAPL', count: 3 },
        { name: 'MSFT', count: 1 },
      ],
      popularTags: [
        { name: 'tech', count: 2 },
        { name: 'q3', count: 1 },
      ],
      sessionTypeBreakdown: [
        { name: 'equity', count: 2 },
        { name: 'macro', count: 1 },
      ],
      queryTypeDistribution: [{ name: 'search-by-symbol', count: 4 }],
    });
    const crypto = await gql(
      t,
      'query { sessionAnalytics(sessionType: CRYPTO) { totalSessions archivedSessions abandonmentRate } }',
    );
    expect(crypto.data.sessionAnalytics).toEqual({
      totalSessions: 1,
      archivedSessions: 1,
      abandonmentRate: 1,
    });
  });

  it('computes daily metrics once per day through the upkeep job, idempotently', async () => {
    await clock.advance(DAY);
    await t.app.deps.jobs.send(upkeepJob, {});
    let daily: Json[] = [];
    await vi.waitFor(
      async () => {
        const answer = await gql(
          t,
          'query { sessionAnalytics(days: 7) { daily { day sessionsCreated queries sessionTypes } } }',
        );
        daily = answer.data.sessionAnalytics.daily;
        expect(daily.length).toBeGreaterThan(0);
      },
      { timeout: 15_000, interval: 200 },
    );
    const day = daily.find((d: Json) => d.day === '2025-06-11');
    expect(day).toEqual({
      day: '2025-06-11',
      sessionsCreated: 4,
      queries: 4,
      sessionTypes: { equity: 2, crypto: 1, macro: 1 },
    });
    // Recomputing the same day writes the same row.
    await t.app.deps.sessions.upkeep.computeDay(new Date('2025-06-11T12:00:00Z'));
    const again = await gql(
      t,
      'query { sessionAnalytics(days: 7) { daily { day sessionsCreated queries sessionTypes } } }',
    );
    expect(again.data.sessionAnalytics.daily.find((d: Json) => d.day === '2025-06-11')).toEqual(day);
    // The tasks ran: run again now, nothing is due.
    expect(await t.app.deps.sessions.upkeep.runDue()).toEqual({});
  }, 30_000);
});

describe('sessions across a restart on the embedded database', () => {
  it('keeps sessions, records and counters', async () => {
    const database = await createTestDatabase('pglite');
    try {
      const first = await createTestApp({ listen: true, database });
      const { session } = await create(first, { assets: ['AAPL'], type: 'EQUITY', tags: ['kept'] });
      expect((await track(first, session.id)).errors).toBeUndefined();
      await first.close();
      const second = await createTestApp({ listen: true, database });
      try {
        const read = (await info(second, session.id)).data.analysisSession;
        expect(read).toMatchObject({ id: session.id, state: 'ACTIVE', totalQueries: 1, tags: ['kept'] });
        expect(read.recentQueries).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      await database.cleanup();
    }
  }, 60_000);
});

describe('with SESSION_ENABLE_ANALYTICS=false', () => {
  it('answers analytics with a clear error and computes no daily metrics', async () => {
    const t = await createTestApp({ listen: true, env: { SESSION_ENABLE_ANALYTICS: 'false' } });
    try {
      const answer = await gql(t, 'query { sessionAnalytics { totalSessions } }');
      expect(answer.errors[0].extensions.code).toBe('SESSION_ANALYTICS_DISABLED');
      expect(answer.errors[0].message).toMatch(/SESSION_ENABLE_ANALYTICS/);
      expect(Object.keys(await t.app.deps.sessions.upkeep.runDue())).not.toContain('daily-metrics');
    } finally {
      await t.close();
    }
  });
});
