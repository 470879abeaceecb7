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

/** A domain error as a REST response: its status comes from the error table. */
export function errorResponse(
  error: Pick<AppError, 'code' | 'message' | 'details'>,
  table: ErrorTable,
): Response {
  const headers: Record<string, string> = {};
  const retryAfter = error.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  return json(errorBody(error.code, error.message, error.details), table.status(error.code), headers);
}
