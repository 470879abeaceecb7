import { randomUUID } from 'node:crypto';
import { hasScope, ownerFilter, type Principal } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle, Executor } from '../platform/db/database.ts';
import { AppError, NotFoundError, ValidationError } from '../platform/errors.ts';
import type { Logger } from '../platform/observability/logger.ts';
import {
  countActiveSessions,
  findSession,
  insertSession,
  listSessionPage,
  lockOwnerSessions,
  type QueryRecordRow,
  recentQueryRecords,
  type SessionRow,
  updateSession,
} from './session.repository.ts';
import {
  checkContextUpdate,
  checkHours,
  checkNewSession,
  checkResultName,
  checkUserId,
  decodeCursor,
  encodeCursor,
  type Lifetime,
  lifetime,
  mergeContext,
  type NewSessionInput,
  SESSION_LIMITS,
  type SessionState,
  sessionState,
  withResult,
} from './session.rules.ts';

export type { QueryRecordRow, SessionRow } from './session.repository.ts';

/** A session as read at `asOf`, with the state that follows from its status and expiry. */
export interface SessionView {
  readonly row: SessionRow;
  readonly state: SessionState;
  readonly asOf: Date;
  /** Set when an admin reads another owner's session. */
  readonly showOwner: boolean;
}

export interface SessionSettings {
  readonly defaultTtlHours: number;
  readonly maxTtlHours: number;
  readonly maxQueriesPerSession: number;
}

export interface SessionServiceOptions {
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly settings: SessionSettings;
}

export interface ListOptions {
  readonly userId?: string | null;
  readonly includeArchived?: boolean | null;
  readonly limit?: number | null;
  readonly cursor?: string | null;
}

export interface SessionPage {
  readonly sessions: SessionView[];
  /** Every session the filter matches (all pages). */
  readonly total: number;
  readonly nextCursor: string | null;
}

export const DEFAULT_LIST_LIMIT = 50;

/**
 * Analysis sessions: created, read, listed, extended, archived and filled (context and named
 * results) by their owner; admins reach every owner's. Anyone else's session is NOT_FOUND, as an
 * unknown id is. A session past its expiry, or archived, can be read and listed but not used:
 * extending it, changing it or tracking a query in it is SESSION_EXPIRED or SESSION_ARCHIVED.
 */
export class SessionService {
  readonly #o: SessionServiceOptions;

  constructor(options: SessionServiceOptions) {
    this.#o = options;
  }

  get settings(): SessionSettings {
    return this.#o.settings;
  }

  async create(principal: Principal, input: NewSessionInput): Promise<{ view: SessionView; ttl: Lifetime }> {
    const checked = checkNewSession(input, this.#o.settings.defaultTtlHours);
    const now = this.#o.clock.now();
    const ttl = lifetime(now, now, checked.requestedHours, this.#o.settings.maxTtlHours);
    // One owner's creates are counted one after another (on every instance): a burst cannot all
    // pass the count before any is inserted.
    const row = await this.#o.database.db.transaction(async (tx) => {
      await lockOwnerSessions(tx, principal.id);
      if ((await countActiveSessions(tx, principal.id)) >= SESSION_LIMITS.openPerOwner) {
        throw new AppError(
          'TOO_MANY_SESSIONS',
          `at most ${SESSION_LIMITS.openPerOwner} sessions that are not archived per owner; archive some (archive-session) or let them expire`,
          { limit: SESSION_LIMITS.openPerOwner },
        );
      }
      return insertSession(tx, {
        id: randomUUID(),
        owner: principal.id,
        userId: checked.userId,
        sessionType: checked.sessionType,
        assets: checked.assets,
        tags: checked.tags,
        context: {},
        intermediateResults: {},
        status: 'active',
        queryTypes: {},
        createdAt: now,
        lastAccessedAt: now,
        expiresAt: ttl.expiresAt,
      });
    });
    this.#o.logger.info(
      { sessionId: row.id, owner: principal.id, type: checked.sessionType, ttlHours: ttl.grantedHours },
      'analysis session created',
    );
    return { view: this.#view(row, principal, now), ttl };
  }

  /** One session in any state (reading does not count as use: `last_accessed_at` stays). */
  async get(principal: Principal, id: string): Promise<SessionView> {
    const row = await this.#find(this.#o.database.db, principal, id);
    return this.#view(row, principal, this.#o.clock.now());
  }

  async recentQueries(sessionId: string, limit: number): Promise<QueryRecordRow[]> {
    if (!Number.isInteger(limit) || limit < 0 || limit > SESSION_LIMITS.recentQueries) {
      throw new ValidationError('recentQueries', `must be 0 to ${SESSION_LIMITS.recentQueries}`);
    }
    if (limit === 0) return [];
    return recentQueryRecords(this.#o.database.db, sessionId, limit);
  }

  /** Newest first; archived sessions only when asked; expired ones are listed until archived. */
  async list(principal: Principal, options: ListOptions = {}): Promise<SessionPage> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > SESSION_LIMITS.listLimit) {
      throw new ValidationError('limit', `must be 1 to ${SESSION_LIMITS.listLimit}`);
    }
    const userId = checkUserId(options.userId);
    const after = options.cursor ? decodeCursor(options.cursor) : undefined;
    const { rows, total } = await listSessionPage(
      this.#o.database.db,
      { owner: ownerFilter(principal), userId, includeArchived: options.includeArchived === true },
      after,
      limit,
    );
    const now = this.#o.clock.now();
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      sessions: shown.map((row) => this.#view(row, principal, now)),
      total,
      nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null,
    };
  }

  /**
   * Adds `hours` to the current expiry, within the max-TTL rule (a session lives at most
   * SESSION_MAX_TTL_HOURS from its creation); what was granted and whether the rule capped it is
   * in the answer. An expired or archived session cannot be extended.
   */
  async extend(
    principal: Principal,
    id: string,
    hours: number,
  ): Promise<{ view: SessionView; ttl: Lifetime }> {
    checkHours('hours', hours);
    return this.#o.database.db.transaction(async (tx) => {
      // Locked: concurrent extensions each add to the expiry the one before wrote.
      const row = await this.#usable(tx, principal, id, true);
      const now = this.#o.clock.now();
      const ttl = lifetime(row.createdAt, row.expiresAt, hours, this.#o.settings.maxTtlHours);
      const updated = await updateSession(tx, row.id, { expiresAt: ttl.expiresAt, lastAccessedAt: now });
      return { view: this.#view(updated!, principal, now), ttl };
    });
  }

  /** Archives a session now (idempotent: archiving an archived session changes nothing). */
  async archive(principal: Principal, id: string): Promise<SessionView> {
    const db = this.#o.database.db;
    const row = await this.#find(db, principal, id);
    const now = this.#o.clock.now();
    if (row.status === 'archived') return this.#view(row, principal, now);
    const updated = await updateSession(
      db,
      row.id,
      { status: 'archived', archivedAt: now, archivedReason: 'archived' },
      true,
    );
    return this.#view(updated ?? (await this.#find(db, principal, id)), principal, now);
  }

  /** Sets and removes top-level context keys, within the context's bounds. */
  async updateContext(
    principal: Principal,
    id: string,
    set: unknown,
    remove: readonly string[] | null | undefined,
  ): Promise<SessionView> {
    const update = checkContextUpdate(set, remove);
    return this.#change(principal, id, (row) => ({ context: mergeContext(row.context, update) }));
  }

  /** Stores `value` under `name` (replacing what was there), within the results' bounds. */
  async storeResult(principal: Principal, id: string, name: string, value: unknown): Promise<SessionView> {
    checkResultName(name);
    return this.#change(principal, id, (row) => ({
      intermediateResults: withResult(row.intermediateResults, name, value),
    }));
  }

  /** A stored result; NOT_FOUND naming the result when the session has none by that name. */
  async result(
    principal: Principal,
    id: string,
    name: string,
  ): Promise<{ view: SessionView; value: unknown }> {
    checkResultName(name);
    const view = await this.get(principal, id);
    if (!Object.hasOwn(view.row.intermediateResults, name)) {
      throw new AppError(
        'NOT_FOUND',
        `session ${JSON.stringify(id)} has no result named ${JSON.stringify(name)}`,
        {
          sessionId: id,
          name,
        },
      );
    }
    return { view, value: view.row.intermediateResults[name] };
  }

  /** Throws NOT_FOUND, SESSION_EXPIRED or SESSION_ARCHIVED unless the session can be used now. */
  async assertUsable(principal: Principal, id: string): Promise<void> {
    await this.#usable(this.#o.database.db, principal, id);
  }

  async #change(
    principal: Principal,
    id: string,
    next: (row: SessionRow) => Partial<Pick<SessionRow, 'context' | 'intermediateResults'>>,
  ): Promise<SessionView> {
    return this.#o.database.db.transaction(async (tx) => {
      const row = await this.#usable(tx, principal, id, true);
      const now = this.#o.clock.now();
      const updated = await updateSession(tx, row.id, { ...next(row), lastAccessedAt: now });
      return this.#view(updated!, principal, now);
    });
  }

  async #find(executor: Executor, principal: Principal, id: string, lock = false): Promise<SessionRow> {
    if (typeof id !== 'string' || id.length === 0 || id.length > 128) {
      throw new ValidationError('sessionId', 'must be 1 to 128 characters');
    }
    const owner = hasScope(principal, 'admin') ? undefined : principal.id;
    const row = await findSession(executor, id, owner, lock);
    if (!row) throw new NotFoundError('sessionId', id);
    return row;
  }

  async #usable(executor: Executor, principal: Principal, id: string, lock = false): Promise<SessionRow> {
    const row = await this.#find(executor, principal, id, lock);
    const state = sessionState(row, this.#o.clock.now());
    if (state === 'archived') {
      throw new AppError(
        'SESSION_ARCHIVED',
        `session ${JSON.stringify(id)} is archived and can only be read`,
        {
          sessionId: id,
          archivedAt: row.archivedAt?.toISOString() ?? null,
        },
      );
    }
    if (state === 'expired') {
      throw new AppError(
        'SESSION_EXPIRED',
        `session ${JSON.stringify(id)} expired at ${row.expiresAt.toISOString()} and can only be read`,
        { sessionId: id, expiresAt: row.expiresAt.toISOString() },
      );
    }
    return row;
  }

  #view(row: SessionRow, principal: Principal, asOf: Date): SessionView {
    return { row, state: sessionState(row, asOf), asOf, showOwner: row.owner !== principal.id };
  }
}
