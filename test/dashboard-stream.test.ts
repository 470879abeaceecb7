import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../src/platform/observability/logger.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { ANY_EVENT } from '../src/watchdogs/event-filter.ts';
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

  /** An event about `symbol` (a symbol of its own keeps a test's events apart from the others'). */
  const about = (symbol: string, over: Partial<NewWatchdogEvent> = {}) =>
    sample({ symbol, asset: { symbol, assetType: 'equity' }, description: `${symbol} moved`, ...over });
  const eventIds = (ws: Socket) =>
    ws.messages.filter((m) => m.type === 'event').map((m) => (m as Json).data.event_id as string);

  /**
   * Makes the next replay read publish `before` and wait until the feed delivered it (so the
   * connection holds it live and reads it stored too), and publish `after` once the read is done
   * and wait for it likewise: both overlaps of a replay and the live feed, without a sleep.
   */
  function publishAroundTheRead(before: NewWatchdogEvent, after: NewWatchdogEvent) {
    const service = t.app.deps.watchdogs;
    const read = service.replayEvents.bind(service);
    const published: WatchdogEvent[] = [];
    const heard = async (event: NewWatchdogEvent) => {
      const ids = new Set<string>();
      // Listening after the connection did: the feed hands it every event before this listener.
      const stop = service.subscribe(ANY_EVENT, (e) => {
        ids.add(e.id);
      });
      try {
        const stored = await publish(event);
        published.push(stored);
        await until(() => ids.has(stored.id), 'the event to be heard live');
      } finally {
        stop();
      }
    };
    const spy = vi.spyOn(service, 'replayEvents').mockImplementationOnce(async (request, filter) => {
      await heard(before);
      const result = await read(request, filter);
      await heard(after);
      return result;
    });
    return { published, restore: () => spy.mockRestore() };
  }

  it('/dashboard/stream?last= replays the newest stored events, oldest first, after the opening and before live ones', async () => {
    const stored: WatchdogEvent[] = [];
    for (const symbol of ['LASTA', 'LASTB', 'LASTC']) stored.push(await publish(about(symbol)));
    const ws = new Socket(`${t.wsUrl}/dashboard/stream?last=2`);
    const replay: Json = await ws.next('replay');
    expect(replay.data).toEqual({ count: 2, complete: false });
    expect(ws.messages.map((m) => m.type)).toEqual(['stats', 'health', 'event', 'event', 'replay']);
    expect(eventIds(ws)).toEqual([stored[1]!.id, stored[2]!.id]);
    // The same wire shape as a live event.
    expect((ws.messages[2] as Json).data).toEqual({
      event_id: stored[1]!.id,
      type: 'price_anomaly',
      severity: 'high',
      description: 'LASTB moved',
      asset: { symbol: 'LASTB', asset_type: 'equity' },
      timestamp: stored[1]!.occurredAt.toISOString(),
      watchdog: 'price_anomaly',
      data: { change: 0.06 },
      metadata: {},
    });
    const live = await publish(about('LASTD'));
    await until(() => eventIds(ws).length === 3, 'the live event');
    expect(eventIds(ws)[2]).toBe(live.id);
    ws.close();
    await ws.closed;
  });

  it('/dashboard/stream?since= resumes after an event id, or from a time; the URL filter narrows the replay', async () => {
    const first = await publish(about('SINCEA'));
    const missed = [await publish(about('SINCEB')), await publish(critical('SINCEC'))];
    const resumed = new Socket(`${t.wsUrl}/dashboard/stream?since=${first.id}`);
    expect(((await resumed.next('replay')) as Json).data).toEqual({ count: 2, complete: true });
    expect(eventIds(resumed)).toEqual(missed.map((e) => e.id));

    await clock.advance(60_000);
    const later = [await publish(about('SINCED')), await publish(critical('SINCEE'))];
    const fromTime = new Socket(`${t.wsUrl}/dashboard/stream?since=${later[0]!.occurredAt.toISOString()}`);
    await fromTime.next('replay');
    expect(eventIds(fromTime)).toEqual(later.map((e) => e.id));

    const filtered = new Socket(`${t.wsUrl}/dashboard/stream?since=${first.id}&severity=critical&last=5`);
    expect(((await filtered.next('replay')) as Json).data).toEqual({ count: 2, complete: true });
    expect(eventIds(filtered)).toEqual([missed[1]!.id, later[1]!.id]);
    // The URL's filter goes on for the live events.
    await publish(about('SINCEF'));
    const crash = await publish(critical('SINCEG'));
    await until(() => eventIds(filtered).length === 3, 'the live critical event');
    await until(() => eventIds(fromTime).length === 4, 'both live events');
    expect(eventIds(filtered)[2]).toBe(crash.id);
    for (const ws of [resumed, fromTime, filtered]) ws.close();
    await Promise.all([resumed, fromTime, filtered].map((ws) => ws.closed));
  });

  it('/dashboard/stream sends each event once when events are stored while the replay is read', async () => {
    const older = [await publish(about('GAPLESS')), await publish(about('GAPLESS'))];
    const around = publishAroundTheRead(about('GAPLESS'), about('GAPLESS'));
    try {
      const ws = new Socket(`${t.wsUrl}/dashboard/stream?last=10&symbol=GAPLESS`);
      await ws.next('replay');
      const [before, after] = around.published;
      await until(() => eventIds(ws).length === 4, 'the event stored after the read');
      // `before` was heard live and read stored: once, in the replay; `after` follows it, live.
      expect(ws.messages.map((m) => m.type)).toEqual([
        'stats',
        'health',
        'event',
        'event',
        'event',
        'replay',
        'event',
      ]);
      expect(eventIds(ws)).toEqual([older[0]!.id, older[1]!.id, before!.id, after!.id]);
      const next = await publish(about('GAPLESS'));
      await until(() => eventIds(ws).length === 5, 'the next live event');
      expect(eventIds(ws)[4]).toBe(next.id);
      ws.close();
      await ws.closed;
    } finally {
      around.restore();
    }
  });

  it('/dashboard/stream refuses a bad replay or filter parameter by name, then closes with 1008', async () => {
    const listeners = t.app.deps.watchdogs.listenerCount;
    for (const [query, field] of [
      ['last=0', 'last'],
      ['last=1001', 'last'],
      ['last=ten', 'last'],
      ['since=last-tuesday', 'since'],
      ['since=01JXP3YV8Q&last=5', 'since'],
      ['severity=urgent&last=5', 'severity'],
    ] as const) {
      const ws = new Socket(`${t.wsUrl}/dashboard/stream?${query}`);
      const error: Json = await ws.next('error');
      expect(error.data).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(error.data.message).toMatch(new RegExp(`^${field}: `));
      const closed = await ws.closed;
      expect(closed.code).toBe(1008);
      expect(closed.reason).toMatch(new RegExp(`^${field}: `));
      expect(ws.messages).toHaveLength(1);
    }
    expect(t.app.deps.watchdogs.listenerCount).toBe(listeners);
  });

  it('the GraphQL subscription replays with last and since, filtered, each event once, then goes on live', async () => {
    const { client } = graphqlWs(`${t.wsUrl}/graphql`);
    const subscribe = (args: string) => {
      const received: Json[] = [];
      const stop = client.subscribe<Json>(
        { query: `subscription { watchdogEvents(${args}) { id symbol severity } }` },
        {
          next: (r) => received.push(r.data?.watchdogEvents ?? r),
          error: (e) => received.push({ error: e }),
          complete: () => {},
        },
      );
      return { received, stop, ids: () => received.map((e) => e.id) };
    };
    const first = await publish(about('GQLR'));
    const rest = [await publish(critical('GQLR')), await publish(about('GQLR'))];

    const last = subscribe('last: 2, filter: { symbols: ["GQLR"] }');
    await until(() => last.received.length === 2, 'the replay with last');
    expect(last.ids()).toEqual(rest.map((e) => e.id));
    const resumed = subscribe(`since: "${first.id}", filter: { symbols: ["GQLR"], severities: [CRITICAL] }`);
    await until(() => resumed.received.length === 1, 'the replay with since');
    expect(resumed.received).toEqual([{ id: rest[0]!.id, symbol: 'GQLR', severity: 'CRITICAL' }]);

    const around = publishAroundTheRead(about('GQLR'), about('GQLR'));
    let gapless: ReturnType<typeof subscribe>;
    try {
      gapless = subscribe('last: 4, filter: { symbols: ["GQLR"] }');
      await until(() => gapless.received.length === 5, 'the replay and the event stored after the read');
    } finally {
      around.restore();
    }
    const [before, after] = around.published;
    expect(gapless.ids()).toEqual([first.id, ...rest.map((e) => e.id), before!.id, after!.id]);
    const live = await publish(critical('GQLR'));
    await until(() => gapless.received.length === 6 && resumed.received.length === 2, 'the live event');
    expect(gapless.ids()[5]).toBe(live.id);
    expect(resumed.ids()).toEqual([rest[0]!.id, live.id]);
    expect(last.ids()).toEqual([...rest.map((e) => e.id), before!.id, after!.id, live.id]);

    for (const [args, field] of [
      ['last: 0', 'last'],
      ['last: 1001', 'last'],
      ['since: "last tuesday"', 'since'],
    ] as const) {
      const refused = subscribe(args);
      await until(() => refused.received.length > 0, `the refusal of ${args}`);
      // A subscription that fails to start answers with one result that has errors.
      expect(refused.received).toEqual([
        {
          errors: [
            expect.objectContaining({
              message: expect.stringMatching(new RegExp(`^${field}: `)),
              extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field }),
            }),
          ],
        },
      ]);
    }
    for (const s of [last, resumed, gapless!]) s.stop();
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
