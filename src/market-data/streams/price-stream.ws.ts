import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { isAppError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import type { WsRouteContext } from '../../platform/ws/upgrade-router.ts';
import type { PriceHub, PriceTick } from '../hub/price-hub.ts';
import { namesInstrument, resolveStreamable } from '../hub/streamable.ts';
import type { MarketDataService } from '../market-data.service.ts';
import { TokenBucket } from '../providers/http/token-bucket.ts';
import { ASSET_CLASSES, type AssetClass, type Instrument } from '../types.ts';
import { MinuteBars } from './ohlcv.ts';
import {
  type ErrorCode,
  LIMITS,
  messages,
  ohlcvItem,
  parseClientMessage,
  priceItem,
  type StreamType,
  SUPPORTED_STREAM_TYPES,
  type SubscribeMessage,
  type UnsubscribeMessage,
} from './price-stream.protocol.ts';

interface Subscription {
  readonly id: string;
  readonly streamType: StreamType;
  readonly intervalMs: number;
  readonly instruments: Map<string, Instrument>;
  readonly leave: Map<string, () => void>;
  readonly pending: Map<string, unknown>;
  readonly bars: Map<string, MinuteBars>;
  readonly connection: Connection;
  /** When the last data message went out, and the pending flush (if one is scheduled). */
  lastSentAt: number;
  timer: NodeJS.Timeout | undefined;
  flushQueued: boolean;
}

interface Connection {
  readonly socket: WebSocket;
  readonly route: string;
  readonly subscriptions: Map<string, Subscription>;
  readonly bucket: TokenBucket;
}

/** Close code for a policy violation (limits, malformed path). */
const POLICY = 1008;
const ASSET_TYPES = new Set<AssetClass>(ASSET_CLASSES);

/**
 * Connections of /ws/stream and /ws/prices/{symbols}. Every subscription rides the shared price
 * hub (one upstream per symbol for all connections) and sends one `data` message per interval
 * holding the latest update of each symbol that changed. A slow reader skips messages (its symbols
 * stay pending, latest only) instead of growing a buffer.
 */
export class PriceStreams {
  readonly #connections = new Set<Connection>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor(
    private readonly hub: PriceHub,
    private readonly marketData: MarketDataService,
    private readonly logger: Logger,
  ) {
    this.#heartbeat = setInterval(() => {
      for (const c of this.#connections) this.#send(c, messages.heartbeat(c.subscriptions.size));
    }, LIMITS.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** /ws/stream: the client subscribes with messages. */
  onStreamConnection = (socket: WebSocket, route: WsRouteContext): void => {
    this.#open(socket, route.template);
  };

  /** /ws/prices/{symbols}: subscribed from the path (query: interval_ms, market, asset_type). */
  onPricesConnection = (socket: WebSocket, route: WsRouteContext): void => {
    const connection = this.#open(socket, route.template);
    const url = new URL(route.request.url ?? '/', 'http://localhost');
    const interval = url.searchParams.get('interval_ms');
    const raw = {
      type: 'subscribe',
      stream_type: 'price',
      symbols: (route.params.symbols ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      market: url.searchParams.get('market') ?? 'US',
      asset_type: url.searchParams.get('asset_type') ?? 'equity',
      ...(interval !== null ? { interval_ms: Number(interval) } : {}),
    };
    const parsed = parseClientMessage(JSON.stringify(raw));
    if (!parsed.ok || parsed.message.type !== 'subscribe') {
      const failure = parsed.ok
        ? { code: 'SUBSCRIPTION_ERROR' as const, message: 'invalid subscription', details: {} }
        : parsed;
      this.#send(connection, messages.error(failure.code, failure.message, failure.details));
      socket.close(POLICY, 'invalid subscription');
      return;
    }
    void this.#subscribe(connection, parsed.message, true);
  };

  /** For GET /ws/connections: live counts, accurate after unsubscribes and disconnects. */
  stats() {
    const symbols = new Set<string>();
    let subscriptions = 0;
    const byRoute: Record<string, number> = {};
    for (const c of this.#connections) {
      byRoute[c.route] = (byRoute[c.route] ?? 0) + 1;
      subscriptions += c.subscriptions.size;
      for (const sub of c.subscriptions.values())
        for (const symbol of sub.instruments.keys()) symbols.add(symbol);
    }
    return { connections: this.#connections.size, subscriptions, symbols: [...symbols].sort(), byRoute };
  }

  close(): void {
    clearInterval(this.#heartbeat);
    for (const c of this.#connections) this.#drop(c);
  }

  #open(socket: WebSocket, route: string): Connection {
    const connection: Connection = {
      socket,
      route,
      subscriptions: new Map(),
      bucket: new TokenBucket(LIMITS.messagesPerSecond, LIMITS.messageBurst),
    };
    this.#connections.add(connection);
    socket.on('message', (data, isBinary) => this.#onMessage(connection, isBinary ? '' : String(data)));
    socket.once('close', () => this.#drop(connection));
    return connection;
  }

  #drop(connection: Connection): void {
    for (const sub of connection.subscriptions.values()) this.#end(sub);
    connection.subscriptions.clear();
    this.#connections.delete(connection);
  }

  #onMessage(connection: Connection, raw: string): void {
    if (connection.bucket.take() > 0) {
      this.#send(
        connection,
        messages.error('LIMIT_EXCEEDED', `more than ${LIMITS.messagesPerSecond} messages per second`),
      );
      connection.socket.close(POLICY, 'message rate limit');
      return;
    }
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) {
      this.#send(connection, messages.error(parsed.code, parsed.message, parsed.details));
      return;
    }
    const message = parsed.message;
    if (message.type === 'ping') this.#send(connection, messages.pong());
    else if (message.type === 'subscribe') void this.#subscribe(connection, message, false);
    else this.#unsubscribe(connection, message);
  }

  async #subscribe(connection: Connection, message: SubscribeMessage, closeOnError: boolean): Promise<void> {
    const fail = (code: ErrorCode, text: string, details: Record<string, unknown> = {}) => {
      this.#send(connection, messages.error(code, text, details));
      if (closeOnError) connection.socket.close(POLICY, text.slice(0, 120));
    };
    if (!SUPPORTED_STREAM_TYPES.includes(message.stream_type)) {
      return fail(
        'SUBSCRIPTION_ERROR',
        `stream_type ${message.stream_type} is not available; use ${SUPPORTED_STREAM_TYPES.join(', ')}`,
      );
    }
    if (connection.subscriptions.size >= LIMITS.subscriptionsPerConnection) {
      return fail(
        'LIMIT_EXCEEDED',
        `at most ${LIMITS.subscriptionsPerConnection} subscriptions per connection`,
        {
          limit: LIMITS.subscriptionsPerConnection,
        },
      );
    }
    const assetType = message.asset_type as AssetClass;
    if (!ASSET_TYPES.has(assetType)) {
      return fail('SUBSCRIPTION_ERROR', `asset_type must be one of ${[...ASSET_TYPES].join(', ')}`, {
        asset_type: message.asset_type,
      });
    }
    let instruments: Instrument[];
    try {
      instruments = await resolveStreamable(
        this.marketData,
        message.symbols,
        message.market,
        message.stream_type === 'multi_asset' ? undefined : assetType,
      );
    } catch (error) {
      if (isAppError(error))
        return fail('SUBSCRIPTION_ERROR', error.message, { code: error.code, ...error.details });
      this.logger.error({ err: error }, 'price subscription failed');
      return fail('PROCESSING_ERROR', 'could not start the subscription');
    }
    if (connection.socket.readyState !== connection.socket.OPEN) return;

    const id = randomUUID();
    const sub: Subscription = {
      id,
      streamType: message.stream_type,
      intervalMs: message.interval_ms,
      instruments: new Map(instruments.map((i) => [i.symbol, i])),
      leave: new Map(),
      pending: new Map(),
      bars: new Map(),
      connection,
      lastSentAt: 0,
      timer: undefined,
      flushQueued: false,
    };
    connection.subscriptions.set(id, sub);
    this.#send(connection, messages.ack(sub.streamType, [...sub.instruments.keys()], id, sub.intervalMs));
    for (const instrument of instruments) {
      sub.leave.set(
        instrument.symbol,
        this.hub.subscribe(instrument, {
          tick: (tick) => this.#onTick(sub, tick),
          error: (error) =>
            this.#send(
              connection,
              messages.error(
                'PROCESSING_ERROR',
                `price feed for ${instrument.symbol} is failing: ${error.message}`,
                {
                  symbol: instrument.symbol,
                  subscription_id: id,
                },
              ),
            ),
        }),
      );
    }
  }

  #onTick(sub: Subscription, tick: PriceTick): void {
    if (sub.streamType !== 'ohlcv') {
      sub.pending.set(tick.symbol, priceItem(tick));
      this.#schedule(sub);
      return;
    }
    let bars = sub.bars.get(tick.symbol);
    if (!bars) {
      bars = new MinuteBars(tick.symbol);
      sub.bars.set(tick.symbol, bars);
    }
    const closed = bars.add(tick.price, tick.size, tick.asOf);
    // A closed bar must reach the client even if the next one already started; key it apart.
    if (closed) sub.pending.set(`${tick.symbol}@${closed.time.getTime()}`, ohlcvItem(closed));
    sub.pending.set(tick.symbol, ohlcvItem(bars.current()!));
    this.#schedule(sub);
  }

  /**
   * Leading-edge rate limit: the first update after a quiet interval goes out at once (ticks that
   * arrive together share one message), later ones wait for the end of the interval and go out
   * together, latest per symbol.
   */
  #schedule(sub: Subscription): void {
    if (sub.timer || sub.flushQueued) return;
    const wait = sub.lastSentAt + sub.intervalMs - Date.now();
    if (wait <= 0) {
      sub.flushQueued = true;
      queueMicrotask(() => {
        sub.flushQueued = false;
        this.#flush(sub);
      });
      return;
    }
    sub.timer = setTimeout(() => {
      sub.timer = undefined;
      this.#flush(sub);
    }, wait);
    sub.timer.unref();
  }

  #flush(sub: Subscription): void {
    const { connection } = sub;
    if (sub.pending.size === 0 || !connection.subscriptions.has(sub.id)) return;
    if (connection.socket.bufferedAmount > LIMITS.maxBufferedBytes) {
      // The reader is behind: try again one interval later; pending holds only the latest values.
      sub.lastSentAt = Date.now();
      this.#schedule(sub);
      return;
    }
    const data = [...sub.pending.values()];
    sub.pending.clear();
    sub.lastSentAt = Date.now();
    this.#send(connection, messages.data(sub.streamType, sub.id, data));
  }

  #unsubscribe(connection: Connection, message: UnsubscribeMessage): void {
    const wanted = message.symbols;
    const removed = new Set<string>();
    for (const sub of [...connection.subscriptions.values()]) {
      if (sub.streamType !== message.stream_type) continue;
      for (const symbol of [...sub.instruments.keys()]) {
        if (wanted && !wanted.some((w) => namesInstrument(sub.instruments.get(symbol)!, w))) continue;
        sub.leave.get(symbol)?.();
        sub.leave.delete(symbol);
        sub.instruments.delete(symbol);
        sub.bars.delete(symbol);
        for (const key of [...sub.pending.keys()])
          if (key === symbol || key.startsWith(`${symbol}@`)) sub.pending.delete(key);
        removed.add(symbol);
      }
      if (sub.instruments.size === 0) {
        this.#end(sub);
        connection.subscriptions.delete(sub.id);
      }
    }
    if (removed.size === 0) {
      this.#send(
        connection,
        messages.error(
          'UNSUBSCRIBE_ERROR',
          `no ${message.stream_type} subscription for ${wanted ? wanted.join(', ') : 'this connection'}`,
          {
            stream_type: message.stream_type,
          },
        ),
      );
      return;
    }
    this.#send(connection, messages.unsubscribeAck(message.stream_type, [...removed]));
  }

  #end(sub: Subscription): void {
    clearTimeout(sub.timer);
    sub.timer = undefined;
    for (const leave of sub.leave.values()) leave();
    sub.leave.clear();
  }

  #send(connection: Connection, message: object): void {
    if (connection.socket.readyState === connection.socket.OPEN)
      connection.socket.send(JSON.stringify(message));
  }
}
