/**
 * The deliveries no job brings to a worker: those held (their owner's share of the workers was
 * taken, their destination paused), those whose worker died (a lapsed claim), and pending or
 * retrying ones whose job was lost or has waited LOST_MS in a backlog. One query per pass, taking
 * as many as this instance has workers free, at most an owner's share per owner, leaving out owners
 * whose share is taken and paused destinations; each is then run like a job's. A pass runs every
 * second, and soon after an owner frees a slot or a pause ends.
 */
import type { Clock } from '../../platform/clock.ts';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import { dueDeliveries } from './delivery.repository.ts';
import type { DeliveryGates } from './delivery-gates.ts';

const INTERVAL_MS = 1_000;
/** Passes asked for meanwhile wait this long after the last one. */
const MIN_GAP_MS = 50;
/** A pending or retrying delivery due this long ago has no job that will take it soon. */
export const LOST_MS = 30_000;

export interface DeliveryDispatcherOptions {
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly gates: DeliveryGates;
  readonly staleClaimMs: number;
  /** Runs one delivery as a job would. */
  readonly run: (deliveryId: string) => Promise<unknown>;
}

export class DeliveryDispatcher {
  readonly #o: DeliveryDispatcherOptions;
  readonly #runs = new Set<Promise<unknown>>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #passing: Promise<void> | undefined;
  #again = false;
  /** The last pass took deliveries. */
  #found = false;
  #lastPass = 0;
  #started = false;
  #stopped = false;

  constructor(options: DeliveryDispatcherOptions) {
    this.#o = options;
  }

  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#schedule(0);
  }

  /** A pass soon (held deliveries may have a turn). */
  wake(): void {
    if (!this.#started || this.#stopped) return;
    if (this.#passing) {
      this.#again = true;
      return;
    }
    this.#schedule(Math.max(0, this.#lastPass + MIN_GAP_MS - performance.now()));
  }

  /** No pass from now on; resolves once the runs it started have ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#passing;
    await Promise.allSettled([...this.#runs]);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#pass(), ms);
    this.#timer.unref?.();
  }

  async #pass(): Promise<void> {
    if (this.#stopped || this.#passing) return;
    this.#passing = this.#take().catch((error: unknown) => {
      const code = (error as { cause?: { code?: string } })?.cause?.code ?? null;
      this.#o.logger.warn({ code }, 'alert deliveries: the dispatcher could not look for due deliveries');
    });
    await this.#passing;
    this.#passing = undefined;
    this.#lastPass = performance.now();
    if (this.#stopped) return;
    const { health } = this.#o.gates;
    const opening = health.nextOpening();
    const untilOpening = opening === undefined ? INTERVAL_MS : opening - this.#o.clock.now().getTime();
    // A pass that found work is followed by another soon (a backlog drains); one that did not waits.
    const busy = this.#again || this.#found;
    const next = busy ? MIN_GAP_MS : Math.max(MIN_GAP_MS, Math.min(INTERVAL_MS, untilOpening));
    this.#again = false;
    this.#schedule(next);
  }

  async #take(): Promise<void> {
    this.#found = false;
    const { gates } = this.#o;
    const limit = gates.free;
    if (limit === 0) return;
    const now = this.#o.clock.now();
    const { owners, allowed, otherwise } = gates.allowances();
    const ids = await dueDeliveries(this.#o.database.db, {
      now,
      lostBefore: new Date(now.getTime() - LOST_MS),
      staleBefore: new Date(now.getTime() - this.#o.staleClaimMs),
      limit,
      owners,
      allowed,
      perOwner: otherwise,
      skipDestinations: gates.health.blocked(),
    });
    this.#found = ids.length > 0;
    for (const id of ids) {
      if (this.#stopped) return;
      const run = this.#o.run(id).catch((error: unknown) => {
        const code = (error as { cause?: { code?: string } })?.cause?.code ?? null;
        this.#o.logger.warn({ deliveryId: id, code }, 'alert delivery failed to run');
      });
      this.#runs.add(run);
      void run.finally(() => this.#runs.delete(run));
    }
  }
}
