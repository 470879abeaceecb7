/**
 * Runs the watchdogs: once per interval across every instance, on whichever instance takes the job.
 *
 * Scheduling. Every instance that runs watchdogs proposes, for each watchdog and each interval
 * slot (`floor(now / interval)`), a check job whose id is derived from (watchdog, interval, slot).
 * pg-boss stores a job id once, so however many instances propose a slot, one job exists and one
 * worker runs it; an instance that dies loses no slot while another proposes. Cron cannot express
 * intervals under a minute; slot ids can.
 *
 * A check. The watchdog's data is fetched outside any transaction (it can take seconds); then one
 * transaction locks the watchdog's state row, applies the findings to the re-arm memory, stores and
 * announces the events (see event-bus.ts) and updates the counters. A check whose watchdog was
 * disabled or restarted meanwhile writes nothing. A failed check (it threw, or every subject lacked
 * data) counts as a failure and leaves the re-arm memory alone. A check whose every subject was
 * skipped for want of provider budget (the providers serve interactive callers first) is deferred:
 * it also leaves the re-arm memory alone, and says so in the health, but is no failure.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parseInstrument } from '../market-data/instruments.ts';
import type { Scheduler, TimerHandle } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import { defineJob } from '../platform/jobs/job.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { type CheckResult, cycleVerdict } from './cycle.rules.ts';
import type { Finding } from './detectors/finding.ts';
import { applyCycle, type RearmSettings } from './detectors/rearm.ts';
import type { WatchdogEventBus } from './event-bus.ts';
import type { EventAsset } from './events.sql.ts';
import type { EventType, WatchdogName } from './registry.ts';
import { findWatchdogState, insertMissingWatchdogStates, updateWatchdogState } from './states.repository.ts';
import type { CheckOutcome, SubjectAsset, WatchdogDefinition } from './watchdog.ts';

/** A watchdog as the runner runs it (see createWatchdogChecks). */
export type RunnableWatchdog = WatchdogDefinition<WatchdogName, Finding<unknown, EventType>>;

/**
 * One check of one of `names`; `slot` is the interval slot it was proposed for (-1: run now). A
 * job naming a watchdog this instance does not define (another version's) fails its validation.
 */
export function checkJobOf(names: readonly [WatchdogName, ...WatchdogName[]]) {
  return defineJob({
    name: 'watchdogs.check',
    schema: z.object({ name: z.enum(names), slot: z.number().int(), intervalMs: z.number().int() }),
    // A failed check is a result (counted in the health), not a job to retry: the next slot comes.
    options: { retryLimit: 0, expireInSeconds: 15 * 60 },
  });
}

/** Longest a check may take, whatever its interval (the rest of the interval is the usual bound). */
const MAX_CHECK_MS = 120_000;
/** Error text kept per watchdog. */
const MAX_ERROR_CHARS = 500;

export interface CheckObserver {
  checked(name: WatchdogName, outcome: CheckResult, ms: number): void;
  emitted(name: WatchdogName, severity: string): void;
}

export interface WatchdogRunnerOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly bus: WatchdogEventBus;
  readonly clock: Scheduler;
  readonly logger: Logger;
  /** In the order the health lists them. */
  readonly definitions: readonly RunnableWatchdog[];
  readonly rearm: RearmSettings;
  /** Whether this instance proposes slots and runs checks (others only read the shared state). */
  readonly run: boolean;
  /** Checks run at once on this instance. */
  readonly concurrency?: number;
  readonly observer?: CheckObserver;
}

export class WatchdogRunner {
  /** The watchdogs it runs, in the order of its definitions. */
  readonly names: readonly WatchdogName[];
  readonly #o: WatchdogRunnerOptions;
  readonly #definitions: ReadonlyMap<WatchdogName, RunnableWatchdog>;
  readonly #checkJob: ReturnType<typeof checkJobOf>;
  readonly #timers = new Map<WatchdogName, TimerHandle>();
  readonly #running = new Set<AbortController>();
  #stopped = false;

  constructor(options: WatchdogRunnerOptions) {
    this.#o = options;
    this.#definitions = new Map(options.definitions.map((d) => [d.name, d]));
    const [first, ...rest] = options.definitions.map((d) => d.name);
    if (first === undefined) throw new Error('a watchdog runner needs at least one definition');
    this.names = [first, ...rest];
    this.#checkJob = checkJobOf([first, ...rest]);
  }

  definition(name: WatchdogName): RunnableWatchdog {
    const found = this.#definitions.get(name);
    if (!found) throw new Error(`no definition for watchdog ${name}`);
    return found;
  }

  /** Creates the state rows that are missing (every instance may; the first one wins). */
  async ensureStates(): Promise<void> {
    await insertMissingWatchdogStates(this.#o.database.db, this.names, this.#o.clock.now());
  }

  async start(): Promise<void> {
    await this.ensureStates();
    await this.#o.jobs.ensureQueue(this.#checkJob);
    if (!this.#o.run) return;
    await this.#o.jobs.work(this.#checkJob, (data) => this.runCheck(data.name, data.slot, data.intervalMs), {
      concurrency: this.#o.concurrency ?? 4,
      pollingIntervalSeconds: 1,
    });
    for (const definition of this.#o.definitions) this.#propose(definition);
  }

  /** Stops proposing and aborts running checks (they then write nothing). */
  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers.values()) this.#o.clock.clearTimeout(timer);
    this.#timers.clear();
    for (const controller of this.#running) controller.abort(new Error('the instance is stopping'));
  }

  /** Asks for a check now (a restart), outside the slot schedule. */
  async runSoon(name: WatchdogName): Promise<void> {
    const { intervalMs } = this.definition(name);
    await this.#o.jobs.send(this.#checkJob, { name, slot: -1, intervalMs });
  }

  /** Proposes the current slot now, then at every slot start. */
  #propose(definition: RunnableWatchdog): void {
    if (this.#stopped) return;
    const { name, intervalMs } = definition;
    const nowMs = this.#o.clock.now().getTime();
    const slot = Math.floor(nowMs / intervalMs);
    this.#o.jobs
      .send(this.#checkJob, { name, slot, intervalMs }, { id: slotJobId(name, intervalMs, slot) })
      .catch((error: unknown) => {
        if (!this.#stopped) this.#o.logger.warn({ err: error, watchdog: name }, 'could not propose a check');
      });
    // A little after the next slot starts, so clocks a little apart still agree on the slot.
    const wait = (slot + 1) * intervalMs - nowMs + 50;
    this.#timers.set(
      name,
      this.#o.clock.setTimeout(() => this.#propose(definition), wait),
    );
  }

  /**
   * Runs one check and records it. Public for the job handler and for tests that drive cycles
   * directly; returns what happened.
   */
  async runCheck(name: WatchdogName, slot: number, intervalMs: number): Promise<CheckResult> {
    const definition = this.definition(name);
    const started = this.#o.clock.now();
    // A slot this old was missed (the queue was stalled); the current slot has its own job.
    if (slot >= 0 && Math.floor(started.getTime() / intervalMs) > slot + 1) return this.#skip(name, started);
    const before = await findWatchdogState(this.#o.database.db, name);
    if (!before?.enabled) return this.#skip(name, started);

    const controller = new AbortController();
    const timeout = Math.min(Math.max(definition.intervalMs - 1_000, 1_000), MAX_CHECK_MS);
    const timer = this.#o.clock.setTimeout(
      () => controller.abort(new Error(`the check ran past ${timeout} ms`)),
      timeout,
    );
    this.#running.add(controller);
    let outcome: CheckOutcome<Finding<unknown, EventType>> | undefined;
    let failure: string | undefined;
    try {
      outcome = await definition.check({ now: started, signal: controller.signal });
      const verdict = cycleVerdict(outcome);
      if (verdict.result === 'failed') failure = verdict.lastError;
    } catch (error) {
      failure = controller.signal.aborted
        ? String((controller.signal.reason as Error)?.message ?? 'aborted')
        : (error as Error)?.message || String(error);
    } finally {
      this.#o.clock.clearTimeout(timer);
      this.#running.delete(controller);
    }
    if (this.#stopped) return 'skipped';
    const finished = this.#o.clock.now();
    const ms = finished.getTime() - started.getTime();
    const result = await this.#record(name, before.generation, started, finished, ms, outcome, failure);
    this.#o.observer?.checked(name, result, ms);
    if (failure) this.#o.logger.warn({ watchdog: name, error: failure }, 'watchdog check failed');
    return result;
  }

  #skip(name: WatchdogName, at: Date): 'skipped' {
    this.#o.observer?.checked(name, 'skipped', 0);
    this.#o.logger.debug({ watchdog: name, at }, 'watchdog check skipped');
    return 'skipped';
  }

  async #record(
    name: WatchdogName,
    generation: number,
    started: Date,
    finished: Date,
    ms: number,
    outcome: CheckOutcome<Finding<unknown, EventType>> | undefined,
    failure: string | undefined,
  ): Promise<CheckResult> {
    const emitted: string[] = [];
    const result = await this.#o.database.db.transaction(async (tx) => {
      const row = await findWatchdogState(tx, name, true);
      if (!row?.enabled || row.generation !== generation) return 'skipped' as const;
      if (failure !== undefined || !outcome) {
        await updateWatchdogState(tx, name, {
          checks: row.checks + 1,
          errors: row.errors + 1,
          consecutiveFailures: row.consecutiveFailures + 1,
          lastCheckAt: finished,
          lastCheckMs: ms,
          lastChecked: outcome?.checked ?? 0,
          lastGaps: outcome?.gaps.length ?? 0,
          lastError: truncate(failure ?? 'the check returned nothing'),
        });
        return 'failed' as const;
      }
      const verdict = cycleVerdict(outcome);
      if (verdict.result === 'deferred') {
        // Neither a failure nor a clean cycle: the counters of failures and the re-arm memory stay.
        await updateWatchdogState(tx, name, {
          checks: row.checks + 1,
          lastCheckAt: finished,
          lastCheckMs: ms,
          lastChecked: outcome.checked,
          lastGaps: outcome.gaps.length,
          lastError: truncate(verdict.lastError),
        });
        return 'deferred' as const;
      }
      const { state, emit } = applyCycle(row.rearm, name, outcome.findings, this.#o.rearm);
      for (const finding of emit) {
        await this.#o.bus.publish(tx, {
          watchdog: name,
          eventType: finding.eventType,
          severity: finding.severity,
          symbol: finding.symbol,
          asset: finding.symbol === null ? null : assetOf(finding.symbol, outcome.assets),
          description: finding.description,
          data: toRecord(finding.data),
          occurredAt: started,
        });
        emitted.push(finding.severity);
      }
      await updateWatchdogState(tx, name, {
        rearm: state,
        checks: row.checks + 1,
        events: row.events + emit.length,
        consecutiveFailures: 0,
        lastCheckAt: finished,
        lastCheckMs: ms,
        lastChecked: outcome.checked,
        lastGaps: outcome.gaps.length,
        lastError: verdict.result === 'ok' ? null : truncate(verdict.lastError),
        ...(emit.length > 0 ? { lastEventAt: started } : {}),
      });
      return outcome.gaps.length > 0 ? ('degraded' as const) : ('ok' as const);
    });
    for (const severity of emitted) this.#o.observer?.emitted(name, severity);
    return result;
  }
}

/** A stable UUID for (watchdog, interval, slot): the same on every instance. */
export function slotJobId(name: string, intervalMs: number, slot: number): string {
  const h = createHash('sha256').update(`watchdog-check:${name}:${intervalMs}:${slot}`).digest('hex');
  // Shaped as a version-4-looking UUID (pg-boss keeps ids in a uuid column).
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((Number.parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function truncate(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}

function assetOf(symbol: string, assets: ReadonlyMap<string, SubjectAsset> | undefined): EventAsset {
  const known = assets?.get(symbol);
  if (known) return known;
  try {
    return { symbol, assetType: parseInstrument(symbol).assetClass };
  } catch {
    return { symbol, assetType: 'unknown' };
  }
}

function toRecord(data: unknown): Record<string, unknown> {
  return typeof data === 'object' && data !== null && !Array.isArray(data)
    ? (data as Record<string, unknown>)
    : { value: data };
}
