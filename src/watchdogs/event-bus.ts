import type { Clock } from '../platform/clock.ts';
import { type DatabaseHandle, notify, type Transaction } from '../platform/db/database.ts';
import { AppError } from '../platform/errors.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { Severity } from './detectors/finding.ts';
import { EventIdGenerator, eventIdTime, isEventId, lowestEventIdAt } from './event-id.ts';
import {
  findWatchdogEvents,
  insertWatchdogEvent,
  listWatchdogEventsAfter,
  type WatchdogEvent,
} from './events.repository.ts';
import type { EventAsset } from './events.sql.ts';
import { eventsStored } from './events-stored.ts';
import type { EventType, WatchdogName } from './registry.ts';

/** Carries only event ids: a NOTIFY payload is small and bounded, the event itself is in its table. */
export const WATCHDOG_EVENTS_CHANNEL = 'vigil_watchdog_events';

export interface NewWatchdogEvent {
  readonly watchdog: WatchdogName;
  readonly eventType: EventType;
  readonly severity: Severity;
  readonly symbol: string | null;
  readonly asset: EventAsset | null;
  readonly description: string;
  readonly data: Record<string, unknown>;
  /** When the condition was seen; the bus's clock when absent. */
  readonly occurredAt?: Date;
}

export type WatchdogEventListener = (event: WatchdogEvent) => void | Promise<void>;

export interface WatchdogEventBusOptions {
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly logger: Logger;
  /** In-process listeners at once (each stream client or subscription holds one). */
  readonly maxListeners?: number;
  /** Events waiting for one listener; past it the oldest are dropped for that listener alone. */
  readonly maxQueuedPerListener?: number;
  /**
   * How far back, before the newest event heard, a reconnect looks again: a transaction that took
   * its id earlier may commit later, and clocks of instances differ a little.
   */
  readonly catchUpWindowMs?: number;
  /** Events replayed after one reconnect at most (an outage longer than that loses the rest). */
  readonly catchUpLimit?: number;
}

const LOAD_BATCH = 100;

/** One listener with its own queue, so a slow one falls behind alone. */
class ListenerSlot {
  readonly #queue: WatchdogEvent[] = [];
  #running = false;
  #dropped = 0;

  constructor(
    readonly listener: WatchdogEventListener,
    readonly max: number,
    readonly logger: Logger,
  ) {}

  push(event: WatchdogEvent): void {
    if (this.#queue.length >= this.max) {
      this.#queue.shift();
      if (this.#dropped++ === 0)
        this.logger.warn({ max: this.max }, 'watchdog event listener too slow; dropping');
    }
    this.#queue.push(event);
    if (!this.#running) void this.#run();
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      for (let event = this.#queue.shift(); event; event = this.#queue.shift()) {
        try {
          await this.listener(event);
        } catch (error) {
          this.logger.warn({ err: error, eventId: event.id }, 'watchdog event listener failed');
        }
      }
      this.#dropped = 0;
    } finally {
      this.#running = false;
    }
  }
}

/**
 * Watchdog events, stored and announced in one transaction, heard on every instance. Publishing
 * writes the row and a NOTIFY of its id; Postgres delivers the NOTIFY on commit only, to every
 * instance including this one, and each instance then loads the row and hands it to its in-process
 * listeners. After the notification connection reconnects, events newer than the last one heard
 * are read from the table, so a subscriber misses nothing that was committed meanwhile.
 */
export class WatchdogEventBus {
  readonly #database: DatabaseHandle;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #ids: EventIdGenerator;
  readonly #maxListeners: number;
  readonly #maxQueued: number;
  readonly #catchUpWindowMs: number;
  readonly #catchUpLimit: number;
  readonly #listeners = new Set<ListenerSlot>();
  /** Ids already delivered (a catch-up overlaps the live feed); bounded, oldest forgotten first. */
  readonly #delivered = new Set<string>();
  readonly #maxDelivered: number;
  #pending: string[] = [];
  #work: Promise<void> = Promise.resolve();
  #draining = false;
  /** The newest id delivered, or the lowest id of the moment listening began. */
  #mark: string | undefined;
  /** Nothing older is replayed: a listener hears events from when the bus started. */
  #startMark: string | undefined;
  #unlisten: (() => Promise<void>) | undefined;

  constructor(options: WatchdogEventBusOptions) {
    this.#database = options.database;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#ids = new EventIdGenerator(options.clock);
    this.#maxListeners = options.maxListeners ?? 1_000;
    this.#maxQueued = options.maxQueuedPerListener ?? 1_000;
    this.#catchUpWindowMs = options.catchUpWindowMs ?? 60_000;
    this.#catchUpLimit = options.catchUpLimit ?? 10_000;
    this.#maxDelivered = Math.max(10_000, this.#catchUpLimit);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  /**
   * Stores the event in `tx` and announces it when (and only if) `tx` commits; the listeners of
   * stored events (events-stored.ts) write what follows from it in `tx` as well.
   */
  async publish(tx: Transaction, input: NewWatchdogEvent): Promise<WatchdogEvent> {
    const now = this.#clock.now();
    const event = await insertWatchdogEvent(tx, {
      id: this.#ids.next(),
      watchdog: input.watchdog,
      eventType: input.eventType,
      severity: input.severity,
      symbol: input.symbol,
      asset: input.asset,
      description: input.description,
      data: input.data,
      occurredAt: input.occurredAt ?? now,
      createdAt: now,
    });
    await notify(tx, WATCHDOG_EVENTS_CHANNEL, event.id);
    await eventsStored(this.#database, tx, [event]);
    return event;
  }

  /** `listener` hears every committed event from any instance, from now on. Returns the unsubscribe. */
  subscribe(listener: WatchdogEventListener): () => void {
    if (this.#listeners.size >= this.#maxListeners) {
      throw new AppError('SUBSCRIPTION_LIMIT', 'too many listeners on watchdog events', {
        limit: this.#maxListeners,
      });
    }
    const slot = new ListenerSlot(listener, this.#maxQueued, this.#logger);
    this.#listeners.add(slot);
    return () => {
      this.#listeners.delete(slot);
    };
  }

  async start(): Promise<void> {
    if (this.#unlisten) return;
    this.#unlisten = await this.#database.listen(
      WATCHDOG_EVENTS_CHANNEL,
      (payload) => this.#heard(payload),
      () => {
        if (this.#mark === undefined) {
          this.#mark = lowestEventIdAt(this.#clock.now().getTime());
          this.#startMark = this.#mark;
        } else this.#schedule(() => this.#catchUp());
      },
    );
  }

  /** Stops listening and waits for the events being loaded (listeners' queues are not awaited). */
  async stop(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.();
    this.#pending = [];
    await this.#work;
    this.#listeners.clear();
  }

  #heard(payload: string): void {
    if (!isEventId(payload)) {
      this.#logger.warn('ignored a malformed watchdog event notification');
      return;
    }
    this.#pending.push(payload);
    if (this.#draining) return;
    this.#draining = true;
    this.#schedule(() => this.#drain());
  }

  /** Loads and delivers in the order heard, one step at a time, so a catch-up and the live feed never interleave. */
  #schedule(task: () => Promise<void>): void {
    this.#work = this.#work.then(task).catch((error: unknown) => {
      this.#logger.warn({ err: error }, 'could not load watchdog events');
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const ids = this.#pending.splice(0, LOAD_BATCH).filter((id) => !this.#delivered.has(id));
        const events = await findWatchdogEvents(this.#database.db, ids);
        for (const event of events) this.#deliver(event);
      }
    } finally {
      this.#draining = false;
    }
  }

  async #catchUp(): Promise<void> {
    const mark = this.#mark ?? lowestEventIdAt(this.#clock.now().getTime());
    const windowStart = lowestEventIdAt(eventIdTime(mark) - this.#catchUpWindowMs);
    let after = this.#startMark && this.#startMark > windowStart ? this.#startMark : windowStart;
    let replayed = 0;
    let read = 0;
    while (read < this.#catchUpLimit) {
      const batch = Math.min(LOAD_BATCH * 10, this.#catchUpLimit - read);
      const events = await listWatchdogEventsAfter(this.#database.db, after, batch);
      read += events.length;
      for (const event of events) if (this.#deliver(event)) replayed++;
      if (events.length < batch) break;
      after = events.at(-1)!.id;
    }
    this.#logger.info({ replayed }, 'watchdog event notifications resumed; caught up');
  }

  /** Hands an event to every listener once; false when it was delivered already. */
  #deliver(event: WatchdogEvent): boolean {
    if (this.#delivered.has(event.id)) return false;
    this.#delivered.add(event.id);
    if (this.#delivered.size > this.#maxDelivered) {
      this.#delivered.delete(this.#delivered.values().next().value!);
    }
    if (this.#mark === undefined || event.id > this.#mark) this.#mark = event.id;
    for (const slot of this.#listeners) slot.push(event);
    return true;
  }
}
