/**
 * The alerts' rows: each statement on the `alerts` table, reading and writing the model (alert.model.ts).
 * The configuration is stored as the client wrote it (alert-config.wire.ts) and the secrets sealed
 * (secrets.ts); the rules around these statements (ownership, secrets kept or removed) are the
 * service's.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { lockForTransaction } from '../platform/db/advisory-lock.ts';
import type { Executor } from '../platform/db/database.ts';
import type { Alert, AlertDefinition, AlertKey, StoredSecrets, TriggerType } from './alert.model.ts';
import { configOfStored, settingsOfStored, storedConfig } from './alert-config.wire.ts';
import {
  alertDeliveries,
  alertDeliveryAttempts,
  alertEpisodes,
  alertFirings,
  alertGroups,
  alerts,
} from './alerts.sql.ts';
import { SEALED_NAME, secretNamesOf } from './secrets.ts';

type AlertRow = typeof alerts.$inferSelect;

/** An alert to store: its definition, as its owner wrote it, with its secrets sealed. */
export interface AlertWrite {
  readonly owner: string;
  readonly definition: AlertDefinition;
  readonly secrets: StoredSecrets;
  readonly at: Date;
}

export function alertOfRow(row: AlertRow): Alert {
  const { trigger, email, chat, webhook, slack, discord, teams, alertmanager, pagerduty } = configOfStored(
    row.config,
  );
  return {
    owner: row.owner,
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    trigger,
    deliveryMethods: row.deliveryMethods,
    email,
    chat,
    webhook,
    slack,
    discord,
    teams,
    alertmanager,
    pagerduty,
    cooldownSeconds: row.cooldownSeconds,
    // Mute windows, send_resolved, resolve timeout, grouping: defaults on rows stored before them.
    ...settingsOfStored(row.config),
    secrets: { names: secretNamesOf(row.secretFields), sealed: row.secrets },
    armed: row.armed,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastTriggered: row.lastTriggered,
    triggerCount: row.triggerCount,
  };
}

/** The columns a write sets; counters and the cooldown clock stay as they are. */
function writtenColumns(write: AlertWrite) {
  const { definition } = write;
  return {
    owner: write.owner,
    id: definition.id,
    name: definition.name,
    description: definition.description,
    enabled: definition.enabled,
    triggerType: definition.trigger.type,
    config: storedConfig(definition.trigger, definition),
    deliveryMethods: [...definition.deliveryMethods],
    cooldownSeconds: definition.cooldownSeconds,
    secrets: write.secrets.sealed,
    secretFields: write.secrets.names.map((name) => SEALED_NAME[name]),
    armed: true,
    updatedAt: write.at,
  };
}

const byKey = (key: AlertKey) => and(eq(alerts.owner, key.owner), eq(alerts.id, key.id));

/** Inserts the alert; null when its owner already has one with that id. */
export async function insertAlert(db: Executor, write: AlertWrite): Promise<Alert | null> {
  const [row] = await db
    .insert(alerts)
    .values({ ...writtenColumns(write), createdAt: write.at })
    .onConflictDoNothing()
    .returning();
  return row ? alertOfRow(row) : null;
}

/**
 * Serialises the creates of one owner until the transaction ends, so a burst of concurrent creates
 * cannot all pass the count before any of them is inserted.
 */
export async function lockOwnerAlerts(tx: Executor, owner: string): Promise<void> {
  await lockForTransaction(tx, 'alerts', owner);
}

export async function countAlerts(db: Executor, owner: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(alerts)
    .where(eq(alerts.owner, owner));
  return Number(row?.n ?? 0);
}

/** Replaces the alert's definition; null when there is no such alert. */
export async function updateAlert(db: Executor, write: AlertWrite): Promise<Alert | null> {
  const [row] = await db
    .update(alerts)
    .set(writtenColumns(write))
    .where(byKey({ owner: write.owner, id: write.definition.id }))
    .returning();
  return row ? alertOfRow(row) : null;
}

export async function findAlert(db: Executor, key: AlertKey): Promise<Alert | null> {
  const [row] = await db.select().from(alerts).where(byKey(key));
  return row ? alertOfRow(row) : null;
}

/** Alerts oldest first: one owner's, or every owner's when `owner` is undefined. */
export async function listAlerts(
  db: Executor,
  filter: { readonly owner: string | undefined; readonly enabledOnly: boolean },
): Promise<Alert[]> {
  const rows = await db
    .select()
    .from(alerts)
    .where(
      and(
        filter.owner === undefined ? undefined : eq(alerts.owner, filter.owner),
        filter.enabledOnly ? eq(alerts.enabled, true) : undefined,
      ),
    )
    .orderBy(alerts.createdAt, alerts.id);
  return rows.map(alertOfRow);
}

/** Every owner's enabled alerts whose trigger is one of `types`. */
export async function enabledAlertsByTrigger(db: Executor, types: readonly TriggerType[]): Promise<Alert[]> {
  const rows = await db
    .select()
    .from(alerts)
    .where(and(eq(alerts.enabled, true), inArray(alerts.triggerType, [...types])));
  return rows.map(alertOfRow);
}

export async function setAlertEnabled(
  db: Executor,
  key: AlertKey,
  enabled: boolean,
  at: Date,
): Promise<Alert | null> {
  const [row] = await db.update(alerts).set({ enabled, updatedAt: at }).where(byKey(key)).returning();
  return row ? alertOfRow(row) : null;
}

/** Whether a threshold or condition trigger may fire again (see thresholds.ts, conditions.ts). */
export async function setAlertArmed(db: Executor, key: AlertKey, armed: boolean): Promise<void> {
  await db.update(alerts).set({ armed }).where(byKey(key));
}

/** Deletes the alert; false when there is no such alert. */
export async function deleteAlert(db: Executor, key: AlertKey): Promise<boolean> {
  const gone = await db.delete(alerts).where(byKey(key)).returning({ id: alerts.id });
  return gone.length > 0;
}

/** Deletes the alert's firings, episodes, groups and its delivery record. */
export async function deleteAlertRecords(db: Executor, key: AlertKey): Promise<void> {
  const same = (
    t:
      | typeof alertFirings
      | typeof alertDeliveries
      | typeof alertDeliveryAttempts
      | typeof alertEpisodes
      | typeof alertGroups,
  ) => and(eq(t.owner, key.owner), eq(t.alertId, key.id));
  await db.delete(alertDeliveryAttempts).where(same(alertDeliveryAttempts));
  await db.delete(alertDeliveries).where(same(alertDeliveries));
  await db.delete(alertFirings).where(same(alertFirings));
  await db.delete(alertEpisodes).where(same(alertEpisodes));
  await db.delete(alertGroups).where(same(alertGroups));
}
