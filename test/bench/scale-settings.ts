/**
 * The scale benchmark's settings (scale.bench.ts says what each one is for), read once from the
 * environment.
 */
export const SUBSCRIBERS = Number(process.env.SCALE_SUBSCRIBERS ?? 5_000);
export const INSTANCES = Number(process.env.SCALE_INSTANCES ?? 3);
export const WINDOW_S = Number(process.env.SCALE_WINDOW_S ?? 30);
export const TICK_MS = Number(process.env.SCALE_TICK_MS ?? 5_000);
export const RECOVERY_S = Number(process.env.SCALE_RECOVERY_S ?? 20);
export const POLL_INTERVAL_MS = Number(process.env.SCALE_POLL_INTERVAL_MS ?? 1_000);
/** A crypto quote stays cached this long (src/market-data/cache/ttl.ts): a poll within it reads the cache. */
const QUOTE_CACHE_MS = 2_000;
/** A version made this long before a window's end (or a close) must have arrived: cache age + poll + slack. */
export const GRACE_MS = QUOTE_CACHE_MS + POLL_INTERVAL_MS + 1_000;
export const SYMBOLS = Array.from(
  { length: Number(process.env.SCALE_SYMBOLS ?? 50) },
  (_, i) => `S${String(i).padStart(2, '0')}/USDT`,
);
/** Busy-looping processes started beside the benchmark, to measure on a loaded machine too. */
export const BUSY_PROCESSES = Number(process.env.SCALE_BUSY_PROCESSES ?? 0);
/** More settings for every instance, `NAME=value,NAME=value` (say PRICE_RELAY=off for the before figures). */
export const INSTANCE_SETTINGS: Record<string, string> = Object.fromEntries(
  (process.env.SCALE_INSTANCE_ENV ?? '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim()]),
);
/** The Postgres server the benchmark creates its databases on. */
export const SERVER = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
