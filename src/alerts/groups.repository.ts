/**
 * The groups' statements (group.model.ts): the open group a grouped alert's firing joins (one per
 * (alert, group key): the partial unique index), the group's due notification taken under its
 * row's lock (so one instance sends it), its pending firings, and its end.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import { queryRows } from '../platform/db/raw.ts';
import type { AlertKey } from './alert.model.ts';
import { alertEpisodes, alertFirings, alertGroups } from './alerts.sql.ts';
import type { GroupIdentity } from './group.model.ts';

export type GroupRow = typeof alertGroups.$inferSelect;

/** The open group of `identity` for `alert`, created at `at` when there is none; locked. */
export async function openGroup(
  tx: Executor,
  alert: AlertKey,
  identity: GroupIdentity,
  at: Date,
): Promise<GroupRow> {
  await tx
    .insert(alertGroups)
    .values({
      id: randomUUID(),
      owner: alert.owner,
      alertId: alert.id,
      groupKey: identity.key,
      labels: { ...identity.labels },
      createdAt: at,
      lastEventAt: at,
    })
    .onConflictDoNothing();
  const [row] = await tx
    .select()
    .from(alertGroups)
    .where(
      and(
        eq(alertGroups.owner, alert.owner),
        eq(alertGroups.alertId, alert.id),
        eq(alertGroups.groupKey, identity.key),
        isNull(alertGroups.resolvedAt),
      ),
    )
    .for('update');
  if (!row) throw new Error(`the group ${identity.key} of alert ${alert.id} could not be opened`);
  return row;
}

/** A firing joins its group: `grouped` (waiting for the group's next notification). */
export async function addToGroup(
  tx: Executor,
  group: GroupRow,
  firingId: string,
  flushAt: Date,
  at: Date,
): Promise<void> {
  await tx
    .update(alertFirings)
    .set({ status: 'grouped', groupId: group.id })
    .where(eq(alertFirings.id, firingId));
  await tx
    .update(alertGroups)
    .set({
      flushAt,
      lastEventAt: sql`greatest(${alertGroups.lastEventAt}, ${at.toISOString()}::timestamptz)`,
    })
    .where(eq(alertGroups.id, group.id));
}

/** A group by id, locked for the rest of the transaction; null when there is none. */
export async function lockGroup(tx: Executor, id: string): Promise<GroupRow | null> {
  const [row] = await tx.select().from(alertGroups).where(eq(alertGroups.id, id)).for('update');
  return row ?? null;
}

/** The group's firings waiting for its next notification, oldest first (at most `limit`). */
export async function pendingFirings(
  tx: Executor,
  groupId: string,
  limit: number,
): Promise<Array<typeof alertFirings.$inferSelect>> {
  return tx
    .select()
    .from(alertFirings)
    .where(and(eq(alertFirings.groupId, groupId), eq(alertFirings.status, 'grouped')))
    .orderBy(asc(alertFirings.firedAt), asc(alertFirings.id))
    .limit(limit);
}

/** The firings a notification sent: `fired`. */
export async function markSent(tx: Executor, firingIds: readonly string[]): Promise<void> {
  if (firingIds.length === 0) return;
  await tx
    .update(alertFirings)
    .set({ status: 'fired' })
    .where(sql`${alertFirings.id} = any(${sql.param([...firingIds])}::text[])`);
}

/** The episodes of a group's firings: open ones (a reminder lists them), or all (the newest ends it). */
export async function episodesOfGroup(
  tx: Executor,
  groupId: string,
  options: {
    readonly openOnly: boolean;
    readonly unacknowledgedOnly: boolean;
    readonly newestFirst: boolean;
  },
): Promise<Array<typeof alertEpisodes.$inferSelect>> {
  return tx
    .select()
    .from(alertEpisodes)
    .where(
      and(
        options.openOnly ? isNull(alertEpisodes.resolvedAt) : undefined,
        options.unacknowledgedOnly ? isNull(alertEpisodes.acknowledgedAt) : undefined,
        sql`${alertEpisodes.id} in (select ${alertFirings.episodeId} from ${alertFirings} where ${alertFirings.groupId} = ${groupId})`,
      ),
    )
    .orderBy(options.newestFirst ? desc(alertEpisodes.lastEventAt) : asc(alertEpisodes.startedAt))
    .limit(1_000);
}

export async function updateGroup(
  tx: Executor,
  id: string,
  set: Partial<typeof alertGroups.$inferInsert>,
): Promise<void> {
  await tx.update(alertGroups).set(set).where(eq(alertGroups.id, id));
}

/** A group that ended. */
export interface EndedGroup {
  readonly id: string;
  readonly groupKey: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly createdAt: Date;
  /** Whether it ever notified (a group ended before its first notification says nothing more). */
  readonly notified: boolean;
}

/**
 * The open groups of `alert` that are over: no open episode among their firings and no firing
 * waiting; they are ended (`resolved_at`, nothing more due) and answered.
 */
export async function endQuietGroups(tx: Executor, alert: AlertKey, at: Date): Promise<EndedGroup[]> {
  const rows = await queryRows<{
    id: string;
    group_key: string;
    labels: Record<string, string> | string;
    created_at: Date | string;
    notices: number;
  }>(
    tx,
    sql`
    update ${alertGroups} as g set resolved_at = ${at.toISOString()}::timestamptz, flush_at = null
    where g.owner = ${alert.owner} and g.alert_id = ${alert.id} and g.resolved_at is null
      and not exists (select 1 from ${alertFirings} as f where f.group_id = g.id and f.status = 'grouped')
      and not exists (
        select 1 from ${alertFirings} as f join ${alertEpisodes} as e on e.id = f.episode_id
        where f.group_id = g.id and e.resolved_at is null)
    returning g.id, g.group_key, g.labels, g.created_at, g.notices`,
  );
  return rows.map((r) => ({
    id: r.id,
    groupKey: r.group_key,
    labels: typeof r.labels === 'string' ? (JSON.parse(r.labels) as Record<string, string>) : r.labels,
    createdAt: new Date(r.created_at),
    notified: Number(r.notices) > 0,
  }));
}

/** Groups whose notification is due (`flush_at` before `before`), oldest first. */
export async function dueGroups(db: Executor, before: Date, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: alertGroups.id })
    .from(alertGroups)
    .where(
      and(
        isNull(alertGroups.resolvedAt),
        sql`${alertGroups.flushAt} <= ${before.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(asc(alertGroups.flushAt))
    .limit(limit);
  return rows.map((r) => r.id);
}
