/**
 * The episodes' statements (episode.model.ts): the open episode a firing joins or opens, the
 * acknowledged ones whose repeats are held, and the ends of episodes (cleared, timed out, resolved
 * by hand). One open episode per (alert, incident key): the partial unique index decides between
 * instances that fire the same condition at once.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import { queryRows } from '../platform/db/raw.ts';
import type { AlertKey } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { alertEventWire } from './alert-event.wire.ts';
import { alertEpisodes, alertFirings, alerts } from './alerts.sql.ts';
import type { ResolvedReason } from './episode.model.ts';

export type EpisodeRow = typeof alertEpisodes.$inferSelect;

/** A firing's place in an episode: the alert, its condition, and the firing. */
export interface EpisodeMember {
  readonly alert: AlertKey;
  readonly incidentKey: string;
  readonly firingId: string;
}

const keyOf = (owner: string, alertId: string, incidentKey: string) =>
  `${owner}\u0000${alertId}\u0000${incidentKey}`;

/** The open episodes of these (alert, incident key) pairs that are acknowledged, by pair. */
export async function acknowledgedEpisodes(
  tx: Executor,
  pairs: ReadonlyArray<{ readonly alert: AlertKey; readonly incidentKey: string }>,
): Promise<Map<string, string>> {
  if (pairs.length === 0) return new Map();
  const rows = await queryRows<{ id: string; owner: string; alert_id: string; incident_key: string }>(
    tx,
    sql`
    select e.id, e.owner, e.alert_id, e.incident_key from ${alertEpisodes} as e
    join unnest(${sql.param(pairs.map((p) => p.alert.owner))}::text[], ${sql.param(pairs.map((p) => p.alert.id))}::text[],
      ${sql.param(pairs.map((p) => p.incidentKey))}::text[]) as m(owner, alert_id, incident_key)
      on e.owner = m.owner and e.alert_id = m.alert_id and e.incident_key = m.incident_key
    where e.resolved_at is null and e.acknowledged_at is not null`,
  );
  return new Map(rows.map((r) => [keyOf(r.owner, r.alert_id, r.incident_key), r.id]));
}

export function episodePairKey(alert: AlertKey, incidentKey: string): string {
  return keyOf(alert.owner, alert.id, incidentKey);
}

/**
 * Records `members`' firings of `event` in their episodes: each joins the open episode of its
 * condition (its last event and count move on), and, where `open` says so (a firing that notifies),
 * opens one when there is none. Firings left without an episode (held ones of a condition with no
 * open episode) keep none.
 */
export async function joinEpisodes(
  tx: Executor,
  members: ReadonlyArray<EpisodeMember & { readonly open: boolean }>,
  event: AlertEvent,
  at: Date,
): Promise<void> {
  if (members.length === 0) return;
  const wire = JSON.stringify(alertEventWire(event));
  const col = <T>(f: (m: EpisodeMember & { readonly open: boolean }) => T) => sql.param(members.map(f));
  await tx.execute(sql`
    -- open goes as text: the driver sends an array of booleans as a single one.
    with m as (
      select * from unnest(${col((m) => m.alert.owner)}::text[], ${col((m) => m.alert.id)}::text[],
        ${col((m) => m.incidentKey)}::text[], ${col((m) => m.firingId)}::text[], ${col((m) => String(m.open))}::text[],
        ${col(() => randomUUID())}::text[]) as m(owner, alert_id, incident_key, firing_id, open, new_id)
    ), joined as (
      update ${alertEpisodes} as e set last_event_at = greatest(e.last_event_at, ${at.toISOString()}::timestamptz),
        last_event = ${wire}::jsonb, firings = e.firings + 1
      from m where e.owner = m.owner and e.alert_id = m.alert_id and e.incident_key = m.incident_key
        and e.resolved_at is null
      returning e.id, m.firing_id
    ), opened as (
      insert into ${alertEpisodes} (id, owner, alert_id, incident_key, started_at, last_event_at, last_event, firings)
      select m.new_id, m.owner, m.alert_id, m.incident_key, ${at.toISOString()}::timestamptz,
        ${at.toISOString()}::timestamptz, ${wire}::jsonb, 1
      from m where m.open::boolean and not exists (
        select 1 from ${alertEpisodes} as e where e.owner = m.owner and e.alert_id = m.alert_id
          and e.incident_key = m.incident_key and e.resolved_at is null)
      on conflict do nothing
      returning id, (select m2.firing_id from m as m2 where m2.new_id = id) as firing_id
    )
    update ${alertFirings} as f set episode_id = x.id
    from (select * from joined union all select * from opened) as x
    where f.id = x.firing_id`);
}

/** One episode of `key`'s alert by id, locked for the rest of the transaction. */
export async function lockEpisode(tx: Executor, key: AlertKey, id: string): Promise<EpisodeRow | null> {
  const [row] = await tx
    .select()
    .from(alertEpisodes)
    .where(
      and(eq(alertEpisodes.owner, key.owner), eq(alertEpisodes.alertId, key.id), eq(alertEpisodes.id, id)),
    )
    .for('update');
  return row ?? null;
}

/** The open episode of `key`'s condition `incidentKey`, or null. */
export async function openEpisode(
  tx: Executor,
  key: AlertKey,
  incidentKey: string,
): Promise<EpisodeRow | null> {
  const [row] = await tx
    .select()
    .from(alertEpisodes)
    .where(
      and(
        eq(alertEpisodes.owner, key.owner),
        eq(alertEpisodes.alertId, key.id),
        eq(alertEpisodes.incidentKey, incidentKey),
        isNull(alertEpisodes.resolvedAt),
      ),
    );
  return row ?? null;
}

/** Acknowledges an open episode (kept as it is when it already is); null when it is not open. */
export async function acknowledgeEpisode(
  tx: Executor,
  id: string,
  ack: { readonly by: string; readonly note: string | null; readonly at: Date },
): Promise<EpisodeRow | null> {
  const [row] = await tx
    .update(alertEpisodes)
    .set({ acknowledgedAt: ack.at, acknowledgedBy: ack.by, acknowledgementNote: ack.note })
    .where(
      and(eq(alertEpisodes.id, id), isNull(alertEpisodes.resolvedAt), isNull(alertEpisodes.acknowledgedAt)),
    )
    .returning();
  return row ?? null;
}

export interface Resolution {
  readonly reason: ResolvedReason;
  readonly by: string | null;
  readonly note: string | null;
  readonly at: Date;
}

/** Ends the open episodes among `ids`; answers those it ended (one already ended is left). */
export async function resolveEpisodes(
  tx: Executor,
  ids: readonly string[],
  r: Resolution,
): Promise<EpisodeRow[]> {
  if (ids.length === 0) return [];
  return tx
    .update(alertEpisodes)
    .set({ resolvedAt: r.at, resolvedReason: r.reason, resolvedBy: r.by, resolutionNote: r.note })
    .where(
      and(sql`${alertEpisodes.id} = any(${sql.param([...ids])}::text[])`, isNull(alertEpisodes.resolvedAt)),
    )
    .returning();
}

/**
 * The open episodes of watchdog-event alerts whose last event is older than `before` (the least
 * resolve timeout), with their alert's key; the caller keeps those past their own alert's timeout.
 */
export async function quietEpisodes(
  db: Executor,
  before: Date,
  limit: number,
): Promise<
  Array<{ readonly id: string; readonly owner: string; readonly alertId: string; readonly lastEventAt: Date }>
> {
  return db
    .select({
      id: alertEpisodes.id,
      owner: alertEpisodes.owner,
      alertId: alertEpisodes.alertId,
      lastEventAt: alertEpisodes.lastEventAt,
    })
    .from(alertEpisodes)
    .innerJoin(alerts, and(eq(alerts.owner, alertEpisodes.owner), eq(alerts.id, alertEpisodes.alertId)))
    .where(
      and(
        isNull(alertEpisodes.resolvedAt),
        eq(alerts.triggerType, 'watchdog_event'),
        sql`${alertEpisodes.lastEventAt} < ${before.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(alertEpisodes.lastEventAt)
    .limit(limit);
}

/** The fields of `key`'s firing `firingId` acting on it needs, locked for the rest of the transaction. */
export async function lockFiring(
  tx: Executor,
  key: AlertKey,
  firingId: string,
): Promise<Pick<typeof alertFirings.$inferSelect, 'id' | 'kind' | 'episodeId' | 'groupId'> | null> {
  const [row] = await tx
    .select({
      id: alertFirings.id,
      kind: alertFirings.kind,
      episodeId: alertFirings.episodeId,
      groupId: alertFirings.groupId,
    })
    .from(alertFirings)
    .where(
      and(eq(alertFirings.owner, key.owner), eq(alertFirings.alertId, key.id), eq(alertFirings.id, firingId)),
    )
    .for('update');
  return row ?? null;
}

/**
 * The open episodes of threshold and condition alerts that are armed again (their condition no
 * longer holds: it cleared, or the alert was rewritten), with their alert's key.
 */
export async function clearedEpisodes(
  db: Executor,
  limit: number,
): Promise<Array<{ readonly id: string; readonly owner: string; readonly alertId: string }>> {
  const rows = await queryRows<{ id: string; owner: string; alert_id: string }>(
    db,
    sql`
    select e.id, e.owner, e.alert_id from ${alertEpisodes} as e
    join ${alerts} as a on a.owner = e.owner and a.id = e.alert_id
    where e.resolved_at is null and a.trigger_type <> 'watchdog_event' and a.armed
    limit ${limit}`,
  );
  return rows.map((r) => ({ id: r.id, owner: r.owner, alertId: r.alert_id }));
}
