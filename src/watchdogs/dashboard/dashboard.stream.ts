import type { WebSocket } from 'ws';
import type { Scheduler, TimerHandle } from '../../platform/clock.ts';
import { isAppError, ValidationError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import {
  CLOSE_POLICY,
  CLOSE_TRY_AGAIN_LATER,
  closeReason,
  RateGate,
} from '../../platform/ws/socket-limits.ts';
import type { WsRouteContext } from '../../platform/ws/upgrade-router.ts';
import { ANY_EVENT, type EventFilter, matchesEventFilter } from '../event-filter.ts';
import { ReplayOverlap, type ReplayQuery, type ReplayResult, replayQuery } from '../event-replay.ts';
import type { WatchdogEvent } from '../events.repository.ts';
import type { DashboardStats, WatchdogHealth, WatchdogsApi } from '../watchdogs-api.ts';
import { eventBytes, messageBytes, type ReadResult, SharedRead, sendBytes } from './dashboard.fanout.ts';
import { type StreamParams, streamParams } from './dashboard.params.ts';
import {
  HEALTH_POLL_MS,
  MESSAGE_RATE,
  dashboardMessages as messages,
  parseDashboardMessage,
  STATS_INTERVAL_MS,
} from './dashboard.protocol.ts';
import { healthWire, overallHealth, statsWire, uptimeSeconds } from './dashboard.wire.ts';

export interface DashboardStreamDeps {
  readonly watchdogs: WatchdogsApi;
  /** Drives the periodic stats and health (a test's clock drives them without waiting). */
  readonly clock: Scheduler;
  readonly logger: Logger;
}

interface Connection {
  readonly socket: WebSocket;
  /** Narrows the events sent; undefined: every event. */
  filter: EventFilter | undefined;
  /** Live events heard before the opening (stats, health, replay) went out; sent right after it, in order. */
  held: WatchdogEvent[] | undefined;
  /** The stored events asked for in the upgrade URL, being read (`read` never rejects). */
  replay: PendingReplay | undefined;
  /** The live events the replay already sent, while some may still come. */
  overlap: ReplayOverlap | undefined;
  readonly gate: RateGate;
  stop: () => void;
}

interface PendingReplay {
  readonly query: ReplayQuery;
  readonly read: Promise<ReadResult<ReplayResult>>;
  /**
   * Unsent bytes past which the replay waits for the socket to flush before it sends more: half
   * the bound on a socket's unsent bytes, so a long replay paces itself to a client that reads,
   * and only one that does not is closed as a slow reader.
   */
  readonly pace: number;
}

/**
 * Live events held for a connection while its opening is read: the bus's bound on a listener's
 * queue. Past it the connection is closed (1013) rather than left with a gap it cannot see.
 */
const MAX_HELD = 1_000;

/** `ws` options for a text message given as bytes. */
const TEXT = Object.freeze({ binary: false });

/**
 * /dashboard/stream (protocol in dashboard.protocol.ts). Each connection listens to the watchdogs'
 * event feed (the source of the GraphQL subscription) and filters locally, so a filter message
 * takes effect at once. Stats and health are read once per tick for all connections, on a timer
 * that runs only while a connection is open; connections that open together share one read of
 * their opening stats and health. A message many connections get (stats, health, an event) is
 * encoded once and the same bytes go to each. A connection whose URL asks for a replay (`last`,
 * `since`) listens first, then reads the stored events; it gets them after its opening health, and
 * the live events heard meanwhile after them, each event once (ReplayOverlap). Memory per
 * connection is bounded: a replay holds at most MAX_REPLAY_EVENTS, the live events held while a
 * connection opens are bounded (MAX_HELD), the feed drops the oldest events of a listener that falls
 * behind, and the upgrade router closes a socket whose unsent bytes pass WS_MAX_BUFFERED_BYTES.
 */
export class DashboardStream {
  readonly #connections = new Set<Connection>();
  /** Set while the next tick waits; a tick under way is `#ticking`. */
  #timer: TimerHandle | undefined;
  #ticking = false;
  #lastStatsAt = 0;
  #lastHealthAt = 0;
  #lastStatuses = '';
  /** The opening stats and health, read once for the connections waiting on them. */
  readonly #opening = new SharedRead<Connection, [DashboardStats, WatchdogHealth[]]>(
    () => Promise.all([this.deps.watchdogs.stats(), this.deps.watchdogs.health()]),
    (connections, read) => this.#open(connections, read),
  );

  constructor(private readonly deps: DashboardStreamDeps) {}

  get connectionCount(): number {
    return this.#connections.size;
  }

  onConnection = (socket: WebSocket, route: WsRouteContext): void => {
    let params: StreamParams;
    try {
      params = streamParams(new URL(route.request.url ?? '/', 'http://localhost').searchParams);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      // Refused before anything starts, as /ws/prices refuses a bad subscription: the error, then 1008.
      this.#send({ socket }, messages.error('BAD_USER_INPUT', error.message, error.field));
      socket.close(CLOSE_POLICY, closeReason(error.message));
      return;
    }
    const connection: Connection = {
      socket,
      filter: params.filter,
      held: [],
      replay: undefined,
      overlap: undefined,
      gate: new RateGate(MESSAGE_RATE.perSecond, MESSAGE_RATE.burst),
      stop: () => {},
    };
    try {
      connection.stop = this.deps.watchdogs.subscribe(ANY_EVENT, (event) => this.#onEvent(connection, event));
    } catch (error) {
      if (!isAppError(error)) throw error;
      this.#send(connection, messages.error('SUBSCRIPTION_LIMIT', error.message));
      socket.close(CLOSE_TRY_AGAIN_LATER, closeReason(error.message));
      return;
    }
    if (params.replay) {
      // Read once the connection listens, so an event stored meanwhile is live, replayed, or both (sent once).
      const filter = params.filter ?? ANY_EVENT;
      connection.replay = {
        query: replayQuery(params.replay, filter),
        pace: route.limits.maxBufferedBytes / 2,
        read: this.deps.watchdogs.replayEvents(params.replay, filter).then(
          (value) => ({ ok: true, value }),
          (error: unknown) => ({ ok: false, error }),
        ),
      };
    }
    this.#connections.add(connection);
    socket.on('message', (data, isBinary) => this.#onMessage(connection, isBinary ? '' : String(data)));
    socket.once('close', () => this.#drop(connection));
    this.#schedule();
    this.#opening.add(connection);
  };

  /**
   * Each connection gets the opening stats and health (the same bytes), then its replay when it
   * asked for one, then the live events heard meanwhile.
   */
  #open(connections: readonly Connection[], read: ReadResult<[DashboardStats, WatchdogHealth[]]>): void {
    let opening: readonly Buffer[] = [];
    try {
      if (!read.ok) throw read.error;
      const [stats, health] = read.value;
      opening = [messageBytes(messages.stats(statsWire(stats))), messageBytes(this.#healthMessage(health))];
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'dashboard stream could not read the opening stats');
    }
    for (const connection of connections) {
      try {
        for (const bytes of opening) sendBytes(connection.socket, bytes);
        if (connection.replay) void this.#replay(connection, connection.replay);
        else this.#release(connection);
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'dashboard stream could not open a connection');
      }
    }
  }

  /** Sends the stored events (oldest first) and a `replay` message, then what was heard live meanwhile. */
  async #replay(connection: Connection, replay: PendingReplay): Promise<void> {
    const read = await replay.read;
    connection.replay = undefined;
    if (!this.#connections.has(connection)) return;
    try {
      if (read.ok) {
        const { events, complete } = read.value;
        connection.overlap = new ReplayOverlap(replay.query, events);
        const sent = await this.#sendReplay(connection, events, replay.pace);
        if (!this.#connections.has(connection)) return;
        this.#send(connection, messages.replay(sent, complete));
      } else {
        this.deps.logger.warn({ err: read.error }, 'dashboard stream could not read the replay');
        this.#send(
          connection,
          messages.error('INTERNAL', 'the stored events could not be read; live events follow'),
        );
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'dashboard stream could not send the replay');
    } finally {
      this.#release(connection);
    }
  }

  /** Sends the replayed events that pass the connection's filter (a filter message sent meanwhile applies); returns how many. */
  async #sendReplay(connection: Connection, events: readonly WatchdogEvent[], pace: number): Promise<number> {
    const socket = connection.socket;
    let sent = 0;
    for (const event of events) {
      if (!this.#connections.has(connection) || socket.readyState !== socket.OPEN) break;
      if (connection.filter && !matchesEventFilter(event, connection.filter)) continue;
      const bytes = eventBytes(event);
      if (socket.bufferedAmount + bytes.length <= pace) sendBytes(socket, bytes);
      // `ws` calls back once this message (so every one before it) is handed to the system, or the
      // socket ended: a reader that does not read holds the replay here, not the server's memory.
      else await new Promise<void>((resolve) => socket.send(bytes, TEXT, () => resolve()));
      sent++;
    }
    return sent;
  }

  /** The opening is out: the live events heard meanwhile go now, and later ones as they come. */
  #release(connection: Connection): void {
    const held = connection.held ?? [];
    connection.held = undefined;
    for (const event of held) this.#onEvent(connection, event);
  }

  #onEvent(connection: Connection, event: WatchdogEvent): void {
    if (connection.held) {
      if (connection.held.length < MAX_HELD) connection.held.push(event);
      else this.#fellBehind(connection);
      return;
    }
    if (connection.overlap?.repeats(event)) return;
    this.#sendEvent(connection, event);
  }

  #sendEvent(connection: Connection, event: WatchdogEvent): void {
    if (connection.filter && !matchesEventFilter(event, connection.filter)) return;
    if (connection.socket.readyState === connection.socket.OPEN)
      sendBytes(connection.socket, eventBytes(event));
  }

  #onMessage(connection: Connection, raw: string): void {
    if (!connection.gate.tryTake().ok) {
      this.#send(
        connection,
        messages.error('RATE_LIMITED', `more than ${MESSAGE_RATE.perSecond} messages per second`),
      );
      connection.socket.close(CLOSE_POLICY, 'message rate limit');
      return;
    }
    // Whatever a client sends, the worst it gets is an error message.
    try {
      const parsed = parseDashboardMessage(raw);
      if (!parsed.ok) {
        this.#send(connection, messages.error(parsed.code, parsed.message, parsed.field));
      } else if (parsed.message.type === 'ping') {
        this.#send(connection, messages.pong(this.deps.clock.now()));
      } else {
        connection.filter = parsed.message.filter;
        this.#send(connection, messages.filter(parsed.message.filter));
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'dashboard stream message could not be handled');
      this.#send(connection, messages.error('INTERNAL', 'the message could not be handled'));
    }
  }

  /** More events came while the connection opened than it may hold: ended, never left with a silent gap. */
  #fellBehind(connection: Connection): void {
    this.deps.logger.info({ held: MAX_HELD }, 'dashboard stream connection fell behind while opening');
    this.#drop(connection);
    connection.socket.close(
      CLOSE_TRY_AGAIN_LATER,
      'too many events while the stream opened; reconnect with since=<last event id>',
    );
  }

  #drop(connection: Connection): void {
    if (!this.#connections.delete(connection)) return;
    connection.stop();
    connection.held = undefined;
    connection.overlap = undefined;
    this.#opening.delete(connection);
    if (this.#connections.size > 0) return;
    this.deps.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#lastStatsAt = 0;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#ticking || this.#connections.size === 0) return;
    if (this.#lastStatsAt === 0) this.#lastStatsAt = this.#lastHealthAt = this.deps.clock.now().getTime();
    this.#timer = this.deps.clock.setTimeout(() => {
      this.#timer = undefined;
      void this.#tick();
    }, HEALTH_POLL_MS);
  }

  /** Health every poll (sent when a status changed or it is due), stats when due. */
  async #tick(): Promise<void> {
    this.#ticking = true;
    try {
      const now = this.deps.clock.now().getTime();
      const statsDue = now - this.#lastStatsAt >= STATS_INTERVAL_MS;
      const [health, stats] = await Promise.all([
        this.deps.watchdogs.health(),
        statsDue ? this.deps.watchdogs.stats() : undefined,
      ]);
      const statuses = health.map((h) => h.status).join();
      const healthDue =
        statsDue || now - this.#lastHealthAt >= STATS_INTERVAL_MS || statuses !== this.#lastStatuses;
      this.#lastStatuses = statuses;
      if (stats) {
        this.#lastStatsAt = now;
        this.#broadcast(messages.stats(statsWire(stats)));
      }
      if (healthDue) {
        this.#lastHealthAt = now;
        this.#broadcast(this.#healthMessage(health));
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'dashboard stream could not read stats or health');
    } finally {
      this.#ticking = false;
      this.#schedule();
    }
  }

  #healthMessage(health: readonly WatchdogHealth[]) {
    const now = this.deps.clock.now();
    this.#lastStatuses = health.map((h) => h.status).join();
    return messages.health(
      overallHealth(health.filter((h) => h.enabled).map((h) => h.status)),
      health.map((h) => healthWire({ ...h, uptimeSeconds: uptimeSeconds(h, now) })),
      now,
    );
  }

  #broadcast(message: object): void {
    const bytes = messageBytes(message);
    for (const connection of this.#connections) if (!connection.held) sendBytes(connection.socket, bytes);
  }

  #send(connection: Pick<Connection, 'socket'>, message: object): void {
    if (connection.socket.readyState === connection.socket.OPEN)
      connection.socket.send(JSON.stringify(message));
  }
}
