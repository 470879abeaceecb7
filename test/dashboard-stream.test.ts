import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/platform/observability/logger.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import type { WatchdogEvent } from '../src/watchdogs/events.repository.ts';
import { graphqlWs, Socket } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { ManualClock } from './support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/**
 * The live dashboard surfaces: /dashboard/stream (a plain `ws` client), the GraphQL subscription
 * `watchdogEvents` (graphql-ws) and the MCP resource `vigil://events` (the MCP SDK client). The app
 * runs on a manual clock, so the stream's periodic messages come when the test moves time.
 */

const ENV = { MARKET_DATA_PROVIDERS: 'simulated', WATCHDOGS_RUN: 'false', RATE_LIMIT_MAX: '100000' };

const sample = (over: Partial<NewWatchdogEvent> = {}): NewWatchdogEvent => ({
  watchdog: 'price_anomaly',
  eventType: 'price_anomaly',
  severity: 'high',
  symbol: 'AAPL',
  asset: { symbol: 'AAPL', assetType: 'equity' },
  description: 'AAPL moved +6.00% in 5 minutes',
  data: { change: 0.06 },
  ...over,
});
const critical = (symbol = 'TSLA') =>
  sample({
    severity: 'critical',
    eventType: 'flash_crash',
    symbol,
    asset: { symbol, assetType: 'equity' },
    description: `${symbol} fell 12%`,
  });

/** Resolves once `check` holds (looked at after each turn of the event loop); rejects after `ms`. */
async function until(check: () => boolean, what: string, ms = 8_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('dashboard live surfaces', () => {
  let t: TestApp;
  let clock: ManualClock;
  let publish: (e: NewWatchdogEvent) => Promise<WatchdogEvent>;

  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2025-06-11T15:00:00Z'));
    t = await createTestApp({ listen: true, env: ENV, overrides: { clock } });
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock,
      logger: createLogger('silent'),
    });
    publish = (e) => t.app.deps.database.db.transaction((tx) => bus.publish(tx, e));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('/dashboard/stream: stats first, then health; every event; ping, filters and errors', async () => {
    const listeners = t.app.deps.watchdogs.listenerCount;
    const ws = new Socket(`${t.wsUrl}/dashboard/stream`);
    expect(await ws.opened).toBe(true);
    await ws.next('health');
    expect(ws.messages[0]!.type).toBe('stats');
    expect(ws.messages[0]!.data).toMatchObject({
      active_watchdogs: 8,
      events_by_severity: expect.any(Object),
    });
    const health: Json = ws.messages[1];
    expect(health.type).toBe('health');
    expect(health.data.watchdogs).toHaveLength(8);
    expect(['healthy', 'degraded', 'unhealthy']).toContain(health.data.status);
    expect(t.app.deps.watchdogs.listenerCount).toBe(listeners + 1);

    const first = await publish(sample());
    const event: Json = await ws.next('event');
    expect(event.data).toEqual({
      event_id: first.id,
      type: 'price_anomaly',
      severity: 'high',
      description: 'AAPL moved +6.00% in 5 minutes',
      asset: { symbol: 'AAPL', asset_type: 'equity' },
      timestamp: first.occurredAt.toISOString(),
      watchdog: 'price_anomaly',
      data: { change: 0.06 },
      metadata: {},
    });

    ws.send({ type: 'ping' });
    expect(await ws.next('pong')).toMatchObject({ data: { timestamp: expect.any(String) } });

    ws.send({ type: 'filter', filter: { severities: ['bogus'] } });
    const refused: Json = await ws.next('error');
    expect(refused.data).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.severities' });
    ws.send({ type: 'subscribe' });
    await until(() => ws.messages.filter((m) => m.type === 'error').length === 2, 'a second error');
    expect((ws.messages.filter((m) => m.type === 'error')[1] as Json).data.field).toBe('type');

    ws.send({ type: 'filter', filter: { severities: ['critical'], event_types: ['flash_crash'] } });
    expect(await ws.next('filter')).toEqual({
      type: 'filter',
      data: { severities: ['critical'], event_types: ['flash_crash'], watchdogs: [], symbols: [] },
    });
    await publish(sample());
    const crash = await publish(critical());
    await until(() => ws.messages.filter((m) => m.type === 'event').length === 2, 'the critical event');
    const events = ws.messages.filter((m) => m.type === 'event') as Json[];
    expect(events.map((e) => e.data.event_id)).toEqual([first.id, crash.id]);

    ws.close();
    await ws.closed;
    await until(() => t.app.deps.watchdogs.listenerCount === listeners, 'the listener to leave');
  });

  it('/dashboard/stream sends stats and health again every 10 seconds of the clock', async () => {
    const ws = new Socket(`${t.wsUrl}/dashboard/stream`);
    await ws.next('health');
    const count = (type: string) => ws.messages.filter((m) => m.type === type).length;
    // Poll by poll (each tick reads the database in real time before it sets the next timer).
    const start = clock.now().getTime();
    for (let i = 0; i < 20 && count('stats') < 2; i++) {
      await clock.advance(2_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(count('stats')).toBe(2);
    expect(count('health')).toBeGreaterThanOrEqual(2);
    expect(clock.now().getTime() - start).toBeGreaterThanOrEqual(10_000);
    ws.close();
    await ws.closed;
  });

  it('/dashboard/stream sends every connection the same text frames of an event, filtered ones only what passes', async () => {
    const listeners = t.app.deps.watchdogs.listenerCount;
    const sockets = [0, 1, 2].map(() => new Socket(`${t.wsUrl}/dashboard/stream`));
    const frames = sockets.map((ws) => {
      const seen: Array<{ text: string; binary: boolean }> = [];
      ws.socket.on('message', (data, binary) => seen.push({ text: String(data), binary }));
      return seen;
    });
    for (const ws of sockets) await ws.next('health');
    const [all, also, filtered] = sockets as [Socket, Socket, Socket];
    filtered.send({ type: 'filter', filter: { severities: ['critical'] } });
    await filtered.next('filter');
    const high = await publish(sample({ description: 'shared bytes: high' }));
    const crash = await publish(critical('AMZN'));
    const events = (i: number) => frames[i]!.filter((f) => f.text.startsWith('{"type":"event"'));
    await until(() => events(0).length === 2 && events(1).length === 2, 'both events');
    await until(() => events(2).length === 1, 'the critical event');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events(0)).toEqual(events(1));
    expect(events(0).map((f) => JSON.parse(f.text).data.event_id)).toEqual([high.id, crash.id]);
    expect(events(2)).toEqual([events(0)[1]]);
    for (const f of frames.flat()) expect(f.binary).toBe(false);
    expect(all.messages.filter((m) => m.type === 'event')).toHaveLength(2);
    expect(also.messages.filter((m) => m.type === 'event')).toHaveLength(2);

    for (const ws of sockets) ws.close();
    await Promise.all(sockets.map((ws) => ws.closed));
    await until(() => t.app.deps.watchdogs.listenerCount === listeners, 'the listeners to leave');
  });

  it('the GraphQL subscription delivers events, narrowed by its filter, and leaves the feed when ended', async () => {
    const listeners = t.app.deps.watchdogs.listenerCount;
    const { client } = graphqlWs(`${t.wsUrl}/graphql`);
    const received: Record<string, Json[]> = { all: [], critical: [] };
    const subscribe = (key: string, filter: string) =>
      client.subscribe<Json>(
        {
          query: `subscription { watchdogEvents${filter} { id eventType severity symbol asset { symbol } } }`,
        },
        {
          next: (r) => received[key]!.push(r.data?.watchdogEvents ?? r),
          error: () => {},
          complete: () => {},
        },
      );
    const stops = [subscribe('all', ''), subscribe('critical', '(filter: { severities: [CRITICAL] })')];
    await until(() => t.app.deps.watchdogs.listenerCount === listeners + 2, 'both subscriptions to start');

    const high = await publish(sample({ symbol: 'MSFT', asset: { symbol: 'MSFT', assetType: 'equity' } }));
    const crash = await publish(critical('NVDA'));
    await until(() => received.all!.length === 2 && received.critical!.length === 1, 'the events');
    expect(received.all!.map((e) => e.id)).toEqual([high.id, crash.id]);
    expect(received.critical).toEqual([
      {
        id: crash.id,
        eventType: 'FLASH_CRASH',
        severity: 'CRITICAL',
        symbol: 'NVDA',
        asset: { symbol: 'NVDA' },
      },
    ]);

    const bad: Json[] = [];
    client.subscribe<Json>(
      { query: 'subscription { watchdogEvents(filter: { symbols: [""] }) { id } }' },
      { next: (r) => bad.push(r), error: (e) => bad.push(e), complete: () => {} },
    );
    await until(() => bad.length > 0, 'the refusal');
    expect(JSON.stringify(bad[0])).toContain('symbols');

    for (const stop of stops) stop();
    await until(() => t.app.deps.watchdogs.listenerCount === listeners, 'the subscriptions to leave');
    await client.dispose();
  });

  it('vigil://events reads the newest events and notifies its subscribers of new ones', async () => {
    const client = new McpClient({ name: 'dashboard-stream-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    try {
      await client.subscribeResource({ uri: 'vigil://events' });
      const event = await publish(critical('AMD'));
      await until(() => updates.length === 1, 'a resource update');
      expect(updates).toEqual(['vigil://events']);
      const read = await client.readResource({ uri: 'vigil://events' });
      const body: Json = JSON.parse(String((read.contents[0] as Json).text));
      expect(body.events[0]).toMatchObject({
        event_id: event.id,
        type: 'flash_crash',
        asset: { symbol: 'AMD' },
      });
      await client.unsubscribeResource({ uri: 'vigil://events' });
    } finally {
      await client.close();
    }
  });
});

describe('listeners of the live event feed', () => {
  let t: TestApp;
  const LIMIT = 4;

  beforeAll(async () => {
    t = await createTestApp({ listen: true, env: { ...ENV, WATCHDOG_EVENT_MAX_LISTENERS: String(LIMIT) } });
  });
  afterAll(async () => t?.close());

  it('are bounded per instance by WATCHDOG_EVENT_MAX_LISTENERS: one more is refused with SUBSCRIPTION_LIMIT', async () => {
    // The service's own listeners (alerts) count too.
    const own = t.app.deps.watchdogs.listenerCount;
    expect(own).toBeLessThan(LIMIT);
    const open = Array.from({ length: LIMIT - own }, () => new Socket(`${t.wsUrl}/dashboard/stream`));
    for (const ws of open) await ws.next('health');
    const refused = new Socket(`${t.wsUrl}/dashboard/stream`);
    const error: Json = await refused.next('error');
    expect(error.data).toMatchObject({ code: 'SUBSCRIPTION_LIMIT' });
    expect((await refused.closed).code).toBe(1013);
    open[0]!.socket.close();
    await until(() => t.app.deps.watchdogs.listenerCount === LIMIT - 1, 'a listener to leave');
    const again = new Socket(`${t.wsUrl}/dashboard/stream`);
    await again.next('health');
    for (const ws of [...open.slice(1), again]) ws.socket.close();
  });
});
