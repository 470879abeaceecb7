import { desc, eq, gte, lt } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import { serviceInstances } from './instances.sql.ts';

export type InstanceRow = typeof serviceInstances.$inferSelect;

export async function upsertInstance(db: Executor, row: InstanceRow): Promise<void> {
  await db
    .insert(serviceInstances)
    .values(row)
    .onConflictDoUpdate({ target: serviceInstances.id, set: { lastSeenAt: row.lastSeenAt } });
}

export async function deleteInstance(db: Executor, id: string): Promise<void> {
  await db.delete(serviceInstances).where(eq(serviceInstances.id, id));
}

export async function deleteInstancesSeenBefore(db: Executor, before: Date): Promise<void> {
  await db.delete(serviceInstances).where(lt(serviceInstances.lastSeenAt, before));
}

export async function instanceIdsSeenSince(db: Executor, since: Date): Promise<string[]> {
  const rows = await db
    .select({ id: serviceInstances.id })
    .from(serviceInstances)
    .where(gte(serviceInstances.lastSeenAt, since));
  return rows.map((r) => r.id);
}

export async function instancesSeenSince(db: Executor, since: Date): Promise<InstanceRow[]> {
  return db
    .select()
    .from(serviceInstances)
    .where(gte(serviceInstances.lastSeenAt, since))
    .orderBy(desc(serviceInstances.startedAt));
}
