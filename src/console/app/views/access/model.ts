/** What the Access view knows about scopes and keys: their meanings, how scopes imply each other, the queries. */
import type { Scope } from '../../viewer.ts';

/** Lowest first: each scope includes the ones before it (the schema's ApiScope: ADMIN > WRITE > READ). */
export const SCOPES: readonly Scope[] = ['READ', 'WRITE', 'ADMIN'];

/** The schema's own words for each scope. */
export const SCOPE_MEANING: Readonly<Record<Scope, string>> = {
  READ: 'queries, live subscriptions, streams and data tools: see markets, events, alerts and results',
  WRITE: "create and change one's own alerts, sessions and FK-DSL tasks, plus everything read allows",
  ADMIN: "manage API keys, control the watchdogs and see everyone's data, plus everything write allows",
};

export function scopeName(scope: Scope): string {
  return scope.toLowerCase();
}

/** Every scope `chosen` grants, the implied ones included. */
export function withImplied(chosen: ReadonlySet<Scope>): Set<Scope> {
  const top = Math.max(-1, ...[...chosen].map((s) => SCOPES.indexOf(s)));
  return new Set(SCOPES.slice(0, top + 1));
}

/** The scope that grants the `chosen` set (the highest): sending only it stores what the form shows. */
export function topScope(chosen: ReadonlySet<Scope>): Scope[] {
  const implied = withImplied(chosen);
  const top = SCOPES.filter((s) => implied.has(s)).pop();
  return top ? [top] : [];
}

export interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
  readonly createdBy: string;
  readonly expiresAt: string | null;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

export interface CreatedApiKey {
  readonly apiKey: ApiKey;
  readonly secret: string;
}

const KEY_FIELDS = 'id name prefix scopes createdAt createdBy expiresAt lastUsedAt revokedAt';

export const API_KEYS_QUERY = `{ apiKeys { ${KEY_FIELDS} } }`;

export const CREATE_KEY = `mutation CreateApiKey($name: String!, $scopes: [ApiScope!]!, $expiresAt: DateTime) {
  createApiKey(name: $name, scopes: $scopes, expiresAt: $expiresAt) { secret apiKey { ${KEY_FIELDS} } }
}`;

export const REVOKE_KEY = `mutation RevokeApiKey($id: ID!) { revokeApiKey(id: $id) { ${KEY_FIELDS} } }`;

/** "in 3 d", for times ahead (ui.tsx's `ago` is for times past). */
export function until(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (seconds <= 0) return 'passed';
  if (seconds < 60) return `in ${seconds} s`;
  if (seconds < 3600) return `in ${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `in ${Math.round(seconds / 3600)} h`;
  return `in ${Math.round(seconds / 86_400)} d`;
}

/** The public part of a key as it appears at the start of the secret. */
export function shownPrefix(prefix: string): string {
  return `vgl_${prefix}_…`;
}
