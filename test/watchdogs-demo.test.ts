import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WATCHDOG_NAMES } from '../src/watchdogs/registry.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { createTestDatabase, serverUrl, type TestDatabase } from './support/databases.ts';
import { ManualClock } from './support/manual-clock.ts';

/**
 * A newcomer's first minutes: `SIMULATED_ACTIVITY=demo` with default settings, watchdogs running.
 * Time is the app's own (a manual clock moved a minute per cycle; the job engine runs in real
 * time), and within three cycles every one of the eight watchdogs has fired, and its events have
 * reached a /dashboard/stream client and a graphql-ws subscriber.
 */
const MINUTE = 60_000;

interface StreamMessage {
  readonly type: string;
  // biome-ignore lint/suspicious/noExplicitAny: messages are checked by their fields.
  readonly data: any;
}

describe('demo activity makes the dashboard come alive', () => {
  let t: TestApp;
  let clock: ManualClock;
  const streamed: StreamMessage[] = [];
  const subscribed: Array<{ watchdog: string; eventType: string; severity: string }> = [];
  let socket: WebSocket;
  let stopSubscription: () => void;
  let database: TestDatabase;

  beforeAll(async () => {
    // A Wednesday during US trading hours: equities and coins both trade.
    clock = new ManualClock(Date.parse('2025-06-11T15:03:17Z'));
    // The watchdogs start disabled (an operator turned them off on an earlier run), so the clients
    // below are connected before the first check; the test turns them on over HTTP.
    database = await createTestDatabase();
    const earlier = await createTestApp({ database, overrides: { clock } });
    for (const name of WATCHDOG_NAMES) await earlier.app.deps.watchdogs.setEnabled(name, false, 'test');
    await earlier.close();
    t = await createTestApp({
      listen: true,
      database,
      env: { SIMULATED_ACTIVITY: 'demo', WATCHDOGS_RUN: 'true' },
      overrides: { clock },
    });
    // Other modules listen to the bus too (the alerts feed): the two clients add to what is there.
    const before = t.app.deps.watchdogs.listenerCount;
    socket = new WebSocket(`${t.wsUrl}/dashboard/stream`);
    socket.on('message', (raw) => streamed.push(JSON.parse(String(raw))));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const client = createClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    stopSubscription = client.subscribe<{ watchdogEvents: (typeof subscribed)[number] }>(
      { query: 'subscription { watchdogEvents { watchdog eventType severity } }' },
      {
        next: (result) => {
          if (result.data) subscribed.push(result.data.watchdogEvents);
        },
        error: () => {},
        complete: () => {},
      },
    );
    // The subscription is live once the server counts its listener.
    for (let i = 0; i < 200 && t.app.deps.watchdogs.listenerCount < before + 2; i++) await sleep(10);
    expect(t.app.deps.watchdogs.listenerCount).toBe(before + 2);
  }, 60_000);

  afterAll(async () => {
    stopSubscription?.();
    socket?.close();
    await t?.close();
    await database?.cleanup();
  });

  it('fires every watchdog within three one-minute cycles, seen by the stream and the subscription', async () => {
    const watchdogs = t.app.deps.watchdogs;
    for (const name of WATCHDOG_NAMES) {
      const response = await fetch(`${t.url}/dashboard/watchdogs/${name}/enable`, { method: 'POST' });
      expect(await response.json()).toMatchObject({ status: 'enabled', watchdog: name });
    }
    for (let cycle = 1; cycle <= 3; cycle++) {
      // Each cycle: every watchdog's check for this minute has run (on whichever worker took it).
      for (let i = 0; i < 600; i++) {
        const health = await watchdogs.health();
        if (health.every((h) => h.checks >= cycle)) break;
        await sleep(50);
      }
      const fired = new Set((await watchdogs.events({ limit: 1_000 })).events.map((e) => e.watchdog));
      if (fired.size === WATCHDOG_NAMES.length) break;
      await clock.advance(MINUTE);
    }
    const health = await watchdogs.health();
    expect(health.filter((h) => h.errors > 0).map((h) => [h.name, h.lastError])).toEqual([]);
    const stored = (await watchdogs.events({ limit: 1_000 })).events;
    expect(new Set(stored.map((e) => e.watchdog))).toEqual(new Set(WATCHDOG_NAMES));

    // Every stored event reached both live clients.
    for (let i = 0; i < 200; i++) {
      const streamedEvents = streamed.filter((m) => m.type === 'event').length;
      if (streamedEvents >= stored.length && subscribed.length >= stored.length) break;
      await sleep(25);
    }
    expect(streamed[0]?.type).toBe('stats');
    const streamedEvents = streamed.filter((m) => m.type === 'event').map((m) => m.data);
    expect(new Set(streamedEvents.map((e) => e.event_id))).toEqual(new Set(stored.map((e) => e.id)));
    expect(new Set(streamedEvents.map((e) => e.watchdog))).toEqual(new Set(WATCHDOG_NAMES));
    for (const e of streamedEvents) {
      expect(e).toMatchObject({
        type: expect.any(String),
        severity: expect.stringMatching(/^(low|medium|high|critical)$/),
      });
      expect(Number.isNaN(Date.parse(e.timestamp))).toBe(false);
    }
    expect(subscribed).toHaveLength(stored.length);
    expect(new Set(subscribed.map((e) => e.watchdog))).toEqual(
      new Set(WATCHDOG_NAMES.map((n) => n.toUpperCase())),
    );
  }, 120_000);
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe.runIf(serverUrl)('two app instances on one Postgres database', () => {
  it('run each watchdog once per interval between them, and both stream every event', async () => {
    const clock = new ManualClock(Date.parse('2025-06-14T23:58:41Z'));
    const database = await createTestDatabase('postgres');
    const env = { SIMULATED_ACTIVITY: 'demo', WATCHDOGS_RUN: 'true' };
    const apps: TestApp[] = [];
    const streams: Array<{ socket: WebSocket; ids: Set<string> }> = [];
    try {
      for (let i = 0; i < 2; i++) {
        apps.push(await createTestApp({ listen: true, env, database, overrides: { clock } }));
        const socket = new WebSocket(`${apps[i]!.wsUrl}/dashboard/stream`);
        const ids = new Set<string>();
        socket.on('message', (raw) => {
          const message = JSON.parse(String(raw)) as StreamMessage;
          if (message.type === 'event') ids.add(message.data.event_id);
        });
        await new Promise((resolve, reject) => {
          socket.once('open', resolve);
          socket.once('error', reject);
        });
        streams.push({ socket, ids });
      }
      const watchdogs = apps[0]!.app.deps.watchdogs;
      // The first instance may have run its first checks before the streams connected.
      const earlier = new Set((await watchdogs.events({ limit: 1_000 })).events.map((e) => e.id));
      const cycles = 3;
      for (let cycle = 1; cycle <= cycles; cycle++) {
        for (let i = 0; i < 600; i++) {
          if ((await watchdogs.health()).every((h) => h.checks >= cycle)) break;
          await sleep(50);
        }
        if (cycle < cycles) await clock.advance(MINUTE);
      }
      // Give a late duplicate (if any) time to show before counting.
      await sleep(1_500);
      const health = await watchdogs.health();
      // Counters are shared by the instances: one check per watchdog per minute between both.
      expect(health.map((h) => [h.name, h.checks])).toEqual(WATCHDOG_NAMES.map((n) => [n, cycles]));
      const all = (await watchdogs.events({ limit: 1_000 })).events.map((e) => e.id);
      expect(new Set(all).size).toBeGreaterThanOrEqual(WATCHDOG_NAMES.length);
      const later = all.filter((id) => !earlier.has(id));
      expect(later.length).toBeGreaterThan(0);
      for (let i = 0; i < 200 && streams.some((s) => s.ids.size < later.length); i++) await sleep(25);
      // Both streams heard every event stored after they connected, from whichever instance ran it.
      for (const s of streams)
        expect([...s.ids].filter((id) => !earlier.has(id)).sort()).toEqual(later.sort());
    } finally {
      for (const s of streams) s.socket.close();
      for (const a of apps) await a.close();
      await database.cleanup();
    }
  }, 120_000);
});
