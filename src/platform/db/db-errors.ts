import { DrizzleQueryError } from 'drizzle-orm';
import { AppError } from '../errors.ts';

/** How long a client is told to wait before retrying: outages here are timeouts or reconnects. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATEs that say the database cannot serve right now rather than that the statement is wrong:
 * a statement or lock timeout, the server shutting down or refusing connections, too many
 * connections. Class 08 (connection exceptions) counts as a whole.
 */
const UNAVAILABLE_SQLSTATES: Readonly<Record<string, string>> = {
  '57014': 'statement timeout',
  '55P03': 'lock timeout',
  '57P01': 'server shutting down',
  '57P02': 'server crashed',
  '57P03': 'server not accepting connections',
  '53300': 'too many connections',
};

/** postgres.js's own connection failures (no SQLSTATE: the server never answered). */
const DRIVER_CODES: Readonly<Record<string, string>> = {
  CONNECTION_CLOSED: 'connection closed',
  CONNECTION_ENDED: 'connection ended',
  CONNECTION_DESTROYED: 'connection destroyed',
  CONNECT_TIMEOUT: 'connect timeout',
};

/** Socket errors, and the messages of drivers that set no code; trusted only under a query error. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
const UNAVAILABLE_MESSAGES = [
  /^PGlite is closed/,
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
];

/** The database cannot answer now; retrying later may work. Never carries SQL or parameters. */
export class DatabaseUnavailableError extends AppError {
  constructor(readonly reason: string) {
    super('DATABASE_UNAVAILABLE', 'The database is not available right now; try again shortly.', {
      reason,
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    });
  }
}

/**
 * Whether an error (or one it wraps: drizzle's query error, GraphQL's original error) means the
 * database is unavailable, and why. A socket error counts only beneath a database query error, so
 * an unreachable market-data provider is never reported as a database outage.
 */
export function databaseUnavailableReason(error: unknown): string | undefined {
  let underQuery = false;
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    if (current instanceof DrizzleQueryError) underQuery = true;
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (UNAVAILABLE_SQLSTATES[code]) return UNAVAILABLE_SQLSTATES[code];
      if (/^08[0-9A-Z]{3}$/.test(code)) return 'connection failure';
      if (DRIVER_CODES[code]) return DRIVER_CODES[code];
      if (underQuery && SOCKET_CODES.has(code)) return 'database unreachable';
    }
    if (underQuery && typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => m.test(message))) {
      return 'database unreachable';
    }
    const next = current as { cause?: unknown; originalError?: unknown };
    current = next.originalError ?? next.cause;
  }
  return undefined;
}

/** The coded, retryable error for an outage, or undefined when `error` is something else. */
export function asDatabaseUnavailable(error: unknown): DatabaseUnavailableError | undefined {
  if (error instanceof DatabaseUnavailableError) return error;
  const reason = databaseUnavailableReason(error);
  return reason ? new DatabaseUnavailableError(reason) : undefined;
}

/** The SQLSTATE of a database error, for logs (never the statement or its parameters). */
export function sqlState(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    const next = current as { cause?: unknown; originalError?: unknown };
    current = next.originalError ?? next.cause;
  }
  return undefined;
}
