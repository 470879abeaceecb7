import { and, count, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import { lockForTransaction } from '../platform/db/advisory-lock.ts';
import type { Executor } from '../platform/db/database.ts';
import { analysisSessionQueries, analysisSessions } from './sessions.sql.ts';

/** The analysis-session queries that read and write one session's row and its query records. */

export type SessionRow = typeof analysisSessions.$inferSelect;
export type QueryRecordRow = typeof analysisSessionQueries.$inferSelect;
export type NewSessionRow = typeof analysisSessions.$inferInsert;
/** What a change may set on a session's row. */
export type SessionChange = Partial<
  Pick<
    SessionRow,
    | 'context'
    | 'intermediateResults'
    | 'expiresAt'
    | 'lastAccessedAt'
    | 'status'
    | 'archivedAt'
    | 'archivedReason'
  >
>;

/** Serialises one owner's session creates until the transaction ends (see lockForTransaction). */
export async function lockOwnerSessions(tx: Executor, owner: string): Promise<void> {
  await lockForTransaction(tx, 'analysis_sessions', owner);
}

export async function countActiveSessions(db: Executor, owner: string): Promise<number> {
  const [open] = await db
    .select({ n: count() })
    .from(analysisSessions)
    .where(and(eq(analysisSessions.owner, owner), eq(analysisSessions.status, 'active')));
  return open?.n ?? 0;
}

export async function insertSession(db: Executor, values: NewSessionRow): Promise<SessionRow> {
  const [row] = await db.insert(analysisSessions).values(values).returning();
  return row!;
}

/** The session with this id (of `owner` only, when given), locked for the transaction when `lock`. */
export async function findSession(
  executor: Executor,
  id: string,
  owner: string | undefined,
  lock = false,
): Promise<SessionRow | undefined> {
  const query = executor
    .select()
    .from(analysisSessions)
    .where(
      and(eq(analysisSessions.id, id), owner === undefined ? undefined : eq(analysisSessions.owner, owner)),
    );
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** Updates the session's row (only while it is active, when `whileActive`); undefined when none was. */
export async function updateSession(
  executor: Executor,
  id: string,
  change: SessionChange,
  whileActive = false,
): Promise<SessionRow | undefined> {
  const [row] = await executor
    .update(analysisSessions)
    .set(change)
    .where(and(eq(analysisSessions.id, id), whileActive ? eq(analysisSessions.status, 'active') : undefined))
    .returning();
  return row;
}

/** The session's newest `limit` query records, newest first. */
export function recentQueryRecords(
  db: Executor,
  sessionId: string,
  limit: number,
): Promise<QueryRecordRow[]> {
  return db
    .select()
    .from(analysisSessionQueries)
    .where(eq(analysisSessionQueries.sessionId, sessionId))
    .orderBy(desc(analysisSessionQueries.seq))
    .limit(limit);
}

export interface SessionFilter {
  /** Only this owner's sessions (undefined: every owner's). */
  readonly owner: string | undefined;
  readonly userId: string | null;
  readonly includeArchived: boolean;
}

/**
 * One page of sessions, newest first (ties broken by id), after the cursor's session, and how many
 * sessions the filter matches on every page. `rows` holds up to `limit + 1`: one more than the page
 * tells that another page follows.
 */
export async function listSessionPage(
  db: Executor,
  filter: SessionFilter,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<{ rows: SessionRow[]; total: number }> {
  const filters: (SQL | undefined)[] = [
    filter.owner === undefined ? undefined : eq(analysisSessions.owner, filter.owner),
    filter.userId === null ? undefined : eq(analysisSessions.userId, filter.userId),
    filter.includeArchived ? undefined : eq(analysisSessions.status, 'active'),
  ];
  const page = after
    ? or(
        lt(analysisSessions.createdAt, after.createdAt),
        and(eq(analysisSessions.createdAt, after.createdAt), lt(analysisSessions.id, after.id)),
      )
    : undefined;
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(analysisSessions)
      .where(and(...filters, page))
      .orderBy(desc(analysisSessions.createdAt), desc(analysisSessions.id))
      .limit(limit + 1),
    db
      .select({ n: count() })
      .from(analysisSessions)
      .where(and(...filters)),
  ]);
  return { rows, total: counted?.n ?? 0 };
}
