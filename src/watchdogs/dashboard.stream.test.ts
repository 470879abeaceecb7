import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { ManualClock } from '../../test/support/manual-clock.ts';
import { createLogger } from '../platform/observability/logger.ts';
import type { WsRouteContext } from '../platform/ws/upgrade-router.ts';
import { DashboardStream } from './dashboard.stream.ts';
import { type EventFilter, matchesEventFilter } from './event-filter.ts';
import type { WatchdogEvent } from './events.repository.ts';
import type { DashboardStats, WatchdogHealth, WatchdogsApi } from './watchdogs-api.ts';

/** A server-side socket that keeps what it is sent. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readonly CLOSED = 3;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: Array<{ readonly data: unknown; readonly options: unknown }> = [];

  send(data: unknown, options?: unknown): void {
    this.sent.push({ data, options });
  }

  close(): void {
    this.readyState = this.CLOSED;
    this.emit('close', 1000, Buffer.alloc(0));
  }

  /** What was sent, as text, with the type of each message. */
  texts(): string[] {
    return this.sent.map(({ data }) => String(data));
  }

  ofType(type: string) {
    return this.sent.filter(({ data }) => String(data).startsWith(`{"type":"${type}"`));
  }
}

const at = new Date('2025-06-11T15:00:00Z');
const health: WatchdogHealth = {
  name: 'price_anomaly',
  description: 'Price moves',
  enabled: true,
  running: true,
  status: 'running',
  intervalSeconds: 60,
  lastCheck: at,
  lastCheckMs: 12,
  lastEvent: null,
  checks: 3,
  events: 0,
  errors: 0,
  consecutiveFailures: 0,
  lastChecked: 10,
  lastGaps: 0,
  lastError: null,
  since: at,
  updatedBy: null,
};

/** Watchdogs whose feed the test drives; stats and health reads are counted. */
function fakeWatchdogs() {
  const listeners = new Set<(event: WatchdogEvent) => void>();
  const reads = { stats: 0, health: 0 };
  const api = {
    names: ['price_anomaly'],
    async stats(): Promise<DashboardStats> {
      reads.stats++;
      return {
        totalEvents: 1,
        eventsBySeverity: { low: 0, medium: 0, high: 1, critical: 0 },
        activeWatchdogs: 1,
        healthyWatchdogs: 1,
        activeSubscriptions: listeners.size,
        timestamp: at,
      };
    },
    async health() {
      reads.health++;
      return [health];
    },
    subscribe(filter: EventFilter, listener: (event: WatchdogEvent) => void) {
      const heard = (event: WatchdogEvent) =>
        matchesEventFilter(event, filter) ? listener(event) : undefined;
      listeners.add(heard);
      return () => listeners.delete(heard);
    },
    get listenerCount() {
      return listeners.size;
    },
  };
  const publish = (event: WatchdogEvent) => {
    for (const listener of listeners) listener(event);
  };
  return { api: api as unknown as WatchdogsApi, publish, reads, listeners };
}

const event = (id: string, severity: WatchdogEvent['severity']): WatchdogEvent => ({
  id,
  watchdog: 'price_anomaly',
  eventType: 'price_anomaly',
  severity,
  symbol: 'AAPL',
  asset: { symbol: 'AAPL', assetType: 'equity' },
  description: `AAPL ${severity}`,
  data: {},
  occurredAt: at,
  createdAt: at,
});

const settled = () => new Promise((resolve) => setImmediate(resolve));

function setup() {
  const watchdogs = fakeWatchdogs();
  const clock = new ManualClock(at);
  const stream = new DashboardStream({ watchdogs: watchdogs.api, clock, logger: createLogger('silent') });
  const connect = () => {
    const socket = new FakeSocket();
    stream.onConnection(socket as unknown as WebSocket, {} as WsRouteContext);
    return socket;
  };
  return { watchdogs, clock, stream, connect };
}

describe('dashboard stream fan-out', () => {
  it('hands every connection the same bytes of a shared message, as text frames', async () => {
    const { watchdogs, clock, stream, connect } = setup();
    const [a, b] = [connect(), connect()];
    await settled();
    await settled();
    expect(a.texts().map((t) => JSON.parse(t).type)).toEqual(['stats', 'health']);
    // Accepted together: one read of the opening stats and health, the same bytes for both.
    expect(watchdogs.reads).toEqual({ stats: 1, health: 1 });
    for (const [i, { data }] of a.sent.entries()) expect(b.sent[i]!.data).toBe(data);
    const late = connect();
    await settled();
    await settled();
    expect(watchdogs.reads).toEqual({ stats: 2, health: 2 });
    // Each read is begun after its connections came: its stats count them.
    const subscriptions = (socket: FakeSocket) => JSON.parse(socket.texts()[0]!).data.active_subscriptions;
    expect([subscriptions(a), subscriptions(late)]).toEqual([2, 3]);
    watchdogs.publish(event('01JXP0000000000000000000AA', 'high'));
    const [sentA, sentB] = [a.ofType('event'), b.ofType('event')];
    expect(sentA).toHaveLength(1);
    expect(sentB[0]!.data).toBe(sentA[0]!.data);
    expect(Buffer.isBuffer(sentA[0]!.data)).toBe(true);
    for (const { options } of [...a.sent, ...b.sent]) expect(options).toEqual({ binary: false });

    await clock.advance(10_000);
    await settled();
    const [statsA, statsB] = [a.ofType('stats'), b.ofType('stats')];
    expect(statsA).toHaveLength(2);
    expect(statsB[1]!.data).toBe(statsA[1]!.data);
    for (const socket of [a, b, late]) socket.close();
    expect(stream.connectionCount).toBe(0);
  });

  it('sends a filtered connection only the events that pass, with the bytes the others get', async () => {
    const { watchdogs, connect } = setup();
    const [all, critical] = [connect(), connect()];
    await settled();
    await settled();
    critical.emit('message', Buffer.from('{"type":"filter","filter":{"severities":["critical"]}}'), false);
    expect(critical.ofType('filter')).toHaveLength(1);
    watchdogs.publish(event('01JXP0000000000000000000AB', 'high'));
    watchdogs.publish(event('01JXP0000000000000000000AC', 'critical'));
    expect(all.ofType('event')).toHaveLength(2);
    const passed = critical.ofType('event');
    expect(passed.map(({ data }) => JSON.parse(String(data)).data.event_id)).toEqual([
      '01JXP0000000000000000000AC',
    ]);
    expect(passed[0]!.data).toBe(all.ofType('event')[1]!.data);
    all.close();
    critical.close();
  });

  it('keeps events heard while a connection opens for after its opening stats, in order', async () => {
    const { watchdogs, connect } = setup();
    const socket = connect();
    watchdogs.publish(event('01JXP0000000000000000000AD', 'high'));
    watchdogs.publish(event('01JXP0000000000000000000AE', 'low'));
    expect(socket.sent).toHaveLength(0);
    await settled();
    await settled();
    expect(socket.texts().map((t) => JSON.parse(t).type)).toEqual(['stats', 'health', 'event', 'event']);
    socket.close();
  });

  it('leaves nothing of a closed connection behind: no listener, no opening, no sends', async () => {
    const { watchdogs, clock, stream, connect } = setup();
    const early = connect();
    const closing = connect();
    // Closed while it waited for its opening read (the first read was under way for `early`).
    closing.close();
    await settled();
    await settled();
    expect(closing.sent).toHaveLength(0);
    expect(watchdogs.reads.stats).toBe(1);
    early.close();
    expect(stream.connectionCount).toBe(0);
    expect(watchdogs.listeners.size).toBe(0);
    watchdogs.publish(event('01JXP0000000000000000000AF', 'high'));
    await clock.advance(20_000);
    expect(early.ofType('event')).toHaveLength(0);
    expect(clock.pending).toBe(0);
  });
});
