import { AppError } from '../errors.ts';

/**
 * What a caller may do. Each scope includes the ones before it: `admin` can do everything `write`
 * can, and `write` everything `read` can, so a key is granted the one scope it needs at most.
 */
export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_MEANING: Readonly<Record<Scope, string>> = {
  read: 'queries, subscriptions, streams and data tools',
  write: "creating and changing one's own alerts, sessions and tasks (and everything `read` allows)",
  admin: "API keys, watchdog control and everyone's data (and everything `write` allows)",
};

/** The scopes a grant amounts to, the implied ones included. */
export function effectiveScopes(granted: Iterable<Scope>): ReadonlySet<Scope> {
  const rank = Math.max(-1, ...[...granted].map((scope) => SCOPES.indexOf(scope)));
  return new Set(SCOPES.slice(0, rank + 1));
}

/**
 * Who is calling, once authenticated: the owner of what they create and the holder of their scopes.
 * - `key`: an API key from the database; `id` is the key's id.
 * - `bootstrap`: ADMIN_API_KEY, every scope; `id` is `admin`.
 * - `local`: the stdio MCP server's operator (whoever started the process), every scope.
 * - `anonymous`: no key; every scope while AUTH_REQUIRED is off, none while it is on.
 */
export interface Principal {
  readonly kind: 'key' | 'bootstrap' | 'local' | 'anonymous';
  /** The owner id recorded on what this principal creates. */
  readonly id: string;
  readonly name: string;
  readonly scopes: ReadonlySet<Scope>;
  /** When the key stops working (keys only). */
  readonly expiresAt?: Date | null | undefined;
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.has(scope);
}

/** Admins see everyone's data; anyone else only their own. */
export function mayAccessOwnedBy(principal: Principal, owner: string | null | undefined): boolean {
  return hasScope(principal, 'admin') || (owner != null && owner === principal.id);
}

/**
 * The owner filter a listing applies for this principal: undefined for an admin (everything),
 * otherwise the principal's own id.
 */
export function ownerFilter(principal: Principal): string | undefined {
  return hasScope(principal, 'admin') ? undefined : principal.id;
}

/**
 * An admin who showed who they are (an admin key, the bootstrap key or the local operator), as
 * opposed to the anonymous caller, who holds every scope only because keys are not required. What
 * is withheld from anonymous callers even then (host names, pids, others' symbols) is shown to them.
 */
export function isIdentifiedAdmin(principal: Principal): boolean {
  return principal.kind !== 'anonymous' && hasScope(principal, 'admin');
}

export const LOCAL_OPERATOR: Principal = {
  kind: 'local',
  id: 'local',
  name: 'local operator',
  scopes: effectiveScopes(['admin']),
};

const OPEN_ANONYMOUS: Principal = {
  kind: 'anonymous',
  id: 'anonymous',
  name: 'anonymous',
  scopes: effectiveScopes(['admin']),
};
const CLOSED_ANONYMOUS: Principal = { ...OPEN_ANONYMOUS, scopes: new Set() };

/** The caller without a key: allowed everything while keys are not required, nothing otherwise. */
export function anonymousPrincipal(authRequired: boolean): Principal {
  return authRequired ? CLOSED_ANONYMOUS : OPEN_ANONYMOUS;
}

/** No key where one is required, or a key that is unknown, revoked or expired (401). */
export class UnauthenticatedError extends AppError {
  constructor(message: string, reason: 'missing' | 'invalid' | 'revoked' | 'expired' | 'malformed') {
    super('UNAUTHENTICATED', message, { reason });
  }
}

/** A valid key without the scope an operation needs (403); the scope is named. */
export class ForbiddenError extends AppError {
  constructor(scope: Scope, what: string) {
    super('FORBIDDEN', `${what} needs the \`${scope}\` scope, which this API key does not have`, {
      scope,
    });
  }
}

/** The check every surface makes before a scoped action. */
export function requireScope(principal: Principal, scope: Scope, what: string): void {
  if (hasScope(principal, scope)) return;
  if (principal.kind === 'anonymous') {
    throw new UnauthenticatedError(`${what} needs an API key (AUTH_REQUIRED is on)`, 'missing');
  }
  throw new ForbiddenError(scope, what);
}
