/** The silences' statements (alerts.sql.ts `alert_silences`): the only queries on that table. */
import { and, asc, count, eq, gt, inArray, lte } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import type { EventFilter } from './alert.model.ts';
import { alertSilences, type StoredSilenceMatchers } from './alerts.sql.ts';
import type { Silence } from './silence.model.ts';

type Row = typeof alertSilences.$inferSelect;

function silenceOf(row: Row): Silence {
  const m = row.matchers;
  return {
    owner: row.owner,
    id: row.id,
    matchers: {
      eventTypes: m.event_types as unknown as EventFilter['eventTypes'],
      severities: m.severities as unknown as EventFilter['severities'],
      assets: m.assets,
      watchdogs: m.watchdogs as unknown as EventFilter['watchdogs'],
      alertIds: m.alert_ids,
    },
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    comment: row.comment,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
  };
}

function storedMatchers(s: Silence): StoredSilenceMatchers {
  const m = s.matchers;
  return {
    event_types: [...m.eventTypes],
    severities: [...m.severities],
    assets: [...m.assets],
    watchdogs: [...m.watchdogs],
    alert_ids: [...m.alertIds],
  };
}

export async function insertSilence(db: Executor, silence: Silence): Promise<void> {
  await db.insert(alertSilences).values({ ...silence, matchers: storedMatchers(silence) });
}

/** Silences of `owner` (every owner's when undefined), by start; `since`: only those ending after it. */
export async function listSilences(
  db: Executor,
  filter: { readonly owner: string | undefined; readonly endingAfter?: Date },
): Promise<Silence[]> {
  const rows = await db
    .select()
    .from(alertSilences)
    .where(
      and(
        filter.owner === undefined ? undefined : eq(alertSilences.owner, filter.owner),
        filter.endingAfter ? gt(alertSilences.endsAt, filter.endingAfter) : undefined,
      ),
    )
    .orderBy(asc(alertSilences.startsAt), asc(alertSilences.id));
  return rows.map(silenceOf);
}

/** The silences of these owners in force at `now` (read in the firing's transaction). */
export async function activeSilences(db: Executor, owners: readonly string[], now: Date): Promise<Silence[]> {
  if (owners.length === 0) return [];
  const rows = await db
    .select()
    .from(alertSilences)
    .where(
      and(
        inArray(alertSilences.owner, [...owners]),
        lte(alertSilences.startsAt, now),
        gt(alertSilences.endsAt, now),
      ),
    );
  return rows.map(silenceOf);
}

export async function countOpenSilences(db: Executor, owner: string, now: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(alertSilences)
    .where(and(eq(alertSilences.owner, owner), gt(alertSilences.endsAt, now)));
  return Number(row?.n ?? 0);
}

export async function findSilence(db: Executor, owner: string, id: string): Promise<Silence | null> {
  const [row] = await db
    .select()
    .from(alertSilences)
    .where(and(eq(alertSilences.owner, owner), eq(alertSilences.id, id)));
  return row ? silenceOf(row) : null;
}

/** Ends a silence at `at` (one that ended already keeps its end); null when there is none. */
export async function endSilence(db: Executor, owner: string, id: string, at: Date): Promise<Silence | null> {
  const [row] = await db
    .update(alertSilences)
    .set({ endsAt: at })
    .where(and(eq(alertSilences.owner, owner), eq(alertSilences.id, id), gt(alertSilences.endsAt, at)))
    .returning();
  return row ? silenceOf(row) : findSilence(db, owner, id);
}

export async function deleteSilence(db: Executor, owner: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(alertSilences)
    .where(and(eq(alertSilences.owner, owner), eq(alertSilences.id, id)))
    .returning({ id: alertSilences.id });
  return rows.length > 0;
}
