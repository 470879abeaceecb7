import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { baseShape } from './config-settings.ts';
import { checkWatchdogSettings, type WatchdogsConfig } from './watchdogs/settings.ts';

export { ConfigError } from './config-error.ts';
export { PROVIDER_IDS, type ProviderId } from './config-settings.ts';

/**
 * The only reader of process.env. Every setting (declared in config-settings.ts) is parsed once,
 * checked against the others, grouped for the code and frozen.
 */

const baseSchema = z.object(baseShape);

const settingsSchema = baseSchema
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
  })
  .refine((s) => s.HTTP_REQUEST_TIMEOUT_MS === 0 || s.HTTP_HEADERS_TIMEOUT_MS <= s.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS (a request head is part of the request)',
    when: (payload) => fieldsValid(payload.issues, ['HTTP_HEADERS_TIMEOUT_MS', 'HTTP_REQUEST_TIMEOUT_MS']),
  })
  // The watchdogs' intervals and thresholds, checked with everything else so one run lists all.
  .superRefine(
    (s, ctx) => {
      for (const problem of checkWatchdogSettings(watchdogsConfigOf(s)).problems) {
        const setting = problem.startsWith('WATCHDOG_INTERVALS')
          ? 'WATCHDOG_INTERVALS'
          : 'WATCHDOG_THRESHOLDS';
        ctx.addIssue({ code: 'custom', path: [setting], message: problem, params: { verbatim: true } });
      }
    },
    { when: (payload) => fieldsValid(payload.issues, WATCHDOG_FIELDS) },
  );

/** The settings the watchdogs' own check reads. */
const WATCHDOG_FIELDS: Array<keyof typeof baseShape> = [
  'WATCHDOG_CORRELATION_PAIRS',
  'WATCHDOGS_RUN',
  'WATCHDOG_SYMBOLS',
  'SCAN_UNIVERSE_US',
  'SCAN_UNIVERSE_CRYPTO',
  'WATCHDOG_INTERVAL_SECONDS',
  'WATCHDOG_INTERVALS',
  'WATCHDOG_THRESHOLDS',
  'WATCHDOG_EVENT_RETENTION_DAYS',
  'WATCHDOG_EVENT_MAX_LISTENERS',
  'MARKET_DATA_PROVIDERS',
  'SIMULATED_ACTIVITY',
];

type Settings = z.output<typeof baseSchema>;

function watchdogsConfigOf(s: Settings): WatchdogsConfig {
  return {
    /** Pairs the correlation-breakdown watchdog watches, in configuration order. */
    correlationPairs: s.WATCHDOG_CORRELATION_PAIRS,
    /** Whether this instance schedules and runs checks. */
    run: s.WATCHDOGS_RUN,
    /** Watched symbols; the SCAN universes when none are set. */
    symbols:
      s.WATCHDOG_SYMBOLS.length > 0 ? s.WATCHDOG_SYMBOLS : [...s.SCAN_UNIVERSE_US, ...s.SCAN_UNIVERSE_CRYPTO],
    intervalSeconds: s.WATCHDOG_INTERVAL_SECONDS,
    /** Raw `name:seconds` entries and the thresholds JSON, checked by the watchdogs domain. */
    intervals: s.WATCHDOG_INTERVALS,
    thresholds: s.WATCHDOG_THRESHOLDS,
    eventRetentionDays: s.WATCHDOG_EVENT_RETENTION_DAYS,
    eventMaxListeners: s.WATCHDOG_EVENT_MAX_LISTENERS,
    /** Demo activity compresses the watchdogs' windows to minutes (see watchdogs/settings.ts). */
    demo: s.MARKET_DATA_PROVIDERS.includes('simulated') && s.SIMULATED_ACTIVITY === 'demo',
  };
}

/** The fields a cross-check reads parsed cleanly (their own problems are reported already). */
function fieldsValid(
  issues: readonly { path?: readonly PropertyKey[] }[],
  keys: Array<keyof typeof baseShape>,
): boolean {
  return !issues.some((issue) => keys.includes(issue.path?.[0] as keyof typeof baseShape));
}

/**
 * The settings as the app reads them: grouped, named for code, frozen. The `Config` type is derived
 * from this transform of the zod schema (each group's type is its function's return type), so a
 * setting cannot be declared in one place and missing in another.
 */
const configSchema = settingsSchema.transform((s) => ({
  ...serverConfigOf(s),
  mcp: mcpConfigOf(s),
  auth: authConfigOf(s),
  database: databaseConfigOf(s),
  rateLimit: { max: s.RATE_LIMIT_MAX, windowSeconds: s.RATE_LIMIT_WINDOW_SECONDS },
  graphql: graphqlConfigOf(s),
  ws: wsConfigOf(s),
  sessions: sessionsConfigOf(s),
  ...deliveryConfigOf(s),
  marketData: marketDataConfigOf(s),
  fkDsl: fkDslConfigOf(s),
  watchdogs: watchdogsConfigOf(s),
}));

/** The process, its HTTP server and the clients it trusts. */
function serverConfigOf(s: Settings) {
  return {
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
    /** Connection timeouts of the HTTP server (keep-alive longer than proxies' and clients' idle pools). */
    http: {
      keepAliveMs: s.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      headersMs: s.HTTP_HEADERS_TIMEOUT_MS,
      requestMs: s.HTTP_REQUEST_TIMEOUT_MS,
    },
    /** Extra Host names and browser origins `/mcp` accepts (loopback ones always, on a loopback HOST). */
    allowedHosts: s.ALLOWED_HOSTS,
    allowedOrigins: s.ALLOWED_ORIGINS,
  };
}

function mcpConfigOf(s: Settings) {
  return {
    maxSessions: s.MCP_MAX_SESSIONS,
    sessionIdleMinutes: s.MCP_SESSION_IDLE_MINUTES,
    /** JSON-RPC requests per client per rate-limit window (each element of a batch is one). */
    rateLimit: { max: s.MCP_RATE_LIMIT_MAX, windowSeconds: s.RATE_LIMIT_WINDOW_SECONDS },
    batchMaxBytes: s.MCP_BATCH_MAX_BYTES,
    streamStallSeconds: s.MCP_STREAM_STALL_SECONDS,
    /** The key `npm run mcp` (stdio) acts as; unset, the local operator with every scope. */
    stdioApiKey: s.VIGIL_API_KEY,
  };
}

function authConfigOf(s: Settings) {
  return {
    /** Every operation needs a valid key (except health, readiness, docs and, unless told, metrics). */
    required: s.AUTH_REQUIRED,
    adminApiKey: s.ADMIN_API_KEY,
    metricsRequireAuth: s.METRICS_REQUIRE_AUTH,
    maxFailuresPerMinute: s.AUTH_MAX_FAILURES_PER_MINUTE,
  };
}

function databaseConfigOf(s: Settings) {
  return {
    url: s.DATABASE_URL,
    dataDir: resolve(s.DATA_DIR),
    timeouts: {
      statementMs: s.DB_STATEMENT_TIMEOUT_MS,
      lockMs: s.DB_LOCK_TIMEOUT_MS,
      connectMs: s.DB_CONNECT_TIMEOUT_MS,
    },
  };
}

function graphqlConfigOf(s: Settings) {
  return {
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
  };
}

function wsConfigOf(s: Settings) {
  return {
    maxMessageBytes: s.WS_MAX_MESSAGE_BYTES,
    maxBufferedBytes: s.WS_MAX_BUFFERED_BYTES,
    maxConnectionsPerClient: s.WS_MAX_CONNECTIONS_PER_CLIENT,
    graphqlMaxSubscriptions: s.GRAPHQL_WS_MAX_SUBSCRIPTIONS,
    subscribeRate: { perSecond: s.WS_SUBSCRIBE_RATE_PER_SECOND, burst: s.WS_SUBSCRIBE_BURST },
    /** What serves graphql-ws: Vigil's socket glue or the library's `useServer`. */
    graphqlServer: s.GRAPHQL_WS_SERVER,
  };
}

function sessionsConfigOf(s: Settings) {
  return {
    defaultTtlHours: s.SESSION_DEFAULT_TTL_HOURS,
    maxTtlHours: s.SESSION_MAX_TTL_HOURS,
    cleanupIntervalMinutes: s.SESSION_CLEANUP_INTERVAL_MINUTES,
    retentionDays: s.SESSION_RETENTION_DAYS,
    maxQueriesPerSession: s.SESSION_MAX_QUERIES_PER_SESSION,
    enableAnalytics: s.SESSION_ENABLE_ANALYTICS,
  };
}

/** Where alerts are delivered: SMTP, the chat bot API, webhooks. */
function deliveryConfigOf(s: Settings) {
  return {
    smtp: {
      host: s.SMTP_HOST,
      port: s.SMTP_PORT,
      user: s.SMTP_USER,
      password: s.SMTP_PASSWORD,
      fromEmail: s.SMTP_FROM_EMAIL,
      /** Hosts a password may be sent to without TLS. */
      plaintextAuthHosts: s.SMTP_PLAINTEXT_AUTH_HOSTS,
    },
    chat: { botToken: s.CHAT_BOT_TOKEN, apiBaseUrl: s.CHAT_API_BASE_URL },
    pagerduty: { eventsUrl: s.PAGERDUTY_EVENTS_URL },
    alerts: {
      /** Hosts and CIDRs deliveries may reach although they are private (local receivers, tests). */
      allowedHosts: s.ALERT_DELIVERY_ALLOWED_HOSTS,
      timeoutMs: s.ALERT_DELIVERY_TIMEOUT_MS,
      maxAttempts: s.ALERT_DELIVERY_MAX_ATTEMPTS,
      /** Attempts one owner may have under way at once on this instance. */
      ownerConcurrency: s.ALERT_DELIVERY_OWNER_CONCURRENCY,
      /** Firings one alert may deliver per minute; past it they are recorded as `rate_limited`. */
      maxFiringsPerMinute: s.ALERT_MAX_FIRINGS_PER_MINUTE,
      /** Alerts one owner may have. */
      maxPerOwner: s.ALERTS_MAX_PER_OWNER,
      /** Unset: generated into the data directory on the embedded database; required with Postgres for secrets. */
      secretsKey: s.SECRETS_KEY,
    },
  };
}

function marketDataConfigOf(s: Settings) {
  return {
    providers: s.MARKET_DATA_PROVIDERS,
    /** Upper bound for one provider call, retries included. */
    timeoutMs: s.PROVIDER_TIMEOUT_MS,
    /** Estimated bytes the answer cache may hold (least recently used go first). */
    cacheMaxBytes: s.MARKET_DATA_CACHE_MAX_BYTES,
    /** `auto`: share cached quotes and bars between instances on Postgres; `off`: never. */
    sharedCache: s.MARKET_DATA_SHARED_CACHE,
    /** Distinct instruments one client operation may ask market data for. */
    maxSymbolsPerOperation: s.MAX_SYMBOLS_PER_OPERATION,
    /** Cache-missing calls to live providers one client may cause per minute. */
    upstreamCallsPerClientPerMinute: s.UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE,
    /** How often a feed without a streaming provider polls its quote. */
    pollIntervalMs: s.PRICE_POLL_INTERVAL_MS,
    /** Share price feeds between the instances on one Postgres database (relay); `off`: each polls its own. */
    relay: s.PRICE_RELAY,
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
  };
}

function fkDslConfigOf(s: Settings) {
  return {
    /** SCAN universes used when no provider has its own instrument list (the simulated one does). */
    scanUniverse: { US: s.SCAN_UNIVERSE_US, CRYPTO: s.SCAN_UNIVERSE_CRYPTO },
    taskRetentionDays: s.FKDSL_TASK_RETENTION_DAYS,
    maxPendingTasksPerClient: s.FKDSL_MAX_PENDING_TASKS_PER_CLIENT,
    maxResultBytes: s.FKDSL_MAX_RESULT_BYTES,
    taskMaxAttempts: s.FKDSL_TASK_MAX_ATTEMPTS,
    maxCost: s.FKDSL_MAX_COST,
    deadlineMs: s.FKDSL_DEADLINE_MS,
  };
}

type DeepReadonly<T> = T extends readonly (infer U)[]
  ? T extends readonly [unknown, ...unknown[]]
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

export type Config = DeepReadonly<z.output<typeof configSchema>>;
export type MarketDataConfig = Config['marketData'];

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
        if (issue.code === 'custom' && issue.params?.verbatim) return issue.message;
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
