import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import type { WatchdogEvent } from '../src/watchdogs/events.repository.ts';
import { ADMIN_KEY, bearer, issueKey } from './support/access.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/**
 * The dashboard surfaces end to end on a real app: the HTTP routes of the earlier implementation
 * (real HTTP), the GraphQL queries and switches, the MCP tools, and the admin scope of the switches.
 * Events are published through the event bus on the app's database, as the watchdogs publish them.
 */

const ENV = { MARKET_DATA_PROVIDERS: 'simulated', WATCHDOGS_RUN: 'false', RATE_LIMIT_MAX: '100000' };

const sampleEvent = (over: Partial<NewWatchdogEvent> = {}): NewWatchdogEvent => ({
  watchdog: 'price_anomaly',
  eventType: 'price_anomaly',
  severity: 'high',
  symbol: 'AAPL',
  asset: { symbol: 'AAPL', assetType: 'equity', market: 'US' },
  description: 'AAPL moved +6.00% in 5 minutes',
  data: { change: 0.06, threshold: 0.05 },
  ...over,
});

/** Publishes as a watchdog does: stored and announced in one transaction. */
function publisher(t: TestApp): (e: NewWatchdogEvent) => Promise<WatchdogEvent> {
  const bus = new WatchdogEventBus({
    database: t.app.deps.database,
    clock: systemClock,
    logger: createLogger('silent'),
  });
  return (e) => t.app.deps.database.db.transaction((tx) => bus.publish(tx, e));
}

describe('dashboard surfaces', () => {
  let t: TestApp;
  let publish: (e: NewWatchdogEvent) => Promise<WatchdogEvent>;
  const stored: WatchdogEvent[] = [];
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${t.url}${path}`, { headers });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
  };
  const post = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${t.url}${path}`, { method: 'POST', headers });
    return { status: response.status, body: (await response.json()) as Json };
  };

  beforeAll(async () => {
    t = await createTestApp({ listen: true, env: ENV });
    publish = publisher(t);
    stored.push(await publish(sampleEvent()));
    stored.push(
      await publish(
        sampleEvent({
          severity: 'critical',
          eventType: 'flash_crash',
          symbol: 'TSLA',
          asset: { symbol: 'TSLA', assetType: 'equity' },
          description: 'TSLA fell 12% in 5 minutes',
        }),
      ),
    );
    stored.push(
      await publish(
        sampleEvent({
          watchdog: 'exchange_outage',
          eventType: 'exchange_outage',
          severity: 'medium',
          symbol: null,
          asset: null,
          description: 'binance is slow',
          data: { venue: 'binance', latencyMs: 4000 },
        }),
      ),
    );
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('GET /dashboard/stats answers the statistics in snake_case', async () => {
    const { status, body } = await get('/dashboard/stats');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      total_events: 3,
      events_by_severity: { low: 0, medium: 1, high: 1, critical: 1 },
      active_watchdogs: 8,
      healthy_watchdogs: expect.any(Number),
      active_subscriptions: expect.any(Number),
    });
    expect(Date.parse(body.timestamp)).not.toBeNaN();
  });

  it('GET /dashboard/watchdogs lists the eight health records; one by name; 404 for an unknown name', async () => {
    const all = await get('/dashboard/watchdogs');
    expect(all.status).toBe(200);
    expect(all.body.map((h: Json) => h.name)).toEqual([
      'earnings_anomaly',
      'unusual_volume',
      'whale_movement',
      'funding_rate',
      'liquidity_drop',
      'correlation_breakdown',
      'exchange_outage',
      'price_anomaly',
    ]);
    const one = await get('/dashboard/watchdogs/price_anomaly');
    expect(one.status).toBe(200);
    expect(Object.keys(one.body).sort()).toEqual(
      [
        'name',
        'description',
        'enabled',
        'running',
        'status',
        'interval_seconds',
        'last_check',
        'last_check_ms',
        'last_event',
        'total_checks',
        'events_emitted',
        'errors',
        'consecutive_failures',
        'last_error',
        'last_checked',
        'last_gaps',
        'uptime_seconds',
        'since',
        'updated_by',
      ].sort(),
    );
    const unknown = await get('/dashboard/watchdogs/arbitrage_opportunity');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    expect((await post('/dashboard/watchdogs/nope/enable')).status).toBe(404);
  });

  it('GET /dashboard/events lists events newest first in the 2.4 shape, filtered and paged', async () => {
    const all = await get('/dashboard/events');
    expect(all.status).toBe(200);
    expect(all.body.map((e: Json) => e.event_id)).toEqual(stored.map((e) => e.id).reverse());
    expect(all.body[2]).toEqual({
      event_id: stored[0]!.id,
      type: 'price_anomaly',
      severity: 'high',
      description: 'AAPL moved +6.00% in 5 minutes',
      asset: { symbol: 'AAPL', asset_type: 'equity', market: 'US' },
      timestamp: stored[0]!.occurredAt.toISOString(),
      watchdog: 'price_anomaly',
      data: { change: 0.06, threshold: 0.05 },
      metadata: {},
    });
    expect(all.body[0].asset).toBeNull();

    const high = await get('/dashboard/events?severity=high,critical&event_type=flash_crash');
    expect(high.body.map((e: Json) => e.event_id)).toEqual([stored[1]!.id]);
    // An event about no asset passes a symbol filter, as existing clients expect.
    const aapl = await get('/dashboard/events?asset=aapl');
    expect(aapl.body.map((e: Json) => e.event_id)).toEqual([stored[2]!.id, stored[0]!.id]);

    const first = await get('/dashboard/events?limit=2');
    expect(first.body).toHaveLength(2);
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toBeTruthy();
    expect(first.headers.get('link')).toContain('rel="next"');
    const second = await get(`/dashboard/events?limit=2&cursor=${encodeURIComponent(cursor!)}`);
    expect(second.body.map((e: Json) => e.event_id)).toEqual([stored[0]!.id]);
    expect(second.headers.get('x-next-cursor')).toBeNull();
  });

  it('answers 400 naming the bad parameter', async () => {
    for (const [query, field] of [
      ['severity=bogus', 'severity'],
      ['event_type=bogus', 'event_type'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['since=yesterday', 'since'],
    ] as const) {
      const { status, body } = await get(`/dashboard/events?${query}`);
      expect(status, query).toBe(400);
      expect(body.error.code).toBe('BAD_USER_INPUT');
      expect(body.error.details.field, query).toBe(field);
      expect(body.error.message.startsWith(`${field}:`)).toBe(true);
    }
  });

  it('GET /dashboard/assets/monitor answers each symbol in order, an error entry for one that failed', async () => {
    const { status, body } = await get('/dashboard/assets/monitor?symbols=AAPL,NOSUCHSYMBOL1,BTC/USDT');
    expect(status).toBe(200);
    expect(body.map((a: Json) => a.requested)).toEqual(['AAPL', 'NOSUCHSYMBOL1', 'BTC/USDT']);
    expect(body[0]).toMatchObject({ symbol: 'AAPL', asset_type: 'equity', price: expect.any(Number) });
    expect(body[0].provider).toBe('simulated');
    expect(body[2]).toMatchObject({ symbol: 'BTC/USDT', asset_type: 'crypto', price: expect.any(Number) });
    expect(body[1]).toEqual({
      symbol: 'NOSUCHSYMBOL1',
      requested: 'NOSUCHSYMBOL1',
      error: { code: expect.any(String), message: expect.any(String) },
    });
    expect(body[1]).not.toHaveProperty('price');
    for (const query of [
      '',
      '?symbols=',
      `?symbols=${Array.from({ length: 51 }, (_, i) => `S${i}`).join(',')}`,
    ]) {
      const refused = await get(`/dashboard/assets/monitor${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.details.field).toBe('symbols');
    }
  });

  it('disables, enables and restarts a watchdog, persisted and visible on the next read', async () => {
    const disabled = await post('/dashboard/watchdogs/whale_movement/disable');
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({
      status: 'disabled',
      watchdog: 'whale_movement',
      health: { name: 'whale_movement', enabled: false, status: 'disabled' },
    });
    expect((await get('/dashboard/watchdogs/whale_movement')).body.enabled).toBe(false);

    const enabled = await post('/dashboard/watchdogs/whale_movement/enable');
    expect(enabled.body).toMatchObject({
      status: 'enabled',
      watchdog: 'whale_movement',
      health: { enabled: true },
    });
    expect((await get('/dashboard/watchdogs/whale_movement')).body.enabled).toBe(true);

    const restarted = await post('/dashboard/watchdogs/whale_movement/restart');
    expect(restarted.body).toMatchObject({
      status: 'restarted',
      watchdog: 'whale_movement',
      health: { total_checks: 0 },
    });
  });

  it('serves the same through GraphQL, with NOT_FOUND-free enums and named filter errors', async () => {
    const { body } = await graphql<Json>(
      t.app,
      `query($f: WatchdogEventFilter) {
        watchdog(name: PRICE_ANOMALY) { id name status enabled uptimeSeconds }
        watchdogEvents(filter: $f, limit: 1) { events { id eventType severity asset { symbol assetType } } nextCursor }
        watchdogEvent(id: "${stored[0]!.id}") { id description data }
        dashboardStats { totalEvents eventsBySeverity { high } }
      }`,
      { f: { severities: ['HIGH', 'CRITICAL'] } },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.watchdog).toMatchObject({ id: 'price_anomaly', name: 'PRICE_ANOMALY', enabled: true });
    expect(body.data.watchdogEvents.events).toEqual([
      {
        id: stored[1]!.id,
        eventType: 'FLASH_CRASH',
        severity: 'CRITICAL',
        asset: { symbol: 'TSLA', assetType: 'equity' },
      },
    ]);
    expect(body.data.watchdogEvents.nextCursor).toBeTruthy();
    expect(body.data.watchdogEvent.data).toEqual({ change: 0.06, threshold: 0.05 });
    expect(body.data.dashboardStats.totalEvents).toBe(3);

    const bad = await graphql<Json>(
      t.app,
      '{ watchdogEvents(limit: 0, filter: { symbols: [""] }) { nextCursor } }',
    );
    expect((bad.body as Json).errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit' });
    const badSymbol = await graphql<Json>(
      t.app,
      '{ watchdogEvents(filter: { symbols: [""] }) { nextCursor } }',
    );
    expect((badSymbol.body as Json).errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'symbols',
    });
  });

  it('serves the MCP tools with the same wire shapes', async () => {
    const client = new Client({ name: 'dashboard-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      for (const name of [
        'get-dashboard-stats',
        'get-watchdog-status',
        'get-watchdog-events',
        'monitor-assets',
        'enable-watchdog',
        'disable-watchdog',
        'restart-watchdog',
      ]) {
        expect(names).toContain(name);
      }
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const result: Json = await client.callTool({ name, arguments: args });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        return result.structuredContent;
      };
      expect((await call('get-dashboard-stats')).total_events).toBe(3);
      const status = await call('get-watchdog-status', { name: 'funding_rate' });
      expect(status.watchdogs.map((h: Json) => h.name)).toEqual(['funding_rate']);
      expect((await call('get-watchdog-status')).watchdogs).toHaveLength(8);
      const events = await call('get-watchdog-events', { severities: ['critical'], limit: 5 });
      expect(events).toEqual({
        events: [expect.objectContaining({ event_id: stored[1]!.id, type: 'flash_crash' })],
        next_cursor: null,
      });
      const rest = await get('/dashboard/events?severity=critical&limit=5');
      expect(events.events).toEqual(rest.body);
      const monitor = await call('monitor-assets', { symbols: ['AAPL'], asset_type: 'equity' });
      expect(monitor.assets[0]).toMatchObject({ symbol: 'AAPL', asset_type: 'equity' });
      expect(await call('disable-watchdog', { name: 'funding_rate' })).toMatchObject({
        status: 'disabled',
        health: { enabled: false },
      });
      expect(await call('enable-watchdog', { name: 'funding_rate' })).toMatchObject({ status: 'enabled' });
    } finally {
      await client.close();
    }
  });
});

describe('dashboard switches with AUTH_REQUIRED', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        ...ENV,
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        AUTH_MAX_FAILURES_PER_MINUTE: '100000',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('refuses the switches to a read key (403 naming admin) and lets it read; an admin may switch', async () => {
    const reader = await issueKey(t.app, 'reader', ['READ']);
    const read = await t.app.fetch('/dashboard/watchdogs/price_anomaly', { headers: bearer(reader.secret) });
    expect(read.status).toBe(200);
    for (const action of ['enable', 'disable', 'restart']) {
      const refused = await t.app.fetch(`/dashboard/watchdogs/price_anomaly/${action}`, {
        method: 'POST',
        headers: bearer(reader.secret),
      });
      expect(refused.status).toBe(403);
      const body: Json = await refused.json();
      expect(body.error).toMatchObject({ code: 'FORBIDDEN', details: { scope: 'admin' } });
    }
    const gql = await graphql<Json>(
      t.app,
      'mutation { disableWatchdog(name: PRICE_ANOMALY) { enabled } }',
      {},
      bearer(reader.secret),
    );
    expect((gql.body as Json).errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await t.app.fetch('/dashboard/stats')).status).toBe(401);

    const admin = await t.app.fetch('/dashboard/watchdogs/price_anomaly/disable', {
      method: 'POST',
      headers: bearer(ADMIN_KEY),
    });
    expect(admin.status).toBe(200);
    expect(((await admin.json()) as Json).health).toMatchObject({
      enabled: false,
      updated_by: expect.any(String),
    });
  });
});
