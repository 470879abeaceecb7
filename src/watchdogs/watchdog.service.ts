import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { SEVERITIES, type Severity } from './detectors/finding.ts';
import { EMPTY_REARM_STATE } from './detectors/rearm.ts';
import type { WatchdogEventBus, WatchdogEventListener } from './event-bus.ts';
import {
  type EventFilter,
  type EventQueryInput,
  matchesEventFilter,
  parseEventQuery,
} from './event-filter.ts';
import { isEventId } from './event-id.ts';
import { type ReplayRequest, type ReplayResult, replayQuery } from './event-replay.ts';
import {
  countWatchdogEventsBySeverity,
  deleteWatchdogEventsBefore,
  type EventPage,
  findWatchdogEvents,
  queryWatchdogEvents,
  replayWatchdogEvents,
  type WatchdogEvent,
} from './events.repository.ts';
import { type EventsStoredListener, onEventsStored } from './events-stored.ts';
import { watchdogStatus } from './health.ts';
import type { WatchdogName } from './registry.ts';
import type { WatchdogRunner } from './runner.ts';
import {
  bumpWatchdogState,
  findWatchdogState,
  listWatchdogStates,
  updateWatchdogState,
  type WatchdogState,
} from './states.repository.ts';
import type { DashboardStats, WatchdogHealth, WatchdogsApi } from './watchdogs-api.ts';

export interface WatchdogServiceOptions {
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly bus: WatchdogEventBus;
  readonly runner: WatchdogRunner;
  readonly eventRetentionDays: number;
  /** What the checks watch (WATCHDOG_SYMBOLS, WATCHDOG_CORRELATION_PAIRS); nothing when left out. */
  readonly watched?: WatchedSubjects;
}

/** The symbols and pairs the watchdogs' checks read, as configured. */
export interface WatchedSubjects {
  readonly symbols: readonly string[];
  readonly pairs: readonly (readonly [string, string])[];
}

/** A health record starting over (enable, restart): the times of the last check and event stay. */
const FRESH_COUNTERS = {
  checks: 0,
  events: 0,
  errors: 0,
  consecutiveFailures: 0,
  lastChecked: 0,
  lastGaps: 0,
  lastError: null,
} as const;

/** Statistics are counted at most this often (a dashboard polls them; a count scans an index). */
const STATS_TTL_MS = 2_000;

/**
 * The watchdogs domain as the surfaces see it: health from the shared state rows, operator
 * commands persisted there (so every instance obeys them from its next check), events from the
 * store and the live feed.
 */
export class WatchdogService implements WatchdogsApi {
  /** The runner's watchdogs (the registry's, in its order). */
  readonly names: readonly WatchdogName[];
  readonly #o: WatchdogServiceOptions;
  #stats:
    | { at: number; value: Promise<Omit<DashboardStats, 'activeSubscriptions' | 'timestamp'>> }
    | undefined;

  constructor(options: WatchdogServiceOptions) {
    this.#o = options;
    this.names = options.runner.names;
  }

  get listenerCount(): number {
    return this.#o.bus.listenerCount;
  }

  /** Hears the events of every instance (the dashboard stream, subscriptions and alerts read them). */
  async startFeed(): Promise<void> {
    await this.#o.bus.start();
  }

  /** Schedules this instance's share of the checks (when WATCHDOGS_RUN) and runs the first ones. */
  async startChecks(): Promise<void> {
    await this.#o.runner.start();
  }

  /** Both, in order (what an instance that needs no quick readiness does). */
  async start(): Promise<void> {
    await this.startFeed();
    await this.startChecks();
  }

  async stop(): Promise<void> {
    this.#o.runner.stop();
    await this.#o.bus.stop();
  }

  async health(): Promise<WatchdogHealth[]> {
    const rows = await listWatchdogStates(this.#o.database.db);
    const byName = new Map(rows.map((r) => [r.name, r]));
    const now = this.#o.clock.now();
    return this.names.map((name) => this.#health(name, byName.get(name), now));
  }

  async healthOf(name: string): Promise<WatchdogHealth> {
    const known = this.#known(name);
    const row = await findWatchdogState(this.#o.database.db, known);
    return this.#health(known, row, this.#o.clock.now());
  }

  async setEnabled(name: string, enabled: boolean, by: string): Promise<WatchdogHealth> {
    const known = this.#known(name);
    await this.#o.runner.ensureStates();
    const now = this.#o.clock.now();
    await this.#o.database.db.transaction(async (tx) => {
      const row = await findWatchdogState(tx, known, true);
      if (!row || row.enabled === enabled) return;
      // Re-enabling starts a new watch: the health counts from now, and a check that was running
      // when it was disabled does not land (generation).
      await updateWatchdogState(tx, known, {
        enabled,
        updatedBy: by,
        ...(enabled ? { since: now, generation: row.generation + 1, ...FRESH_COUNTERS } : {}),
      });
    });
    this.#stats = undefined;
    this.#o.logger.info({ watchdog: known, enabled, by }, enabled ? 'watchdog enabled' : 'watchdog disabled');
    if (enabled) await this.#o.runner.runSoon(known);
    return this.healthOf(known);
  }

  async restart(name: string, by: string): Promise<WatchdogHealth> {
    const known = this.#known(name);
    await this.#o.runner.ensureStates();
    const now = this.#o.clock.now();
    await bumpWatchdogState(this.#o.database.db, known, {
      enabled: true,
      since: now,
      updatedBy: by,
      rearm: EMPTY_REARM_STATE,
      ...FRESH_COUNTERS,
    });
    this.#stats = undefined;
    this.#o.logger.info({ watchdog: known, by }, 'watchdog restarted');
    await this.#o.runner.runSoon(known);
    return this.healthOf(known);
  }

  /** What the checks watch: the symbols (each check keeps those its data covers) and the pairs. */
  watched(): WatchedSubjects {
    return this.#o.watched ?? { symbols: [], pairs: [] };
  }

  async stats(): Promise<DashboardStats> {
    const nowMs = this.#o.clock.now().getTime();
    if (!this.#stats || nowMs - this.#stats.at >= STATS_TTL_MS) {
      const value = this.#countStats();
      this.#stats = { at: nowMs, value };
      value.catch(() => {
        if (this.#stats?.value === value) this.#stats = undefined;
      });
    }
    const counted = await this.#stats.value;
    return { ...counted, activeSubscriptions: this.listenerCount, timestamp: new Date(nowMs) };
  }

  events(query: EventQueryInput): Promise<EventPage> {
    return queryWatchdogEvents(this.#o.database.db, parseEventQuery(query));
  }

  replayEvents(request: ReplayRequest, filter: EventFilter): Promise<ReplayResult> {
    return replayWatchdogEvents(this.#o.database.db, replayQuery(request, filter));
  }

  async event(id: string): Promise<WatchdogEvent | null> {
    if (!isEventId(id)) return null;
    const [found] = await findWatchdogEvents(this.#o.database.db, [id]);
    return found ?? null;
  }

  /**
   * `listener` runs inside every transaction that stores events (see events-stored.ts), before the
   * events are announced; returns the removal. For the composition root, not the surfaces.
   */
  onEventsStored(listener: EventsStoredListener): () => void {
    return onEventsStored(this.#o.database, listener);
  }

  subscribe(filter: EventFilter, listener: WatchdogEventListener): () => void {
    return this.#o.bus.subscribe((event) =>
      matchesEventFilter(event, filter) ? listener(event) : undefined,
    );
  }

  /** Deletes events older than the retention period; returns how many. */
  deleteExpiredEvents(): Promise<number> {
    const cutoff = new Date(this.#o.clock.now().getTime() - this.#o.eventRetentionDays * 86_400_000);
    return deleteWatchdogEventsBefore(this.#o.database.db, cutoff);
  }

  async #countStats(): Promise<Omit<DashboardStats, 'activeSubscriptions' | 'timestamp'>> {
    const [bySeverity, watchdogs] = await Promise.all([
      countWatchdogEventsBySeverity(this.#o.database.db),
      this.health(),
    ]);
    const eventsBySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
    for (const { severity, n } of bySeverity) eventsBySeverity[severity] = n;
    return {
      totalEvents: Object.values(eventsBySeverity).reduce((a, b) => a + b, 0),
      eventsBySeverity,
      activeWatchdogs: watchdogs.filter((w) => w.enabled).length,
      healthyWatchdogs: watchdogs.filter((w) => w.status === 'running').length,
    };
  }

  #known(name: string): WatchdogName {
    const known = this.names.find((n) => n === name);
    if (known === undefined) throw new NotFoundError('watchdog', name);
    return known;
  }

  #health(name: WatchdogName, row: WatchdogState | undefined, now: Date): WatchdogHealth {
    const definition = this.#o.runner.definition(name);
    const intervalMs = definition.intervalMs;
    const state = row ?? {
      enabled: true,
      since: now,
      lastCheckAt: null,
      consecutiveFailures: 0,
      lastGaps: 0,
    };
    const status = watchdogStatus(state, intervalMs, now);
    const lastCheck = row?.lastCheckAt ?? null;
    return {
      name,
      description: definition.description,
      enabled: state.enabled,
      // Checking on schedule (however well): the same clock as `status`, so the two never disagree.
      running: status !== 'disabled' && status !== 'stopped',
      status,
      intervalSeconds: intervalMs / 1_000,
      lastCheck,
      lastCheckMs: row?.lastCheckMs ?? null,
      lastEvent: row?.lastEventAt ?? null,
      checks: row?.checks ?? 0,
      events: row?.events ?? 0,
      errors: row?.errors ?? 0,
      consecutiveFailures: state.consecutiveFailures,
      lastChecked: row?.lastChecked ?? 0,
      lastGaps: state.lastGaps,
      lastError: row?.lastError ?? null,
      since: state.since,
      updatedBy: row?.updatedBy ?? null,
    };
  }
}
