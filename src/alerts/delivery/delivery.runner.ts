/**
 * Runs one delivery attempt and records it: the attempt row (method, status, response code,
 * latency, error), the delivery's state, and, when another attempt may succeed, the next job, all
 * in one transaction. Retries back off exponentially (5 s, 10 s, 20 s ... capped at 15 minutes,
 * with jitter), or wait what the receiver's Retry-After asked (capped at an hour); after
 * ALERT_DELIVERY_MAX_ATTEMPTS attempts the delivery is `failed`.
 */
import type { Clock } from '../../platform/clock.ts';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import type { Jobs } from '../../platform/jobs/jobs.ts';
import { StatementBatcher } from '../../platform/jobs/statement-batcher.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import type { AcceptanceJournal } from './acceptance-journal.ts';
import { deliverJob } from './delivery.jobs.ts';
import type { AttemptOutcome, Deliverer } from './delivery.model.ts';
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
 * How long the record of an attempt that did not deliver waits for those of other attempts ending
 * about then (attempts start together, one fetch and one claim, but end one by one). An accepted
 * attempt waits for nothing: until its record is written, a crash would send the message again.
 */
const RECORD_WINDOW_MS = 20;
/** How long an accepted attempt's record is retried when the database fails (a stop, a lost connection). */
const ACCEPTED_RECORD_RETRY_MS = 20_000;

export interface DeliveryRunnerOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly deliver: Deliverer;
  readonly maxAttempts: number;
  /** ALERT_DELIVERY_TIMEOUT_MS: the longest one attempt's exchange may take. */
  readonly attemptTimeoutMs: number;
  /** Jitter source (tests pin it). */
  readonly random?: () => number;
  /** Where acceptances are noted before their records (see acceptance-journal.ts); none: not noted. */
  readonly journal?: AcceptanceJournal;
}

/** What a run did: the delivery's new state, or `done` when there was nothing (more) to do. */
export type RunResult = 'delivered' | 'retrying' | 'failed' | 'done';

/** Where an attempt leaves its delivery. */
export interface AttemptVerdict {
  readonly status: 'delivered' | 'retrying' | 'failed';
  /** When the next attempt is due; null unless retrying. */
  readonly retryAt: Date | null;
  /** The error to record (bounded), null when delivered. */
  readonly error: string | null;
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

/**
 * The delivery's state after attempt `attempt` gave `outcome` at `now`: delivered; failed (for good,
 * or a retry past the last attempt); or retrying after the backoff.
 */
export function verdictOf(
  outcome: AttemptOutcome,
  attempt: number,
  { maxAttempts, now, random }: { maxAttempts: number; now: Date; random?: (() => number) | undefined },
): AttemptVerdict {
  if (outcome.status === 'delivered') return { status: 'delivered', retryAt: null, error: null };
  if (outcome.status === 'failed') return { status: 'failed', retryAt: null, error: truncate(outcome.error) };
  if (attempt >= maxAttempts) {
    return {
      status: 'failed',
      retryAt: null,
      error: truncate(`${outcome.error} (gave up after ${attempt} attempts)`),
    };
  }
  const wait = backoffMs(attempt, outcome.retryAfterMs, random);
  return { status: 'retrying', retryAt: new Date(now.getTime() + wait), error: truncate(outcome.error) };
}

export class DeliveryRunner {
  readonly #o: DeliveryRunnerOptions;
  readonly #running = new Set<AbortController>();
  readonly #claims: StatementBatcher<string, ClaimedDelivery | undefined>;
  readonly #records: StatementBatcher<AttemptRecord, undefined>;
  readonly #acceptances: StatementBatcher<AttemptRecord, undefined>;
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
    const record = async (records: readonly AttemptRecord[]) => {
      await recordAttempts(db, records);
      return records.map(() => undefined);
    };
    this.#records = new StatementBatcher(record, { max: BATCH_MAX, windowMs: RECORD_WINDOW_MS });
    // Only the acceptances ready in the same turn share a statement.
    this.#acceptances = new StatementBatcher(record, { max: BATCH_MAX, windowMs: 0 });
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

  async run(deliveryId: string): Promise<RunResult> {
    if (this.#stopped) return 'done';
    // Taking the delivery: only one attempt runs at a time, whichever jobs ask (a recovered one, a
    // retry); a claim older than an attempt can last was left by a worker that died. The claim and
    // the reads of the firing and its alert (which may have been deleted meanwhile) are one
    // statement, shared with the attempts that start at the same moment.
    const claimed = await this.#claims.run(deliveryId);
    if (!claimed) return 'done';
    const attempt = claimed.attempts + 1;
    const started = this.#o.clock.now();
    const outcome = await this.#attempt(claimed, attempt, started);
    // Stopping: the claim stays, and the attempt is made again once it is stale.
    if (outcome === 'stopped') return 'done';
    const now = this.#o.clock.now();
    const verdict = verdictOf(outcome, attempt, {
      maxAttempts: this.#o.maxAttempts,
      now,
      random: this.#o.random,
    });
    const record: AttemptRecord = {
      deliveryId,
      attempt,
      owner: claimed.owner,
      alertId: claimed.alertId,
      method: claimed.method,
      outcome: outcome.status,
      status: verdict.status,
      responseCode: outcome.responseCode,
      latencyMs: outcome.latencyMs,
      error: verdict.error,
      attemptedAt: started,
      updatedAt: now,
      nextAttemptAt: verdict.retryAt,
    };
    // The receiver has it: noted before anything else, so a crash from here on does not resend it.
    if (record.outcome === 'delivered') this.#o.journal?.note(record);
    await this.#record(record);
    this.#logAttempt(record);
    return verdict.status;
  }

  /** Records the acceptances noted locally that no record caught up with (after a crash); how many. */
  replayAcceptances(): Promise<number> {
    return this.#o.journal?.replay(this.#o.database.db) ?? Promise.resolve(0);
  }

  /** One attempt through the deliverer; a deliverer that throws has made an attempt worth retrying. */
  async #attempt(
    claimed: ClaimedDelivery,
    attempt: number,
    started: Date,
  ): Promise<AttemptOutcome | 'stopped'> {
    const { alert, firing } = claimed;
    if (!alert || !firing) {
      return { status: 'failed', responseCode: null, latencyMs: 0, error: 'the alert was deleted' };
    }
    const controller = new AbortController();
    this.#running.add(controller);
    let outcome: AttemptOutcome;
    try {
      outcome = await this.#o.deliver({
        deliveryId: claimed.id,
        attempt,
        method: claimed.method,
        target: claimed.target,
        alert,
        event: firing.event,
        test: firing.status === 'test',
        signal: controller.signal,
      });
    } catch (error) {
      // A channel's own bug or an unreadable secret: recorded like any failure, and retried.
      outcome = {
        status: 'retry',
        responseCode: null,
        latencyMs: this.#o.clock.now().getTime() - started.getTime(),
        error: (error as Error)?.message || String(error),
      };
    } finally {
      this.#running.delete(controller);
    }
    return this.#stopped ? 'stopped' : outcome;
  }

  /**
   * The attempt's record and the delivery's new state are one statement (shared with the attempts
   * that end at the same moment); a retry also enqueues its job, in the same transaction.
   */
  async #record(record: AttemptRecord): Promise<void> {
    if (record.outcome === 'delivered') {
      await this.#recordAccepted(record);
      return;
    }
    const startAfter = record.nextAttemptAt;
    if (!startAfter) {
      await this.#records.run(record);
      return;
    }
    await this.#o.database.db.transaction(async (tx) => {
      await recordAttempts(tx, [record]);
      await this.#o.jobs.send(deliverJob, { deliveryId: record.deliveryId }, { tx, startAfter });
    });
  }

  /**
   * The receiver has the message: its record is written at once, and tried again for a while if the
   * database fails, since an attempt left unrecorded is made again once its claim lapses.
   */
  async #recordAccepted(record: AttemptRecord): Promise<void> {
    const giveUpAt = performance.now() + ACCEPTED_RECORD_RETRY_MS;
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        await this.#acceptances.run(record);
        return;
      } catch (error) {
        if (this.#stopped || performance.now() + wait > giveUpAt) throw error;
        // The statement's text and values stay out of the log (they hold the record).
        const code = (error as { cause?: { code?: string } })?.cause?.code ?? null;
        this.#o.logger.warn(
          { deliveryId: record.deliveryId, code },
          'an accepted alert delivery could not be recorded yet; trying again',
        );
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  #logAttempt(record: AttemptRecord): void {
    const { deliveryId, alertId, method, attempt, status, responseCode, error } = record;
    this.#o.logger[status === 'failed' ? 'warn' : 'info'](
      { deliveryId, alertId, method, attempt, status, responseCode, error },
      'alert delivery attempt',
    );
  }
}

function truncate(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}
