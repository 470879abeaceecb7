import type { Registry } from 'prom-client';
import type { HttpRoutes, RouteAccess } from './http-routes.ts';
import { json } from './responses.ts';

const CHECK_TIMEOUT_MS = 2_000;

export interface OperationalOptions {
  readonly version: string;
  readonly uptimeSeconds: () => number;
  /** The app's lifecycle state; readiness also needs it to be `running`. */
  readonly state: () => string;
  /** Dependencies that must answer for the app to be ready (name -> round trip). */
  readonly checks: Readonly<Record<string, () => Promise<void>>>;
  readonly registry: Registry;
  /** The index at `/`: every route, read when asked (routes registered later are included). */
  readonly index: () => Readonly<Record<string, unknown>>;
  /** Who may read `/metrics` (METRICS_REQUIRE_AUTH: `read`, else public). */
  readonly metricsAccess: RouteAccess;
  /** What a browser gets at `/` instead of the index (a request whose Accept prefers HTML). */
  readonly page?: {
    readonly wanted: (request: Request) => boolean;
    readonly render: (request: Request) => Promise<Response>;
  };
}

/**
 * `/healthz` (the process answers), `/readyz` (its dependencies answer), `/metrics`, and `/`. Health,
 * readiness and the index are public: orchestrators and people finding their way carry no key.
 */
export function registerOperationalRoutes(routes: HttpRoutes, options: OperationalOptions): void {
  const PUBLIC = { access: 'public' } as const;
  routes.add(
    'GET',
    '/healthz',
    () => json({ status: 'ok', version: options.version, uptime_seconds: options.uptimeSeconds() }),
    PUBLIC,
  );

  routes.add(
    'GET',
    '/readyz',
    async () => {
      const names = Object.keys(options.checks);
      const results = await Promise.all(names.map((name) => check(options.checks[name]!)));
      const checks = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
      const lifecycle = options.state();
      const ready = lifecycle === 'running' && results.every((r) => r.ok);
      return json({ status: ready ? 'ready' : 'not_ready', state: lifecycle, checks }, ready ? 200 : 503, {
        'cache-control': 'no-store',
      });
    },
    PUBLIC,
  );

  routes.add(
    'GET',
    '/metrics',
    async () => {
      const registry = options.registry;
      return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
    },
    { access: options.metricsAccess },
  );

  routes.add(
    'GET',
    '/',
    (request) => {
      if (options.page?.wanted(request)) return options.page.render(request);
      return json({ name: 'vigil', version: options.version, ...options.index() }, 200, { vary: 'accept' });
    },
    PUBLIC,
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
