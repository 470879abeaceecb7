import { ValidationError } from '../platform/errors.ts';

/**
 * The pure rules of analysis sessions: what a valid session input is, how time-to-live is capped,
 * what state a session is in, and the bounds on what it may hold.
 */

export const SESSION_TYPES = ['equity', 'crypto', 'portfolio', 'comparative', 'macro'] as const;
export type SessionType = (typeof SESSION_TYPES)[number];
export type SessionState = 'active' | 'expired' | 'archived';

export const HOUR_MS = 3_600_000;

/** Bounds on what one session holds (each refused with an error naming the field). */
export const SESSION_LIMITS = {
  assets: 50,
  assetLength: 32,
  tags: 20,
  tagLength: 50,
  userIdLength: 128,
  contextKeys: 100,
  contextKeyLength: 100,
  /** Serialized JSON of the whole context. */
  contextBytes: 64 * 1024,
  results: 50,
  resultNameLength: 100,
  /** Serialized JSON of one intermediate result. */
  resultBytes: 64 * 1024,
  /** Serialized JSON of all of a session's intermediate results. */
  resultsBytes: 1024 * 1024,
  /** Hours one create or extend may ask for (the max-TTL rule then caps the lifetime). */
  requestHours: 8_760,
  recentQueries: 100,
  /** Sessions one owner may have that are not archived (a flood of creates cannot fill the disk). */
  openPerOwner: 1_000,
  listLimit: 200,
  analyticsDays: 3_650,
} as const;

const SYMBOL = /^[A-Za-z0-9^=./:_-]+$/;
const NAME = /^[A-Za-z0-9_.:-]+$/;

export interface NewSessionInput {
  readonly assets: readonly string[];
  readonly sessionType: string;
  readonly userId?: string | null;
  readonly tags?: readonly string[] | null;
  readonly ttlHours?: number | null;
}

export interface CheckedSessionInput {
  readonly assets: string[];
  readonly sessionType: SessionType;
  readonly userId: string | null;
  readonly tags: string[];
  readonly requestedHours: number;
}

/** Checks and normalises a new session (symbols upper-cased, duplicates dropped in order). */
export function checkNewSession(input: NewSessionInput, defaultTtlHours: number): CheckedSessionInput {
  if (!Array.isArray(input.assets) || input.assets.length === 0) {
    throw new ValidationError('assets', 'must list at least one symbol');
  }
  if (input.assets.length > SESSION_LIMITS.assets) {
    throw new ValidationError('assets', `must list at most ${SESSION_LIMITS.assets} symbols`);
  }
  const assets = unique(
    input.assets.map((raw, i) => {
      const symbol = String(raw).trim().toUpperCase();
      if (!symbol || symbol.length > SESSION_LIMITS.assetLength || !SYMBOL.test(symbol)) {
        throw new ValidationError(
          `assets.${i}`,
          `must be a symbol of 1 to ${SESSION_LIMITS.assetLength} letters, digits or ^ = . / : _ -`,
        );
      }
      return symbol;
    }),
  );
  const sessionType = String(input.sessionType ?? '').toLowerCase();
  if (!(SESSION_TYPES as readonly string[]).includes(sessionType)) {
    throw new ValidationError('sessionType', `must be one of ${SESSION_TYPES.join(', ')}`);
  }
  return {
    assets,
    sessionType: sessionType as SessionType,
    userId: checkUserId(input.userId),
    tags: checkTags(input.tags ?? []),
    requestedHours: checkHours('ttlHours', input.ttlHours ?? defaultTtlHours),
  };
}

export function checkUserId(value: string | null | undefined, field = 'userId'): string | null {
  if (value === undefined || value === null) return null;
  const id = value.trim();
  if (!id || id.length > SESSION_LIMITS.userIdLength) {
    throw new ValidationError(field, `must be 1 to ${SESSION_LIMITS.userIdLength} characters`);
  }
  return id;
}

function checkTags(tags: readonly string[]): string[] {
  if (tags.length > SESSION_LIMITS.tags) {
    throw new ValidationError('tags', `must list at most ${SESSION_LIMITS.tags} tags`);
  }
  return unique(
    tags.map((raw, i) => {
      const tag = String(raw).trim();
      if (!tag || tag.length > SESSION_LIMITS.tagLength) {
        throw new ValidationError(`tags.${i}`, `must be 1 to ${SESSION_LIMITS.tagLength} characters`);
      }
      return tag;
    }),
  );
}

/** A number of hours: positive, finite, at most a year per request. */
export function checkHours(field: string, hours: number): number {
  if (!Number.isFinite(hours) || hours <= 0)
    throw new ValidationError(field, 'must be a positive number of hours');
  if (hours > SESSION_LIMITS.requestHours) {
    throw new ValidationError(field, `must be at most ${SESSION_LIMITS.requestHours} hours`);
  }
  return hours;
}

export interface Lifetime {
  readonly expiresAt: Date;
  /** Hours added (create: the whole time-to-live). */
  readonly grantedHours: number;
  readonly requestedHours: number;
  /** True when SESSION_MAX_TTL_HOURS cut the request short. */
  readonly capped: boolean;
}

/**
 * The max-TTL rule: a session lives at most `maxTtlHours` from its creation, whatever was asked at
 * create and every extend; asking for more is granted up to that bound and says so.
 */
export function lifetime(
  createdAt: Date,
  currentExpiry: Date,
  requestedHours: number,
  maxTtlHours: number,
): Lifetime {
  const latest = createdAt.getTime() + maxTtlHours * HOUR_MS;
  const wanted = currentExpiry.getTime() + requestedHours * HOUR_MS;
  const expiresAt = new Date(Math.max(currentExpiry.getTime(), Math.min(wanted, latest)));
  return {
    expiresAt,
    grantedHours: (expiresAt.getTime() - currentExpiry.getTime()) / HOUR_MS,
    requestedHours,
    capped: wanted > latest,
  };
}

export function sessionState(
  session: { readonly status: string; readonly expiresAt: Date },
  now: Date,
): SessionState {
  if (session.status === 'archived') return 'archived';
  return session.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}

/** Context keys to set and to remove, checked (the merged context is checked by `checkContext`). */
export function checkContextUpdate(
  set: unknown,
  remove: readonly string[] | null | undefined,
): { set: Record<string, unknown>; remove: string[] } {
  if (set !== undefined && set !== null && (typeof set !== 'object' || Array.isArray(set))) {
    throw new ValidationError('set', 'must be an object of keys to values');
  }
  const entries = Object.entries((set ?? {}) as Record<string, unknown>);
  for (const [key, value] of entries) {
    checkKey(`set.${key}`, key, SESSION_LIMITS.contextKeyLength);
    if (value === undefined) throw new ValidationError(`set.${key}`, 'must be a JSON value');
  }
  const removed = (remove ?? []).map((key, i) => {
    checkKey(`remove.${i}`, key, SESSION_LIMITS.contextKeyLength);
    return key;
  });
  if (entries.length === 0 && removed.length === 0) {
    throw new ValidationError('set', 'give at least one key to set or to remove');
  }
  return { set: Object.fromEntries(entries), remove: removed };
}

export function mergeContext(
  context: Readonly<Record<string, unknown>>,
  update: { readonly set: Record<string, unknown>; readonly remove: readonly string[] },
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...context, ...update.set };
  for (const key of update.remove) delete merged[key];
  if (Object.keys(merged).length > SESSION_LIMITS.contextKeys) {
    throw new ValidationError('set', `a context holds at most ${SESSION_LIMITS.contextKeys} keys`);
  }
  const bytes = jsonBytes(merged);
  if (bytes > SESSION_LIMITS.contextBytes) {
    throw new ValidationError(
      'set',
      `the context would take ${bytes} bytes as JSON; at most ${SESSION_LIMITS.contextBytes}`,
    );
  }
  return merged;
}

export function checkResultName(name: string): string {
  return checkKey('name', name, SESSION_LIMITS.resultNameLength, NAME);
}

/** The session's results with `name` set to `value`, within the per-result and per-session bounds. */
export function withResult(
  results: Readonly<Record<string, unknown>>,
  name: string,
  value: unknown,
): Record<string, unknown> {
  if (value === undefined) throw new ValidationError('value', 'must be a JSON value');
  const bytes = jsonBytes(value);
  if (bytes > SESSION_LIMITS.resultBytes) {
    throw new ValidationError('value', `takes ${bytes} bytes as JSON; at most ${SESSION_LIMITS.resultBytes}`);
  }
  const next = { ...results, [name]: value };
  if (Object.keys(next).length > SESSION_LIMITS.results) {
    throw new ValidationError('name', `a session holds at most ${SESSION_LIMITS.results} results`);
  }
  const total = jsonBytes(next);
  if (total > SESSION_LIMITS.resultsBytes) {
    throw new ValidationError(
      'value',
      `the session's results would take ${total} bytes as JSON; at most ${SESSION_LIMITS.resultsBytes}`,
    );
  }
  return next;
}

function checkKey(field: string, key: string, max: number, pattern?: RegExp): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > max || (pattern && !pattern.test(key))) {
    throw new ValidationError(
      field,
      pattern ? `must be 1 to ${max} letters, digits or _ . : -` : `must be 1 to ${max} characters`,
    );
  }
  return key;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** Listing cursor: the last row's creation time and id (newest first). */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  const createdAt = new Date(text.slice(0, bar));
  const id = text.slice(bar + 1);
  if (bar < 0 || Number.isNaN(createdAt.getTime()) || !id) {
    throw new ValidationError('cursor', 'is not a cursor this listing returned');
  }
  return { createdAt, id };
}
