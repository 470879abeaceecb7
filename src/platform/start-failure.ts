import { DataDirInUseError } from './db/data-dir-lock.ts';
import { PortUnavailableError } from './http/port-listener.ts';

/** Socket and driver codes that mean the database server could not be reached at all. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECT_TIMEOUT',
]);

/**
 * A start failure that is the operator's to fix, as one plain sentence naming the setting to
 * change (no stack: nothing in the code is wrong); undefined for anything else, which is logged
 * in full. Never repeats DATABASE_URL, which may hold a password.
 */
export function plainStartFailure(error: unknown): string | undefined {
  if (error instanceof PortUnavailableError || error instanceof DataDirInUseError) return error.message;
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (UNREACHABLE.has(code)) {
        return `the database server in DATABASE_URL cannot be reached (${code}): start PostgreSQL, or correct DATABASE_URL (unset it to use the embedded database)`;
      }
      if (code === '3D000') {
        return 'the database named in DATABASE_URL does not exist: create it (createdb <name>) or correct DATABASE_URL';
      }
      if (code === '28P01' || code === '28000') {
        return 'the database server refused the user or password in DATABASE_URL: correct DATABASE_URL';
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
