/**
 * Runs one delivery attempt and records it: the attempt row (method, status, response code,
 * latency, error), the delivery's state, and, when another attempt may succeed, the next job, all
 * in one transaction. Retries back off exponentially (5 s, 10 s, 20 s ... capped at 15 minutes,
 * with jitter), or wait what the receiver's Retry-After asked (capped at an hour); after
 * ALERT_DELIVERY_MAX_ATTEMPTS attempts the delivery is `failed`.
 */
import { and, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { DeliveryMethod } from './alert.schema.ts';
import type { AlertService } from './alert.service.ts';
import type { AlertRow } from './alert.view.ts';
import { alertDeliveries, alertDeliveryAttempts, alertFirings, alerts } from './alerts.sql.ts';
import { deliverJob } from './delivery.jobs.ts';

export const BASE_BACKOFF_MS = 5_000;
export const MAX_BACKOFF_MS = 15 * 60_000;
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
const MAX_ERROR_CHARS = 1_000;

export type AttemptOutcome =
  | { readonly status: 'delivered'; readonly responseCode: number | null; readonly latencyMs: number }
  | {
      readonly status: 'retry';
      readonly responseCode: number | null;
      readonly latencyMs: number;
      readonly error: string;
      readonly retryAfterMs?: number;
    }
  | {
      readonly status: 'failed';
      readonly responseCode: number | null;
      readonly latencyMs: number;
      readonly error: string;
    };

export interface AttemptRequest {
  readonly deliveryId: string;
  readonly attempt: number;
  readonly method: DeliveryMethod;
  readonly alert: AlertRow;
  readonly event: Record<string, unknown>;
  readonly test: boolean;
  /** Aborted when the instance stops: the attempt ends at once and is not recorded. */
  readonly signal?: AbortSignal;
}

/** Sends one attempt by one method (the adapters in delivery/); never throws for a failed delivery. */
export type Deliverer = (request: AttemptRequest) => Promise<AttemptOutcome>;

export interface DeliveryRunnerOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly alerts: AlertService;
  readonly deliver: Deliverer;
  readonly maxAttempts: number;
  /** ALERT_DELIVERY_TIMEOUT_MS: the longest one attempt's exchange may take. */
  readonly attemptTimeoutMs: number;
  /** Jitter source (tests pin it). */
  readonly random?: () => number;
}

/** Delay before attempt `attempt + 1` after `attempt` failed (1-based). */
export function backoffMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs > 0) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  const base = Math.min(BASE_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  // ±20 %: receivers that came back are not hit by every sender at the same instant.
  return Math.round(base * (0.8 + 0.4 * random()));
}

export class DeliveryRunner {
  readonly #o: DeliveryRunnerOptions;
  readonly #running = new Set<AbortController>();
  #stopped = false;

  constructor(options: DeliveryRunnerOptions) {
    this.#o = options;
  }

  /** How long an attempt may hold a delivery before it counts as abandoned (its worker died). */
  get staleClaimMs(): number {
    return 2 * this.#o.attemptTimeoutMs + 30_000;
  }

  /**
   * Ends the attempts under way: their claims stay, and the next sweep (on this instance's next
   * start, or another instance's minute) resumes them once stale.
   */
  stop(): void {
    this.#stopped = true;
    for (const controller of this.#running) controller.abort(new Error('the instance is stopping'));
  }

  async run(deliveryId: string): Promise<'delivered' | 'retrying' | 'failed' | 'done'> {
    if (this.#stopped) return 'done';
    const db = this.#o.database.db;
    const claimedAt = this.#o.clock.now();
    // Taking the delivery: only one attempt runs at a time, whichever jobs ask (a recovered one, a
    // retry); a claim older than an attempt can last was left by a worker that died.
    const [delivery] = await db
      .update(alertDeliveries)
      .set({ status: 'sending', claimedAt })
      .where(
        and(
          eq(alertDeliveries.id, deliveryId),
          or(
            inArray(alertDeliveries.status, ['pending', 'retrying']),
            and(
              eq(alertDeliveries.status, 'sending'),
              lt(alertDeliveries.claimedAt, new Date(claimedAt.getTime() - this.staleClaimMs)),
            ),
          ),
        ),
      )
      .returning();
    if (!delivery) return 'done';
    // The firing and its alert in one round trip (the alert may have been deleted meanwhile).
    const [found] = await db
      .select({ firing: alertFirings, alert: alerts })
      .from(alertFirings)
      .leftJoin(alerts, and(eq(alerts.owner, alertFirings.owner), eq(alerts.id, alertFirings.alertId)))
      .where(eq(alertFirings.id, delivery.firingId));
    const firing = found?.firing;
    const alert = found?.alert ?? undefined;
    const attempt = delivery.attempts + 1;
    const started = this.#o.clock.now();
    let outcome: AttemptOutcome;
    if (!alert || !firing) {
      outcome = { status: 'failed', responseCode: null, latencyMs: 0, error: 'the alert was deleted' };
    } else {
      const controller = new AbortController();
      this.#running.add(controller);
      try {
        outcome = await this.#o.deliver({
          deliveryId,
          attempt,
          method: delivery.method,
          alert,
          event: firing.event,
          test: firing.status === 'test',
          signal: controller.signal,
        });
      } catch (error) {
        // An adapter's own bug or an unreadable secret: recorded like any failure, and retried.
        outcome = {
          status: 'retry',
          responseCode: null,
          latencyMs: this.#o.clock.now().getTime() - started.getTime(),
          error: (error as Error)?.message || String(error),
        };
      } finally {
        this.#running.delete(controller);
      }
      if (this.#stopped) return 'done';
    }
    const exhausted = outcome.status === 'retry' && attempt >= this.#o.maxAttempts;
    const status =
      outcome.status === 'delivered'
        ? 'delivered'
        : outcome.status === 'failed' || exhausted
          ? 'failed'
          : 'retrying';
    const now = this.#o.clock.now();
    const next =
      status === 'retrying'
        ? new Date(
            now.getTime() +
              backoffMs(
                attempt,
                outcome.status === 'retry' ? outcome.retryAfterMs : undefined,
                this.#o.random,
              ),
          )
        : null;
    const error =
      'error' in outcome
        ? truncate(exhausted ? `${outcome.error} (gave up after ${attempt} attempts)` : outcome.error)
        : null;
    await db.transaction(async (tx) => {
      await tx
        .insert(alertDeliveryAttempts)
        .values({
          deliveryId,
          attempt,
          owner: delivery.owner,
          alertId: delivery.alertId,
          method: delivery.method,
          status: outcome.status,
          responseCode: outcome.responseCode,
          latencyMs: Math.max(0, Math.round(outcome.latencyMs)),
          error,
          attemptedAt: started,
        })
        .onConflictDoNothing();
      await tx
        .update(alertDeliveries)
        .set({
          status,
          attempts: attempt,
          lastError: error,
          updatedAt: now,
          nextAttemptAt: next,
          claimedAt: null,
        })
        .where(eq(alertDeliveries.id, deliveryId));
      if (next) await this.#o.jobs.send(deliverJob, { deliveryId }, { tx, startAfter: next });
    });
    const log = status === 'failed' ? 'warn' : 'info';
    this.#o.logger[log](
      {
        deliveryId,
        alertId: delivery.alertId,
        method: delivery.method,
        attempt,
        status,
        responseCode: outcome.responseCode,
        error,
      },
      'alert delivery attempt',
    );
    return status;
  }
}

/** Deliveries recovered per sweep at most (the rest wait for the next minute). */
const RECOVER_BATCH = 500;

export async function recoverDeliveries(
  runner: DeliveryRunner,
  o: Pick<DeliveryRunnerOptions, 'database' | 'jobs' | 'clock' | 'logger'>,
): Promise<number> {
  const now = o.clock.now().getTime();
  const stale = new Date(now - runner.staleClaimMs);
  // A due retry whose job has not run a minute after its time was lost with its instance.
  const lost = new Date(now - LOST_JOB_MS);
  const rows = await o.database.db
    .select({ id: alertDeliveries.id })
    .from(alertDeliveries)
    .where(
      or(
        and(eq(alertDeliveries.status, 'sending'), lt(alertDeliveries.claimedAt, stale)),
        and(eq(alertDeliveries.status, 'retrying'), lt(alertDeliveries.nextAttemptAt, lost)),
        and(
          eq(alertDeliveries.status, 'pending'),
          isNull(alertDeliveries.nextAttemptAt),
          lt(alertDeliveries.createdAt, lost),
        ),
      ),
    )
    .limit(RECOVER_BATCH);
  for (const { id } of rows) await o.jobs.send(deliverJob, { deliveryId: id });
  if (rows.length > 0) o.logger.info({ deliveries: rows.length }, 'alert deliveries resumed');
  return rows.length;
}

/** A due delivery whose job has not taken it this long after it was due is re-sent. */
export const LOST_JOB_MS = 2 * 60_000;

function truncate(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}
