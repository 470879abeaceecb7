import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { loadPersistedOperations } from './platform/graphql/persisted-operations.ts';

/**
 * The only reader of process.env. Every setting Vigil understands is declared here, parsed once,
 * and frozen. The README's configuration table lists the same names, defaults and meanings.
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

const symbolList = (v: string) =>
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

const baseShape = {
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

const settingsSchema = z
  .object(baseShape)
  // Cross-setting checks run even when other settings are invalid (`when`), so one run lists everything.
  .refine((s) => s.SESSION_DEFAULT_TTL_HOURS <= s.SESSION_MAX_TTL_HOURS, {
    path: ['SESSION_DEFAULT_TTL_HOURS'],
    message: 'must not exceed SESSION_MAX_TTL_HOURS',
    when: (payload) => fieldsValid(payload.issues, ['SESSION_DEFAULT_TTL_HOURS', 'SESSION_MAX_TTL_HOURS']),
  })
  .refine((s) => !(s.TRUST_PROXY && s.TRUST_PROXY_HOPS === 0), {
    path: ['TRUST_PROXY_HOPS'],
    message:
      'is 0 while TRUST_PROXY=true: set TRUST_PROXY_HOPS alone (TRUST_PROXY=true is the older spelling of 1)',
    when: (payload) => fieldsValid(payload.issues, ['TRUST_PROXY', 'TRUST_PROXY_HOPS']),
  })
  .refine((s) => !s.PERSISTED_OPERATIONS_ONLY || s.PERSISTED_OPERATIONS_FILE, {
    path: ['PERSISTED_OPERATIONS_FILE'],
    message: 'is required when PERSISTED_OPERATIONS_ONLY=true (the operations that may run)',
    when: (payload) =>
      fieldsValid(payload.issues, ['PERSISTED_OPERATIONS_ONLY', 'PERSISTED_OPERATIONS_FILE']),
  })
  .refine((s) => !s.SMTP_USER || s.SMTP_PASSWORD, {
    path: ['SMTP_PASSWORD'],
    message: 'is required when SMTP_USER is set',
    when: (payload) => fieldsValid(payload.issues, ['SMTP_USER', 'SMTP_PASSWORD']),
  })
  .refine((s) => !s.MARKET_DATA_PROVIDERS.includes('alphavantage') || s.ALPHAVANTAGE_API_KEY, {
    path: ['ALPHAVANTAGE_API_KEY'],
    message: 'is required when MARKET_DATA_PROVIDERS includes alphavantage',
    when: (payload) => fieldsValid(payload.issues, ['MARKET_DATA_PROVIDERS', 'ALPHAVANTAGE_API_KEY']),
  })
  .refine((s) => !s.MARKET_DATA_PROVIDERS.includes('finnhub') || s.FINNHUB_API_KEY, {
    path: ['FINNHUB_API_KEY'],
    message: 'is required when MARKET_DATA_PROVIDERS includes finnhub',
    when: (payload) => fieldsValid(payload.issues, ['MARKET_DATA_PROVIDERS', 'FINNHUB_API_KEY']),
  });

/** The fields a cross-check reads parsed cleanly (their own problems are reported already). */
function fieldsValid(
  issues: readonly { path?: readonly PropertyKey[] }[],
  keys: Array<keyof typeof baseShape>,
): boolean {
  return !issues.some((issue) => keys.includes(issue.path?.[0] as keyof typeof baseShape));
}

/**
 * The settings as the app reads them: grouped, named for code, frozen. The `Config` type is derived
 * from this transform of the zod schema, so a setting cannot be declared in one place and missing in
 * another.
 */
const configSchema = settingsSchema.transform((s) => ({
  env: s.NODE_ENV,
  host: s.HOST,
  port: s.PORT,
  logLevel: s.LOG_LEVEL,
  logBufferBytes: s.LOG_BUFFER_BYTES,
  /** One info line per HTTP request (method, route template, status, duration, client). */
  accessLog: s.ACCESS_LOG,
  /** Show instance hostnames and pids (serverInfo) and subscribed symbols (/ws/connections). */
  exposeInstanceDetails: s.EXPOSE_INSTANCE_DETAILS,
  /** How many proxies' X-Forwarded-For entries identify the client (TRUST_PROXY=true alone means 1). */
  trustProxyHops: s.TRUST_PROXY_HOPS ?? (s.TRUST_PROXY ? 1 : 0),
  shutdownTimeoutMs: s.SHUTDOWN_TIMEOUT_MS,
  /** Extra Host names and browser origins `/mcp` accepts (loopback ones always, on a loopback HOST). */
  allowedHosts: s.ALLOWED_HOSTS,
  allowedOrigins: s.ALLOWED_ORIGINS,
  mcp: {
    maxSessions: s.MCP_MAX_SESSIONS,
    sessionIdleMinutes: s.MCP_SESSION_IDLE_MINUTES,
    /** The key `npm run mcp` (stdio) acts as; unset, the local operator with every scope. */
    stdioApiKey: s.VIGIL_API_KEY,
  },
  auth: {
    /** Every operation needs a valid key (except health, readiness, docs and, unless told, metrics). */
    required: s.AUTH_REQUIRED,
    adminApiKey: s.ADMIN_API_KEY,
    metricsRequireAuth: s.METRICS_REQUIRE_AUTH,
    maxFailuresPerMinute: s.AUTH_MAX_FAILURES_PER_MINUTE,
  },
  database: {
    url: s.DATABASE_URL,
    dataDir: resolve(s.DATA_DIR),
    timeouts: {
      statementMs: s.DB_STATEMENT_TIMEOUT_MS,
      lockMs: s.DB_LOCK_TIMEOUT_MS,
      connectMs: s.DB_CONNECT_TIMEOUT_MS,
    },
  },
  rateLimit: { max: s.RATE_LIMIT_MAX, windowSeconds: s.RATE_LIMIT_WINDOW_SECONDS },
  graphql: {
    limits: {
      maxTokens: s.GRAPHQL_MAX_TOKENS,
      maxAliases: s.GRAPHQL_MAX_ALIASES,
      maxDepth: s.GRAPHQL_MAX_DEPTH,
      maxCost: s.GRAPHQL_MAX_COST,
    },
    maxBodyBytes: s.GRAPHQL_MAX_BODY_BYTES,
    graphiql: s.GRAPHQL_GRAPHIQL ?? s.NODE_ENV !== 'production',
    introspection: s.GRAPHQL_INTROSPECTION ?? s.NODE_ENV !== 'production',
    persisted: {
      /** Operations by key, from PERSISTED_OPERATIONS_FILE. */
      listed: s.PERSISTED_OPERATIONS_FILE,
      /** Only listed operations run (client documents are refused on every client surface). */
      only: s.PERSISTED_OPERATIONS_ONLY,
      /** Automatic persisted queries; undefined when off. */
      apq:
        s.APQ_MAX_ENTRIES > 0
          ? { maxEntries: s.APQ_MAX_ENTRIES, maxBytes: s.APQ_MAX_BYTES, ttlMs: s.APQ_TTL_SECONDS * 1000 }
          : undefined,
    },
  },
  ws: {
    maxMessageBytes: s.WS_MAX_MESSAGE_BYTES,
    maxBufferedBytes: s.WS_MAX_BUFFERED_BYTES,
    maxConnectionsPerClient: s.WS_MAX_CONNECTIONS_PER_CLIENT,
    graphqlMaxSubscriptions: s.GRAPHQL_WS_MAX_SUBSCRIPTIONS,
    subscribeRate: { perSecond: s.WS_SUBSCRIBE_RATE_PER_SECOND, burst: s.WS_SUBSCRIBE_BURST },
  },
  sessions: {
    defaultTtlHours: s.SESSION_DEFAULT_TTL_HOURS,
    maxTtlHours: s.SESSION_MAX_TTL_HOURS,
    cleanupIntervalMinutes: s.SESSION_CLEANUP_INTERVAL_MINUTES,
    retentionDays: s.SESSION_RETENTION_DAYS,
    maxQueriesPerSession: s.SESSION_MAX_QUERIES_PER_SESSION,
    enableAnalytics: s.SESSION_ENABLE_ANALYTICS,
  },
  smtp: {
    host: s.SMTP_HOST,
    port: s.SMTP_PORT,
    user: s.SMTP_USER,
    password: s.SMTP_PASSWORD,
    fromEmail: s.SMTP_FROM_EMAIL,
  },
  chat: { botToken: s.CHAT_BOT_TOKEN },
  marketData: {
    providers: s.MARKET_DATA_PROVIDERS,
    /** Upper bound for one provider call, retries included. */
    timeoutMs: s.PROVIDER_TIMEOUT_MS,
    /** Estimated bytes the answer cache may hold (least recently used go first). */
    cacheMaxBytes: s.MARKET_DATA_CACHE_MAX_BYTES,
    /** Distinct instruments one client operation may ask market data for. */
    maxSymbolsPerOperation: s.MAX_SYMBOLS_PER_OPERATION,
    /** Cache-missing calls to live providers one client may cause per minute. */
    upstreamCallsPerClientPerMinute: s.UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE,
    simulated: { seed: s.SIMULATED_SEED, activity: s.SIMULATED_ACTIVITY, tickMs: s.SIMULATED_TICK_MS },
    yahoo: { baseUrl: s.YAHOO_BASE_URL, sessionUrl: s.YAHOO_SESSION_URL },
    binance: {
      baseUrl: s.BINANCE_BASE_URL,
      futuresBaseUrl: s.BINANCE_FUTURES_BASE_URL,
      wsUrl: s.BINANCE_WS_URL,
    },
    coingecko: { baseUrl: s.COINGECKO_BASE_URL, apiKey: s.COINGECKO_API_KEY },
    alphavantage: { baseUrl: s.ALPHAVANTAGE_BASE_URL, apiKey: s.ALPHAVANTAGE_API_KEY },
    finnhub: { baseUrl: s.FINNHUB_BASE_URL, apiKey: s.FINNHUB_API_KEY },
  },
  fkDsl: {
    /** SCAN universes used when no provider has its own instrument list (the simulated one does). */
    scanUniverse: { US: s.SCAN_UNIVERSE_US, CRYPTO: s.SCAN_UNIVERSE_CRYPTO },
    taskRetentionDays: s.FKDSL_TASK_RETENTION_DAYS,
    maxPendingTasksPerClient: s.FKDSL_MAX_PENDING_TASKS_PER_CLIENT,
    maxResultBytes: s.FKDSL_MAX_RESULT_BYTES,
    taskMaxAttempts: s.FKDSL_TASK_MAX_ATTEMPTS,
    maxCost: s.FKDSL_MAX_COST,
    deadlineMs: s.FKDSL_DEADLINE_MS,
  },
  watchdogs: {
    /** Pairs the correlation-breakdown watchdog watches, in configuration order. */
    correlationPairs: s.WATCHDOG_CORRELATION_PAIRS,
  },
}));

type DeepReadonly<T> = T extends readonly (infer U)[]
  ? T extends readonly [unknown, ...unknown[]]
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

export type Config = DeepReadonly<z.output<typeof configSchema>>;
export type MarketDataConfig = Config['marketData'];

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads `.env` (if present); variables already in the environment win over the file. */
export function readEnvFile(path = resolve(process.cwd(), '.env')): Record<string, string> {
  if (!existsSync(path)) return {};
  return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const known = Object.keys(baseShape);
  const input = Object.fromEntries(known.map((k) => [k, env[k]]).filter(([, v]) => v !== undefined));
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '(settings)');
        const given = env[name];
        return `${name}: ${issue.message}${given !== undefined ? ` (got ${JSON.stringify(redact(name, given))})` : ''}`;
      }),
    );
  }
  return deepFreeze(parsed.data) as Config;
}

/** Process environment over `.env`; throws ConfigError listing every problem. */
export function loadConfig(): Config {
  return parseConfig({ ...readEnvFile(), ...process.env });
}

/** For entry points: the configuration, or every problem on stderr and exit status 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

function redact(name: string, value: string): string {
  // Secrets end in their kind (SMTP_PASSWORD, CHAT_BOT_TOKEN, COINGECKO_API_KEY); GRAPHQL_MAX_TOKENS is no secret.
  return /(PASSWORD|TOKEN|SECRET|KEY)$/.test(name) || name === 'DATABASE_URL' ? '<redacted>' : value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
