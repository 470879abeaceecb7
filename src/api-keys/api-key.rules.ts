import { SCOPES, type Scope } from '../platform/access/principal.ts';
import { ValidationError } from '../platform/errors.ts';
import { API_KEY_PREFIX_LENGTH } from './api-key.ts';

/** Rules of the API key store that need no database: what a new key may be, and the notices between instances. */

export const MAX_KEY_NAME_LENGTH = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can be a key's id (anything else is not found without asking the database). */
export function isKeyId(id: string): boolean {
  return UUID.test(id);
}

/** A key's name, trimmed: 1 to MAX_KEY_NAME_LENGTH characters, none of them control or invisible. */
export function checkName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw new ValidationError('name', 'must not be empty');
  if ([...name].length > MAX_KEY_NAME_LENGTH) {
    throw new ValidationError('name', `must be at most ${MAX_KEY_NAME_LENGTH} characters`);
  }
  if (/[\p{Cc}\p{Cf}]/u.test(name)) {
    throw new ValidationError('name', 'must not contain control or invisible formatting characters');
  }
  return name;
}

/** Known scopes, at least one, each once. */
export function checkScopes(raw: readonly string[]): Scope[] {
  if (raw.length === 0) {
    throw new ValidationError('scopes', `at least one scope is needed (${SCOPES.join(', ')})`);
  }
  const scopes: Scope[] = [];
  for (const scope of raw) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      const shown = JSON.stringify(scope.length > 20 ? `${scope.slice(0, 20)}…` : scope);
      throw new ValidationError('scopes', `unknown scope ${shown}: use ${SCOPES.join(', ')}`);
    }
    if (!scopes.includes(scope as Scope)) scopes.push(scope as Scope);
  }
  return scopes;
}

/** No expiry (null), or a valid date in the future. */
export function checkExpiry(expiresAt: Date | null | undefined, now: Date): Date | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  if (Number.isNaN(expiresAt.getTime())) throw new ValidationError('expiresAt', 'must be a valid date');
  if (expiresAt.getTime() <= now.getTime()) throw new ValidationError('expiresAt', 'must be in the future');
  return expiresAt;
}

/** NOTIFY channel on which key changes reach every instance sharing the database. */
export const API_KEYS_CHANNEL = 'vigil_api_keys';

/** A change another instance announced: a key created (its public prefix) or revoked (its id). */
export type KeyNotice = { readonly created: string } | { readonly revoked: string };

export const noticeText = (notice: KeyNotice): string => JSON.stringify(notice);

/** The notice in a NOTIFY payload, or undefined for a payload that is not one. */
export function readNotice(payload: string): KeyNotice | undefined {
  let message: { revoked?: unknown; created?: unknown } | null;
  try {
    message = JSON.parse(payload) as typeof message;
  } catch {
    return undefined;
  }
  const { created, revoked } = message ?? {};
  if (typeof created === 'string' && created.length === API_KEY_PREFIX_LENGTH) return { created };
  if (typeof revoked === 'string' && revoked.length > 0) return { revoked };
  return undefined;
}
