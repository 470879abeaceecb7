import { describe, expect, it } from 'vitest';
import { boundedLabel, createMetrics } from './metrics.ts';

describe('boundedLabel', () => {
  it('keeps the first values it sees and counts every later one as other', () => {
    const label = boundedLabel(2);
    expect([label('a'), label('b'), label('c'), label('a'), label('b'), label('d')]).toEqual([
      'a',
      'b',
      'other',
      'a',
      'b',
      'other',
    ]);
  });

  it('caps each label on its own', () => {
    const first = boundedLabel(1);
    const second = boundedLabel(1);
    expect([first('x'), second('y'), first('y')]).toEqual(['x', 'y', 'other']);
  });
});

describe('createMetrics', () => {
  it("registers the platform's metrics only: the domains bring theirs to its registry", async () => {
    const metrics = createMetrics();
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    expect(names.filter((name) => !/^vigil_(process|nodejs)_/.test(name)).sort()).toEqual([
      'vigil_active_subscriptions',
      'vigil_graphql_errors_total',
      'vigil_graphql_operations_total',
      'vigil_http_request_duration_seconds',
      'vigil_http_requests_total',
      'vigil_job_queue_depth',
      'vigil_rate_limit_rejections_total',
      'vigil_websocket_connections',
    ]);
  });

  it('leaves a sampled gauge empty until its sampler is set, then reads it at scrape time', async () => {
    const metrics = createMetrics();
    const scrape = async () =>
      (await metrics.registry.getSingleMetric('vigil_active_subscriptions')!.get()).values.map((v) => [
        v.labels.transport,
        v.value,
      ]);
    expect(await scrape()).toEqual([]);
    let open = 2;
    metrics.samplers.subscriptions = () => ({ sse: open });
    expect(await scrape()).toEqual([['sse', 2]]);
    open = 0;
    expect(await scrape()).toEqual([['sse', 0]]);
  });
});
