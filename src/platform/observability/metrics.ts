import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One registry per app instance (tests build several apps in one process). Every label has a
 * bounded set of values: request metrics are labelled by route template (`/api/alerts/:id`), never
 * by the raw path; operations by root field of the schema, never by a client's operation name;
 * errors by the server's codes. A label fed anything else is capped as well (`boundedLabel`).
 */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly wsConnections: Gauge<'route'>;
  readonly graphql: GraphQLMetrics;
  readonly marketData: MarketDataMetrics;
  /** A call refused by a rate limit, on the surface it came in on. */
  rateLimited(surface: Surface): void;
  /** Where the gauges sampled at scrape time read their values; the app fills it in once built. */
  readonly samplers: MetricSamplers;
}

export interface GraphQLMetrics {
  /** An operation started: its type and one root field of the schema (one call per root field). */
  operation(type: string, field: string): void;
  /** An error sent to a client, by its `extensions.code`. */
  error(code: string): void;
}

export interface MarketDataMetrics {
  /** One call to a provider: `ok` or the provider error kind, and how long it took (retries included). */
  providerCall(provider: string, outcome: string, seconds: number): void;
  /** One lookup in the market-data cache (a request that joined a load under way is a hit). */
  cacheLookup(kind: string, hit: boolean): void;
}

/**
 * Where a call came in: GraphQL over HTTP (SSE and multipart included), graphql-ws, the plain
 * WebSocket routes, MCP over HTTP, REST tool routes, or the stdio MCP server.
 */
export type Surface = 'graphql' | 'graphql-ws' | 'websocket' | 'mcp' | 'rest' | 'stdio';

/** Transports a client holds a subscription open on. */
export type SubscriptionTransport = 'graphql-ws' | 'sse' | 'multipart' | 'websocket' | 'mcp';

export const CIRCUIT_STATES = ['closed', 'half_open', 'open'] as const;
export type CircuitStateName = (typeof CIRCUIT_STATES)[number];

/**
 * Values owned elsewhere, read when `/metrics` is scraped (so nothing has to keep a gauge in step).
 * A sampler that is not set leaves its gauge empty.
 */
export interface MetricSamplers {
  subscriptions?: () => Partial<Record<SubscriptionTransport, number>>;
  priceHub?: () => { readonly feeds: number; readonly subscribers: number };
  circuits?: () => ReadonlyArray<{ readonly provider: string; readonly state: CircuitStateName }>;
  /** Jobs waiting per queue; asked of the database, so bounded by QUEUE_SAMPLE_TIMEOUT_MS. */
  queueDepths?: () => Promise<ReadonlyMap<string, number>>;
}

/** A scrape never waits longer than this for the job queue counts (they are left out instead). */
export const QUEUE_SAMPLE_TIMEOUT_MS = 1_000;

/** Distinct values one label may take before further values are counted as `other`. */
const MAX_LABEL_VALUES = 200;

/**
 * prom-client's default gauges `nodejs_active_{handles,requests,resources}_total` break the naming
 * rule that only counters end in `_total` (`promtool check metrics` refuses them); the per-type
 * gauges without the suffix carry the same numbers (sum them for the total).
 */
const MISNAMED_DEFAULTS = ['active_handles_total', 'active_requests_total', 'active_resources_total'];

export function createMetrics(): Metrics {
  const registry = new Registry();
  const prefix = 'vigil_';
  collectDefaultMetrics({ register: registry, prefix });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(`${prefix}nodejs_${name}`);
  const registers = [registry];
  const samplers: MetricSamplers = {};
  const field = boundedLabel();
  const code = boundedLabel();
  const provider = boundedLabel();
  const queue = boundedLabel();
  const kind = boundedLabel();

  const graphqlOperations = new Counter({
    name: 'vigil_graphql_operations_total',
    help: 'GraphQL operations started, by operation type and root field (every surface: HTTP, graphql-ws, MCP, REST)',
    labelNames: ['type', 'field'],
    registers,
  });
  const graphqlErrors = new Counter({
    name: 'vigil_graphql_errors_total',
    help: 'GraphQL errors returned to clients, by extensions.code',
    labelNames: ['code'],
    registers,
  });
  const rateLimitRejections = new Counter({
    name: 'vigil_rate_limit_rejections_total',
    help: 'Calls refused by a rate limit, by surface (graphql, graphql-ws, websocket, mcp, rest, stdio)',
    labelNames: ['surface'],
    registers,
  });
  const providerCalls = new Counter({
    name: 'vigil_market_data_provider_calls_total',
    help: 'Calls to market-data providers, by provider and outcome (ok, or the error kind)',
    labelNames: ['provider', 'outcome'],
    registers,
  });
  const providerDuration = new Histogram({
    name: 'vigil_market_data_provider_call_duration_seconds',
    help: 'Latency of calls to market-data providers (retries included), by provider',
    labelNames: ['provider'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const cacheRequests = new Counter({
    name: 'vigil_market_data_cache_requests_total',
    help: 'Market-data cache lookups by data kind and result (hit, miss); hit ratio = hit / (hit + miss)',
    labelNames: ['kind', 'result'],
    registers,
  });

  new Gauge({
    name: 'vigil_active_subscriptions',
    help: 'Open now, by transport: graphql-ws operations, SSE and multipart streams, /ws price subscriptions, MCP resource subscriptions',
    labelNames: ['transport'],
    registers,
    collect() {
      const counts = samplers.subscriptions?.();
      this.reset();
      for (const [transport, value] of Object.entries(counts ?? {})) this.set({ transport }, value);
    },
  });
  new Gauge({
    name: 'vigil_price_hub_feeds',
    help: 'Upstream price feeds the price hub holds (one per subscribed instrument, shared by every subscriber)',
    registers,
    collect() {
      const stats = samplers.priceHub?.();
      if (stats) this.set(stats.feeds);
    },
  });
  new Gauge({
    name: 'vigil_price_hub_subscribers',
    help: 'Subscribers of the price hub over all feeds',
    registers,
    collect() {
      const stats = samplers.priceHub?.();
      if (stats) this.set(stats.subscribers);
    },
  });
  new Gauge({
    name: 'vigil_market_data_provider_circuit_state',
    help: "Circuit breaker of each provider's HTTP client: 1 for the current state (closed, half_open, open), else 0",
    labelNames: ['provider', 'state'],
    registers,
    collect() {
      this.reset();
      for (const circuit of samplers.circuits?.() ?? []) {
        for (const state of CIRCUIT_STATES) {
          this.set({ provider: provider(circuit.provider), state }, state === circuit.state ? 1 : 0);
        }
      }
    },
  });
  new Gauge({
    name: 'vigil_job_queue_depth',
    help: 'Jobs waiting to run (created or retrying), by queue; left out when the database does not answer within 1 s',
    labelNames: ['queue'],
    registers,
    async collect() {
      this.reset();
      const sample = samplers.queueDepths;
      if (!sample) return;
      const depths = await withTimeout(sample(), QUEUE_SAMPLE_TIMEOUT_MS).catch(() => undefined);
      for (const [name, depth] of depths ?? []) this.set({ queue: queue(name) }, depth);
    },
  });

  return {
    registry,
    samplers,
    httpRequests: new Counter({
      name: 'vigil_http_requests_total',
      help: 'HTTP requests by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'vigil_http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    wsConnections: new Gauge({
      name: 'vigil_websocket_connections',
      help: 'Open WebSocket connections by route template',
      labelNames: ['route'],
      registers,
    }),
    graphql: {
      operation: (type, name) => graphqlOperations.inc({ type, field: field(name) }),
      error: (value) => graphqlErrors.inc({ code: code(value) }),
    },
    marketData: {
      providerCall(id, outcome, seconds) {
        const label = provider(id);
        providerCalls.inc({ provider: label, outcome: kind(outcome) });
        providerDuration.observe({ provider: label }, seconds);
      },
      cacheLookup: (name, hit) => cacheRequests.inc({ kind: kind(name), result: hit ? 'hit' : 'miss' }),
    },
    rateLimited: (surface) => rateLimitRejections.inc({ surface }),
  };
}

/**
 * A label whose values come from code but could in principle grow (error codes, provider ids, root
 * fields): the first MAX_LABEL_VALUES distinct values are kept, later ones become `other`, so no
 * input can make the series count grow without bound.
 */
function boundedLabel(max = MAX_LABEL_VALUES): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max) return 'other';
    seen.add(value);
    return value;
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
