import { Agent, request } from 'undici';
import { summarize } from './stats.ts';

export interface LoadOptions {
  readonly total: number;
  readonly concurrency: number;
  readonly body: string;
  /** Headers of the n-th request (besides the JSON content type). */
  readonly headers?: (n: number) => Record<string, string>;
}

/** POSTs `body` to `target` `total` times over `concurrency` connections; throughput and latency. */
export async function load(target: string, options: LoadOptions) {
  const agent = new Agent({ connections: options.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.total) {
        next++;
        const t0 = performance.now();
        const res = await request(target, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', ...options.headers?.(next) },
          body: options.body,
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`${target} answered ${res.statusCode}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  const s = summarize(latencies);
  return { requests: s.n, 'req/s': s.n / seconds, 'p50 ms': s.p50, 'p99 ms': s.p99, 'max ms': s.max };
}
