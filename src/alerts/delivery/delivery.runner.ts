/**
 * Runs one delivery attempt and records it: the attempt row (method, status, response code,
 * latency, error), the delivery's state, and, when another attempt may succeed, the next job, all
 * in one transaction (retry.rules.ts says when). An attempt goes only when the gates let it
 * (delivery-gates.ts: the instance's workers, the owner's share, the destination's health);
 * otherwise its delivery is given back as `held`, and the dispatcher (delivery.dispatcher.ts)
 * takes it again when its turn comes.
 */
import type { Clock } from '../../platform/clock.ts';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import type { Jobs } from '../../platform/jobs/jobs.ts';
import { StatementBatcher } from '../../platform/jobs/statement-batcher.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import { noticeOfStored } from '../notice.wire.ts';
import type { AcceptanceJournal } from './acceptance-journal.ts';
import { DeliveryDispatcher } from './delivery.dispatcher.ts';
import { DELIVERY_CONCURRENCY, deliverJob } from './delivery.jobs.ts';
import type { DeliveryObserver } from './delivery.metrics.ts';
import type { AttemptOutcome, Deliverer } from './delivery.model.ts';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  claimDeliveries,
  type HeldDelivery,
  holdDeliveries,
  recordAttempts,
} from './delivery.repository.ts';
import { DeliveryGates } from './delivery-gates.ts';
import { DestinationHealth, type DestinationSignal } from './destination-health.ts';
import { destinationSignal } from './outcome.ts';
import { verdictOf } from './retry.rules.ts';
import { destinationOf } from './targets.ts';

/** Claims or records in one statement at most. */
const BATCH_MAX = 64;
/**
 * How long a record waits for those of other attempts ending about then (attempts start together,
 * one fetch and one claim, but end one by one). An accepted attempt waits only when it was noted
 * in the journal first: until then, or its record, a crash would send the message again.
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
  /** ALERT_DELIVERY_OWNER_CONCURRENCY: attempts one owner may have under way here. */
  readonly ownerConcurrency?: number;
  /** Attempts this instance runs at once (the delivery queue's worker slots). */
  readonly maxInFlight?: number;
  /** Told of attempts, ends and holds (delivery.metrics.ts). */
  readonly observer?: DeliveryObserver;
}

/**
 * What a run did: the delivery's new state; `held` when it was given back unattempted (its
 * owner's share or the instance's workers were taken, or its destination is paused); `done` when
 * there was nothing (more) to do.
 */
export type RunResult = 'delivered' | 'retrying' | 'failed' | 'held' | 'done';

/** A delivery held this long for its destination (paused all along) fails instead. */
export const MAX_HELD_MS = 24 * 3_600_000;

/** How long an attempt toward a proven receiver may wait for a worker before its delivery is held. */
const SLOT_WAIT_MS = 500;

/** The default share of one owner: a quarter of the workers. */
export const DEFAULT_OWNER_CONCURRENCY = 16;

export class DeliveryRunner {
  readonly #o: DeliveryRunnerOptions;
  readonly #running = new Set<AbortController>();
  readonly #claims: StatementBatcher<string, ClaimedDelivery | undefined>;
  readonly #records: StatementBatcher<AttemptRecord, undefined>;
  readonly #acceptances: StatementBatcher<AttemptRecord, undefined>;
  readonly #holds: StatementBatcher<HeldDelivery, undefined>;
  readonly #gates: DeliveryGates;
  readonly #dispatcher: DeliveryDispatcher;
  #stopped = false;

  constructor(options: DeliveryRunnerOptions) {
    this.#o = options;
    const db = options.database.db;
    const health = new DestinationHealth({
      now: () => options.clock.now().getTime(),
      ...(options.random ? { random: options.random } : {}),
    });
    this.#gates = new DeliveryGates({
      maxInFlight: options.maxInFlight ?? DELIVERY_CONCURRENCY,
      ownerConcurrency: options.ownerConcurrency ?? DEFAULT_OWNER_CONCURRENCY,
      health,
    });
    this.#dispatcher = new DeliveryDispatcher({
      database: options.database,
      clock: options.clock,
      logger: options.logger,
      gates: this.#gates,
      staleClaimMs: this.staleClaimMs,
      run: (id) => this.run(id),
    });
    this.#gates.onTurn = () => this.#dispatcher.wake();
    this.#holds = new StatementBatcher(
      async (held) => {
        await holdDeliveries(db, held);
        return held.map(() => undefined);
      },
      { max: BATCH_MAX },
    );
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
    // Noted first (the journal outlives a kill), an acceptance's record may wait for company like
    // the others; without a journal only the acceptances ready in the same turn share a statement.
    this.#acceptances = new StatementBatcher(record, {
      max: BATCH_MAX,
      windowMs: options.journal?.enabled ? RECORD_WINDOW_MS : 0,
    });
  }

  /** How long an attempt may hold a delivery before it counts as abandoned (its worker died). */
  get staleClaimMs(): number {
    return 2 * this.#o.attemptTimeoutMs + 30_000;
  }

  /** The fairness of this instance's workers (owners' shares, destinations' health). */
  get gates(): DeliveryGates {
    return this.#gates;
  }

  /** Starts taking the deliveries no job brings (held, lost, abandoned): delivery.dispatcher.ts. */
  start(): void {
    this.#dispatcher.start();
  }

  /**
   * Ends the attempts under way: their claims stay, and the next sweep (on this instance's next
   * start, or another instance's minute) resumes them once stale.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const controller of this.#running) controller.abort(new Error('the instance is stopping'));
    await this.#dispatcher.stop();
  }

  async run(deliveryId: string): Promise<RunResult> {
    if (this.#stopped) return 'done';
    // Taking the delivery: only one attempt runs at a time, whichever jobs ask (a recovered one, a
    // retry); a claim older than an attempt can last was left by a worker that died. The claim and
    // the reads of the firing and its alert (which may have been deleted meanwhile) are one
    // statement, shared with the attempts that start at the same moment.
    const claimed = await this.#claims.run(deliveryId);
    if (!claimed) return 'done';
    const { alert } = claimed;
    const destination = alert ? destinationOf(alert, claimed.method, claimed.target) : null;
    const slot = await this.#gates.admitSoon(claimed.owner, destination, SLOT_WAIT_MS);
    if (!slot.go && slot.reason === 'destination' && this.#heldTooLong(claimed)) {
      return this.#giveUp(claimed, destination);
    }
    if (!slot.go) {
      // Given back without an attempt: the dispatcher takes it again when its turn comes.
      const until = slot.until === null ? null : new Date(slot.until);
      await this.#holds.run({ deliveryId, destination, until, claimedAt: claimed.claimedAt });
      this.#o.observer?.held(slot.reason);
      return 'held';
    }
    let signal: DestinationSignal = 'none';
    try {
      const result = await this.#attemptAndRecord(claimed, destination);
      signal = result.signal;
      return result.status;
    } finally {
      this.#gates.settle(slot, signal);
    }
  }

  async #attemptAndRecord(
    claimed: ClaimedDelivery,
    destination: string | null,
  ): Promise<{ status: RunResult; signal: DestinationSignal }> {
    const deliveryId = claimed.id;
    const attempt = claimed.attempts + 1;
    const started = this.#o.clock.now();
    const outcome = await this.#attempt(claimed, attempt, started);
    // Stopping: the claim stays, and the attempt is made again once it is stale.
    if (outcome === 'stopped') return { status: 'done', signal: 'none' };
    const signal = outcome.thrown ? 'none' : destinationSignal(claimed.method, outcome);
    const now = this.#o.clock.now();
    // A redelivered delivery's budget counts from its redelivery (its earlier attempts stay recorded).
    const verdict = verdictOf(outcome, attempt - claimed.roundStart, {
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
      destination,
    };
    // The receiver has it: noted before anything else, so a crash from here on does not resend it.
    if (record.outcome === 'delivered') this.#o.journal?.note(record);
    await this.#record(record);
    this.#observe(record);
    this.#logAttempt(record);
    return { status: verdict.status, signal };
  }

  /** Held for its destination since it was stored MAX_HELD_MS ago: it fails rather than wait on. */
  #heldTooLong(claimed: ClaimedDelivery): boolean {
    return this.#o.clock.now().getTime() - claimed.createdAt.getTime() > MAX_HELD_MS;
  }

  async #giveUp(claimed: ClaimedDelivery, destination: string | null): Promise<RunResult> {
    const now = this.#o.clock.now();
    const record: AttemptRecord = {
      deliveryId: claimed.id,
      attempt: claimed.attempts + 1,
      owner: claimed.owner,
      alertId: claimed.alertId,
      method: claimed.method,
      outcome: 'failed',
      status: 'failed',
      responseCode: null,
      latencyMs: 0,
      error: `its destination has kept failing for ${MAX_HELD_MS / 3_600_000} hours; not sent`,
      attemptedAt: now,
      updatedAt: now,
      nextAttemptAt: null,
      destination,
    };
    await this.#records.run(record);
    this.#observe(record);
    this.#logAttempt(record);
    return 'failed';
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
  ): Promise<(AttemptOutcome & { thrown?: true }) | 'stopped'> {
    const { alert, firing } = claimed;
    if (!alert || !firing) {
      return { status: 'failed', responseCode: null, latencyMs: 0, error: 'the alert was deleted' };
    }
    const controller = new AbortController();
    this.#running.add(controller);
    let outcome: AttemptOutcome & { thrown?: true };
    try {
      outcome = await this.#o.deliver({
        deliveryId: claimed.id,
        attempt,
        method: claimed.method,
        target: claimed.target,
        alert,
        event: firing.event,
        test: firing.status === 'test',
        notice: noticeOfStored(firing.kind, firing.notice, firing.event, alert),
        signal: controller.signal,
      });
    } catch (error) {
      // A channel's own bug or an unreadable secret: recorded like any failure, and retried (it
      // says nothing of the destination).
      outcome = {
        thrown: true,
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

  #observe(record: AttemptRecord): void {
    const observer = this.#o.observer;
    if (!observer) return;
    observer.attempted(record.method, record.outcome);
    if (record.status === 'delivered' || record.status === 'failed')
      observer.finished(record.method, record.status);
  }

  #logAttempt(record: AttemptRecord): void {
    const { deliveryId, alertId, method, attempt, status, responseCode, error } = record;
    this.#o.logger[status === 'failed' ? 'warn' : 'info'](
      { deliveryId, alertId, method, attempt, status, responseCode, error },
      'alert delivery attempt',
    );
  }
}
