import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One registry per app instance (tests build several apps in one process). Every label has a
 * bounded set of values: request metrics are labelled by route template (`/api/alerts/:id`), never
 * by the raw path; operations by root field of the schema, never by a client's operation name;
 * errors by the server's codes. A label fed anything else is capped as well (`boundedLabel`).
 *
 * These are the platform's metrics only. A domain registers its own on `registry` (names begin
 * with `vigil_`, labels go through `boundedLabel` unless their values are a fixed set): see
 * `watchdog.metrics.ts` and `market-data.metrics.ts`.
 */
export interface Metrics {
  /** The app's one registry, scraped at `/metrics`; the domains' metrics are registered on it too. */
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly wsConnections: Gauge<'route'>;
  readonly graphql: GraphQLMetrics;
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

/**
 * Where a call came in: GraphQL over HTTP (SSE and multipart included), graphql-ws, the plain
 * WebSocket routes, MCP over HTTP, REST tool routes, or the stdio MCP server.
 */
export type Surface = 'graphql' | 'graphql-ws' | 'websocket' | 'mcp' | 'rest' | 'stdio';

/** Transports a client holds a subscription open on. */
export type SubscriptionTransport = 'graphql-ws' | 'sse' | 'multipart' | 'websocket' | 'mcp';

/**
 * Values owned elsewhere, read when `/metrics` is scraped (so nothing has to keep a gauge in step).
 * A sampler that is not set leaves its gauge empty.
 */
export interface MetricSamplers {
  subscriptions?: () => Partial<Record<SubscriptionTransport, number>>;
  /** Jobs waiting per queue; asked of the database, so bounded by QUEUE_SAMPLE_TIMEOUT_MS. */
  queueDepths?: () => Promise<ReadonlyMap<string, number>>;
}

/** A scrape never waits longer than this for the job queue counts (they are left out instead). */
export const QUEUE_SAMPLE_TIMEOUT_MS = 1_000;

/** Distinct values one label may take before further values are counted as `other`. */
const MAX_LABEL_VALUES = 200;

const PREFIX = 'vigil_';

/**
 * prom-client's default gauges `nodejs_active_{handles,requests,resources}_total` break the naming
 * rule that only counters end in `_total` (`promtool check metrics` refuses them); the per-type
 * gauges without the suffix carry the same numbers (sum them for the total).
 */
const MISNAMED_DEFAULTS = ['active_handles_total', 'active_requests_total', 'active_resources_total'];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(`${PREFIX}nodejs_${name}`);
  const samplers: MetricSamplers = {};
  const graphql = graphqlMetrics(registry);
  const rateLimited = rateLimitMetric(registry);
  registerSampledGauges(registry, samplers);
  return { registry, samplers, graphql, rateLimited, ...connectionMetrics(registry) };
}

/**
 * A label whose values come from code but could in principle grow (error codes, provider ids, root
 * fields): the first MAX_LABEL_VALUES distinct values are kept, later ones become `other`, so no
 * input can make the series count grow without bound. One per label: the values it has seen are
 * its own.
 */
export function boundedLabel(max = MAX_LABEL_VALUES): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max) return 'other';
    seen.add(value);
    return value;
  };
}

/** Operations by type and root field, and errors by code, of every surface that runs GraphQL. */
function graphqlMetrics(registry: Registry): GraphQLMetrics {
  const field = boundedLabel();
  const code = boundedLabel();
  const operations = new Counter({
    name: 'vigil_graphql_operations_total',
    help: 'GraphQL operations started, by operation type and root field (every surface: HTTP, graphql-ws, MCP, REST)',
    labelNames: ['type', 'field'],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'vigil_graphql_errors_total',
    help: 'GraphQL errors returned to clients, by extensions.code',
    labelNames: ['code'],
    registers: [registry],
  });
  return {
    operation: (type, name) => operations.inc({ type, field: field(name) }),
    error: (value) => errors.inc({ code: code(value) }),
  };
}

function rateLimitMetric(registry: Registry): (surface: Surface) => void {
  const rejections = new Counter({
    name: 'vigil_rate_limit_rejections_total',
    help: 'Calls refused by a rate limit, by surface (graphql, graphql-ws, websocket, mcp, rest, stdio)',
    labelNames: ['surface'],
    registers: [registry],
  });
  return (surface) => rejections.inc({ surface });
}

/** The gauges whose values are read from `samplers` when `/metrics` is scraped. */
function registerSampledGauges(registry: Registry, samplers: MetricSamplers): void {
  const queue = boundedLabel();
  new Gauge({
    name: 'vigil_active_subscriptions',
    help: 'Open now, by transport: graphql-ws operations, SSE and multipart streams, /ws price subscriptions, MCP resource subscriptions',
    labelNames: ['transport'],
    registers: [registry],
    collect() {
      const counts = samplers.subscriptions?.();
      this.reset();
      for (const [transport, value] of Object.entries(counts ?? {})) this.set({ transport }, value);
    },
  });
  new Gauge({
    name: 'vigil_job_queue_depth',
    help: 'Jobs waiting to run (created or retrying), by queue; left out when the database does not answer within 1 s',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      const sample = samplers.queueDepths;
      if (!sample) return;
      const depths = await withTimeout(sample(), QUEUE_SAMPLE_TIMEOUT_MS).catch(() => undefined);
      for (const [name, depth] of depths ?? []) this.set({ queue: queue(name) }, depth);
    },
  });
}

/** HTTP requests (counted and timed by route template) and the WebSocket connections open. */
function connectionMetrics(
  registry: Registry,
): Pick<Metrics, 'httpRequests' | 'httpDuration' | 'wsConnections'> {
  return {
    httpRequests: new Counter({
      name: 'vigil_http_requests_total',
      help: 'HTTP requests by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'vigil_http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    wsConnections: new Gauge({
      name: 'vigil_websocket_connections',
      help: 'Open WebSocket connections by route template',
      labelNames: ['route'],
      registers: [registry],
    }),
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
