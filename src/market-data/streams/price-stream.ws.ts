import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { isAppError } from '../../platform/errors.ts';
import { TokenBucket } from '../../platform/flow/token-bucket.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import {
  CLOSE_POLICY,
  closeReason,
  closeSlowReader,
  type SocketLimits,
} from '../../platform/ws/socket-limits.ts';
import type { WsRouteContext } from '../../platform/ws/upgrade-router.ts';
import type { PriceHub } from '../hub/price-hub.ts';
import { namesInstrument, type ResolvedSymbol, resolveStreamable } from '../hub/streamable.ts';
import type { MarketDataService } from '../market-data.service.ts';
import type { AssetClass } from '../types.ts';
import { admitSubscribe, type Refusal } from './price-stream.admission.ts';
import { FeedListener, SocketOutlet } from './price-stream.outlet.ts';
import {
  LIMITS,
  messages,
  parseClientMessage,
  parsePathSubscription,
  quote,
  type SubscribeMessage,
  type UnsubscribeMessage,
} from './price-stream.protocol.ts';
import { type DataOutlet, PriceSubscription } from './price-stream.subscription.ts';
import { heartbeatTexts } from './price-stream.wire.ts';

interface Connection {
  readonly socket: WebSocket;
  readonly route: string;
  /** The client's address: upstream calls this connection causes count against its share. */
  readonly client: string;
  readonly subscriptions: Map<string, PriceSubscription>;
  readonly outlet: DataOutlet;
  readonly bucket: TokenBucket;
  readonly limits: SocketLimits;
  /** Subscriptions started per second (a refused one costs nothing). */
  readonly subscribeGate: TokenBucket;
  /** Subscribes past their checks and still resolving symbols: they hold a slot already. */
  opening: number;
  /** Over the send buffer limit at the last heartbeat (twice in a row: the reader is gone). */
  behind: boolean;
}

/**
 * Connections of /ws/stream and /ws/prices/{symbols}. Every subscription rides the shared price
 * hub (one upstream per symbol for all connections) and sends one `data` message per interval
 * holding the latest update of each symbol that changed. A slow reader skips messages (its symbols
 * stay pending, latest only) instead of growing a buffer; one still behind a heartbeat later, or
 * owed a reply it cannot take, is closed (the router bounds every send).
 */
export class PriceStreams {
  readonly #connections = new Set<Connection>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor(
    private readonly hub: PriceHub,
    private readonly marketData: MarketDataService,
    private readonly logger: Logger,
    /** Told of each subscribe refused by the per-connection rate (for metrics). */
    private readonly onRateLimited: () => void = () => {},
  ) {
    this.#heartbeat = setInterval(() => {
      const heartbeat = heartbeatTexts(messages.heartbeat);
      for (const c of this.#connections) {
        if (c.socket.bufferedAmount > c.limits.maxBufferedBytes) {
          if (c.behind) closeSlowReader(c.socket);
          c.behind = true;
          continue;
        }
        c.behind = false;
        this.#sendText(c, heartbeat(c.subscriptions.size));
      }
    }, LIMITS.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** /ws/stream: the client subscribes with messages. */
  onStreamConnection = (socket: WebSocket, route: WsRouteContext): void => {
    this.#open(socket, route);
  };

  /** /ws/prices/{symbols}: subscribed from the path (query: interval_ms, market, asset_type). */
  onPricesConnection = (socket: WebSocket, route: WsRouteContext): void => {
    const connection = this.#open(socket, route);
    const parsed = parsePathSubscription(route.params.symbols, route.request.url);
    if (!parsed.ok) {
      this.#send(connection, messages.error(parsed.code, parsed.message, parsed.details));
      socket.close(CLOSE_POLICY, 'invalid subscription');
      return;
    }
    void this.#subscribe(connection, parsed.message, true);
  };

  /**
   * For GET /ws/connections: live counts, accurate after unsubscribes and disconnects; and the
   * largest unsent backlog of one connection (bounded by WS_MAX_BUFFERED_BYTES plus one message).
   */
  stats() {
    const symbols = new Set<string>();
    let subscriptions = 0;
    let maxBufferedBytes = 0;
    const byRoute: Record<string, number> = {};
    for (const c of this.#connections) {
      maxBufferedBytes = Math.max(maxBufferedBytes, c.socket.bufferedAmount);
      byRoute[c.route] = (byRoute[c.route] ?? 0) + 1;
      subscriptions += c.subscriptions.size;
      for (const sub of c.subscriptions.values())
        for (const symbol of sub.instruments.keys()) symbols.add(symbol);
    }
    return {
      connections: this.#connections.size,
      subscriptions,
      symbols: [...symbols].sort(),
      byRoute,
      maxBufferedBytes,
    };
  }

  close(): void {
    clearInterval(this.#heartbeat);
    for (const c of this.#connections) this.#drop(c);
  }

  #open(socket: WebSocket, route: WsRouteContext): Connection {
    const { limits } = route;
    const connection: Connection = {
      socket,
      route: route.template,
      client: route.client,
      subscriptions: new Map(),
      outlet: new SocketOutlet(socket, limits.maxBufferedBytes),
      bucket: new TokenBucket(LIMITS.messagesPerSecond, LIMITS.messageBurst),
      limits,
      subscribeGate: new TokenBucket(limits.subscribeRate.perSecond, limits.subscribeRate.burst),
      opening: 0,
      behind: false,
    };
    this.#connections.add(connection);
    socket.on('message', (data, isBinary) => this.#onMessage(connection, isBinary ? '' : String(data)));
    socket.once('close', () => this.#drop(connection));
    return connection;
  }

  #drop(connection: Connection): void {
    for (const sub of connection.subscriptions.values()) sub.end();
    connection.subscriptions.clear();
    this.#connections.delete(connection);
  }

  #onMessage(connection: Connection, raw: string): void {
    if (connection.bucket.reserve() > 0) {
      this.#send(
        connection,
        messages.error('LIMIT_EXCEEDED', `more than ${LIMITS.messagesPerSecond} messages per second`),
      );
      connection.socket.close(CLOSE_POLICY, 'message rate limit');
      return;
    }
    // A socket listener that throws would take the process down: whatever a client sends, the
    // worst it gets is an error message.
    try {
      const parsed = parseClientMessage(raw);
      if (!parsed.ok) {
        this.#send(connection, messages.error(parsed.code, parsed.message, parsed.details));
        return;
      }
      const message = parsed.message;
      if (message.type === 'ping') this.#send(connection, messages.pong());
      else if (message.type === 'subscribe') void this.#subscribe(connection, message, false);
      else this.#unsubscribe(connection, message);
    } catch (error) {
      this.logger.warn({ err: error }, 'price stream message could not be handled');
      this.#send(connection, messages.error('PROCESSING_ERROR', 'the message could not be handled'));
    }
  }

  async #subscribe(connection: Connection, message: SubscribeMessage, closeOnError: boolean): Promise<void> {
    const refuse = (refusal: Refusal) => this.#refuse(connection, refusal, closeOnError);
    const admission = admitSubscribe(connection, message, () => this.onRateLimited());
    if (!admission.ok) return refuse(admission.refusal);
    connection.opening++;
    let resolved: ResolvedSymbol[];
    try {
      resolved = await this.#resolveSymbols(connection, message, admission.assetType);
    } catch (error) {
      return refuse(this.#resolveFailure(error));
    } finally {
      // Released in the same turn the subscription is registered below (nothing runs between).
      connection.opening--;
    }
    if (connection.socket.readyState !== connection.socket.OPEN) return;
    this.#start(connection, message, resolved);
  }

  /** On /ws/prices the subscription is the connection's whole purpose: refused, the socket closes. */
  #refuse(connection: Connection, { code, text, details }: Refusal, closeOnError: boolean): void {
    this.#send(connection, messages.error(code, text, details));
    if (closeOnError) connection.socket.close(CLOSE_POLICY, closeReason(text));
  }

  /** Resolving symbols may call providers: that is charged to this client's upstream share. */
  #resolveSymbols(
    connection: Connection,
    message: SubscribeMessage,
    assetType: AssetClass | undefined,
  ): Promise<ResolvedSymbol[]> {
    return this.marketData.withinOperation(connection.client, () =>
      resolveStreamable(
        this.marketData,
        message.symbols,
        message.market,
        message.stream_type === 'multi_asset' ? undefined : assetType,
      ),
    );
  }

  /** A client's mistake (an unknown symbol) is told as it is; anything else is logged, not shown. */
  #resolveFailure(error: unknown): Refusal {
    if (isAppError(error))
      return {
        code: 'SUBSCRIPTION_ERROR',
        text: error.message,
        details: { code: error.code, ...error.details },
      };
    this.logger.error({ err: error }, 'price subscription failed');
    return { code: 'PROCESSING_ERROR', text: 'could not start the subscription', details: {} };
  }

  /** Registers the subscription, acknowledges it, then joins the hub's feed of each symbol. */
  #start(connection: Connection, message: SubscribeMessage, resolved: readonly ResolvedSymbol[]): void {
    const id = randomUUID();
    const instruments = resolved.map((r) => r.instrument);
    const sub = new PriceSubscription(
      id,
      message.stream_type,
      message.interval_ms,
      instruments,
      connection.outlet,
    );
    connection.subscriptions.set(id, sub);
    this.#send(
      connection,
      messages.ack(sub.streamType, [...sub.instruments.keys()], id, sub.intervalMs, resolved),
    );
    const failing = (symbol: string, error: Error) =>
      this.#send(
        connection,
        messages.error('PROCESSING_ERROR', `price feed for ${symbol} is failing: ${error.message}`, {
          symbol,
          subscription_id: id,
        }),
      );
    // One small object per symbol (its methods shared), one function per subscription.
    for (const instrument of instruments) {
      const listener = new FeedListener(sub, instrument.symbol, failing);
      sub.leave.set(instrument.symbol, this.hub.subscribe(instrument, listener));
    }
  }

  #unsubscribe(connection: Connection, message: UnsubscribeMessage): void {
    const wanted = message.symbols;
    const removed = new Set<string>();
    for (const sub of [...connection.subscriptions.values()]) {
      if (sub.streamType !== message.stream_type) continue;
      for (const symbol of [...sub.instruments.keys()]) {
        if (wanted && !wanted.some((w) => namesInstrument(sub.instruments.get(symbol)!, w))) continue;
        sub.remove(symbol);
        removed.add(symbol);
      }
      if (sub.instruments.size === 0) {
        sub.end();
        connection.subscriptions.delete(sub.id);
      }
    }
    if (removed.size === 0) {
      this.#send(
        connection,
        messages.error(
          'UNSUBSCRIBE_ERROR',
          wanted
            ? `no ${message.stream_type} subscription for ${wanted.length === 1 ? quote(wanted[0]) : `any of ${wanted.length} symbols`}`
            : `no ${message.stream_type} subscription on this connection`,
          { stream_type: message.stream_type },
        ),
      );
      return;
    }
    this.#send(connection, messages.unsubscribeAck(message.stream_type, [...removed]));
  }

  #send(connection: Connection, message: object): void {
    if (connection.socket.readyState === connection.socket.OPEN)
      connection.socket.send(JSON.stringify(message));
  }

  #sendText(connection: Connection, text: string): void {
    if (connection.socket.readyState === connection.socket.OPEN) connection.socket.send(text);
  }
}
