import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { ManualClock } from '../../../test/support/manual-clock.ts';
import { createLogger } from '../../platform/observability/logger.ts';
import type { WsRouteContext } from '../../platform/ws/upgrade-router.ts';
import { type EventFilter, matchesEventFilter } from '../event-filter.ts';
import type { ReplayRequest, ReplayResult } from '../event-replay.ts';
import type { WatchdogEvent } from '../events.repository.ts';
import type { DashboardStats, WatchdogHealth, WatchdogsApi } from '../watchdogs-api.ts';
import { DashboardStream } from './dashboard.stream.ts';

/** A server-side socket that keeps what it is sent. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readonly CLOSED = 3;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: Array<{ readonly data: unknown; readonly options: unknown }> = [];
  closedWith: number | undefined;
  /** Callbacks of sends that asked to hear when their bytes are handed on, in order. */
  readonly flushes: Array<() => void> = [];

  send(data: unknown, options?: unknown, flushed?: () => void): void {
    this.sent.push({ data, options });
    if (flushed) this.flushes.push(flushed);
  }

  close(code = 1000): void {
    if (this.readyState === this.CLOSED) return;
    this.closedWith = code;
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

  /** Each message as `type` or, for an event, `event:<id>`. */
  summary(): string[] {
    return this.texts().map((text) => {
      const message = JSON.parse(text);
      return message.type === 'event' ? `event:${message.data.event_id}` : message.type;
    });
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

/** Watchdogs whose feed the test drives; stats and health reads are counted, replays answered by the test. */
function fakeWatchdogs() {
  const listeners = new Set<(event: WatchdogEvent) => void>();
  const reads = { stats: 0, health: 0 };
  const replays: Array<{
    request: ReplayRequest;
    filter: EventFilter;
    resolve: (result: ReplayResult) => void;
    reject: (error: Error) => void;
  }> = [];
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
    replayEvents(request: ReplayRequest, filter: EventFilter) {
      return new Promise<ReplayResult>((resolve, reject) => {
        replays.push({ request, filter, resolve, reject });
      });
    },
  };
  const publish = (event: WatchdogEvent) => {
    for (const listener of listeners) listener(event);
  };
  return { api: api as unknown as WatchdogsApi, publish, reads, listeners, replays };
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
  const connect = (url = '/dashboard/stream') => {
    const socket = new FakeSocket();
    const limits = { maxBufferedBytes: 4_000 };
    stream.onConnection(
      socket as unknown as WebSocket,
      { request: { url }, limits } as unknown as WsRouteContext,
    );
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

  it('replays stored events after the opening health, then the live events heard meanwhile, each once', async () => {
    const { watchdogs, connect } = setup();
    const socket = connect('/dashboard/stream?last=3&severity=high&key=k');
    expect(watchdogs.replays).toHaveLength(1);
    const [replay] = watchdogs.replays;
    expect(replay!.request).toEqual({ last: 3, afterId: undefined, since: undefined });
    expect(replay!.filter.severities).toEqual(['high']);
    // Heard before the stored events were read: AB is among them, AA does not pass the filter.
    watchdogs.publish(event('01JXP0000000000000000000AB', 'high'));
    watchdogs.publish(event('01JXP0000000000000000000AA', 'low'));
    await settled();
    await settled();
    expect(socket.summary()).toEqual(['stats', 'health']);
    replay!.resolve({
      events: ['01JXP00000000000000000009Z', '01JXP0000000000000000000AB', '01JXP0000000000000000000AC'].map(
        (id) => event(id, 'high'),
      ),
      complete: false,
    });
    await settled();
    // AC's own notification arrives after the replay went out; AD was stored after the read.
    watchdogs.publish(event('01JXP0000000000000000000AC', 'high'));
    watchdogs.publish(event('01JXP0000000000000000000AD', 'high'));
    expect(socket.summary()).toEqual([
      'stats',
      'health',
      'event:01JXP00000000000000000009Z',
      'event:01JXP0000000000000000000AB',
      'event:01JXP0000000000000000000AC',
      'replay',
      'event:01JXP0000000000000000000AD',
    ]);
    expect(JSON.parse(socket.ofType('replay')[0]!.data as string)).toEqual({
      type: 'replay',
      data: { count: 3, complete: false },
    });
    socket.close();
  });

  it('refuses a bad parameter by name, before it listens, and closes with 1008', () => {
    const { watchdogs, stream, connect } = setup();
    for (const [query, field] of [
      ['last=0', 'last'],
      ['last=5000', 'last'],
      ['since=tomorrow', 'since'],
      ['severity=urgent', 'severity'],
    ]) {
      const socket = connect(`/dashboard/stream?${query}`);
      expect(JSON.parse(socket.texts()[0]!)).toMatchObject({
        type: 'error',
        data: { code: 'BAD_USER_INPUT', field },
      });
      expect(socket.closedWith).toBe(1008);
    }
    expect(watchdogs.listeners.size).toBe(0);
    expect(watchdogs.replays).toHaveLength(0);
    expect(stream.connectionCount).toBe(0);
  });

  it('says so when the stored events cannot be read, and goes on live', async () => {
    const { watchdogs, connect } = setup();
    const socket = connect('/dashboard/stream?since=2025-06-11T00:00:00Z');
    watchdogs.publish(event('01JXP0000000000000000000AE', 'high'));
    watchdogs.replays[0]!.reject(new Error('database down'));
    await settled();
    await settled();
    expect(socket.summary()).toEqual(['stats', 'health', 'error', 'event:01JXP0000000000000000000AE']);
    expect(JSON.parse(socket.ofType('error')[0]!.data as string).data.code).toBe('INTERNAL');
    socket.close();
  });

  it('closes a connection that hears more live events than it may hold while it opens, rather than drop some', async () => {
    const { watchdogs, stream, connect } = setup();
    const socket = connect('/dashboard/stream?last=10');
    for (let i = 0; i <= 1_000; i++)
      watchdogs.publish(event(`01JXP00000000000000000${String(i).padStart(4, '0')}`, 'high'));
    expect(socket.closedWith).toBe(1013);
    expect(watchdogs.listeners.size).toBe(0);
    expect(stream.connectionCount).toBe(0);
    watchdogs.replays[0]!.resolve({ events: [], complete: true });
    await settled();
    await settled();
    expect(socket.sent).toHaveLength(0);
  });

  it('paces a replay to the socket: past half its unsent-byte bound, it waits for what was sent to be handed on', async () => {
    const { watchdogs, connect } = setup();
    const socket = connect('/dashboard/stream?last=3');
    await settled();
    await settled();
    // Half of the 4,000-byte bound is taken already: the first replayed event waits for a flush.
    socket.bufferedAmount = 1_900;
    const ids = ['01JXP0000000000000000000B1', '01JXP0000000000000000000B2', '01JXP0000000000000000000B3'];
    watchdogs.replays[0]!.resolve({ events: ids.map((id) => event(id, 'high')), complete: true });
    await settled();
    watchdogs.publish(event('01JXP0000000000000000000B4', 'high'));
    expect(socket.summary()).toEqual(['stats', 'health', `event:${ids[0]}`]);
    expect(socket.flushes).toHaveLength(1);
    socket.bufferedAmount = 0;
    socket.flushes.shift()!();
    await settled();
    expect(socket.summary()).toEqual([
      'stats',
      'health',
      ...ids.map((id) => `event:${id}`),
      'replay',
      'event:01JXP0000000000000000000B4',
    ]);
    socket.close();
  });
});
