/**
 * Runs one delivery attempt and records it: the attempt row (method, status, response code,
 * latency, error), the delivery's state, and, when another attempt may succeed, the next job, all
 * in one transaction. Retries back off exponentially (5 s, 10 s, 20 s ... capped at 15 minutes,
 * with jitter), or wait what the receiver's Retry-After asked (capped at an hour); after
 * ALERT_DELIVERY_MAX_ATTEMPTS attempts the delivery is `failed`.
 */
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import { StatementBatcher } from '../platform/jobs/statement-batcher.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { DeliveryMethod } from './alert.schema.ts';
import type { AlertService } from './alert.service.ts';
import type { AlertRow } from './alert.view.ts';
import { deliverJob } from './delivery.jobs.ts';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  claimDeliveries,
  recordAttempts,
} from './delivery.repository.ts';

export const BASE_BACKOFF_MS = 5_000;
export const MAX_BACKOFF_MS = 15 * 60_000;
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
const MAX_ERROR_CHARS = 1_000;
/** Claims or records in one statement at most. */
const BATCH_MAX = 64;
/**
 * How long a record waits for those of other attempts ending about then. Attempts start together
 * (one fetch, one claim) but end one by one, as their receivers answer; the receiver already has
 * the message, so the wait only holds the job's slot a little longer.
 */
const RECORD_WINDOW_MS = 20;

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
  readonly #claims: StatementBatcher<string, ClaimedDelivery | undefined>;
  readonly #records: StatementBatcher<AttemptRecord, undefined>;
  #stopped = false;

  constructor(options: DeliveryRunnerOptions) {
    this.#o = options;
    const db = options.database.db;
    this.#claims = new StatementBatcher(
      async (ids) => {
        const claimedAt = this.#o.clock.now();
        const staleBefore = new Date(claimedAt.getTime() - this.staleClaimMs);
        const found = await claimDeliveries(db, ids, claimedAt, staleBefore);
        // Two jobs of one delivery in the same batch (a recovered job beside its original): the
        // first takes it, the other finds it taken, as it would have in a statement of its own.
        return ids.map((id) => {
          const claimed = found.get(id);
          found.delete(id);
          return claimed;
        });
      },
      { max: BATCH_MAX },
    );
    this.#records = new StatementBatcher(
      async (records) => {
        await recordAttempts(db, records);
        return records.map(() => undefined);
      },
      { max: BATCH_MAX, windowMs: RECORD_WINDOW_MS },
    );
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
    // Taking the delivery: only one attempt runs at a time, whichever jobs ask (a recovered one, a
    // retry); a claim older than an attempt can last was left by a worker that died. The claim and
    // the reads of the firing and its alert (which may have been deleted meanwhile) are one
    // statement, shared with the attempts that start at the same moment.
    const found = await this.#claims.run(deliveryId);
    if (!found) return 'done';
    const { alert, firing } = found;
    const attempt = found.attempts + 1;
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
          method: found.method,
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
    const record: AttemptRecord = {
      deliveryId,
      attempt,
      owner: found.owner,
      alertId: found.alertId,
      method: found.method,
      outcome: outcome.status,
      status,
      responseCode: outcome.responseCode,
      latencyMs: outcome.latencyMs,
      error,
      attemptedAt: started,
      updatedAt: now,
      nextAttemptAt: next,
    };
    // The attempt's record and the delivery's new state are one statement (shared with the attempts
    // that end at the same moment); a retry also enqueues its job, in the same transaction.
    if (next) {
      await this.#o.database.db.transaction(async (tx) => {
        await recordAttempts(tx, [record]);
        await this.#o.jobs.send(deliverJob, { deliveryId }, { tx, startAfter: next });
      });
    } else {
      await this.#records.run(record);
    }
    const log = status === 'failed' ? 'warn' : 'info';
    this.#o.logger[log](
      {
        deliveryId,
        alertId: found.alertId,
        method: found.method,
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

function truncate(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}
