import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorTable, isAppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { errorBody, errorResponse, json } from './responses.ts';
import { PathTable } from './router.ts';

/** What the Node adapter hands every request; absent when a test calls `app.fetch` in-process. */
export interface ServerContext {
  readonly req?: IncomingMessage;
  readonly res?: ServerResponse;
}

export interface RouteContext {
  readonly params: Readonly<Record<string, string>>;
  readonly template: string;
  readonly server: ServerContext;
}

export type RouteHandler = (request: Request, context: RouteContext) => Response | Promise<Response>;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

const UNMATCHED = '<unmatched>';

/**
 * The status requests are counted under when the client went away before its answer (nginx's
 * "client closed request"): not a server failure, and nobody reads the response.
 */
export const CLIENT_CLOSED_REQUEST = 499;

export interface AccessLogOptions {
  /** One info line per request: method, route template, status, duration, client. */
  readonly enabled: boolean;
  /** The caller's client id (as limits see it); never the path, query string or body. */
  readonly clientOf?: (request: Request, server: ServerContext) => string | undefined;
}

/**
 * Method + path-template routing for every HTTP surface, with one place that records request
 * metrics (by template) and turns thrown errors into responses: domain errors keep their status
 * and code, anything else is logged and answered with a bare 500. A request whose client went away
 * is counted as 499 and logged at debug, whatever its handler made of the broken body.
 */
export class HttpRoutes {
  readonly #table = new PathTable<Map<string, RouteHandler>>();
  readonly #byTemplate = new Map<string, Map<string, RouteHandler>>();

  constructor(
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly errors: ErrorTable,
    private readonly accessLog: AccessLogOptions = { enabled: false },
  ) {}

  add(methods: Method | readonly Method[], template: string, handler: RouteHandler): this {
    let byMethod = this.#byTemplate.get(template);
    if (!byMethod) {
      byMethod = new Map();
      this.#byTemplate.set(template, byMethod);
      this.#table.add(template, byMethod);
    }
    for (const method of typeof methods === 'string' ? [methods] : methods) {
      if (byMethod.has(method)) throw new Error(`duplicate route ${method} ${template}`);
      byMethod.set(method, handler);
    }
    return this;
  }

  /** Every route template with its methods, in registration order (for the index at `/`). */
  list(): Array<{ readonly path: string; readonly methods: readonly string[] }> {
    return [...this.#byTemplate].map(([path, byMethod]) => ({ path, methods: [...byMethod.keys()] }));
  }

  async dispatch(request: Request, server: ServerContext): Promise<Response> {
    const started = performance.now();
    const method = request.method.toUpperCase();
    const { pathname } = new URL(request.url);
    let template = UNMATCHED;
    let response: Response;
    let code: string | undefined;
    try {
      const matches = this.#table.matchAll(pathname);
      const hit = matches.find((m) => m.value.has(method) || (method === 'HEAD' && m.value.has('GET')));
      if (hit) {
        template = hit.template;
        const handler = (hit.value.get(method) ?? hit.value.get('GET'))!;
        response = await handler(request, { params: hit.params, template, server });
      } else if (matches.length > 0) {
        template = matches[0]!.template;
        const allow = [...new Set(matches.flatMap((m) => [...m.value.keys()]))].join(', ');
        response = json(errorBody('METHOD_NOT_ALLOWED', `${method} is not allowed on ${pathname}`), 405, {
          allow,
        });
      } else {
        response = json(errorBody('NOT_FOUND', `no route for ${method} ${pathname}`), 404);
      }
    } catch (error) {
      if (clientWentAway(request, error)) {
        this.logger.debug({ method, route: template }, 'client closed the request');
        response = new Response(null, { status: CLIENT_CLOSED_REQUEST });
      } else if (isAppError(error)) {
        code = error.code;
        response = errorResponse(error, this.errors);
      } else {
        this.logger.error({ err: error, method, route: template }, 'unhandled error in HTTP route');
        response = json(errorBody('INTERNAL', 'internal server error'), 500);
      }
    }
    const status = clientWentAway(request) ? CLIENT_CLOSED_REQUEST : response.status;
    const labels = { method, route: template, status: String(status) };
    this.metrics.httpRequests.inc(labels);
    const seconds = (performance.now() - started) / 1000;
    this.metrics.httpDuration.observe(labels, seconds);
    if (this.accessLog.enabled) {
      // A client's mistake is an info line with its code, never an error with a stack.
      this.logger.info(
        {
          method,
          route: template,
          status,
          ms: Math.round(seconds * 10_000) / 10,
          client: this.accessLog.clientOf?.(request, server),
          ...(code ? { code } : {}),
        },
        'request',
      );
    }
    return response;
  }
}

/**
 * The client closed the connection: the request's signal says so once the response is closed,
 * and reading its body fails with an abort (Node's "aborted", or a reset) at about the same time.
 */
export function clientWentAway(request: Request, error?: unknown): boolean {
  if (request.signal.aborted) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return error.name === 'AbortError' || error.message === 'aborted' || code === 'ECONNRESET';
}
