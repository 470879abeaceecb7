import type { AppError, ErrorTable } from '../errors.ts';
import { normalizeOrigin, originList } from '../http/origins.ts';
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
  const allowedHosts = (options.allowedHosts ?? []).map((h) => h.trim().toLowerCase()).filter(Boolean);
  const listed = originList(options.allowedOrigins ?? []);
  const vary = listed.size > 0;

  function hostAllowed(request: Request): boolean {
    const host = (request.headers.get('host') ?? new URL(request.url).host).trim().toLowerCase();
    const name = hostname(host);
    if (allowedHosts.some((allowed) => allowed === host || allowed === name)) return true;
    if (options.loopbackOnly) return LOOPBACK_NAMES.has(name);
    return allowedHosts.length === 0;
  }

  function originAllowed(origin: string | null): boolean {
    if (origin === null) return true;
    const normalized = normalizeOrigin(origin);
    if (listed.has(normalized)) return true;
    if (!options.loopbackOnly) return false;
    try {
      const url = new URL(normalized);
      return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
    } catch {
      return false;
    }
  }

  /** The Origin header when it is listed (CORS applies), else undefined. */
  const corsOrigin = (request: Request) => listed.listed(request);

  function withCors(request: Request, response: Response): Response {
    if (!vary) return response;
    const allowed = corsOrigin(request);
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

  return {
    refuse(request) {
      if (!hostAllowed(request)) return rpcError(403, -32000, 'Forbidden: Host header not allowed');
      if (!originAllowed(request.headers.get('origin'))) {
        return rpcError(403, -32000, 'Forbidden: Origin not allowed', vary ? { vary: 'Origin' } : {});
      }
      return undefined;
    },

    preflight(request) {
      const origin = request.headers.get('origin');
      if (origin === null) {
        return new Response(null, { status: 204, headers: { allow: `${CORS_METHODS}, OPTIONS` } });
      }
      const allowed = corsOrigin(request);
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
    },

    withCors,

    refusal(error, errors, request) {
      const status = errors.status(error.code);
      const retryAfter = error.details?.retryAfterSeconds;
      const headers: Record<string, string> =
        typeof retryAfter === 'number' && retryAfter > 0
          ? { 'retry-after': String(Math.ceil(retryAfter)) }
          : {};
      const response = new Response(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: error.message, data: { code: error.code, ...error.details } },
          id: null,
        }),
        { status, headers: { 'content-type': 'application/json', ...headers } },
      );
      return withCors(request, response);
    },
  };
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
