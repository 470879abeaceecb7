import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessGate } from '../access/access-gate.ts';
import { anonymousPrincipal, ForbiddenError, hasScope, type Scope } from '../access/principal.ts';
import { type AppError, type ErrorTable, isAppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { nodeHeaders as nodeHeadersOf, type Viewer, viewerOf } from './client-identity.ts';
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
  /** The authenticated caller (anonymous on a public route, which reads no key). */
  readonly viewer: Viewer;
}

export type RouteHandler = (request: Request, context: RouteContext) => Response | Promise<Response>;

/**
 * Who may call a route: `public` reads no key (health, docs); `caller` needs a caller the access
 * gate accepts (a valid key, or none while AUTH_REQUIRED is off) and leaves scopes to each
 * operation (GraphQL, MCP, tool routes); a scope also needs that scope.
 */
export type RouteAccess = 'public' | 'caller' | Scope;

export interface RouteOptions {
  /**
   * Default `read`: a route nobody thought about is never open by accident. A function decides per
   * request (GraphiQL's page is public, the operations it sends are not).
   */
  readonly access?: RouteAccess | ((request: Request) => RouteAccess);
  /** Renders a refused caller (401, 403, 429) in the route's own protocol; default the REST error body. */
  readonly refusal?: (error: AppError, errors: ErrorTable, request: Request) => Response;
}

interface Route extends RouteOptions {
  readonly handler: RouteHandler;
}

export interface HttpRoutesOptions {
  readonly accessLog?: boolean;
  /** Authenticates callers; without one, every caller is anonymous with every scope (tests). */
  readonly gate?: AccessGate;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

const UNMATCHED = '<unmatched>';

/**
 * The status requests are counted under when the client went away before its answer (nginx's
 * "client closed request"): not a server failure, and nobody reads the response.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Method + path-template routing for every HTTP surface, with one place that records request
 * metrics (by template) and turns thrown errors into responses: domain errors keep their status
 * and code, anything else is logged and answered with a bare 500. A request whose client went away
 * is counted as 499 and logged at debug, whatever its handler made of the broken body.
 */
export class HttpRoutes {
  readonly #table = new PathTable<Map<string, Route>>();
  readonly #byTemplate = new Map<string, Map<string, Route>>();

  constructor(
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly errors: ErrorTable,
    private readonly options: HttpRoutesOptions = {},
  ) {}

  add(
    methods: Method | readonly Method[],
    template: string,
    handler: RouteHandler,
    options: RouteOptions = {},
  ): this {
    let byMethod = this.#byTemplate.get(template);
    if (!byMethod) {
      byMethod = new Map();
      this.#byTemplate.set(template, byMethod);
      this.#table.add(template, byMethod);
    }
    for (const method of typeof methods === 'string' ? [methods] : methods) {
      if (byMethod.has(method)) throw new Error(`duplicate route ${method} ${template}`);
      byMethod.set(method, { handler, ...options });
    }
    return this;
  }

  /**
   * Every route template with its methods and access, in registration order (for the index at `/`).
   * Methods of one path that differ in access are listed apart (`GET /api/alerts` needs `read`,
   * `POST` needs `write`), so each entry says what the route enforces.
   */
  list(): Array<{
    readonly path: string;
    readonly methods: readonly string[];
    readonly access: RouteAccess;
  }> {
    return [...this.#byTemplate].flatMap(([path, byMethod]) => {
      const byAccess = new Map<RouteAccess, string[]>();
      for (const [method, route] of byMethod) {
        const access = accessOf(route);
        byAccess.set(access, [...(byAccess.get(access) ?? []), method]);
      }
      return [...byAccess].map(([access, methods]) => ({ path, methods, access }));
    });
  }

  /** The access a route enforces (a per-request rule is `caller`); undefined for no such route. */
  accessOf(method: Method, template: string): RouteAccess | undefined {
    const route = this.#byTemplate.get(template)?.get(method);
    return route && accessOf(route);
  }

  async dispatch(request: Request, server: ServerContext): Promise<Response> {
    const started = performance.now();
    const method = request.method.toUpperCase();
    const { pathname } = new URL(request.url);
    let template = UNMATCHED;
    let response: Response;
    let code: string | undefined;
    let client: string | undefined;
    try {
      const matches = this.#table.matchAll(pathname);
      const hit = matches.find((m) => m.value.has(method) || (method === 'HEAD' && m.value.has('GET')));
      if (hit) {
        template = hit.template;
        const route = (hit.value.get(method) ?? hit.value.get('GET'))!;
        const admitted = await this.#admit(route, method, request, server);
        client = admitted.clientId;
        if (admitted.ok) {
          response = await route.handler(request, {
            params: hit.params,
            template,
            server,
            viewer: admitted.viewer,
          });
        } else {
          code = admitted.error.code;
          response = route.refusal
            ? route.refusal(admitted.error, this.errors, request)
            : errorResponse(admitted.error, this.errors);
          if (response.status === 401) response.headers.set('www-authenticate', 'Bearer');
        }
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
    if (client === undefined && this.options.gate && this.options.accessLog) {
      client = this.options.gate.address(
        server.req ? nodeHeadersOf(server.req) : request.headers,
        server.req,
      ).clientId;
    }
    const status = clientWentAway(request) ? CLIENT_CLOSED_REQUEST : response.status;
    const labels = { method, route: template, status: String(status) };
    this.metrics.httpRequests.inc(labels);
    const seconds = (performance.now() - started) / 1000;
    this.metrics.httpDuration.observe(labels, seconds);
    if (this.options.accessLog) {
      // A client's mistake is an info line with its code, never an error with a stack.
      this.logger.info(
        {
          method,
          route: template,
          status,
          ms: Math.round(seconds * 10_000) / 10,
          client,
          ...(code ? { code } : {}),
        },
        'request',
      );
    }
    return response;
  }

  /**
   * Authenticates the caller as the route asks. Preflights (OPTIONS) carry no credentials by design,
   * so they are answered like public routes; the request they announce is checked when it comes.
   */
  async #admit(route: Route, method: string, request: Request, server: ServerContext): Promise<Admission> {
    const gate = this.options.gate;
    const headers = server.req ? nodeHeadersOf(server.req) : request.headers;
    if (!gate) {
      const viewer = viewerOf(
        { clientId: 'ip:unknown', remoteAddress: undefined },
        anonymousPrincipal(false),
      );
      return { ok: true, viewer, clientId: viewer.clientId };
    }
    const access = (typeof route.access === 'function' ? route.access(request) : route.access) ?? 'read';
    if (access === 'public' || method === 'OPTIONS') {
      const viewer = gate.anonymous(headers, server.req);
      return { ok: true, viewer, clientId: viewer.clientId };
    }
    const outcome = await gate.http(headers, server.req);
    if (!outcome.ok) return { ok: false, error: outcome.error, clientId: outcome.address.clientId };
    const { viewer } = outcome;
    if (access !== 'caller' && !hasScope(viewer.principal, access)) {
      return {
        ok: false,
        error: new ForbiddenError(access, new URL(request.url).pathname),
        clientId: viewer.clientId,
      };
    }
    return { ok: true, viewer, clientId: viewer.clientId };
  }
}

/** A route's access as listed: a per-request rule is listed as `caller`. */
function accessOf(route: Route | undefined): RouteAccess {
  if (typeof route?.access === 'function') return 'caller';
  return route?.access ?? 'read';
}

type Admission =
  | { readonly ok: true; readonly viewer: Viewer; readonly clientId: string }
  | { readonly ok: false; readonly error: AppError; readonly clientId: string };

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
