import WebSocket from 'ws';
import { BINANCE, binanceSymbol } from './binance.parse.ts';
import { parseCombined, parseControlReply, parseTradeEvent, tickFromTrade } from './binance.stream-parse.ts';
import type { StreamSubscription } from './provider.ts';
import { ProviderError } from './provider-errors.ts';

export type WebSocketFactory = (url: string) => WebSocket;

export interface BinanceStreamTuning {
  /** First reconnect delay; doubles per failed attempt (with jitter) up to `maxBackoffMs`. */
  readonly baseBackoffMs: number;
  readonly maxBackoffMs: number;
  /** Consecutive failed reconnects after which subscribers are told the stream is gone. */
  readonly maxReconnects: number;
  /** A connection silent (no message, ping or pong) for two of these periods is dead. */
  readonly heartbeatMs: number;
}

export interface BinanceStreamOptions {
  /** Combined-stream endpoint: `${wsUrl}/stream`. */
  readonly url: string;
  readonly webSocketFactory?: WebSocketFactory;
  readonly tuning?: Partial<BinanceStreamTuning>;
  readonly random?: () => number;
}

const DEFAULT_TUNING: BinanceStreamTuning = {
  baseBackoffMs: 500,
  maxBackoffMs: 30_000,
  maxReconnects: 6,
  heartbeatMs: 30_000,
};

const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Binance closes connections that carry more streams than this. */
const MAX_STREAMS = 1024;

interface Request {
  readonly method: 'SUBSCRIBE' | 'UNSUBSCRIBE';
  readonly streams: readonly string[];
}

/**
 * Live trades for any number of symbols over ONE combined-stream connection: opened with the first
 * subscription, closed with the last. Streams are added and removed with SUBSCRIBE / UNSUBSCRIBE
 * messages (coalesced per tick, since Binance accepts only a few control messages per second). A
 * dropped connection is re-opened with exponential backoff and jitter and every stream subscribed
 * again; only when that keeps failing are subscribers told, through onError. Server pings are
 * answered by `ws` itself (autoPong); our own pings detect connections that died silently.
 */
export class BinanceTradeStream {
  readonly #url: string;
  readonly #factory: WebSocketFactory;
  readonly #tuning: BinanceStreamTuning;
  readonly #random: () => number;
  /** Stream name (`btcusdt@trade`) -> its subscribers. */
  readonly #streams = new Map<string, Set<StreamSubscription>>();
  readonly #pending = new Map<number, Request>();
  readonly #toSubscribe = new Set<string>();
  readonly #toUnsubscribe = new Set<string>();
  #socket: WebSocket | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #failures = 0;
  #alive = false;
  #flushQueued = false;
  #nextId = 1;
  #closed = false;

  constructor(options: BinanceStreamOptions) {
    this.#url = options.url;
    // Without a handshake timeout a black-holed connect would wait for the OS TCP timeout.
    this.#factory =
      options.webSocketFactory ?? ((url) => new WebSocket(url, { handshakeTimeout: HANDSHAKE_TIMEOUT_MS }));
    this.#tuning = { ...DEFAULT_TUNING, ...options.tuning };
    this.#random = options.random ?? Math.random;
  }

  subscribe(subscription: StreamSubscription): () => void {
    const symbol = binanceSymbol(subscription.instrument);
    const refuse = (error: ProviderError) => {
      // Asynchronously: the caller may not hold the stop function yet.
      queueMicrotask(() => subscription.onError(error));
      return () => {};
    };
    if (this.#closed) return refuse(new ProviderError(BINANCE, 'upstream', 'stream closed'));
    if (!symbol) {
      return refuse(
        new ProviderError(BINANCE, 'unsupported', `no stream for ${subscription.instrument.symbol}`),
      );
    }
    const name = `${symbol.toLowerCase()}@trade`;
    let set = this.#streams.get(name);
    if (!set) {
      if (this.#streams.size >= MAX_STREAMS) {
        return refuse(
          new ProviderError(BINANCE, 'rate_limited', `at most ${MAX_STREAMS} streams per connection`),
        );
      }
      set = new Set();
      this.#streams.set(name, set);
      this.#queue('SUBSCRIBE', name);
    }
    set.add(subscription);
    this.#connect();
    const mine = set;
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      mine.delete(subscription);
      if (mine.size === 0 && this.#streams.get(name) === mine) {
        this.#streams.delete(name);
        this.#queue('UNSUBSCRIBE', name);
      }
      if (this.#streams.size === 0) this.#disconnect();
    };
  }

  /** Drops every subscription without notifying (shutdown) and closes the socket. */
  close(): void {
    this.#closed = true;
    this.#streams.clear();
    this.#disconnect();
  }

  #connect(): void {
    if (this.#socket || this.#retryTimer || this.#streams.size === 0 || this.#closed) return;
    let socket: WebSocket;
    try {
      socket = this.#factory(this.#url);
    } catch (error) {
      this.#scheduleReconnect(error);
      return;
    }
    this.#socket = socket;
    this.#toSubscribe.clear();
    this.#toUnsubscribe.clear();
    this.#pending.clear();
    let lastError: unknown;
    socket.on('open', () => {
      if (socket !== this.#socket) return;
      this.#alive = true;
      this.#send({ method: 'SUBSCRIBE', streams: [...this.#streams.keys()] });
      this.#heartbeat = setInterval(() => this.#checkAlive(socket), this.#tuning.heartbeatMs);
      this.#heartbeat.unref();
    });
    socket.on('message', (data) => {
      if (socket !== this.#socket) return;
      this.#alive = true;
      // A connection that delivers anything works: later drops start the backoff from the beginning.
      this.#failures = 0;
      this.#onMessage(data);
    });
    socket.on('ping', () => {
      this.#alive = true;
    });
    socket.on('pong', () => {
      this.#alive = true;
    });
    socket.on('error', (error) => {
      lastError = error;
    });
    socket.on('close', (code, reason) => {
      if (socket !== this.#socket) return;
      this.#socket = undefined;
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
      this.#scheduleReconnect(lastError ?? new Error(`closed (${code}${reason.length ? ` ${reason}` : ''})`));
    });
  }

  #checkAlive(socket: WebSocket): void {
    if (socket !== this.#socket || socket.readyState !== WebSocket.OPEN) return;
    if (!this.#alive) {
      socket.terminate();
      return;
    }
    this.#alive = false;
    socket.ping();
  }

  #scheduleReconnect(cause: unknown): void {
    if (this.#closed || this.#streams.size === 0) return;
    if (this.#failures >= this.#tuning.maxReconnects) {
      this.#failAll(cause);
      return;
    }
    const ceiling = Math.min(this.#tuning.maxBackoffMs, this.#tuning.baseBackoffMs * 2 ** this.#failures);
    this.#failures++;
    const delay = Math.round(ceiling / 2 + (this.#random() * ceiling) / 2);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#connect();
    }, delay);
    this.#retryTimer.unref();
  }

  #failAll(cause: unknown): void {
    const message = cause instanceof Error ? cause.message : String(cause);
    const error = new ProviderError(
      BINANCE,
      'upstream',
      `trade stream lost; ${this.#failures} reconnect attempts failed: ${message}`,
      { cause },
    );
    const subscribers = [...this.#streams.values()].flatMap((set) => [...set]);
    this.#streams.clear();
    this.#failures = 0;
    for (const subscriber of subscribers) subscriber.onError(error);
  }

  #disconnect(): void {
    clearTimeout(this.#retryTimer);
    clearInterval(this.#heartbeat);
    this.#retryTimer = undefined;
    this.#heartbeat = undefined;
    this.#failures = 0;
    const socket = this.#socket;
    this.#socket = undefined;
    if (!socket) return;
    if (socket.readyState === WebSocket.OPEN) socket.close(1000);
    else socket.terminate();
  }

  #queue(method: Request['method'], name: string): void {
    if (this.#socket?.readyState !== WebSocket.OPEN) return; // the open handler subscribes everything
    const [add, remove] =
      method === 'SUBSCRIBE'
        ? [this.#toSubscribe, this.#toUnsubscribe]
        : [this.#toUnsubscribe, this.#toSubscribe];
    if (!remove.delete(name)) add.add(name);
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    queueMicrotask(() => {
      this.#flushQueued = false;
      if (this.#toUnsubscribe.size > 0)
        this.#send({ method: 'UNSUBSCRIBE', streams: [...this.#toUnsubscribe] });
      if (this.#toSubscribe.size > 0) this.#send({ method: 'SUBSCRIBE', streams: [...this.#toSubscribe] });
      this.#toSubscribe.clear();
      this.#toUnsubscribe.clear();
    });
  }

  #send(request: Request): void {
    const socket = this.#socket;
    if (socket?.readyState !== WebSocket.OPEN || request.streams.length === 0) return;
    const id = this.#nextId++;
    this.#pending.set(id, request);
    socket.send(JSON.stringify({ method: request.method, params: request.streams, id }));
  }

  #onMessage(raw: WebSocket.RawData): void {
    let message: unknown;
    try {
      message = JSON.parse(raw.toString());
    } catch {
      return;
    }
    const envelope = parseCombined(message);
    if (envelope) {
      this.#onEvent(envelope.stream, envelope.data);
      return;
    }
    const reply = parseControlReply(message);
    if (!reply) return;
    const request = this.#pending.get(reply.id);
    this.#pending.delete(reply.id);
    if (reply.error && request?.method === 'SUBSCRIBE') {
      const error = new ProviderError(BINANCE, 'upstream', `subscription refused: ${reply.error}`);
      for (const name of request.streams) {
        const set = this.#streams.get(name);
        if (!set) continue;
        this.#streams.delete(name);
        for (const subscriber of set) subscriber.onError(error);
      }
      if (this.#streams.size === 0) this.#disconnect();
    }
  }

  #onEvent(stream: string, data: Record<string, unknown>): void {
    const subscribers = this.#streams.get(stream);
    if (!subscribers || subscribers.size === 0) return; // late events of an unsubscribed stream
    let trade: ReturnType<typeof parseTradeEvent>;
    try {
      trade = parseTradeEvent(data);
    } catch {
      // An event we cannot read is skipped: a tick is only ever what Binance reported.
      return;
    }
    if (`${trade.symbol.toLowerCase()}@trade` !== stream) return;
    for (const subscriber of [...subscribers]) {
      try {
        subscriber.onTick(tickFromTrade(trade, subscriber.instrument));
      } catch {
        // One subscriber's failure must neither starve the others nor break the shared socket.
      }
    }
  }
}
