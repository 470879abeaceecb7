/**
 * The pure decisions of the shared cache (shared-cache.ts): which key an answer is shared under,
 * whether a shared row is still fresh, how large one shared entry may be, and when this instance
 * sweeps the table. Everything here takes its time and sizes as arguments.
 */

/** Bumped when the payload format changes, so instances of two versions never read each other's rows. */
export const SHARED_FORMAT = 'v1';
/** Longer keys are not shared (quote and bar keys are far shorter; a longer one is not worth a row). */
export const MAX_SHARED_KEY_CHARS = 512;
/** Largest entry shared, whatever the byte bound: a row this large is still one quick read. */
export const MAX_SHARED_ENTRY_BYTES = 1024 * 1024;
/** One entry takes at most this share of the whole table's byte bound. */
const ENTRY_SHARE_OF_BOUND = 16;

/**
 * The key of an answer in the shared table: the local cache's key, under the payload format and the
 * configured providers in order. Instances configured with other providers (or mid-way through a
 * change of them) answer from their own sources rather than from each other's; undefined when the
 * key is too long to share.
 */
export function sharedKey(providerIds: readonly string[], localKey: string): string | undefined {
  const key = `${SHARED_FORMAT}|${providerIds.join(',')}|${localKey}`;
  return key.length <= MAX_SHARED_KEY_CHARS ? key : undefined;
}

export type SharedFreshness =
  | { readonly state: 'fresh'; readonly ageMs: number; readonly remainingMs: number }
  | { readonly state: 'stale' };

/**
 * Whether a shared answer may still be served, by the lifetime its writer gave it (ttl.ts, the same
 * rules as the local cache) and its age in database time. A negative age (the row's time is ahead
 * of the reading transaction's) counts as new.
 */
export function sharedFreshness(ageMs: number, ttlMs: number): SharedFreshness {
  if (!Number.isFinite(ageMs) || !Number.isFinite(ttlMs)) return { state: 'stale' };
  const age = Math.max(0, ageMs);
  if (age >= ttlMs) return { state: 'stale' };
  return { state: 'fresh', ageMs: age, remainingMs: ttlMs - age };
}

/**
 * The age a shared answer is judged by: the older of its age in database time (one clock for every
 * instance, so a reader whose clock runs behind the writer's never serves it longer) and its age by
 * the reader's own clock since the writer obtained it (`obtainedAt`, the lineage's `retrievedAt`),
 * which is the clock the local cache ages by. Clocks that disagree can only make an answer expire
 * sooner, never later.
 */
export function sharedAge(databaseAgeMs: number, obtainedAt: number, now: number): number {
  return Math.max(databaseAgeMs, now - obtainedAt);
}

/** Largest entry (key and payload, in bytes) shared under a table bound of `maxBytes`. */
export function sharedEntryBound(maxBytes: number): number {
  return Math.max(0, Math.min(MAX_SHARED_ENTRY_BYTES, Math.floor(maxBytes / ENTRY_SHARE_OF_BOUND)));
}

/** Bytes a row takes against the bound: its key and payload as UTF-8. */
export function sharedEntryBytes(key: string, payload: string): number {
  return Buffer.byteLength(key, 'utf8') + Buffer.byteLength(payload, 'utf8');
}

export interface SweepState {
  /** When this instance last swept (its clock), or undefined before the first. */
  readonly sweptAt: number | undefined;
  /** Bytes this instance has written since. */
  readonly bytesSince: number;
  /** The last sweep deleted as many rows as one run may: more may be waiting. */
  readonly lastRunFull: boolean;
}

/**
 * Whether a write should be followed by a sweep of the table: once per interval, or sooner when the
 * last run left work behind or this instance alone has written a quarter of the bound since. So the
 * sweeps keep up with the writes that make them necessary, and cost nothing while nobody writes.
 */
export function sweepDue(state: SweepState, now: number, intervalMs: number, maxBytes: number): boolean {
  if (state.sweptAt === undefined) return true;
  if (state.lastRunFull) return true;
  if (state.bytesSince >= maxBytes / 4) return true;
  return now - state.sweptAt >= intervalMs;
}
