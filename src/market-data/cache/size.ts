/**
 * Rough heap size of a cached answer, so the cache can be bounded in bytes rather than in entries
 * (one entry may be a quote of 300 bytes or ten years of bars of 600 KB). The figures approximate
 * V8 on 64 bits (boxed doubles, object headers, array slots) closely enough for a budget, and long
 * arrays are sampled, since market data arrays hold records of one shape.
 */

const OBJECT = 40;
const SLOT = 8;
const NUMBER = 16;
const DATE = 48;
const STRING = 16;
/** Arrays longer than this are estimated from their first and last elements. */
const SAMPLE = 32;
/** Deeper structures are not walked (market data is a few levels deep). */
const MAX_DEPTH = 8;

export function estimateBytes(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return NUMBER;
    case 'string':
      return STRING + value.length;
    case 'boolean':
    case 'undefined':
    case 'symbol':
    case 'function':
      return 0;
  }
  if (value === null) return 0;
  if (value instanceof Date) return DATE;
  if (depth >= MAX_DEPTH) return OBJECT;
  if (Array.isArray(value)) {
    const n = value.length;
    if (n <= SAMPLE) return OBJECT + n * SLOT + sum(value, 0, n, depth);
    const half = SAMPLE / 2;
    const sampled = sum(value, 0, half, depth) + sum(value, n - half, n, depth);
    return OBJECT + n * SLOT + Math.ceil((sampled / SAMPLE) * n);
  }
  if (value instanceof Map || value instanceof Set) {
    let total = OBJECT;
    for (const entry of value) total += 2 * SLOT + estimateBytes(entry, depth + 1);
    return total;
  }
  let total = OBJECT;
  for (const key in value as Record<string, unknown>) {
    total += SLOT + estimateBytes((value as Record<string, unknown>)[key], depth + 1);
  }
  return total;
}

function sum(values: readonly unknown[], from: number, to: number, depth: number): number {
  let total = 0;
  for (let i = from; i < to; i++) total += estimateBytes(values[i], depth + 1);
  return total;
}
