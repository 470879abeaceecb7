import { logReturns } from './indicators/statistics.ts';

/** What alignment needs of a bar: its open time (UTC) and its close. */
export interface TimedClose {
  readonly time: Date;
  readonly close: number;
}

/**
 * Bars match when their open times agree to the hour (hourly and daily bars of one feed), or to the
 * UTC day (`day`: daily bars of feeds that stamp their sessions at different hours).
 */
export type AlignResolution = 'hour' | 'day';

export interface AlignedCloses {
  readonly times: Date[];
  readonly a: number[];
  readonly b: number[];
}

/** Closes of two series on the bar times both have, in the order of `a`. */
export function alignCloses(
  a: readonly TimedClose[],
  b: readonly TimedClose[],
  resolution: AlignResolution = 'hour',
): AlignedCloses {
  const length = resolution === 'hour' ? 13 : 10;
  const key = (bar: TimedClose) => bar.time.toISOString().slice(0, length);
  const other = new Map(b.map((bar) => [key(bar), bar.close]));
  const out = { times: [] as Date[], a: [] as number[], b: [] as number[] };
  for (const bar of a) {
    const close = other.get(key(bar));
    if (close !== undefined) {
      out.times.push(bar.time);
      out.a.push(bar.close);
      out.b.push(close);
    }
  }
  return out;
}

/** Log returns of two series between consecutive common bar times (see alignCloses). */
export function alignedLogReturns(
  a: readonly TimedClose[],
  b: readonly TimedClose[],
  resolution: AlignResolution = 'hour',
): { a: Float64Array; b: Float64Array } {
  const common = alignCloses(a, b, resolution);
  return { a: logReturns(common.a), b: logReturns(common.b) };
}
