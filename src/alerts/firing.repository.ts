/**
 * The firings' statements. At the heart of firing (see firing.ts), for every matched alert, in one
 * statement: the (alert, event) firing row is inserted (only the first instance to try gets it),
 * the cooldown taken where it has passed, and one pending delivery stored per target (chat id,
 * recipient, webhook) of each method of each alert that fired (none for a grouped alert: its
 * group's notification delivers). Its text is the same however many
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
  /** The alert fired (`status` is `fired`): its cooldown had passed and it was within its rate bound. */
  readonly taken: boolean;
  /** `fired`, or what held it: the cooldown, or the firing rate bound (`rate_limited`). */
  readonly status: HeldStatus | 'fired';
  /** The deliveries stored for it (one per target of each method), empty when not taken. */
  readonly deliveryIds: readonly string[];
}

/** What holds a firing that does not deliver. */
export type HeldStatus = 'cooldown' | 'rate_limited';

/** Firings that deliver, per alert per minute, when the caller names no bound. */
export const DEFAULT_MAX_FIRINGS_PER_MINUTE = 60;

/**
 * Claims the firings of `event` for `matched` (enabled alerts; see the file comment). An alert
 * fires when its cooldown has passed and it is within its rate bound: a generic cell rate
 * algorithm on `alerts.rate_mark`, which each firing that delivers moves one interval (a minute /
 * `maxPerMinute`) past the later of itself and now; an alert whose mark is more than a minute less
 * one interval ahead is over its bound. So a burst of `maxPerMinute`, then `maxPerMinute` a minute.
 * Both are decided under the alert row's lock (the update), so they hold across instances.
 * Firings of events that run at once may commit out of the order of their `now`: an alert without
 * a cooldown fires whatever time the last firing took, and `last_triggered` never moves back.
 */
export async function claimFirings(
  tx: Executor,
  matched: readonly AlertKey[],
  event: AlertEvent,
  now: Date,
  maxPerMinute = DEFAULT_MAX_FIRINGS_PER_MINUTE,
  grouped: ReadonlySet<string> = new Set(),
): Promise<ClaimedFiring[]> {
  const at = now.toISOString();
  const intervalSeconds = 60 / Math.max(1, maxPerMinute);
  const aheadSeconds = 60 - intervalSeconds;
  const rows = await queryRows<{
    firing_id: string;
    owner: string;
    alert_id: string;
    taken: boolean;
    status: HeldStatus | 'fired';
    deliveries: string[] | string;
  }>(
    tx,
    sql`
    with m as (
      select * from unnest(
        ${sql.param(matched.map((a) => a.owner))}::text[],
        ${sql.param(matched.map((a) => a.id))}::text[],
        ${sql.param(matched.map(() => randomUUID()))}::text[],
        -- As text: the driver sends an array of booleans as a single one.
        ${sql.param(matched.map((a) => String(grouped.has(`${a.owner}\u0000${a.id}`))))}::text[]
      ) as m(owner, alert_id, firing_id, grouped)
    ), f as (
      insert into ${alertFirings} (id, owner, alert_id, event_id, status, event, fired_at)
      select m.firing_id, m.owner, m.alert_id, ${event.id}, 'fired', ${JSON.stringify(alertEventWire(event))}::jsonb, ${at}::timestamptz
      from m join ${alerts} as a on a.owner = m.owner and a.id = m.alert_id and a.enabled
      on conflict do nothing
      returning id, owner, alert_id
    ), t as (
      update ${alerts} as a set last_triggered = greatest(a.last_triggered, ${at}::timestamptz),
        trigger_count = a.trigger_count + 1,
        rate_mark = greatest(a.rate_mark, ${at}::timestamptz) + make_interval(secs => ${intervalSeconds}::float8)
      from f
      where a.owner = f.owner and a.id = f.alert_id and a.enabled
        and (a.cooldown_seconds = 0 or a.last_triggered is null
          or a.last_triggered <= ${at}::timestamptz - make_interval(secs => a.cooldown_seconds))
        and (a.rate_mark is null
          or a.rate_mark <= ${at}::timestamptz + make_interval(secs => ${aheadSeconds}::float8))
      returning f.id as firing_id, a.owner, a.id, a.delivery_methods, a.config
    ), d as (
      -- One delivery per target (chat id, recipient, webhook) of each method: delivery/targets.ts.
      insert into ${alertDeliveries} (id, firing_id, owner, alert_id, method, target, status, attempts, created_at, updated_at)
      select gen_random_uuid()::text, t.firing_id, t.owner, t.id, unit.method, unit.target, 'pending', 0, ${at}::timestamptz, ${at}::timestamptz
      from t join m on m.firing_id = t.firing_id and not m.grouped::boolean
        ${deliveryUnitsSql(sql`t.delivery_methods`, sql`t.config`)}
      returning id, firing_id
    )
    select f.id as firing_id, f.owner, f.alert_id, t.firing_id is not null as taken,
      -- What held a firing, as the alert was before this statement; when that said neither, another
      -- instance fired the alert meanwhile (the update waited for it): its cooldown, if it has one.
      case when t.firing_id is not null then 'fired'
        when h.cooldown_seconds > 0
          and h.last_triggered > ${at}::timestamptz - make_interval(secs => h.cooldown_seconds) then 'cooldown'
        when h.rate_mark > ${at}::timestamptz + make_interval(secs => ${aheadSeconds}::float8) then 'rate_limited'
        when h.cooldown_seconds > 0 then 'cooldown'
        else 'rate_limited' end as status,
      coalesce((select json_agg(d.id) from d where d.firing_id = f.id), '[]'::json) as deliveries
    from f left join t on t.firing_id = f.id
      left join ${alerts} as h on h.owner = f.owner and h.id = f.alert_id`,
  );
  return rows.map((r) => ({
    firingId: r.firing_id,
    owner: r.owner,
    alertId: r.alert_id,
    taken: r.taken,
    status: r.status,
    deliveryIds: typeof r.deliveries === 'string' ? (JSON.parse(r.deliveries) as string[]) : r.deliveries,
  }));
}

/**
 * Locks the rows of `keys` in one order (owner, id), for the rest of the transaction. Firings of
 * several events that match the same alerts run at once (on one instance or several); each
 * updates every alert it fires, and rows locked in the order of each statement's plan deadlocked.
 * Taken in one order, the second waits for the first instead.
 */
export async function lockAlertRows(tx: Executor, keys: readonly AlertKey[]): Promise<void> {
  if (keys.length < 2) return;
  await tx.execute(sql`
    select 1 from ${alerts}
    where (owner, id) in (
      select * from unnest(${sql.param(keys.map((a) => a.owner))}::text[], ${sql.param(keys.map((a) => a.id))}::text[]))
    order by owner, id
    for no key update`);
}

/** Marks the firings that did not fire with what held them (one statement per status). */
export async function markFiringsHeld(
  db: Executor,
  held: ReadonlyArray<{ readonly firingId: string; readonly status: HeldStatus }>,
): Promise<void> {
  for (const status of ['cooldown', 'rate_limited'] as const) {
    const ids = held.filter((h) => h.status === status).map((h) => h.firingId);
    if (ids.length > 0) await db.update(alertFirings).set({ status }).where(inArray(alertFirings.id, ids));
  }
}

/**
 * Records the firings of `event` that deliver nothing and leave the alert's cooldown and rate bound
 * as they were: `silenced` (a silence or mute window holds it; `silencedBy` says which) and
 * `acknowledged` (its condition's episode was acknowledged). The unique (alert, event) index keeps
 * each once however many instances try; the inserted ones are answered.
 */
export async function insertHeldFirings<A extends AlertKey>(
  db: Executor,
  held: ReadonlyArray<{
    readonly alert: A;
    readonly status: 'silenced' | 'acknowledged';
    readonly silencedBy?: string;
  }>,
  event: AlertEvent,
  at: Date,
): Promise<Array<{ alert: A; firingId: string; status: 'silenced' | 'acknowledged' }>> {
  if (held.length === 0) return [];
  const wire = alertEventWire(event);
  const byKey = new Map(held.map((h) => [`${h.alert.owner}\u0000${h.alert.id}`, h]));
  const rows = await db
    .insert(alertFirings)
    .values(
      held.map((h) => ({
        id: randomUUID(),
        owner: h.alert.owner,
        alertId: h.alert.id,
        eventId: event.id,
        status: h.status,
        event: wire,
        firedAt: at,
        silencedBy: h.silencedBy ?? null,
      })),
    )
    .onConflictDoNothing()
    .returning({ owner: alertFirings.owner, id: alertFirings.alertId, firingId: alertFirings.id });
  return rows.map((r) => {
    const h = byKey.get(`${r.owner}\u0000${r.id}`)!;
    return { alert: h.alert, firingId: r.firingId, status: h.status };
  });
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
