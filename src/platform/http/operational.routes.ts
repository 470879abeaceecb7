import type { AppState } from '../../app.ts';
import type { AppDeps } from '../../deps.ts';
import type { HttpRoutes } from './http-routes.ts';
import { json } from './responses.ts';

const CHECK_TIMEOUT_MS = 2_000;

/** `/healthz` (the process answers), `/readyz` (its dependencies answer), `/metrics`, and `/`. */
export function registerOperationalRoutes(routes: HttpRoutes, deps: AppDeps, state: () => AppState): void {
  routes.add('GET', '/healthz', () =>
    json({
      status: 'ok',
      version: deps.serverInfo.version,
      uptime_seconds: deps.serverInfo.info().uptimeSeconds,
    }),
  );

  routes.add('GET', '/readyz', async () => {
    const [database, jobs] = await Promise.all([
      check(() => deps.database.ping()),
      check(() => deps.jobs.ping()),
    ]);
    const lifecycle = state();
    const ready = lifecycle === 'running' && database.ok && jobs.ok;
    return json(
      { status: ready ? 'ready' : 'not_ready', state: lifecycle, checks: { database, jobs } },
      ready ? 200 : 503,
      { 'cache-control': 'no-store' },
    );
  });

  routes.add('GET', '/metrics', async () => {
    const registry = deps.metrics.registry;
    return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
  });

  routes.add('GET', '/', () =>
    json({
      name: 'vigil',
      version: deps.serverInfo.version,
      endpoints: {
        graphql: '/graphql (HTTP GET/POST, GraphiQL in a browser, graphql-ws and SSE subscriptions)',
        health: '/healthz',
        readiness: '/readyz',
        metrics: '/metrics',
      },
    }),
  );
}

interface CheckResult {
  readonly ok: boolean;
  readonly latency_ms: number;
  readonly error?: string;
}

async function check(run: () => Promise<void>): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      run(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
          CHECK_TIMEOUT_MS,
        );
      }),
    ]);
    return { ok: true, latency_ms: round(performance.now() - started) };
  } catch (error) {
    return { ok: false, latency_ms: round(performance.now() - started), error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100;
