/**
 * The firings' statements. At the heart of firing (see firing.ts), for every matched alert, in one
 * statement: the (alert, event) firing row is inserted (only the first instance to try gets it),
 * the cooldown taken where it has passed, and one pending delivery stored per target (chat id,
 * recipient, webhook) of each method of each alert that fired. Its text is the same however many
 * alerts match (each list is one array parameter).
 * A firing keeps its event as delivered (alert-event.wire.ts).
 */
import { randomUUID } from 'node:crypto';
import { inArray, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import { queryRows } from '../platform/db/raw.ts';
import type { AlertKey } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { alertEventWire } from './alert-event.wire.ts';
import { alertDeliveries, alertFirings, alerts } from './alerts.sql.ts';
import { deliveryUnitsSql } from './delivery/delivery.repository.ts';

/** One firing this instance inserted. */
export interface ClaimedFiring {
  readonly firingId: string;
  readonly owner: string;
  readonly alertId: string;
  /** The cooldown had passed: the alert fired. Otherwise the firing is held by the cooldown. */
  readonly taken: boolean;
  /** The deliveries stored for it (one per target of each method), empty when not taken. */
  readonly deliveryIds: readonly string[];
}

export async function claimFirings(
  tx: Executor,
  matched: readonly AlertKey[],
  event: AlertEvent,
  now: Date,
): Promise<ClaimedFiring[]> {
  const at = now.toISOString();
  const rows = await queryRows<{
    firing_id: string;
    owner: string;
    alert_id: string;
    taken: boolean;
    deliveries: string[] | string;
  }>(
    tx,
    sql`
    with m as (
      select * from unnest(
        ${sql.param(matched.map((a) => a.owner))}::text[],
        ${sql.param(matched.map((a) => a.id))}::text[],
        ${sql.param(matched.map(() => randomUUID()))}::text[]
      ) as m(owner, alert_id, firing_id)
    ), f as (
      insert into ${alertFirings} (id, owner, alert_id, event_id, status, event, fired_at)
      select firing_id, owner, alert_id, ${event.id}, 'fired', ${JSON.stringify(alertEventWire(event))}::jsonb, ${at}::timestamptz
      from m
      on conflict do nothing
      returning id, owner, alert_id
    ), t as (
      update ${alerts} as a set last_triggered = ${at}::timestamptz, trigger_count = a.trigger_count + 1
      from f
      where a.owner = f.owner and a.id = f.alert_id and a.enabled
        and (a.last_triggered is null
          or a.last_triggered <= ${at}::timestamptz - make_interval(secs => a.cooldown_seconds))
      returning f.id as firing_id, a.owner, a.id, a.delivery_methods, a.config
    ), d as (
      -- One delivery per target (chat id, recipient, webhook) of each method: delivery/targets.ts.
      insert into ${alertDeliveries} (id, firing_id, owner, alert_id, method, target, status, attempts, created_at, updated_at)
      select gen_random_uuid()::text, t.firing_id, t.owner, t.id, unit.method, unit.target, 'pending', 0, ${at}::timestamptz, ${at}::timestamptz
      from t ${deliveryUnitsSql(sql`t.delivery_methods`, sql`t.config`)}
      returning id, firing_id
    )
    select f.id as firing_id, f.owner, f.alert_id, t.firing_id is not null as taken,
      coalesce((select json_agg(d.id) from d where d.firing_id = f.id), '[]'::json) as deliveries
    from f left join t on t.firing_id = f.id`,
  );
  return rows.map((r) => ({
    firingId: r.firing_id,
    owner: r.owner,
    alertId: r.alert_id,
    taken: r.taken,
    deliveryIds: typeof r.deliveries === 'string' ? (JSON.parse(r.deliveries) as string[]) : r.deliveries,
  }));
}

/** Marks firings the cooldown held (their alert did not fire). */
export async function markFiringsCooling(db: Executor, firingIds: readonly string[]): Promise<void> {
  if (firingIds.length === 0) return;
  await db
    .update(alertFirings)
    .set({ status: 'cooldown' })
    .where(inArray(alertFirings.id, [...firingIds]));
}

/** The firing of a test-send: its sample event, delivered whatever the alert's state. */
export async function insertTestFiring(
  db: Executor,
  firing: { readonly id: string; readonly alert: AlertKey; readonly event: AlertEvent; readonly at: Date },
): Promise<void> {
  await db.insert(alertFirings).values({
    id: firing.id,
    owner: firing.alert.owner,
    alertId: firing.alert.id,
    eventId: firing.event.id,
    status: 'test',
    event: alertEventWire(firing.event),
    firedAt: firing.at,
  });
}
