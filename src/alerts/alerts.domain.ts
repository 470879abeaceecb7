/**
 * The alerts domain as the surfaces and the module see it: the store (AlertService), firing on
 * watchdog events, delivery attempts, and test-sends.
 */
import type { Principal } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle, Executor } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { WatchdogDomainEventListener } from '../watchdogs/watchdog-event.ts';
import type { AlertService } from './alert.service.ts';
import type { ConditionEvaluator } from './conditions.ts';
import { deliverJob } from './delivery/delivery.jobs.ts';
import type { Deliverer, TestSendResult } from './delivery/delivery.model.ts';
import { recoverDeliveries } from './delivery/delivery.recovery.ts';
import type { DeliveryRunner, RunResult } from './delivery/delivery.runner.ts';
import { type Redelivery, redeliver } from './delivery/redelivery.ts';
import { testSend } from './delivery/test-send.ts';
import type { AlertEpisodes } from './episodes.service.ts';
import { fireJob } from './firing.jobs.ts';
import type { AlertFiring } from './firing.ts';
import { FiringRecord } from './firing-record.service.ts';
import type { AlertGroups } from './groups.service.ts';
import { SilenceService } from './silence.service.ts';
import type { ThresholdEvaluator } from './thresholds.ts';

/** The watchdogs' event feed: the only thing alerts need of the watchdogs. Returns the unsubscribe. */
export type EventSource = (listener: WatchdogDomainEventListener) => () => void;

export interface AlertsDomainOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly store: AlertService;
  readonly firing: AlertFiring;
  readonly runner: DeliveryRunner;
  readonly deliver: Deliverer;
  /** The deliverer's kept HTTP connections, closed once the running jobs have ended. */
  readonly connections?: { close(): Promise<void> };
  readonly events: EventSource;
  readonly thresholds: ThresholdEvaluator;
  readonly conditions: ConditionEvaluator;
  /** Acknowledging and resolving, and the episodes' sweep (episodes.service.ts). */
  readonly episodes: AlertEpisodes;
  /** Grouped alerts' notifications (groups.service.ts). */
  readonly groups: AlertGroups;
}

export class AlertsDomain {
  readonly #o: AlertsDomainOptions;
  #stop: (() => void) | undefined;
  #silences: SilenceService | undefined;
  #firingRecord: FiringRecord | undefined;

  constructor(options: AlertsDomainOptions) {
    this.#o = options;
  }

  get store(): AlertService {
    return this.#o.store;
  }

  /** Silences (silence.service.ts): rows the firings read in their own transactions. */
  get silences(): SilenceService {
    this.#silences ??= new SilenceService({ db: this.#o.database.db, clock: this.#o.clock });
    return this.#silences;
  }

  /** Acknowledging and resolving episodes (episodes.service.ts). */
  get episodes(): AlertEpisodes {
    return this.#o.episodes;
  }

  /** The record of firings and episodes, and acknowledging or resolving one (firing-record.service.ts). */
  get firingRecord(): FiringRecord {
    this.#firingRecord ??= new FiringRecord({
      db: this.#o.database.db,
      clock: this.#o.clock,
      store: this.#o.store,
      episodes: this.episodes,
    });
    return this.#firingRecord;
  }

  /**
   * Listens to watchdog events (every instance does): each one heard has its firing job taken at
   * once (see firing.ts; the firing table makes each event fire an alert once).
   */
  async start(): Promise<void> {
    await this.#o.jobs.ensureQueue(deliverJob);
    await this.#o.jobs.ensureQueue(fireJob);
    await this.recoverDeliveries();
    this.#o.runner.start();
    this.#stop ??= this.#o.events((event) => this.#o.firing.heard(event.id));
  }

  /** In the transaction that stores watchdog events (the composition root wires it): their firing jobs. */
  eventsStored(tx: Executor, events: readonly { readonly id: string }[]): Promise<void> {
    return this.#o.firing.enqueue(tx, events);
  }

  /** The firing job of one stored watchdog event. */
  fireStoredEvent(eventId: string): Promise<number> {
    return this.#o.firing.fireStored(eventId);
  }

  async stop(): Promise<void> {
    this.#stop?.();
    this.#stop = undefined;
    await this.#o.runner.stop();
  }

  /** After the running jobs ended: the kept connections to receivers are closed. */
  async release(): Promise<void> {
    await this.#o.connections?.close();
  }

  /**
   * One round of the scheduled triggers (the minute job): price and volume thresholds, due custom
   * conditions; with them, episodes past their resolve timeout end, and group notifications a lost
   * job left due are sent.
   */
  async evaluateScheduled(): Promise<number> {
    const [thresholds, conditions] = await Promise.all([
      this.#o.thresholds.evaluate(),
      this.#o.conditions.evaluate(),
      this.recoverDeliveries(),
      this.#o.episodes.sweep(),
      this.#o.groups.sweep(),
    ]);
    return thresholds + conditions;
  }

  /** A grouped alert's group notification, when due (its job). */
  flushGroup(groupId: string): Promise<void> {
    return this.#o.groups.flush(groupId);
  }

  /**
   * Re-sends the jobs of deliveries whose attempt was cut short (its worker died: the claim went
   * stale) or whose due retry was never taken; runs at start and with every minute job.
   */
  recoverDeliveries(): Promise<number> {
    return recoverDeliveries(this.#o.runner, this.#o);
  }

  runDelivery(deliveryId: string): Promise<RunResult> {
    return this.#o.runner.run(deliveryId);
  }

  /**
   * Delivers a sample event through each of the caller's alert's methods now, even when the alert
   * is disabled and whatever its cooldown, and answers with one result per method (see test-send.ts).
   */
  async testSend(principal: Principal, id: string): Promise<TestSendResult[]> {
    return testSend(this.#o, await this.#o.store.get(principal, id));
  }

  /**
   * Puts the caller's alert's failed delivery `deliveryId` back in the queue (or every failed one):
   * new attempts of the same deliveries, through the same runner (see redelivery.ts).
   */
  async redeliver(principal: Principal, id: string, deliveryId?: string): Promise<Redelivery> {
    return redeliver(this.#o, await this.#o.store.get(principal, id), deliveryId);
  }
}
