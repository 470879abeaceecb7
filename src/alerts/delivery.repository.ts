/**
 * The two statements of a delivery attempt, each written for many deliveries at once (the runner
 * batches the attempts that happen together, see statement-batcher.ts): taking deliveries, with
 * their firing and alert, and recording attempts with the deliveries' new state.
 */
import { and, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import type { DeliveryMethod } from './alert.schema.ts';
import type { AlertRow } from './alert.view.ts';
import {
  alertDeliveries,
  alertDeliveryAttempts,
  alertFirings,
  alerts,
  type DeliveryStatus,
} from './alerts.sql.ts';

/** A delivery taken for an attempt; the firing or the alert is null when it was deleted meanwhile. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly owner: string;
  readonly alertId: string;
  readonly method: DeliveryMethod;
  readonly attempts: number;
  readonly firing: typeof alertFirings.$inferSelect | null;
  readonly alert: AlertRow | null;
}

/**
 * Takes the deliveries among `ids` that no attempt holds (pending or retrying, or held by a claim
 * from before `staleBefore`: its worker died), marking them `sending` at `claimedAt`, and reads each
 * one's firing and alert, in one statement. Deliveries not taken are absent from the answer.
 */
export async function claimDeliveries(
  db: Executor,
  ids: readonly string[],
  claimedAt: Date,
  staleBefore: Date,
): Promise<Map<string, ClaimedDelivery>> {
  const claimed = db.$with('claimed').as(
    db
      .update(alertDeliveries)
      .set({ status: 'sending', claimedAt })
      .where(
        and(
          // One array parameter: the statement's text is the same however many are claimed.
          sql`${alertDeliveries.id} = any(${sql.param([...ids])}::text[])`,
          or(
            inArray(alertDeliveries.status, ['pending', 'retrying']),
            and(eq(alertDeliveries.status, 'sending'), lt(alertDeliveries.claimedAt, staleBefore)),
          ),
        ),
      )
      .returning({
        id: alertDeliveries.id,
        firingId: alertDeliveries.firingId,
        owner: alertDeliveries.owner,
        alertId: alertDeliveries.alertId,
        method: alertDeliveries.method,
        attempts: alertDeliveries.attempts,
      }),
  );
  const rows = await db
    .with(claimed)
    .select({
      id: claimed.id,
      owner: claimed.owner,
      alertId: claimed.alertId,
      method: claimed.method,
      attempts: claimed.attempts,
      firing: alertFirings,
      alert: alerts,
    })
    .from(claimed)
    .leftJoin(alertFirings, eq(alertFirings.id, claimed.firingId))
    .leftJoin(alerts, and(eq(alerts.owner, alertFirings.owner), eq(alerts.id, alertFirings.alertId)));
  return new Map(rows.map((r) => [r.id, r]));
}

/** One attempt's record and the state its delivery moves to. */
export interface AttemptRecord {
  readonly deliveryId: string;
  readonly attempt: number;
  readonly owner: string;
  readonly alertId: string;
  readonly method: DeliveryMethod;
  /** What the attempt gave. */
  readonly outcome: 'delivered' | 'retry' | 'failed';
  /** The delivery's state after it. */
  readonly status: DeliveryStatus;
  readonly responseCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly attemptedAt: Date;
  readonly updatedAt: Date;
  readonly nextAttemptAt: Date | null;
}

/**
 * Stores the attempt rows (a repeated attempt number is kept as first written) and moves each
 * delivery to its new state, releasing its claim: one statement however many records. The records
 * travel as one JSON parameter, so the statement's text is the same for one record or fifty.
 */
export async function recordAttempts(db: Executor, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = JSON.stringify(
    records.map((r) => ({
      delivery_id: r.deliveryId,
      attempt: r.attempt,
      owner: r.owner,
      alert_id: r.alertId,
      method: r.method,
      outcome: r.outcome,
      status: r.status,
      response_code: r.responseCode,
      latency_ms: Math.max(0, Math.round(r.latencyMs)),
      error: r.error,
      attempted_at: r.attemptedAt.toISOString(),
      updated_at: r.updatedAt.toISOString(),
      next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
    })),
  );
  await db.execute(sql`
    with v as (
      select * from jsonb_to_recordset(${rows}::jsonb) as v(
        delivery_id text, attempt int, owner text, alert_id text, method text, outcome text,
        status text, response_code int, latency_ms int, error text, attempted_at timestamptz,
        updated_at timestamptz, next_attempt_at timestamptz)
    ), inserted as (
      insert into ${alertDeliveryAttempts}
        (delivery_id, attempt, owner, alert_id, method, status, response_code, latency_ms, error, attempted_at)
      select delivery_id, attempt, owner, alert_id, method, outcome, response_code, latency_ms, error, attempted_at
      from v
      on conflict do nothing
    )
    update ${alertDeliveries} as d set
      status = v.status, attempts = v.attempt, last_error = v.error, updated_at = v.updated_at,
      next_attempt_at = v.next_attempt_at, claimed_at = null
    from v where d.id = v.delivery_id`);
}
