import { resolve } from 'node:path';
import { z } from 'zod';
import { loadPersistedOperations } from './platform/graphql/persisted-operations.ts';

/**
 * Every setting Vigil understands, one zod field per environment variable, with its default and
 * bounds. `config.ts` checks them together, groups them for the code and freezes the result; the
 * README's configuration table lists the same names, defaults and meanings.
 */

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
      error: 'must be one of true/false/1/0/yes/no/on/off',
    })
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on');

/** A boolean whose default depends on other settings (undefined when unset). */
const optionalBool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
    error: 'must be one of true/false/1/0/yes/no/on/off',
  })
  .optional()
  .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1' || v === 'yes' || v === 'on'));

const int = (fallback: number, min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .default(fallback);

const url = (fallback: string) =>
  z
    .url({ protocol: /^(https?|wss?)$/, error: 'must be an http(s) or ws(s) URL' })
    .default(fallback)
    .transform((v) => v.replace(/\/+$/, ''));

export const symbolList = (v: string) =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** Market-data sources Vigil has adapters for (see src/market-data/providers). */
export const PROVIDER_IDS = [
  'simulated',
  'yahoo',
  'binance',
  'coingecko',
  'alphavantage',
  'finnhub',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

export const baseShape = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  PORT: int(4000, 0, 65535),
  DATABASE_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
    error: 'must be a postgres:// or postgresql:// URL',
  }),
  DATA_DIR: z.string().trim().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Log bytes held while stderr is not read; past this, lines are dropped (and counted).
  LOG_BUFFER_BYTES: int(4 * 1024 * 1024, 65_536, 1024 ** 3),
  ACCESS_LOG: bool(true),
  // 0 disables a database timeout.
  DB_STATEMENT_TIMEOUT_MS: int(10_000, 0, 3_600_000),
  DB_LOCK_TIMEOUT_MS: int(5_000, 0, 3_600_000),
  DB_CONNECT_TIMEOUT_MS: int(10_000, 100, 120_000),
  // Longer than the idle timeouts of common proxies (60 s) and client pools, so that the client
  // side closes an idle connection first and never reuses one the server is closing.
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(65_000, 1_000, 3_600_000),
  HTTP_HEADERS_TIMEOUT_MS: int(66_000, 1_000, 3_600_000),
  // 0 disables it; subscriptions and event streams are responses, which it does not bound.
  HTTP_REQUEST_TIMEOUT_MS: int(300_000, 0, 3_600_000),
  // Until access control exists: hostnames, pids and subscribed symbols stay private by default.
  EXPOSE_INSTANCE_DETAILS: bool(false),
  TRUST_PROXY: bool(false),
  // Proxies in front of Vigil whose X-Forwarded-For entries are believed (0: none); unset, TRUST_PROXY=true means 1.
  TRUST_PROXY_HOPS: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must be at least 0' })
    .max(10, { error: 'must be at most 10' })
    .optional(),
  SHUTDOWN_TIMEOUT_MS: int(10_000, 100, 300_000),
  // Host names and browser origins `/mcp` accepts besides loopback ones (DNS-rebinding protection).
  ALLOWED_HOSTS: z.string().default('').transform(symbolList),
  ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform(symbolList)
    .refine((origins) => origins.every((o) => /^https?:\/\/[^/\s]+$/i.test(o)), {
      error: 'each entry must be an origin like https://app.example (scheme, host, optional port)',
    }),
  MCP_MAX_SESSIONS: int(100, 1, 100_000),
  // Access control. Off, a caller without a key has every scope (a local, zero-setup start).
  AUTH_REQUIRED: bool(false),
  // A bootstrap key with every scope, compared in constant time; never stored in the database.
  ADMIN_API_KEY: optionalString.refine((v) => v === undefined || (v.length >= 24 && !/\s/.test(v)), {
    error: 'must be at least 24 characters without spaces (e.g. the output of `openssl rand -base64 32`)',
  }),
  METRICS_REQUIRE_AUTH: bool(false),
  // Failed key presentations per address per minute (also the burst) before the rest are refused unread.
  AUTH_MAX_FAILURES_PER_MINUTE: int(30, 1, 100_000),
  // The key the stdio MCP server acts as; unset, it is the local operator (every scope).
  VIGIL_API_KEY: optionalString,
  MCP_SESSION_IDLE_MINUTES: int(30, 1, 1_440),

  RATE_LIMIT_MAX: int(300, 1, 1_000_000),
  RATE_LIMIT_WINDOW_SECONDS: int(60, 1, 86_400),
  // GraphQL documents on every surface; the defaults leave GraphiQL's introspection query and
  // every tool's document (at most ~200 tokens, depth 15, cost 230) well inside.
  GRAPHQL_MAX_TOKENS: int(2_000, 100, 50_000),
  GRAPHQL_MAX_ALIASES: int(30, 0, 100_000),
  GRAPHQL_MAX_DEPTH: int(20, 5, 100),
  GRAPHQL_MAX_COST: int(1_000, 50, 10_000_000),
  GRAPHQL_MAX_BODY_BYTES: int(102_400, 1_024, 26_214_400),
  // Default: on, except with NODE_ENV=production.
  GRAPHQL_GRAPHIQL: optionalBool,
  GRAPHQL_INTROSPECTION: optionalBool,
  // Automatic persisted queries: documents clients register by hash, bounded by count, bytes and
  // age since last use (0 entries turns APQ off).
  APQ_MAX_ENTRIES: int(1_000, 0, 1_000_000),
  APQ_MAX_BYTES: int(4 * 1024 * 1024, 1_024, 1024 ** 3),
  APQ_TTL_SECONDS: int(3_600, 1, 30 * 86_400),
  // A JSON file of the operations clients may run by key; read (and checked) once at start.
  PERSISTED_OPERATIONS_FILE: optionalString.transform((path, ctx) => {
    if (path === undefined) return undefined;
    try {
      return loadPersistedOperations(resolve(path));
    } catch (error) {
      ctx.issues.push({ code: 'custom', input: path, message: (error as Error).message });
      return z.NEVER;
    }
  }),
  PERSISTED_OPERATIONS_ONLY: bool(false),
  // WebSocket bounds: message size, unsent bytes per socket, connections per client address,
  // subscriptions per graphql-ws connection, subscriptions started per second per connection.
  WS_MAX_MESSAGE_BYTES: int(65_536, 1_024, 16_777_216),
  WS_MAX_BUFFERED_BYTES: int(1_048_576, 16_384, 268_435_456),
  WS_MAX_CONNECTIONS_PER_CLIENT: int(20, 1, 100_000),
  GRAPHQL_WS_MAX_SUBSCRIPTIONS: int(20, 1, 10_000),
  WS_SUBSCRIBE_RATE_PER_SECOND: int(10, 1, 10_000),
  WS_SUBSCRIBE_BURST: int(20, 1, 10_000),

  SESSION_DEFAULT_TTL_HOURS: int(24, 1, 8_760),
  SESSION_MAX_TTL_HOURS: int(168, 1, 8_760),
  SESSION_CLEANUP_INTERVAL_MINUTES: int(60, 1, 1_440),
  SESSION_RETENTION_DAYS: int(30, 1, 3_650),
  SESSION_MAX_QUERIES_PER_SESSION: int(1000, 1, 1_000_000),
  SESSION_ENABLE_ANALYTICS: bool(true),

  SMTP_HOST: optionalString,
  SMTP_PORT: int(587, 1, 65535),
  SMTP_USER: optionalString,
  SMTP_PASSWORD: optionalString,
  SMTP_FROM_EMAIL: optionalString.pipe(z.email({ error: 'must be an email address' }).optional()),
  CHAT_BOT_TOKEN: optionalString,
  CHAT_API_BASE_URL: url('https://api.telegram.org'),
  // Alerts: where deliveries may go besides public addresses (hosts or CIDRs), how long one attempt
  // may take, how many attempts before a delivery fails, and the key that seals alert secrets.
  ALERT_DELIVERY_ALLOWED_HOSTS: z.string().default('').transform(symbolList),
  ALERT_DELIVERY_TIMEOUT_MS: int(10_000, 500, 120_000),
  ALERT_DELIVERY_MAX_ATTEMPTS: int(6, 1, 20),
  SECRETS_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, {
        error: 'must be 32 bytes: 64 hex characters or 44 base64 characters',
      })
      .optional(),
  ),

  MARKET_DATA_PROVIDERS: z
    .string()
    .default('simulated')
    .transform((v) => [
      ...new Set(
        v
          .split(',')
          .map((p) => p.trim().toLowerCase())
          .filter(Boolean),
      ),
    ])
    .pipe(
      z
        .array(
          z.enum(PROVIDER_IDS, {
            error: (issue) => `${String(issue.input)} is not a provider; known: ${PROVIDER_IDS.join(', ')}`,
          }),
        )
        .min(1, { error: 'name at least one provider' })
        .refine((ids) => !ids.includes('simulated') || ids.length === 1, {
          error: 'simulated cannot be combined with live providers (its prices describe no real market)',
        }),
    ),
  PROVIDER_TIMEOUT_MS: int(8_000, 100, 120_000),
  MARKET_DATA_CACHE_MAX_BYTES: int(64 * 1024 * 1024, 1024 * 1024, 8 * 1024 ** 3),
  MAX_SYMBOLS_PER_OPERATION: int(100, 1, 10_000),
  UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE: int(60, 1, 100_000),
  SIMULATED_SEED: z.string().trim().min(1).default('vigil'),
  SIMULATED_ACTIVITY: z.enum(['normal', 'demo'], { error: 'must be normal or demo' }).default('normal'),
  SIMULATED_TICK_MS: int(1_000, 50, 60_000),
  YAHOO_BASE_URL: url('https://query1.finance.yahoo.com'),
  // Unset: Yahoo's session host for Yahoo's own API, else YAHOO_BASE_URL (see yahooSessionUrl).
  YAHOO_SESSION_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  ),
  BINANCE_BASE_URL: url('https://api.binance.com'),
  BINANCE_FUTURES_BASE_URL: url('https://fapi.binance.com'),
  BINANCE_WS_URL: url('wss://stream.binance.com:9443'),
  COINGECKO_BASE_URL: url('https://api.coingecko.com/api/v3'),
  COINGECKO_API_KEY: optionalString,
  ALPHAVANTAGE_BASE_URL: url('https://www.alphavantage.co'),
  ALPHAVANTAGE_API_KEY: optionalString,
  FINNHUB_BASE_URL: url('https://finnhub.io/api/v1'),
  FINNHUB_API_KEY: optionalString,

  SCAN_UNIVERSE_US: z
    .string()
    .default(
      'AAPL,MSFT,NVDA,AMZN,GOOGL,META,TSLA,BRK.B,JPM,V,UNH,XOM,JNJ,WMT,PG,MA,HD,KO,PEP,AMD,NFLX,DIS,INTC,BA,SPY,QQQ,IWM,DIA',
    )
    .transform(symbolList),
  SCAN_UNIVERSE_CRYPTO: z
    .string()
    .default('BTC/USDT,ETH/USDT,SOL/USDT,BNB/USDT,XRP/USDT,ADA/USDT,DOGE/USDT,AVAX/USDT,LINK/USDT,LTC/USDT')
    .transform(symbolList),
  FKDSL_TASK_RETENTION_DAYS: int(7, 1, 365),
  // Background tasks: unfinished tasks per client, bytes of a stored result, starts before a task
  // whose instance keeps dying is failed.
  FKDSL_MAX_PENDING_TASKS_PER_CLIENT: int(10, 1, 10_000),
  FKDSL_MAX_RESULT_BYTES: int(262_144, 1_024, 67_108_864),
  FKDSL_TASK_MAX_ATTEMPTS: int(3, 1, 10),
  // Work units (instruments x bars x computations, see src/fk-dsl/cost.ts) one query may cost, and
  // how long its evaluation may run, in a request or as a background task.
  FKDSL_MAX_COST: int(1_000_000, 10_000, 1_000_000_000),
  FKDSL_DEADLINE_MS: int(10_000, 1, 600_000),

  // Watchdogs: whether this instance runs checks (any instance may; each runs once per interval
  // across all of them), what they watch, how often, with which thresholds, and event retention.
  WATCHDOGS_RUN: bool(true),
  // Empty: SCAN_UNIVERSE_US and SCAN_UNIVERSE_CRYPTO.
  WATCHDOG_SYMBOLS: z.string().default('').transform(symbolList),
  WATCHDOG_INTERVAL_SECONDS: int(60, 5, 86_400),
  // `name:seconds,...`: intervals of single watchdogs (checked against the names in watchdogs/).
  WATCHDOG_INTERVALS: z.string().default('').transform(symbolList),
  // JSON object: per watchdog name, thresholds and windows replacing its defaults (README lists them).
  WATCHDOG_THRESHOLDS: z.string().trim().default('{}'),
  WATCHDOG_EVENT_RETENTION_DAYS: int(30, 1, 3_650),
  // Listeners of the live event feed at once on one instance: each /dashboard/stream connection
  // and each watchdogEvents subscription holds one; past it they are refused with SUBSCRIPTION_LIMIT.
  WATCHDOG_EVENT_MAX_LISTENERS: int(10_000, 1, 1_000_000),
  // `A:B,C:D`: the pairs whose correlation the correlation-breakdown watchdog watches.
  WATCHDOG_CORRELATION_PAIRS: z
    .string()
    .default(
      'BTC/USDT:ETH/USDT,SOL/USDT:AVAX/USDT,XRP/USDT:XLM/USDT,ADA/USDT:DOT/USDT,AAPL:MSFT,SPY:QQQ,NVDA:AMD,KO:PEP,XOM:CVX,JPM:XLF',
    )
    .transform((v, ctx) => {
      const pairs = symbolList(v).map((entry) => {
        const [a, b, ...rest] = entry.split(':').map((s) => s.trim().toUpperCase());
        if (!a || !b || rest.length > 0 || a === b) {
          ctx.issues.push({
            code: 'custom',
            input: v,
            message: `${entry} is not two distinct symbols joined by ':'`,
          });
        }
        return [a ?? '', b ?? ''] as const;
      });
      if (pairs.length > 50)
        ctx.issues.push({ code: 'custom', input: v, message: `at most 50 pairs, got ${pairs.length}` });
      return pairs;
    }),
};
