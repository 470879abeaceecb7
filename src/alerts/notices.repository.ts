/**
 * A notice's firing and its deliveries (episode.model.ts): a group's notification, an episode or
 * group that resolved, an acknowledgement. Like an event's firing, a notice is a row of
 * alert_firings, unique per (alert, event id), so however many instances send it, it is stored
 * and delivered once; its deliveries go to the alert's targets as an event's do (one per target),
 * or only to those of some methods (an acknowledgement goes to PagerDuty alone).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import { queryRows } from '../platform/db/raw.ts';
import type { AlertKey, DeliveryMethod } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { alertEventWire } from './alert-event.wire.ts';
import { alertDeliveries, alertFirings, alerts } from './alerts.sql.ts';
import { deliveryUnitsSql } from './delivery/delivery.repository.ts';
import type { Notice } from './episode.model.ts';
import { storedNotice } from './notice.wire.ts';

export interface NoticeFiring {
  readonly alert: AlertKey;
  /** Unique per alert: `group:<group id>:<n>`, `resolved:<episode id>`, `ack:<episode id>` ... */
  readonly eventId: string;
  /** The event it is about (a group's newest, an episode's last). */
  readonly event: AlertEvent;
  readonly notice: Exclude<Notice, { kind: 'event' }>;
  readonly at: Date;
  readonly episodeId?: string | null;
  readonly groupId?: string | null;
  /** Only the targets of these methods; all of the alert's when absent. */
  readonly methods?: readonly DeliveryMethod[];
}

/**
 * Stores the notice's firing and one pending delivery per target, unless it is stored already;
 * answers the deliveries stored (their jobs are the caller's to send, in the same transaction).
 */
export async function insertNotice(tx: Executor, n: NoticeFiring): Promise<string[]> {
  const at = n.at.toISOString();
  const methods = n.methods ? [...n.methods] : null;
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`
    with f as (
      insert into ${alertFirings} (id, owner, alert_id, event_id, status, kind, event, fired_at, episode_id, group_id, notice)
      select ${randomUUID()}, a.owner, a.id, ${n.eventId}, 'fired', ${n.notice.kind},
        ${JSON.stringify(alertEventWire(n.event))}::jsonb, ${at}::timestamptz, ${n.episodeId ?? null}, ${n.groupId ?? null},
        ${JSON.stringify(storedNotice(n.notice))}::jsonb
      from ${alerts} as a where a.owner = ${n.alert.owner} and a.id = ${n.alert.id}
      on conflict do nothing
      returning id, owner, alert_id
    ), t as (
      select f.id as firing_id, a.owner, a.id, a.delivery_methods, a.config
      from f join ${alerts} as a on a.owner = f.owner and a.id = f.alert_id
    )
    insert into ${alertDeliveries} (id, firing_id, owner, alert_id, method, target, status, attempts, created_at, updated_at)
    select gen_random_uuid()::text, t.firing_id, t.owner, t.id, unit.method, unit.target, 'pending', 0, ${at}::timestamptz, ${at}::timestamptz
    from t ${deliveryUnitsSql(sql`t.delivery_methods`, sql`t.config`)}
    where ${methods === null} or unit.method = any(${sql.param(methods ?? [])}::text[])
    returning id`,
  );
  return rows.map((r) => r.id);
}
