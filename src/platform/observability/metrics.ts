import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One registry per app instance (tests build several apps in one process). Request metrics are
 * labelled by route template (`/api/alerts/:id`), never by the raw path, so cardinality stays bounded.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly wsConnections: Gauge<'route'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'vigil_' });
  return {
    registry,
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
