import { resolve } from 'node:path';
import { z } from 'zod';
import { loadPersistedOperations } from './platform/graphql/transports/persisted-operations.ts';

/**
 * Every setting Vigil understands, one zod field per environment variable, with its default and
 * bounds. `config.ts` checks them together, groups them for the code and freezes the result;
 * `settingDocs` at the end documents each one (docs/configuration.md and `.env.example` are
 * generated from both).
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
  MCP_RATE_LIMIT_MAX: int(600, 1, 1_000_000),
  MCP_BATCH_MAX_BYTES: int(4_194_304, 65_536, 268_435_456),
  MCP_STREAM_STALL_SECONDS: int(300, 5, 86_400),

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
  // What serves graphql-ws on /graphql: Vigil's own socket glue, or the library's useServer.
  GRAPHQL_WS_SERVER: z.enum(['vigil', 'library'], { error: 'must be vigil or library' }).default('vigil'),

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
  SMTP_PLAINTEXT_AUTH_HOSTS: z
    .string()
    .default('')
    .transform(symbolList)
    .refine((hosts) => hosts.every((h) => /^[A-Za-z0-9._:[\]-]+$/.test(h)), {
      error: 'must list host names or addresses (no schemes, ports or paths)',
    }),
  CHAT_BOT_TOKEN: optionalString,
  CHAT_API_BASE_URL: url('https://api.telegram.org'),
  PAGERDUTY_EVENTS_URL: url('https://events.pagerduty.com/v2/enqueue'),
  // Alerts: where deliveries may go besides public addresses (hosts or CIDRs), how long one attempt
  // may take, how many attempts before a delivery fails, and the key that seals alert secrets.
  ALERT_DELIVERY_ALLOWED_HOSTS: z.string().default('').transform(symbolList),
  ALERT_DELIVERY_TIMEOUT_MS: int(10_000, 500, 120_000),
  ALERT_DELIVERY_MAX_ATTEMPTS: int(6, 1, 20),
  ALERT_DELIVERY_OWNER_CONCURRENCY: int(16, 1, 64),
  ALERT_MAX_FIRINGS_PER_MINUTE: int(60, 1, 10_000),
  ALERTS_MAX_PER_OWNER: int(100, 1, 100_000),
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
  MARKET_DATA_SHARED_CACHE: z.enum(['auto', 'off'], { error: 'must be auto or off' }).default('auto'),
  MAX_SYMBOLS_PER_OPERATION: int(100, 1, 10_000),
  UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE: int(60, 1, 100_000),
  PRICE_POLL_INTERVAL_MS: int(1_000, 50, 60_000),
  PRICE_RELAY: z.enum(['auto', 'off'], { error: 'must be auto or off' }).default('auto'),
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
  // JSON object: per watchdog name, thresholds and windows replacing its defaults (docs/watchdogs.md).
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

/*
 * Documentation of every setting: its group, what it does and whether nearly every deployment sets
 * it. `npm run docs:config` writes docs/configuration.md's reference and `.env.example` from this
 * table and the zod fields above (defaults and bounds come from the fields themselves); a test fails
 * when either file is stale. The mapped type below makes a setting without documentation, or
 * documentation of a setting that no longer exists, a type error.
 */

export type SettingGroup =
  | 'server'
  | 'logs'
  | 'database'
  | 'access'
  | 'mcp'
  | 'graphql'
  | 'websockets'
  | 'marketData'
  | 'fkDsl'
  | 'watchdogs'
  | 'alerts'
  | 'sessions';

/** The groups settings are listed under, in this order, with what a reader should know of each. */
export const SETTING_GROUPS: {
  readonly [G in SettingGroup]: { readonly title: string; readonly note?: string };
} = {
  server: { title: 'Server' },
  logs: { title: 'Logs' },
  database: { title: 'Database' },
  access: { title: 'Access' },
  mcp: { title: 'MCP' },
  graphql: { title: 'GraphQL' },
  websockets: {
    title: 'WebSockets',
    note: 'The WebSocket routes: `/graphql` (graphql-ws), `/ws/stream`, `/ws/prices/...` and `/dashboard/stream`.',
  },
  marketData: { title: 'Market data' },
  fkDsl: { title: 'FK-DSL' },
  watchdogs: { title: 'Watchdogs' },
  alerts: {
    title: 'Alerts',
    note: "Defaults of alert delivery: an alert's own `email_config` and `chat_config` take precedence.",
  },
  sessions: { title: 'Analysis sessions' },
};

export type SettingName = keyof typeof baseShape;

export interface SettingDoc {
  readonly group: SettingGroup;
  /** What the setting does, in Markdown (`.env.example` gets it as plain text). */
  readonly description: string;
  /** Set by nearly every deployment: listed first in both generated files. */
  readonly essential?: true;
  /**
   * What leaving the setting unset (or empty) means, for a setting whose default depends on other
   * settings: its zod field has no default, or an empty one. Any other default is read from the field.
   */
  readonly defaultText?: string;
  /** What a long list given as the default is (`10 pairs`), said before its entries. */
  readonly defaultNote?: string;
  /** A value shown commented out in `.env.example` for a setting that is unset by default. */
  readonly example?: string;
}

/** One line of Markdown from an indented template literal (line breaks become spaces). */
const prose = (strings: TemplateStringsArray, ...values: unknown[]): string =>
  String.raw({ raw: strings }, ...values)
    .replace(/\s*\n\s*/g, ' ')
    .trim();

export const settingDocs: { readonly [K in SettingName]: SettingDoc } = {
  // --- server
  NODE_ENV: {
    group: 'server',
    essential: true,
    description: prose`the kind of deployment; \`production\` turns GraphiQL and introspection off
      unless \`GRAPHQL_GRAPHIQL\` and \`GRAPHQL_INTROSPECTION\` say otherwise`,
  },
  HOST: {
    group: 'server',
    essential: true,
    description: 'interface to listen on (`0.0.0.0` to accept remote clients)',
  },
  PORT: {
    group: 'server',
    essential: true,
    description: 'HTTP and WebSocket port (`0` picks a free port)',
  },
  SHUTDOWN_TIMEOUT_MS: {
    group: 'server',
    description: 'how long a graceful stop waits for requests and jobs before cutting them off',
  },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    group: 'server',
    description: prose`an idle keep-alive connection is closed after this long (sent as
      \`Keep-Alive: timeout=65\`). Longer than the 60 s idle timeout of common load balancers and
      proxies and than client pools (undici, Node's \`fetch\`, which honour the header), so the client
      side closes an idle connection first and never reuses one the server is closing (Node's own 5 s
      default caused \`ECONNRESET\` under load)`,
  },
  HTTP_HEADERS_TIMEOUT_MS: {
    group: 'server',
    description: prose`a request's line and headers must arrive within this long (at most
      \`HTTP_REQUEST_TIMEOUT_MS\`)`,
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    group: 'server',
    description: prose`a whole request (head and body) must arrive within this long; \`0\` turns it
      off. It does not bound responses: subscriptions and event streams stay open`,
  },
  TRUST_PROXY_HOPS: {
    group: 'server',
    defaultText: '`0`, or `1` with `TRUST_PROXY=true`',
    example: '1',
    description: prose`how many proxies in front of Vigil to believe: the client address is the
      entry that many places from the right of \`X-Forwarded-For\` (what the outermost trusted proxy
      saw); \`0\` ignores the header. An entry that is not an IP address falls back to the
      connection's address`,
  },
  TRUST_PROXY: {
    group: 'server',
    description: prose`older spelling: \`true\` means \`TRUST_PROXY_HOPS=1\` (it used to take the
      leftmost entry, which the client writes); with \`TRUST_PROXY_HOPS=0\` it is a configuration
      error`,
  },
  EXPOSE_INSTANCE_DETAILS: {
    group: 'server',
    description: prose`show instance host names and pids (\`serverInfo.liveInstances\`) and the
      subscribed symbols (\`GET /ws/connections\`); off, those fields are \`null\` and only counts
      are listed`,
  },

  // --- logs
  LOG_LEVEL: {
    group: 'logs',
    description: 'least severity logged; JSON logs go to stderr',
  },
  LOG_BUFFER_BYTES: {
    group: 'logs',
    description: prose`log bytes held while stderr is not read (logging is asynchronous); past it
      lines are dropped and counted, never waited for (at least 65536)`,
  },
  ACCESS_LOG: {
    group: 'logs',
    description: prose`one \`info\` line per HTTP request: method, route template, status, duration
      in ms, client id (never the path's values, query string or body)`,
  },

  // --- database
  DATABASE_URL: {
    group: 'database',
    essential: true,
    example: 'postgres://user:password@127.0.0.1:5432/vigil',
    description: prose`\`postgres://\` URL of a PostgreSQL server (15 or newer) to use, and to share
      with other instances; unset means the embedded PGlite database under \`DATA_DIR\``,
  },
  DATA_DIR: {
    group: 'database',
    description: prose`directory for local state; PGlite lives in \`DATA_DIR/pglite\`, which one
      process at a time may open: it holds a local socket there (\`vigil.lock\`) that the system
      releases when the process ends, even by \`kill -9\``,
  },
  DB_STATEMENT_TIMEOUT_MS: {
    group: 'database',
    description: prose`a database statement running longer fails (\`DATABASE_UNAVAILABLE\`, 503);
      \`0\` disables. Migrations are exempt`,
  },
  DB_LOCK_TIMEOUT_MS: {
    group: 'database',
    description: 'a statement waiting longer for a lock fails, likewise; `0` disables',
  },
  DB_CONNECT_TIMEOUT_MS: {
    group: 'database',
    description: 'opening a Postgres connection fails after this long',
  },

  // --- access
  AUTH_REQUIRED: {
    group: 'access',
    essential: true,
    description: prose`every call needs a valid API key, except \`/healthz\`, \`/readyz\`, \`/docs\`,
      \`/openapi.json\` and (unless \`METRICS_REQUIRE_AUTH\`) \`/metrics\`. Off, a caller without a
      key has every scope (keep \`HOST\` on loopback then), and Vigil warns at start when it listens
      beyond loopback (see [Access](access.md))`,
  },
  ADMIN_API_KEY: {
    group: 'access',
    essential: true,
    description: prose`a bootstrap key with every scope (at least 24 characters, e.g. \`openssl rand
      -base64 32\`); compared in constant time, never stored`,
  },
  ALLOWED_ORIGINS: {
    group: 'access',
    essential: true,
    description: prose`comma-separated browser origins (\`https://app.example\`) whose pages may call
      \`/graphql\` and \`/mcp\` across origins (CORS with that origin, no credentials; other origins
      get no CORS headers), and open WebSockets. On a loopback \`HOST\`, \`/mcp\` also serves requests
      whose \`Origin\` is a loopback origin (without CORS)`,
  },
  ALLOWED_HOSTS: {
    group: 'access',
    description: prose`comma-separated extra \`Host\` names \`/mcp\` serves (\`name\` for any port, or
      \`name:port\`); on a loopback \`HOST\` only loopback names are served otherwise (see
      [MCP](mcp.md))`,
  },
  METRICS_REQUIRE_AUTH: {
    group: 'access',
    description: '`/metrics` needs a key with `read`',
  },
  AUTH_MAX_FAILURES_PER_MINUTE: {
    group: 'access',
    description: prose`failed key presentations one client address may make per minute (also the
      burst); past it, \`429\` with \`Retry-After\` before any key is looked up (a key whose public
      prefix is a real key's still gets through, so guessing behind a shared address does not lock
      out real keys)`,
  },

  // --- MCP
  MCP_MAX_SESSIONS: {
    group: 'mcp',
    description: 'open MCP sessions on `/mcp` at most (see [MCP](mcp.md) for what happens at the bound)',
  },
  MCP_SESSION_IDLE_MINUTES: {
    group: 'mcp',
    description: 'an MCP session with no request and no open stream for this long is closed',
  },
  MCP_RATE_LIMIT_MAX: {
    group: 'mcp',
    description: prose`JSON-RPC requests one client may send to \`/mcp\` per
      \`RATE_LIMIT_WINDOW_SECONDS\`; each element of a batch is one (notifications are not counted).
      Past it, a request is answered with a \`RATE_LIMITED\` JSON-RPC error. A tool call or resource
      read counts here and against its GraphQL operation's \`RATE_LIMIT_MAX\``,
  },
  MCP_BATCH_MAX_BYTES: {
    group: 'mcp',
    description: prose`bytes the answers to one POST to \`/mcp\` (a JSON-RPC batch) may take: its
      requests run one after another, and once their answers reach this the rest are answered with a
      \`BATCH_TOO_LARGE\` JSON-RPC error without being run`,
  },
  MCP_STREAM_STALL_SECONDS: {
    group: 'mcp',
    description: prose`a POST's response stream on \`/mcp\` with no answer for this long is closed, so
      a request that is never answered (or a client that stopped reading) cannot keep its session busy;
      the session then counts as idle since the last answer. Longer than the slowest tool call`,
  },
  VIGIL_API_KEY: {
    group: 'mcp',
    description: 'the key `npm run mcp` (stdio) acts as; unset, it is the local operator with every scope',
  },

  // --- GraphQL
  RATE_LIMIT_MAX: {
    group: 'graphql',
    description: 'GraphQL calls allowed per client, per root field, per window',
  },
  RATE_LIMIT_WINDOW_SECONDS: {
    group: 'graphql',
    description: 'the rate-limit window (sliding)',
  },
  GRAPHQL_MAX_TOKENS: {
    group: 'graphql',
    description: prose`lexical tokens in one GraphQL document (comments excluded); counted before
      parsing, which stops at the limit`,
  },
  GRAPHQL_MAX_ALIASES: {
    group: 'graphql',
    description: prose`aliased fields in one operation, \`__typename\` and other introspection fields
      included, each fragment counted where it is spread`,
  },
  GRAPHQL_MAX_DEPTH: {
    group: 'graphql',
    description: prose`nesting of fields (through fragments), and of list and object values in the
      document or the variables`,
  },
  GRAPHQL_MAX_COST: {
    group: 'graphql',
    description: prose`fields in one operation, one point each, every fragment counted where it is
      spread (introspection too: GraphiQL's introspection query costs about 230)`,
  },
  GRAPHQL_MAX_BODY_BYTES: {
    group: 'graphql',
    description: prose`largest \`/graphql\` request body; larger is \`413\` before or while reading
      (and graphql-ws messages take this plus 1 KiB)`,
  },
  GRAPHQL_GRAPHIQL: {
    group: 'graphql',
    defaultText: '`true`, `false` with `NODE_ENV=production`',
    example: 'true',
    description: 'serve GraphiQL to browsers at `GET /graphql` (it needs introspection)',
  },
  GRAPHQL_INTROSPECTION: {
    group: 'graphql',
    defaultText: '`true`, `false` with `NODE_ENV=production`',
    example: 'true',
    description: prose`answer \`__schema\` and \`__type\` on every surface; off, validation errors also
      stop suggesting field names. \`__typename\` always works, and \`schema.graphql\` in the
      repository is the schema (served at \`/schema.graphql\` only while this is on)`,
  },
  APQ_MAX_ENTRIES: {
    group: 'graphql',
    description: prose`documents clients may register by hash (automatic persisted queries, see
      [GraphQL clients and transports](http-and-streams.md#graphql-clients-and-transports)); \`0\`
      turns APQ off`,
  },
  APQ_MAX_BYTES: {
    group: 'graphql',
    description: prose`bytes of registered documents kept at most, all together; the least recently
      used go first, and a larger document is not kept (its client keeps sending it in full)`,
  },
  APQ_TTL_SECONDS: {
    group: 'graphql',
    description: 'a registered document not used for this long is forgotten',
  },
  PERSISTED_OPERATIONS_FILE: {
    group: 'graphql',
    example: './persisted-operations.json',
    description: prose`a JSON file of operations clients may run by key: \`{"<key>": "<document>",
      ...}\` (GraphQL Code Generator's persisted documents) or an Apollo persisted-query manifest;
      read and checked at start (an unreadable file is a configuration error)`,
  },
  PERSISTED_OPERATIONS_ONLY: {
    group: 'graphql',
    description: prose`run only the listed operations: any other document is refused (\`403
      PERSISTED_OPERATION_REQUIRED\`) on \`/graphql\`, graphql-ws and \`/graphql/stream\`; needs
      \`PERSISTED_OPERATIONS_FILE\`. GraphiQL then cannot run what is typed into it`,
  },

  // --- WebSockets
  WS_MAX_MESSAGE_BYTES: {
    group: 'websockets',
    description: prose`largest message a client may send on \`/ws/stream\` and \`/ws/prices/...\`; a
      larger one closes the connection with \`1009\` before it is read whole (graphql-ws on
      \`/graphql\` takes \`GRAPHQL_MAX_BODY_BYTES\` plus 1 KiB)`,
  },
  WS_MAX_BUFFERED_BYTES: {
    group: 'websockets',
    description: prose`unsent bytes one WebSocket may hold for a client that reads slowly; price data
      beyond it is skipped (latest only), any other message closes the connection with \`1013\` (see
      [WebSockets](http-and-streams.md#websockets))`,
  },
  WS_MAX_CONNECTIONS_PER_CLIENT: {
    group: 'websockets',
    description: prose`open WebSocket connections per client address, all routes together (one more
      upgrade gets \`429\` before the handshake); the same number bounds a client's open GraphQL
      subscriptions over SSE and multipart HTTP on \`/graphql\` and its streams on
      \`/graphql/stream\` (one more gets \`429 SUBSCRIPTION_LIMIT\`), and, separately, its
      graphql-sse streams reserved but not opened yet`,
  },
  GRAPHQL_WS_MAX_SUBSCRIPTIONS: {
    group: 'websockets',
    description: prose`operations (subscriptions, and queries still running) one graphql-ws
      connection, or one reserved graphql-sse stream, may have at once; one more gets an error result
      \`SUBSCRIPTION_LIMIT\` and the connection stays`,
  },
  WS_SUBSCRIBE_RATE_PER_SECOND: {
    group: 'websockets',
    description: prose`subscriptions one WebSocket connection may start per second (graphql-ws:
      operations), refilled evenly; beyond it an error (\`LIMIT_EXCEEDED\` on \`/ws/stream\`,
      \`RATE_LIMITED\` over graphql-ws) and the connection stays`,
  },
  WS_SUBSCRIBE_BURST: {
    group: 'websockets',
    description: 'how many of those may be started at once',
  },
  GRAPHQL_WS_SERVER: {
    group: 'websockets',
    description: prose`what serves graphql-ws on \`/graphql\`: \`vigil\`, Vigil's own socket glue, or
      \`library\`, graphql-ws's own \`useServer\`, with the same hooks (keys in the upgrade or in
      \`connectionParams\`, \`GRAPHQL_WS_MAX_SUBSCRIPTIONS\`, \`WS_SUBSCRIBE_*\`, rate limits, error
      masking, keep-alive and close codes). The library path writes each result to JSON once per
      subscriber rather than once per result, sends every result through its subscription's iterator
      with a promise per message, frames each message as two buffers rather than one whole frame, and
      sends a subscription's snapshots one write each; a reader that stops reading holds back its
      own subscriptions instead of filling its send buffer, so it is closed only once a reply or ping
      would go over \`WS_MAX_BUFFERED_BYTES\`. For comparison and as a fallback (see
      \`npm run bench fanout\`)`,
  },

  // --- market data
  MARKET_DATA_PROVIDERS: {
    group: 'marketData',
    essential: true,
    description: prose`comma-separated providers in order of preference: \`simulated\` (no network),
      or any of \`yahoo\`, \`binance\`, \`coingecko\`, \`alphavantage\`, \`finnhub\` (the simulated
      market cannot be mixed with live providers; see [Market data](market-data.md))`,
  },
  PROVIDER_TIMEOUT_MS: {
    group: 'marketData',
    description: 'deadline of one provider call, retries included',
  },
  MARKET_DATA_CACHE_MAX_BYTES: {
    group: 'marketData',
    description: prose`estimated bytes the market-data cache may hold; least recently used entries go
      first, and an answer larger than the whole bound is served but not kept (at least 1 MiB)`,
  },
  PRICE_POLL_INTERVAL_MS: {
    group: 'marketData',
    description: prose`how often a price feed without a streaming provider polls its (cached) quote;
      with several instances, a feed whose owner died is taken over within two of these intervals`,
  },
  PRICE_RELAY: {
    group: 'marketData',
    description: prose`\`auto\`: with a Postgres server, the instances share each price feed (one
      polls or streams it upstream and relays its ticks to the others through Postgres); \`off\`: each
      instance polls its own feeds. The embedded database is one instance and never relays (see
      [Running several instances](operations.md))`,
  },
  MARKET_DATA_SHARED_CACHE: {
    group: 'marketData',
    description: prose`\`auto\`: on Postgres, quotes and bars one instance fetched from a provider serve
      the other instances on the same database (table \`market_data_shared_cache\`, the same lifetimes
      and byte bound as the local cache; an answer over a sixteenth of the bound, at most 1 MiB, is
      not shared), so several instances spend one instance's provider calls and answer alike;
      \`off\`: each instance keeps its own cache only. The embedded database is never shared`,
  },
  MAX_SYMBOLS_PER_OPERATION: {
    group: 'marketData',
    description: prose`distinct instruments one GraphQL operation (a query, a tool call, an FK-DSL
      query with its SCAN universes) may ask market data for, aliases included; beyond it
      \`TOO_MANY_SYMBOLS\`. Keep it above your largest SCAN universe`,
  },
  UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE: {
    group: 'marketData',
    description: prose`calls to live providers (cache misses) one client may cause per minute,
      refilled evenly; beyond it \`RATE_LIMITED\` with \`Retry-After\`. Cached answers, the simulated
      market and the server's own work (jobs, price feeds) are free`,
  },
  SIMULATED_SEED: {
    group: 'marketData',
    description: 'seed of the simulated market: same seed, same market',
  },
  SIMULATED_ACTIVITY: {
    group: 'marketData',
    description: prose`\`normal\`, or \`demo\`, which makes every watchdog condition occur somewhere at
      least once a minute`,
  },
  SIMULATED_TICK_MS: {
    group: 'marketData',
    description: 'how often the simulated market pushes a live price per subscribed symbol',
  },
  YAHOO_BASE_URL: { group: 'marketData', description: 'Yahoo Finance API' },
  YAHOO_SESSION_URL: {
    group: 'marketData',
    example: 'https://fc.yahoo.com',
    description: prose`where Yahoo sets the session cookie that profiles (quote v7) need; unset:
      \`https://fc.yahoo.com\` when \`YAHOO_BASE_URL\` is on yahoo.com, else \`YAHOO_BASE_URL\`
      itself, so a mirror or test double serves its own session and no request goes to Yahoo`,
  },
  BINANCE_BASE_URL: { group: 'marketData', description: 'Binance spot REST' },
  BINANCE_FUTURES_BASE_URL: {
    group: 'marketData',
    description: 'Binance USD-M futures REST (funding rates)',
  },
  BINANCE_WS_URL: { group: 'marketData', description: 'Binance market streams (live trades)' },
  COINGECKO_BASE_URL: { group: 'marketData', description: 'CoinGecko API' },
  COINGECKO_API_KEY: {
    group: 'marketData',
    example: 'demo-key',
    description: 'optional CoinGecko demo key',
  },
  ALPHAVANTAGE_BASE_URL: { group: 'marketData', description: 'Alpha Vantage API' },
  ALPHAVANTAGE_API_KEY: {
    group: 'marketData',
    description: 'required when `alphavantage` is listed',
  },
  FINNHUB_BASE_URL: { group: 'marketData', description: 'Finnhub API' },
  FINNHUB_API_KEY: {
    group: 'marketData',
    description: 'required when `finnhub` is listed',
  },

  // --- FK-DSL
  SCAN_UNIVERSE_US: {
    group: 'fkDsl',
    defaultNote: '28 large US stocks and ETFs',
    description: prose`FK-DSL \`SCAN US\` universe when no provider has its own instrument list (the
      simulated market has one)`,
  },
  SCAN_UNIVERSE_CRYPTO: {
    group: 'fkDsl',
    defaultNote: '10 major coins against USDT',
    description: 'FK-DSL `SCAN CRYPTO` universe, likewise',
  },
  FKDSL_TASK_RETENTION_DAYS: {
    group: 'fkDsl',
    description: 'finished background FK-DSL tasks are deleted after this many days (daily job)',
  },
  FKDSL_MAX_PENDING_TASKS_PER_CLIENT: {
    group: 'fkDsl',
    description: prose`background FK-DSL tasks one client may have queued or running;
      \`submitFkDsl\` beyond it answers \`TOO_MANY_TASKS\` (429)`,
  },
  FKDSL_MAX_RESULT_BYTES: {
    group: 'fkDsl',
    description: prose`largest result (JSON bytes) a background task stores; a bigger one fails the
      task with \`RESULT_TOO_LARGE\``,
  },
  FKDSL_TASK_MAX_ATTEMPTS: {
    group: 'fkDsl',
    description: prose`starts of a background task whose instance keeps stopping before it fails
      with \`INSTANCE_LOST\``,
  },
  FKDSL_MAX_COST: {
    group: 'fkDsl',
    description: prose`work units (about a microsecond each: instruments x bars x computations,
      estimated from the plan) one FK-DSL query may cost; a heavier one is refused with
      \`FKDSL_QUERY_ERROR\` naming the limit and the estimate, before anything is fetched`,
  },
  FKDSL_DEADLINE_MS: {
    group: 'fkDsl',
    description: prose`how long one FK-DSL query may evaluate, in a request or as a background task;
      statements not finished by then answer \`FKDSL_DEADLINE_EXCEEDED\``,
  },

  // --- watchdogs
  WATCHDOGS_RUN: {
    group: 'watchdogs',
    description: prose`whether this instance runs watchdog checks; any number of instances may, and
      each watchdog still runs once per interval between them; \`false\` serves the dashboard and
      events only`,
  },
  WATCHDOG_SYMBOLS: {
    group: 'watchdogs',
    defaultText: '`SCAN_UNIVERSE_US` and `SCAN_UNIVERSE_CRYPTO`',
    description: prose`symbols the watchdogs watch, comma-separated (\`AAPL,BTC/USDT\`); each check
      watches those its data fits (funding and order books: crypto; earnings: equities)`,
  },
  WATCHDOG_INTERVAL_SECONDS: {
    group: 'watchdogs',
    description: 'how often each watchdog checks',
  },
  WATCHDOG_INTERVALS: {
    group: 'watchdogs',
    description: 'intervals of single watchdogs, `name:seconds` comma-separated (`earnings_anomaly:600`)',
  },
  WATCHDOG_THRESHOLDS: {
    group: 'watchdogs',
    description: prose`JSON object: per watchdog, thresholds and windows replacing its defaults, e.g.
      \`{"price_anomaly":{"highMove":0.03}}\`; names and defaults under [Watchdogs](watchdogs.md); an
      unknown name or key stops the start naming it`,
  },
  WATCHDOG_EVENT_RETENTION_DAYS: {
    group: 'watchdogs',
    description: 'events older than this are deleted (hourly job)',
  },
  WATCHDOG_EVENT_MAX_LISTENERS: {
    group: 'watchdogs',
    description: prose`listeners of the live event feed at once on one instance: each
      \`/dashboard/stream\` connection and each \`watchdogEvents\` subscription holds one; past it a
      new one is refused with \`SUBSCRIPTION_LIMIT\``,
  },
  WATCHDOG_CORRELATION_PAIRS: {
    group: 'watchdogs',
    defaultNote: '10 pairs',
    description: prose`pairs the correlation-breakdown watchdog watches, \`A:B\` comma-separated (two
      distinct symbols each, at most 50 pairs); with \`SIMULATED_ACTIVITY=demo\` the simulated market
      breaks the correlation of each pair it lists (the second symbol turns against the first in
      windows) and ignores pairs naming a symbol it does not list`,
  },

  // --- alerts
  SMTP_HOST: {
    group: 'alerts',
    essential: true,
    example: 'smtp.example.com',
    description: 'default SMTP server for email alerts',
  },
  SMTP_PORT: {
    group: 'alerts',
    essential: true,
    description: 'SMTP port (587 STARTTLS, 465 implicit TLS)',
  },
  SMTP_USER: {
    group: 'alerts',
    essential: true,
    example: 'alerts@example.com',
    description: 'SMTP user name (then `SMTP_PASSWORD` is required)',
  },
  SMTP_PASSWORD: {
    group: 'alerts',
    essential: true,
    example: 'change-me',
    description: 'SMTP password (never logged or echoed)',
  },
  SMTP_FROM_EMAIL: {
    group: 'alerts',
    essential: true,
    example: 'alerts@example.com',
    description: 'sender address for email alerts',
  },
  SMTP_PLAINTEXT_AUTH_HOSTS: {
    group: 'alerts',
    example: '127.0.0.1,relay.internal',
    description: prose`SMTP hosts (names or addresses, comma-separated) a password may be sent to
      without TLS (a local relay that has none); a password never goes in clear text to any other
      host: an alert with \`use_tls: false\` and a login is refused (422) unless its host is listed,
      and \`SMTP_USER\`/\`SMTP_PASSWORD\` go without TLS only when \`SMTP_HOST\` is listed`,
  },
  SECRETS_KEY: {
    group: 'alerts',
    essential: true,
    description: prose`32 bytes (64 hex or 44 base64 characters) that seal alert secrets
      (AES-256-GCM); unset on the embedded database: generated once into \`DATA_DIR/secrets.key\`;
      unset with Postgres: alerts without secrets work, storing a password or token is refused
      (\`SECRETS_KEY_REQUIRED\`)`,
  },
  CHAT_BOT_TOKEN: {
    group: 'alerts',
    example: '123456:ABC-your-bot-token',
    description: 'default chat-bot token for `chat` alerts (never logged or echoed)',
  },
  CHAT_API_BASE_URL: {
    group: 'alerts',
    description: prose`the Telegram-compatible bot API \`chat\` alerts post to
      (\`{base}/bot<token>/sendMessage\`)`,
  },
  PAGERDUTY_EVENTS_URL: {
    group: 'alerts',
    description: prose`the PagerDuty Events API v2 endpoint \`pagerduty\` alerts post to (a
      PagerDuty EU account: \`https://events.eu.pagerduty.com/v2/enqueue\`)`,
  },
  ALERT_DELIVERY_ALLOWED_HOSTS: {
    group: 'alerts',
    description: prose`hosts or CIDRs deliveries may reach although they are loopback, private,
      link-local, CGNAT or cloud-metadata addresses (comma-separated:
      \`127.0.0.1,10.1.0.0/16,relay.internal\`); everything else of that kind is refused, also when a
      hostname resolves to it`,
  },
  ALERT_DELIVERY_TIMEOUT_MS: {
    group: 'alerts',
    description: 'how long one delivery attempt may take (connect, send, answer)',
  },
  ALERT_DELIVERY_MAX_ATTEMPTS: {
    group: 'alerts',
    description: prose`attempts before a delivery is \`failed\` (retries back off 5 s, 10 s, 20 s ...
      up to 15 min, or as the receiver's \`Retry-After\` asks)`,
  },
  ALERT_DELIVERY_OWNER_CONCURRENCY: {
    group: 'alerts',
    description: prose`delivery attempts one owner is sure of at once, per instance (of the 64 each
      instance runs): another owner's alerts are delivered while one owner's receivers hang. Past it,
      an owner's deliveries to a receiver that answered within the last minute may use workers no one
      else needs (a quarter of this share stays free); the others wait, holding no worker`,
  },
  ALERT_MAX_FIRINGS_PER_MINUTE: {
    group: 'alerts',
    description: prose`firings one alert may deliver per minute (a burst of that many, then that
      many a minute, on every instance together); a firing past it is recorded as \`rate_limited\`
      and delivers nothing, as one within the cooldown is recorded as \`cooldown\``,
  },
  ALERTS_MAX_PER_OWNER: {
    group: 'alerts',
    description: prose`alerts one owner (API key; everyone when \`AUTH_REQUIRED\` is off) may have;
      creating one more answers \`TOO_MANY_ALERTS\` (429) until one is deleted`,
  },

  // --- analysis sessions
  SESSION_DEFAULT_TTL_HOURS: {
    group: 'sessions',
    description: 'lifetime of a new analysis session (`create-analysis-session` without `ttl_hours`)',
  },
  SESSION_MAX_TTL_HOURS: {
    group: 'sessions',
    description: prose`longest lifetime a session may have, from its creation (create and extend
      grant up to it and say so with \`ttl_capped\`)`,
  },
  SESSION_CLEANUP_INTERVAL_MINUTES: {
    group: 'sessions',
    description: 'how often expired sessions are archived (they stay readable until deleted)',
  },
  SESSION_RETENTION_DAYS: {
    group: 'sessions',
    description: 'archived sessions older than this are deleted with their query records (daily)',
  },
  SESSION_MAX_QUERIES_PER_SESSION: {
    group: 'sessions',
    description: 'query records kept per session: the newest; `total_queries` counts them all',
  },
  SESSION_ENABLE_ANALYTICS: {
    group: 'sessions',
    description: prose`session analytics and the daily metrics; \`false\`: analytics answer
      \`SESSION_ANALYTICS_DISABLED\` (503) and no daily metrics are computed`,
  },
};
