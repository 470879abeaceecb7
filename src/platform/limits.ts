import { ValidationError } from './errors.ts';

/**
 * How often a live subscription may be pushed updates (GraphQL `prices` and `time`, the price
 * WebSocket): fast enough for a ticker, slow enough that one client cannot flood a connection.
 */
export const UPDATE_INTERVAL_MS = { min: 100, max: 60_000, default: 1_000 } as const;

/** Why `value` is not an update interval, or undefined when it is one (NaN is not). */
export function intervalMsProblem(value: number): string | undefined {
  const { min, max } = UPDATE_INTERVAL_MS;
  return value >= min && value <= max ? undefined : `must be between ${min} and ${max}, got ${value}`;
}

/** `value` when it is an update interval; otherwise a ValidationError naming `field`. */
export function checkIntervalMs(field: string, value: number): number {
  const problem = intervalMsProblem(value);
  if (problem !== undefined) throw new ValidationError(field, problem);
  return value;
}
