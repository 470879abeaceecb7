/**
 * The deliveries' statements. The two of an attempt are each written for many deliveries at once
 * (the runner batches the attempts that happen together, see statement-batcher.ts): taking
 * deliveries, with their firing and alert, and recording attempts with the deliveries' new state.
 * Beside them: the targets a firing stores deliveries for, the sweep's search for deliveries to
 * resume, a test-send's record, and the record an owner reads.
 */
import { and, desc, eq, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/database.ts';
import { queryRows } from '../../platform/db/raw.ts';
import type { Alert, AlertKey, DeliveryMethod } from '../alert.model.ts';
import type { AlertEvent } from '../alert-event.model.ts';
import { alertEventOfStored } from '../alert-event.wire.ts';
import { alertOfRow } from '../alerts.repository.ts';
import {
  alertDeliveries,
  alertDeliveryAttempts,
  alertFirings,
  alerts,
  type DeliveryStatus,
  type FiringKind,
  type FiringStatus,
} from '../alerts.sql.ts';
import type { AttemptStatus, DeliveryAttempt } from './delivery.model.ts';
import { roundStartSql } from './redelivery.repository.ts';
import { DISCORD_TARGET, PAGERDUTY_TARGET, SLACK_TARGET, TEAMS_TARGET } from './targets.ts';

/**
 * The delivery units of an alert that fired, as a lateral join over its row: `methods` is its
 * `delivery_methods`, `config` its stored `config`. Gives `unit(method, target)`: one row per chat
 * id, email recipient, webhook and Alertmanager URL, Slack, Discord and Teams webhook of each method (each once), or one with a null target for a
 * method without configuration (its delivery then fails, naming what is missing). targets.ts says
 * the same in TypeScript.
 */
export function deliveryUnitsSql(methods: SQL, config: SQL): SQL {
  return sql`cross join lateral (
    select um.method, ut.target
    from jsonb_array_elements_text(${methods}) as um(method)
    left join lateral (
      select distinct target from (
        select jsonb_array_elements_text(${config}->'chat_config'->'chat_ids') where um.method = 'chat'
        union all
        select jsonb_array_elements_text(${config}->'email_config'->'to_emails') where um.method = 'email'
        union all
        select ${config}->'webhook_config'->>'url' where um.method = 'webhook'
        union all
        select ${SLACK_TARGET}::text
          where um.method = 'slack' and jsonb_typeof(${config}->'slack_config') = 'object'
        union all
        select ${DISCORD_TARGET}::text
          where um.method = 'discord' and jsonb_typeof(${config}->'discord_config') = 'object'
        union all
        select ${TEAMS_TARGET}::text
          where um.method = 'teams' and jsonb_typeof(${config}->'teams_config') = 'object'
        union all
        select ${PAGERDUTY_TARGET}::text
          where um.method = 'pagerduty' and jsonb_typeof(${config}->'pagerduty_config') = 'object'
        union all
        select ${config}->'alertmanager_config'->>'url' where um.method = 'alertmanager'
      ) as targets(target)
      where target is not null
    ) as ut on true
  ) as unit`;
}

/** A delivery taken for an attempt; the firing or the alert is null when it was deleted meanwhile. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly owner: string;
  readonly alertId: string;
  readonly method: DeliveryMethod;
  /** Null on deliveries stored before deliveries were per target (every target of the method). */
  readonly target: string | null;
  /** Attempts made before this one. */
  readonly attempts: number;
  /** Attempts made before its current round (0 unless it was redelivered: redelivery.repository.ts). */
  readonly roundStart: number;
  /** When it was taken (its claim; giving it back unattempted checks it is still this one). */
  readonly claimedAt: Date;
  /** When it was stored (its firing), or put back by a redelivery. */
  readonly createdAt: Date;
  readonly firing: {
    readonly status: FiringStatus;
    readonly kind: FiringKind;
    readonly event: AlertEvent;
    /** A notice firing's own data (notice.wire.ts); null for the firing of an event. */
    readonly notice: Readonly<Record<string, unknown>> | null;
  } | null;
  readonly alert: Alert | null;
}

/**
 * Takes the deliveries among `ids` that no attempt holds (pending, retrying or held, or claimed
 * before `staleBefore`: its worker died), marking them `sending` at `claimedAt`, and reads each
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
            inArray(alertDeliveries.status, ['pending', 'retrying', 'held']),
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
        target: alertDeliveries.target,
        attempts: alertDeliveries.attempts,
        createdAt: alertDeliveries.createdAt,
        roundStart: roundStartSql(sql`${alertDeliveries.id}`, sql`${alertDeliveries.createdAt}`).as(
          'round_start',
        ),
      }),
  );
  const rows = await db
    .with(claimed)
    .select({
      id: claimed.id,
      owner: claimed.owner,
      alertId: claimed.alertId,
      method: claimed.method,
      target: claimed.target,
      attempts: claimed.attempts,
      roundStart: claimed.roundStart,
      createdAt: claimed.createdAt,
      firing: alertFirings,
      alert: alerts,
    })
    .from(claimed)
    .leftJoin(alertFirings, eq(alertFirings.id, claimed.firingId))
    .leftJoin(alerts, and(eq(alerts.owner, alertFirings.owner), eq(alerts.id, alertFirings.alertId)));
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        owner: r.owner,
        alertId: r.alertId,
        method: r.method,
        target: r.target,
        attempts: r.attempts,
        roundStart: Number(r.roundStart),
        claimedAt,
        createdAt: r.createdAt,
        firing: r.firing && {
          status: r.firing.status,
          kind: r.firing.kind,
          event: alertEventOfStored(r.firing.event),
          notice: r.firing.notice,
        },
        alert: r.alert && alertOfRow(r.alert),
      },
    ]),
  );
}

/** One attempt's record and the state its delivery moves to. */
export interface AttemptRecord {
  readonly deliveryId: string;
  readonly attempt: number;
  readonly owner: string;
  readonly alertId: string;
  readonly method: DeliveryMethod;
  /** What the attempt gave. */
  readonly outcome: AttemptStatus;
  /** The delivery's state after it. */
  readonly status: DeliveryStatus;
  readonly responseCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly attemptedAt: Date;
  readonly updatedAt: Date;
  readonly nextAttemptAt: Date | null;
  /** Where it went (see destination-health.ts); null keeps the delivery's. */
  readonly destination?: string | null;
}

/**
 * Stores the attempt rows (a repeated attempt number is kept as first written) and moves each
 * delivery to its new state, releasing its claim: one statement however many records. The records
 * travel as one JSON parameter, so the statement's text is the same for one record or fifty.
 */
export async function recordAttempts(db: Executor, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db.execute(sql`
    with v as (${recordsSql(records)}), inserted as (
      insert into ${alertDeliveryAttempts}
        (delivery_id, attempt, owner, alert_id, method, status, response_code, latency_ms, error, attempted_at)
      select delivery_id, attempt, owner, alert_id, method, outcome, response_code, latency_ms, error, attempted_at
      from v
      on conflict do nothing
    )
    update ${alertDeliveries} as d set
      status = v.status, attempts = v.attempt, last_error = v.error, updated_at = v.updated_at,
      next_attempt_at = v.next_attempt_at, claimed_at = null,
      destination = coalesce(v.destination, d.destination)
    from v where d.id = v.delivery_id`);
}

/** A delivery taken and given back without an attempt: held until `until` (null: when its turn comes). */
export interface HeldDelivery {
  readonly deliveryId: string;
  readonly destination: string | null;
  readonly until: Date | null;
  readonly claimedAt: Date;
}

/**
 * Gives deliveries back unattempted, as `held` (their owner's share was taken, or their destination
 * is paused): the dispatcher takes them again when their turn comes (`dueDeliveries`). Only the
 * claim being given back is released. One statement however many.
 */
export async function holdDeliveries(db: Executor, held: readonly HeldDelivery[]): Promise<void> {
  if (held.length === 0) return;
  const rows = JSON.stringify(
    held.map((h) => ({
      id: h.deliveryId,
      destination: h.destination,
      until: h.until?.toISOString() ?? null,
      claimed_at: h.claimedAt.toISOString(),
    })),
  );
  await db.execute(sql`
    with v as (
      select * from jsonb_to_recordset(${rows}::jsonb)
        as v(id text, destination text, until timestamptz, claimed_at timestamptz)
    )
    update ${alertDeliveries} as d set
      status = 'held', claimed_at = null, destination = coalesce(v.destination, d.destination),
      next_attempt_at = coalesce(v.until, d.next_attempt_at)
    from v where d.id = v.id and d.status = 'sending' and d.claimed_at = v.claimed_at`);
}

/**
 * Deliveries the dispatcher may take now, oldest due first, `limit` in all: held ones that are due,
 * claims older than `staleBefore` (their worker died), and pending or retrying ones due before
 * `lostBefore` (no job took them: their job was lost, or they wait in a backlog). Of each owner at
 * most its allowance (`owners[i]` may start `allowed[i]` more, any other `perOwner`); deliveries
 * to the destinations given (paused) are left out.
 */
export async function dueDeliveries(
  db: Executor,
  o: {
    readonly now: Date;
    readonly lostBefore: Date;
    readonly staleBefore: Date;
    readonly limit: number;
    readonly perOwner: number;
    readonly owners: readonly string[];
    readonly allowed: readonly number[];
    readonly skipDestinations: readonly string[];
  },
): Promise<string[]> {
  if (o.limit <= 0) return [];
  const due = sql`coalesce(${alertDeliveries.nextAttemptAt}, ${alertDeliveries.createdAt})`;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`
    select id from (
      select id, owner, due, row_number() over (partition by owner order by due) as rank
      from (
        select ${alertDeliveries.id} as id, ${alertDeliveries.owner} as owner, ${due} as due
        from ${alertDeliveries}
        where (
          (${alertDeliveries.status} = 'held' and ${due} <= ${o.now.toISOString()}::timestamptz)
          or (${alertDeliveries.status} in ('pending', 'retrying')
            and ${due} <= ${o.lostBefore.toISOString()}::timestamptz)
          or (${alertDeliveries.status} = 'sending'
            and ${alertDeliveries.claimedAt} < ${o.staleBefore.toISOString()}::timestamptz)
        )
          and (${alertDeliveries.destination} is null
            or not (${alertDeliveries.destination} = any(${sql.param([...o.skipDestinations])}::text[])))
        order by ${due}
        limit ${o.limit * 20}
      ) as candidates
    ) as ranked
    left join unnest(${sql.param([...o.owners])}::text[], ${sql.param([...o.allowed])}::int[])
      as allowance(owner, allowed) using (owner)
    where rank <= coalesce(allowance.allowed, ${o.perOwner})
    order by due
    limit ${o.limit}`,
  );
  return rows.map((r) => r.id);
}

/**
 * Records accepted attempts noted locally (acceptance-journal.ts) that no record caught up with:
 * those of deliveries not delivered whose recorded attempts are fewer. Returns how many.
 */
export async function recordJournaledAcceptances(
  db: Executor,
  records: readonly AttemptRecord[],
): Promise<number> {
  if (records.length === 0) return 0;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`
    with v as (${recordsSql(records)}), late as (
      select distinct on (v.delivery_id) v.*
      from v join ${alertDeliveries} as d on d.id = v.delivery_id
      where d.status <> 'delivered' and d.attempts < v.attempt
      order by v.delivery_id, v.attempt
    ), inserted as (
      insert into ${alertDeliveryAttempts}
        (delivery_id, attempt, owner, alert_id, method, status, response_code, latency_ms, error, attempted_at)
      select delivery_id, attempt, owner, alert_id, method, outcome, response_code, latency_ms, error, attempted_at
      from late
      on conflict do nothing
    )
    update ${alertDeliveries} as d set
      status = 'delivered', attempts = late.attempt, last_error = null, updated_at = late.updated_at,
      next_attempt_at = null, claimed_at = null
    from late where d.id = late.delivery_id
    returning d.id`,
  );
  return rows.length;
}

/** Attempt records as rows, from one JSON parameter: the text is the same for one record or fifty. */
function recordsSql(records: readonly AttemptRecord[]): SQL {
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
      destination: r.destination ?? null,
    })),
  );
  return sql`select * from jsonb_to_recordset(${rows}::jsonb) as v(
    delivery_id text, attempt int, owner text, alert_id text, method text, outcome text,
    status text, response_code int, latency_ms int, error text, attempted_at timestamptz,
    updated_at timestamptz, next_attempt_at timestamptz, destination text)`;
}

/**
 * Deliveries whose attempt or job was lost with its instance: a claim from before `staleBefore`
 * (its worker died), a retry due before `lostBefore`, or a new delivery created before it whose
 * job nobody took. At most `limit` of them.
 */
export async function deliveriesToResume(
  db: Executor,
  { staleBefore, lostBefore, limit }: { staleBefore: Date; lostBefore: Date; limit: number },
): Promise<string[]> {
  const rows = await db
    .select({ id: alertDeliveries.id })
    .from(alertDeliveries)
    .where(
      or(
        and(eq(alertDeliveries.status, 'sending'), lt(alertDeliveries.claimedAt, staleBefore)),
        and(eq(alertDeliveries.status, 'retrying'), lt(alertDeliveries.nextAttemptAt, lostBefore)),
        and(
          eq(alertDeliveries.status, 'pending'),
          isNull(alertDeliveries.nextAttemptAt),
          lt(alertDeliveries.createdAt, lostBefore),
        ),
      ),
    )
    .limit(limit);
  return rows.map((r) => r.id);
}

/** A delivery made of one attempt, ended (a test-send's): the delivery and its attempt row. */
export interface FinishedDelivery {
  readonly id: string;
  readonly firingId: string;
  readonly alert: AlertKey;
  readonly method: DeliveryMethod;
  readonly target: string | null;
  readonly outcome: AttemptStatus;
  readonly responseCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly startedAt: Date;
  readonly endedAt: Date;
}

/** Two statements: run it in a transaction. */
export async function insertFinishedDelivery(db: Executor, d: FinishedDelivery): Promise<void> {
  await db.insert(alertDeliveries).values({
    id: d.id,
    firingId: d.firingId,
    owner: d.alert.owner,
    alertId: d.alert.id,
    method: d.method,
    target: d.target,
    status: d.outcome === 'delivered' ? 'delivered' : 'failed',
    attempts: 1,
    lastError: d.error,
    createdAt: d.startedAt,
    updatedAt: d.endedAt,
  });
  await db.insert(alertDeliveryAttempts).values({
    deliveryId: d.id,
    attempt: 1,
    owner: d.alert.owner,
    alertId: d.alert.id,
    method: d.method,
    status: d.outcome,
    responseCode: d.responseCode,
    latencyMs: Math.max(0, Math.round(d.latencyMs)),
    error: d.error,
    attemptedAt: d.startedAt,
  });
}

/** The attempts of one alert, newest first, each with its delivery's target and event. */
export async function listAttempts(db: Executor, alert: AlertKey, limit: number): Promise<DeliveryAttempt[]> {
  const t = alertDeliveryAttempts;
  const rows = await db
    .select({
      attempt: t,
      target: alertDeliveries.target,
      event: alertFirings.event,
    })
    .from(t)
    .leftJoin(alertDeliveries, eq(alertDeliveries.id, t.deliveryId))
    .leftJoin(alertFirings, eq(alertFirings.id, alertDeliveries.firingId))
    .where(and(eq(t.owner, alert.owner), eq(t.alertId, alert.id)))
    .orderBy(desc(t.attemptedAt), desc(t.attempt))
    .limit(limit);
  return rows.map(({ attempt: r, target, event }) => ({
    deliveryId: r.deliveryId,
    attempt: r.attempt,
    method: r.method,
    target,
    event: event && { id: event.event_id, type: event.type, watchdog: event.watchdog },
    status: r.status,
    responseCode: r.responseCode,
    latencyMs: r.latencyMs,
    error: r.error,
    attemptedAt: r.attemptedAt,
  }));
}

/** The deliveries not yet delivered or failed: how many in each status, and the oldest one's age. */
export interface DeliveryQueue {
  readonly byStatus: Partial<Record<'pending' | 'retrying' | 'sending' | 'held', number>>;
  readonly oldestSeconds: number;
}

export async function deliveryQueue(db: Executor, now: Date): Promise<DeliveryQueue> {
  const rows = await db
    .select({
      status: alertDeliveries.status,
      n: sql<number>`count(*)::int`,
      oldest: sql<string | null>`min(${alertDeliveries.createdAt})::text`,
    })
    .from(alertDeliveries)
    .where(inArray(alertDeliveries.status, ['pending', 'retrying', 'sending', 'held']))
    .groupBy(alertDeliveries.status);
  const byStatus: Record<string, number> = {};
  let oldest = Number.POSITIVE_INFINITY;
  for (const r of rows) {
    byStatus[r.status] = r.n;
    const at = r.oldest ? Date.parse(r.oldest) : Number.NaN;
    if (!Number.isNaN(at)) oldest = Math.min(oldest, at);
  }
  return {
    byStatus,
    oldestSeconds: Number.isFinite(oldest) ? Math.max(0, (now.getTime() - oldest) / 1_000) : 0,
  };
}
