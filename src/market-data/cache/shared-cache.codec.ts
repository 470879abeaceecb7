import { z } from 'zod';
import type { Uncached } from '../arbitration/arbiter.ts';
import type { Lineage } from '../arbitration/lineage.ts';
import type { Bar, Quote } from '../types.ts';

/**
 * How an answer and its lineage travel through the shared table: JSON with times as epoch
 * milliseconds, every field named by the typed model (nothing else is carried), read back through a
 * schema. An answer with a number JSON cannot hold (NaN, Infinity) is not shared rather than turned
 * into null, and a row that does not read back as the model is a miss: the shared cache may forget
 * an answer, never alter one. Bars travel as rows of numbers, a third of their size as objects.
 */
export interface SharedCodec<T> {
  /** A name for logs ('quote', 'bars'). */
  readonly name: string;
  encodeValue(value: T): unknown;
  /** undefined when the JSON is not this codec's value. */
  decodeValue(json: unknown): T | undefined;
}

type SharedLineage = Omit<Lineage, 'cache'>;

class NotShareable extends Error {}

/** JSON of the answer, or undefined when it holds a number JSON cannot carry. */
export function encodeShared<T>(codec: SharedCodec<T>, answer: Uncached<T>): string | undefined {
  try {
    return JSON.stringify(
      { v: codec.encodeValue(answer.value), l: encodeLineage(answer.lineage) },
      (_k, v) => {
        if (typeof v === 'number' && !Number.isFinite(v)) throw new NotShareable();
        return v;
      },
    );
  } catch (error) {
    if (error instanceof NotShareable) return undefined;
    throw error;
  }
}

/** The answer a payload holds, or undefined when it is not one (corrupt, or another format). */
export function decodeShared<T>(codec: SharedCodec<T>, payload: string): Uncached<T> | undefined {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const envelope = z.object({ v: z.unknown(), l: lineageSchema }).safeParse(json);
  if (!envelope.success) return undefined;
  const value = codec.decodeValue(envelope.data.v);
  if (value === undefined) return undefined;
  return { value, lineage: decodeLineage(envelope.data.l) };
}

const epochMs = z.number().int();
const finite = z.number();

const lineageSchema = z.object({
  asked: z.array(z.string()),
  used: z.array(z.string()),
  rejected: z.array(z.object({ provider: z.string(), reason: z.string() })),
  agreement: finite,
  conflictResolved: z.boolean(),
  asOf: epochMs,
  retrievedAt: epochMs,
  simulated: z.boolean(),
});

function encodeLineage(l: SharedLineage): z.input<typeof lineageSchema> {
  return {
    asked: [...l.asked],
    used: [...l.used],
    rejected: l.rejected.map((r) => ({ provider: r.provider, reason: r.reason })),
    agreement: l.agreement,
    conflictResolved: l.conflictResolved,
    asOf: l.asOf.getTime(),
    retrievedAt: l.retrievedAt.getTime(),
    simulated: l.simulated,
  };
}

function decodeLineage(l: z.output<typeof lineageSchema>): SharedLineage {
  return {
    asked: l.asked,
    used: l.used,
    rejected: l.rejected,
    agreement: l.agreement,
    conflictResolved: l.conflictResolved,
    asOf: new Date(l.asOf),
    retrievedAt: new Date(l.retrievedAt),
    simulated: l.simulated,
  };
}

const quoteSchema = z.object({
  symbol: z.string(),
  price: finite,
  change: finite.nullable(),
  changePercent: finite.nullable(),
  previousClose: finite.nullable(),
  open: finite.nullable(),
  dayHigh: finite.nullable(),
  dayLow: finite.nullable(),
  volume: finite.nullable(),
  currency: z.string(),
  asOf: epochMs,
  name: z.string().optional(),
  exchange: z.string().optional(),
  marketState: z.enum(['pre', 'regular', 'post', 'closed', 'continuous']).optional(),
});

export const quoteCodec: SharedCodec<Quote> = {
  name: 'quote',
  encodeValue: (q): z.input<typeof quoteSchema> => ({
    symbol: q.symbol,
    price: q.price,
    change: q.change,
    changePercent: q.changePercent,
    previousClose: q.previousClose,
    open: q.open,
    dayHigh: q.dayHigh,
    dayLow: q.dayLow,
    volume: q.volume,
    currency: q.currency,
    asOf: q.asOf.getTime(),
    ...(q.name !== undefined ? { name: q.name } : {}),
    ...(q.exchange !== undefined ? { exchange: q.exchange } : {}),
    ...(q.marketState !== undefined ? { marketState: q.marketState } : {}),
  }),
  decodeValue(json) {
    const parsed = quoteSchema.safeParse(json);
    if (!parsed.success) return undefined;
    const { asOf, name, exchange, marketState, ...rest } = parsed.data;
    return {
      ...rest,
      asOf: new Date(asOf),
      ...(name !== undefined ? { name } : {}),
      ...(exchange !== undefined ? { exchange } : {}),
      ...(marketState !== undefined ? { marketState } : {}),
    };
  },
};

/** One bar as `[time, open, high, low, close, volume (or null), adjClose?]`. */
type BarRow =
  | [number, number, number, number, number, number | null]
  | [number, number, number, number, number, number | null, number];

export const barsCodec: SharedCodec<Bar[]> = {
  name: 'bars',
  encodeValue: (bars): BarRow[] =>
    bars.map((b) =>
      b.adjClose === undefined
        ? [b.time.getTime(), b.open, b.high, b.low, b.close, b.volume]
        : [b.time.getTime(), b.open, b.high, b.low, b.close, b.volume, b.adjClose],
    ),
  // Checked by hand rather than by a schema: a shared series may hold thousands of bars.
  decodeValue(json) {
    if (!Array.isArray(json)) return undefined;
    const bars: Bar[] = [];
    for (const row of json) {
      const bar = barOf(row);
      if (!bar) return undefined;
      bars.push(bar);
    }
    return bars;
  },
};

const isNumber = (v: unknown): v is number => typeof v === 'number';

function barOf(row: unknown): Bar | undefined {
  if (!Array.isArray(row) || (row.length !== 6 && row.length !== 7)) return undefined;
  const cells: unknown[] = row;
  const [time, open, high, low, close, volume, adjClose] = cells;
  if (!Number.isInteger(time) || !isNumber(time)) return undefined;
  if (!isNumber(open) || !isNumber(high) || !isNumber(low) || !isNumber(close)) return undefined;
  if (volume !== null && !isNumber(volume)) return undefined;
  const bar = { time: new Date(time), open, high, low, close, volume };
  if (cells.length === 6) return bar;
  return isNumber(adjClose) ? { ...bar, adjClose } : undefined;
}
