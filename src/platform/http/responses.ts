import type { AppError, ErrorTable } from '../errors.ts';

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * The REST error body: `{ error: { code, message, details? }, detail }`. `detail` repeats the
 * message for clients written against the earlier (FastAPI) implementation, which read `detail`.
 */
export function errorBody(code: string, message: string, details?: Readonly<Record<string, unknown>>) {
  return { error: { code, message, ...(details ? { details } : {}) }, detail: message };
}

/**
 * An error as a REST response, the one way every route writes one: the status comes from the error
 * table, and a code the table does not know is answered as `INTERNAL` (500, its details dropped),
 * never with a made-up status. `Retry-After` comes from `details.retryAfterSeconds` when that is a
 * finite positive number, in whole seconds rounded up. `extra` adds fields to the body (the
 * MCP-style `content` and `isError` of `/mcp/tools/call`).
 */
export function errorResponse(
  error: Pick<AppError, 'code' | 'message' | 'details'>,
  table: ErrorTable,
  extra?: Readonly<Record<string, unknown>>,
): Response {
  const known = table.has(error.code);
  const code = known ? error.code : 'INTERNAL';
  const details = known ? error.details : undefined;
  const headers: Record<string, string> = {};
  const retryAfter = details?.retryAfterSeconds;
  if (typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter > 0) {
    headers['retry-after'] = String(Math.ceil(retryAfter));
  }
  return json({ ...errorBody(code, error.message, details), ...extra }, table.status(code), headers);
}
