// Binance's WebSocket messages: combined-stream envelopes, trade and kline events, control replies.
import type { Bar, Instrument, StreamTick } from '../types.ts';
import { BINANCE, decimal, positive, record, required, time } from './binance.parse.ts';
import { badResponse } from './provider-errors.ts';

/** `{"stream":"ethusdt@trade","data":{...}}` from a combined-stream connection, else undefined. */
export function parseCombined(
  message: unknown,
): { stream: string; data: Record<string, unknown> } | undefined {
  if (!message || typeof message !== 'object') return undefined;
  const m = message as Record<string, unknown>;
  if (typeof m.stream !== 'string' || !m.data || typeof m.data !== 'object') return undefined;
  return { stream: m.stream, data: m.data as Record<string, unknown> };
}

export interface TradeEvent {
  /** Binance symbol (`ETHUSDT`). */
  readonly symbol: string;
  readonly price: number;
  readonly quantity: number;
  /** Trade time (`T`), not the event time (`E`). */
  readonly time: Date;
}

/** A `trade` or `aggTrade` payload. The buyer/seller order ids (`b`, `a`) are not read: Binance dropped them. */
export function parseTradeEvent(data: Record<string, unknown>): TradeEvent {
  if (data.e !== 'trade' && data.e !== 'aggTrade')
    throw badResponse(BINANCE, `event ${String(data.e)} is not a trade`);
  if (typeof data.s !== 'string') throw badResponse(BINANCE, 'trade without symbol');
  return {
    symbol: data.s,
    price: positive(data.p, 'trade price'),
    quantity: required(data.q, 'trade quantity'),
    time: time(data.T, 'trade time'),
  };
}

export function tickFromTrade(trade: TradeEvent, instrument: Instrument): StreamTick {
  return { symbol: instrument.symbol, price: trade.price, size: trade.quantity, asOf: trade.time };
}

export interface KlineEvent {
  readonly symbol: string;
  readonly interval: string;
  readonly bar: Bar;
  /** False while the kline is still open: its close and volume are the values so far. */
  readonly closed: boolean;
  readonly eventTime: Date;
}

/** A `kline` payload (`k` holds the candle, with string prices). */
export function parseKlineEvent(data: Record<string, unknown>): KlineEvent {
  if (data.e !== 'kline') throw badResponse(BINANCE, `event ${String(data.e)} is not a kline`);
  const k = record(data.k, 'kline');
  if (typeof k.s !== 'string' || typeof k.i !== 'string') throw badResponse(BINANCE, 'kline without symbol');
  if (typeof k.x !== 'boolean') throw badResponse(BINANCE, 'kline without closed flag');
  return {
    symbol: k.s,
    interval: k.i,
    bar: {
      time: time(k.t, 'kline open time'),
      open: positive(k.o, 'kline open'),
      high: positive(k.h, 'kline high'),
      low: positive(k.l, 'kline low'),
      close: positive(k.c, 'kline close'),
      volume: decimal(k.v, 'kline volume'),
    },
    closed: k.x,
    eventTime: time(data.E, 'event time'),
  };
}

/**
 * The answer to a SUBSCRIBE/UNSUBSCRIBE request: `{"result":null,"id":1}`, or an error such as
 * `{"code":2,"msg":"Invalid request","id":1}` (older servers nest it under `error`).
 */
export function parseControlReply(message: unknown): { id: number; error: string | undefined } | undefined {
  if (!message || typeof message !== 'object') return undefined;
  const m = message as Record<string, unknown>;
  if (typeof m.id !== 'number') return undefined;
  const error = (m.error && typeof m.error === 'object' ? m.error : m) as Record<string, unknown>;
  if (error.code !== undefined || error.msg !== undefined) {
    return { id: m.id, error: `${String(error.msg ?? 'error')} (code ${String(error.code)})` };
  }
  return 'result' in m ? { id: m.id, error: undefined } : undefined;
}
