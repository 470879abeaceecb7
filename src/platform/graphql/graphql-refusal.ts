import type { AppError, ErrorTable } from '../errors.ts';
import { originList } from '../http/origins.ts';

/**
 * A caller refused before GraphQL (no key, a bad key, too many failures) answered as GraphQL
 * clients read errors: `{ errors: [{ message, extensions: { code, ... } }] }`, with the status from
 * the error table and CORS for listed origins, so a browser client can read why.
 */
export function graphqlRefusalFor(allowedOrigins: readonly string[]) {
  const origins = originList(allowedOrigins);
  return (error: AppError, errors: ErrorTable, request: Request): Response => {
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    const retryAfter = error.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number' && retryAfter > 0)
      headers['retry-after'] = String(Math.ceil(retryAfter));
    const origin = origins.listed(request);
    if (origin) {
      headers['access-control-allow-origin'] = origin;
      headers['access-control-expose-headers'] = 'www-authenticate, retry-after';
      headers.vary = 'origin';
    }
    const body = { errors: [{ message: error.message, extensions: { code: error.code, ...error.details } }] };
    return new Response(JSON.stringify(body), { status: errors.status(error.code), headers });
  };
}

/** A browser asking for GraphiQL (GET, HTML accepted): the page runs nothing by itself. */
export function isGraphiqlPage(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}
