import { z } from 'zod';
import { intervalMsProblem, UPDATE_INTERVAL_MS } from '../../platform/limits.ts';
import type { PriceTick } from '../hub/price-hub.ts';
import type { ResolvedSymbol } from '../hub/streamable.ts';
import { MAX_SUBSCRIPTIONS_PER_CONNECTION, MAX_SYMBOLS_PER_REQUEST } from '../limits.ts';
import type { OhlcvBar } from './ohlcv.ts';

/**
 * The plain-WebSocket price protocol of /ws/stream and /ws/prices/{symbols}, as existing clients
 * speak it (compatibility notes), minus its defects: a `ping` gets a `pong`, limits are answered
 * with an error before anything is closed, a missing price is never sent as 0, and an error never
 * carries back more than a few dozen characters of what the client sent.
 */
export const STREAM_TYPES = ['price', 'quote', 'ohlcv', 'multi_asset', 'trades'] as const;
export type StreamType = (typeof STREAM_TYPES)[number];
/** `trades` is part of the protocol but no provider here publishes individual trades yet. */
export const SUPPORTED_STREAM_TYPES: readonly StreamType[] = ['price', 'quote', 'ohlcv', 'multi_asset'];

export const LIMITS = {
  symbolsPerSubscription: MAX_SYMBOLS_PER_REQUEST,
  subscriptionsPerConnection: MAX_SUBSCRIPTIONS_PER_CONNECTION,
  heartbeatMs: 30_000,
  /** Client messages per second (sustained) and burst before the connection is closed. */
  messagesPerSecond: 10,
  messageBurst: 50,
} as const;

/** Longest error text sent; a longer one is cut (it may quote a symbol or a value). */
const MAX_ERROR_TEXT = 200;
/** Longest string in an error's details. */
const MAX_DETAIL_TEXT = 120;
/** Longest piece of client input quoted back in an error. */
const MAX_QUOTED = 32;

/**
 * A client value as an error may quote it: short, and marked when cut. Only strings and scalars are
 * quoted; a structure is named by its kind (serialising it would walk whatever depth a client sent).
 */
export function quote(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean' || value === null
        ? String(value)
        : Array.isArray(value)
          ? '(a list)'
          : `(${typeof value})`;
  return JSON.stringify(text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text);
}

export type ErrorCode =
  | 'SUBSCRIPTION_ERROR'
  | 'UNSUBSCRIBE_ERROR'
  | 'INVALID_MESSAGE_TYPE'
  | 'INVALID_JSON'
  | 'PROCESSING_ERROR'
  | 'LIMIT_EXCEEDED';

const subscribeSchema = z.object({
  type: z.literal('subscribe'),
  stream_type: z.enum(STREAM_TYPES).default('price'),
  symbols: z
    .array(z.string().trim().min(1).max(32))
    .min(1, { error: 'must name at least one symbol' })
    .max(LIMITS.symbolsPerSubscription, {
      error: `at most ${LIMITS.symbolsPerSubscription} symbols per subscription`,
    }),
  // No default: a client that names no asset type lets a bare coin (BTC) be read as the coin.
  asset_type: z.string().trim().toLowerCase().max(32).optional(),
  market: z.string().trim().toUpperCase().max(16).default('US'),
  interval_ms: z
    .number({ error: 'must be a number of milliseconds' })
    .int()
    .superRefine((ms, ctx) => {
      const problem = intervalMsProblem(ms);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(UPDATE_INTERVAL_MS.default),
  data_type: z.string().max(32).default('price'),
  params: z.record(z.string(), z.unknown()).default({}),
});

const unsubscribeSchema = z.object({
  type: z.literal('unsubscribe'),
  stream_type: z.enum(STREAM_TYPES).default('price'),
  symbols: z
    .array(z.string().trim().min(1).max(32))
    .max(LIMITS.symbolsPerSubscription, {
      error: `at most ${LIMITS.symbolsPerSubscription} symbols per unsubscribe`,
    })
    .optional(),
});

export type SubscribeMessage = z.output<typeof subscribeSchema>;
export type UnsubscribeMessage = z.output<typeof unsubscribeSchema>;
export type ClientMessage = SubscribeMessage | UnsubscribeMessage | { type: 'ping' };

export type ParseResult =
  | { ok: true; message: ClientMessage }
  | { ok: false; code: ErrorCode; message: string; details: Record<string, unknown> };

export function parseClientMessage(raw: string): ParseResult {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { ok: false, code: 'INVALID_JSON', message: 'message is not valid JSON', details: {} };
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, code: 'INVALID_JSON', message: 'message must be a JSON object', details: {} };
  }
  const type = (data as { type?: unknown }).type;
  if (type === 'ping') return { ok: true, message: { type: 'ping' } };
  const schema =
    type === 'subscribe' ? subscribeSchema : type === 'unsubscribe' ? unsubscribeSchema : undefined;
  if (!schema) {
    return {
      ok: false,
      code: 'INVALID_MESSAGE_TYPE',
      message: `unknown message type ${quote(type)}; expected subscribe, unsubscribe or ping`,
      details: {},
    };
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`);
    return {
      ok: false,
      code: type === 'subscribe' ? 'SUBSCRIPTION_ERROR' : 'UNSUBSCRIBE_ERROR',
      message: issues.join('; '),
      details: { issues },
    };
  }
  return { ok: true, message: parsed.data };
}

/**
 * The subscription of /ws/prices/{symbols}: the symbols from the path, the rest from the query
 * (interval_ms, market, asset_type), checked as a subscribe message would be.
 */
export function parsePathSubscription(
  symbols: string | undefined,
  requestUrl: string | undefined,
): { ok: true; message: SubscribeMessage } | Extract<ParseResult, { ok: false }> {
  const url = new URL(requestUrl ?? '/', 'http://localhost');
  const interval = url.searchParams.get('interval_ms');
  const raw = {
    type: 'subscribe',
    stream_type: 'price',
    symbols: (symbols ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    market: url.searchParams.get('market') ?? 'US',
    ...(url.searchParams.has('asset_type') ? { asset_type: url.searchParams.get('asset_type') } : {}),
    ...(interval !== null ? { interval_ms: Number(interval) } : {}),
  };
  const parsed = parseClientMessage(JSON.stringify(raw));
  if (!parsed.ok) return parsed;
  if (parsed.message.type !== 'subscribe')
    return { ok: false, code: 'SUBSCRIPTION_ERROR', message: 'invalid subscription', details: {} };
  return { ok: true, message: parsed.message };
}

/** The time as messages carry it; written once per millisecond, however many messages go out in it. */
let nowMs = Number.NaN;
let nowText = '';
const now = () => {
  const ms = Date.now();
  if (ms !== nowMs) {
    nowMs = ms;
    nowText = new Date(ms).toISOString();
  }
  return nowText;
};

export const messages = {
  ack: (
    streamType: StreamType,
    symbols: readonly string[],
    subscriptionId: string,
    intervalMs: number,
    resolved: readonly ResolvedSymbol[],
  ) => ({
    type: 'subscription_ack',
    stream_type: streamType,
    symbols,
    subscription_id: subscriptionId,
    interval_ms: intervalMs,
    timestamp: now(),
    resolved: resolved.flatMap(resolvedItems),
  }),
  unsubscribeAck: (streamType: StreamType, symbols: readonly string[]) => ({
    type: 'unsubscribe_ack',
    stream_type: streamType,
    symbols,
  }),
  data: (streamType: StreamType, subscriptionId: string, data: readonly unknown[]) => ({
    type: 'data' as const,
    stream_type: streamType,
    subscription_id: subscriptionId,
    data,
    timestamp: now(),
    metadata: { count: data.length },
  }),
  heartbeat: (activeSubscriptions: number) => ({
    type: 'heartbeat',
    timestamp: now(),
    active_subscriptions: activeSubscriptions,
  }),
  pong: () => ({ type: 'pong', timestamp: now() }),
  error: (code: ErrorCode, message: string, details: Record<string, unknown> = {}) => ({
    type: 'error',
    error_code: code,
    message: message.length > MAX_ERROR_TEXT ? `${message.slice(0, MAX_ERROR_TEXT)}…` : message,
    details: briefDetails(details),
    timestamp: now(),
  }),
};

/** Details as an error carries them: strings cut like quotes, lists cut to a few entries. */
function briefDetails(details: Record<string, unknown>): Record<string, unknown> {
  const brief = (v: unknown): unknown =>
    typeof v === 'string' && v.length > MAX_DETAIL_TEXT ? `${v.slice(0, MAX_DETAIL_TEXT)}…` : v;
  return Object.fromEntries(
    Object.entries(details).map(([k, v]) => [k, Array.isArray(v) ? v.slice(0, 10).map(brief) : brief(v)]),
  );
}

/**
 * Which instrument each symbol the client wrote was read as (`BTC` -> `BTC/USDT`), one entry per
 * symbol written, so a client can match the items, keyed by canonical symbol, to what it asked.
 */
function resolvedItems(resolved: ResolvedSymbol) {
  const { instrument } = resolved;
  return resolved.requested.map((requested) => ({
    requested,
    symbol: instrument.symbol,
    asset_type: instrument.assetClass,
    market: instrument.market ?? null,
    name: resolved.name,
  }));
}

/** The item of each tick, one object for every subscription that carries it (its JSON is shared too). */
const itemOfTick = new WeakMap<PriceTick, Readonly<ReturnType<typeof buildPriceItem>>>();

/**
 * A price item (`data[]` of price, quote and multi_asset streams). Beyond the original fields:
 * `snapshot` marks the first item of each symbol, the last known price when the subscription
 * started (`timestamp` is its time, which on a closed market may be hours old), and `market_state`
 * says where its market is (pre, regular, post, closed, continuous). The same tick gives the same
 * frozen object each time: copy it to change it.
 */
export function priceItem(tick: PriceTick) {
  let item = itemOfTick.get(tick);
  if (item === undefined) {
    item = Object.freeze(buildPriceItem(tick));
    itemOfTick.set(tick, item);
  }
  return item;
}

function buildPriceItem(tick: PriceTick) {
  return {
    symbol: tick.symbol,
    asset_type: tick.instrument.assetClass,
    price: tick.price,
    change: tick.change,
    change_percent: tick.changePercent,
    volume: tick.volume,
    currency: tick.currency,
    timestamp: tick.asOf.toISOString(),
    provider: tick.provider,
    confidence: tick.confidence,
    simulated: !tick.live,
    seq: tick.seq,
    market_state: tick.marketState,
    snapshot: tick.snapshot,
  };
}

export function ohlcvItem(bar: OhlcvBar) {
  return {
    symbol: bar.symbol,
    timestamp: bar.time.toISOString(),
    open: bar.open,
    high: bar.high,
    low: bar.low,
    close: bar.close,
    volume: bar.volume,
    is_closed: bar.closed,
  };
}
