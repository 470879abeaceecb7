import type { AppError, ErrorTable } from '../errors.ts';
import { normalizeOrigin, type OriginList, originList } from '../http/origins.ts';
import { rpcError } from './mcp-body.ts';

export interface McpGuardOptions {
  /**
   * The server listens on a loopback address: only loopback Host names (localhost, 127.0.0.1,
   * [::1], any port) are served unless `allowedHosts` lists more, and an Origin, when sent, must be
   * a loopback origin or listed in `allowedOrigins`.
   */
  readonly loopbackOnly: boolean;
  /** Extra Host values (`name` for any port, or `name:port`). When not loopback-only and set, only these. */
  readonly allowedHosts?: readonly string[];
  /** Origins (`https://app.example`) browsers may call from; the only origins CORS answers for. */
  readonly allowedOrigins?: readonly string[];
}

/** Methods and request headers a browser page on an allowed origin may use on `/mcp`. */
const CORS_METHODS = 'GET, POST, DELETE';
const CORS_REQUEST_HEADERS =
  'content-type, mcp-session-id, mcp-protocol-version, last-event-id, authorization, x-api-key';
/** Response headers such a page may read: the session id it must send back. */
const CORS_EXPOSED_HEADERS = 'mcp-session-id';
/** How long a browser may reuse a preflight answer. */
const CORS_MAX_AGE_SECONDS = 600;

export interface McpGuard {
  /** 403 for a Host or Origin that is not allowed (DNS-rebinding protection); undefined to go on. */
  refuse(request: Request): Response | undefined;
  /** The answer to `OPTIONS /mcp` (a CORS preflight when the request has an Origin). */
  preflight(request: Request): Response;
  /** The response, with CORS headers when the request came from a listed origin. */
  withCors(request: Request, response: Response): Response;
  /** A caller refused before MCP (401, 403, 429) as a JSON-RPC error, with CORS for listed origins. */
  refusal(error: AppError, errors: ErrorTable, request: Request): Response;
}

/**
 * Host and Origin checks for `/mcp`, made before the SDK transport sees a request: a page on another
 * site must not reach a server bound to this machine through a name that resolves to it. CORS
 * answers only origins listed in `allowedOrigins`, with that origin (never `*`) and no credentials
 * (clients authenticate with headers), so a loopback page is not granted cross-origin access just
 * because the Origin check lets its requests through.
 */
export function createMcpGuard(options: McpGuardOptions): McpGuard {
  const policy: GuardPolicy = {
    loopbackOnly: options.loopbackOnly,
    allowedHosts: (options.allowedHosts ?? []).map((h) => h.trim().toLowerCase()).filter(Boolean),
    origins: originList(options.allowedOrigins ?? []),
  };
  return {
    refuse: (request) => refuse(policy, request),
    preflight: (request) => preflight(policy.origins, request),
    withCors: (request, response) => withCors(policy.origins, request, response),
    refusal: (error, errors, request) => withCors(policy.origins, request, refusal(error, errors)),
  };
}

/** The guard's settings, normalised once. */
interface GuardPolicy {
  readonly loopbackOnly: boolean;
  /** Lower-cased, blanks dropped. */
  readonly allowedHosts: readonly string[];
  /** The origins CORS answers for (`allowedOrigins`). */
  readonly origins: OriginList;
}

function refuse(policy: GuardPolicy, request: Request): Response | undefined {
  if (!hostAllowed(policy, request)) return rpcError(403, -32000, 'Forbidden: Host header not allowed');
  if (!originAllowed(policy, request.headers.get('origin'))) {
    const vary: Record<string, string> = policy.origins.size > 0 ? { vary: 'Origin' } : {};
    return rpcError(403, -32000, 'Forbidden: Origin not allowed', vary);
  }
  return undefined;
}

function hostAllowed(policy: GuardPolicy, request: Request): boolean {
  const host = (request.headers.get('host') ?? new URL(request.url).host).trim().toLowerCase();
  const name = hostname(host);
  if (policy.allowedHosts.some((allowed) => allowed === host || allowed === name)) return true;
  if (policy.loopbackOnly) return LOOPBACK_NAMES.has(name);
  return policy.allowedHosts.length === 0;
}

/** No Origin (not a browser), a listed one, or, when loopback-only, a loopback page. */
function originAllowed(policy: GuardPolicy, origin: string | null): boolean {
  if (origin === null) return true;
  const normalized = normalizeOrigin(origin);
  if (policy.origins.has(normalized)) return true;
  if (!policy.loopbackOnly) return false;
  try {
    const url = new URL(normalized);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
  } catch {
    return false;
  }
}

function preflight(origins: OriginList, request: Request): Response {
  if (request.headers.get('origin') === null) {
    return new Response(null, { status: 204, headers: { allow: `${CORS_METHODS}, OPTIONS` } });
  }
  const allowed = origins.listed(request);
  if (!allowed) {
    return rpcError(403, -32000, 'Forbidden: Origin not allowed (cross-origin calls: ALLOWED_ORIGINS)', {
      vary: 'Origin',
    });
  }
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': allowed,
      'access-control-allow-methods': CORS_METHODS,
      'access-control-allow-headers': CORS_REQUEST_HEADERS,
      'access-control-expose-headers': CORS_EXPOSED_HEADERS,
      'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
      vary: 'Origin',
    },
  });
}

/** With no origin listed there is no CORS at all (and no `Vary: Origin`). */
function withCors(origins: OriginList, request: Request, response: Response): Response {
  if (origins.size === 0) return response;
  const allowed = origins.listed(request);
  const headers = new Headers(response.headers);
  headers.append('vary', 'Origin');
  if (allowed) {
    headers.set('access-control-allow-origin', allowed);
    headers.set('access-control-expose-headers', CORS_EXPOSED_HEADERS);
  }
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** A caller refused before MCP, as a JSON-RPC error with the status of its code (and Retry-After). */
function refusal(error: AppError, errors: ErrorTable): Response {
  const status = errors.status(error.code);
  const retryAfter = error.details?.retryAfterSeconds;
  const headers: Record<string, string> =
    typeof retryAfter === 'number' && retryAfter > 0 ? { 'retry-after': String(Math.ceil(retryAfter)) } : {};
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: error.message, data: { code: error.code, ...error.details } },
      id: null,
    }),
    { status, headers: { 'content-type': 'application/json', ...headers } },
  );
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Is this (listen) address a loopback one? Decides `loopbackOnly`. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.trim().toLowerCase();
  return a === 'localhost' || a === '::1' || a === '[::1]' || /^127(\.\d{1,3}){3}$/.test(a);
}

/** `name` of `name:port`, `[v6]` of `[v6]:port`. */
function hostname(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  return host.split(':')[0] ?? host;
}
