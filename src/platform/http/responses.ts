import type { AppError } from '../errors.ts';

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

export function errorResponse(error: AppError): Response {
  const headers: Record<string, string> = {};
  const retryAfter = error.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  return json(errorBody(error.code, error.message, error.details), error.status, headers);
}
