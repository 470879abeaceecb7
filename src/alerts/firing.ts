/**
 * Firing: an event that matches an enabled alert fires it once, whichever instances heard the
 * event. In one transaction:
 *   1. the (alert, event) firing row is inserted; its unique index means only the first instance
 *      to try goes on (the others find it and stop);
 *   2. the cooldown and the firing rate bound are taken: `last_triggered` moves to now only if the
 *      cooldown has passed and the alert is within ALERT_MAX_FIRINGS_PER_MINUTE; if not, the firing
 *      is kept as `cooldown` or `rate_limited` and nothing is delivered;
 *   3. the deliveries are stored, and one delivery job per delivery is enqueued.
 * Before step 1, the owners' silences in force are read in the same transaction: an alert a
 * silence matches (or inside one of its mute windows) has its firing recorded as `silenced`, with
 * `silenced_by` naming which, and delivers nothing (silencing.ts).
 * The cooldown and the rate bound live in the alert's row, so they hold across restarts and instances.
 * Beside them (episodes.service.ts, groups.service.ts): a firing of a condition whose episode was
 * acknowledged is recorded as `acknowledged` and delivers nothing; every other firing joins its
 * condition's episode (one that delivers opens it); a grouped alert's firing that would deliver
 * joins its group instead (`grouped`), and the group's notification delivers it.
 *
 * A watchdog event is fired by a job (firing.jobs.ts) sent in the transaction that stores the event
 * (`enqueue`, called by the watchdogs as they store it): once the event commits, its firing is
 * certain to run, and a failed run is retried. Every instance that hears the event sends the same
 * job (one id per event, so still one job; this also covers an event stored by another process)
 * and wakes its own worker, so the firing follows the event within milliseconds.
 */
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle, Executor } from '../platform/db/database.ts';
import { databaseUnavailableReason } from '../platform/db/db-errors.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { WatchdogDomainEvent } from '../watchdogs/watchdog-event.ts';
import type { Alert, AlertKey } from './alert.model.ts';
import { type AlertEvent, alertEventOf } from './alert-event.model.ts';
import { enabledAlertsByTrigger } from './alerts.repository.ts';
import { deliverJob } from './delivery/delivery.jobs.ts';
import { incidentKeyOf } from './episode.model.ts';
import { acknowledgedEpisodes, episodePairKey, joinEpisodes } from './episodes.repository.ts';
import { fireJob, fireJobId } from './firing.jobs.ts';
import type { FiringObserver } from './firing.metrics.ts';
import {
  claimFirings,
  DEFAULT_MAX_FIRINGS_PER_MINUTE,
  type HeldStatus,
  insertHeldFirings,
  lockAlertRows,
  markFiringsHeld,
} from './firing.repository.ts';
import { AlertGroups } from './groups.service.ts';
import { matchesFilter } from './matcher.ts';
import { activeSilences } from './silences.repository.ts';
import { partitionSilenced } from './silencing.ts';

/** A stored watchdog event: the event and when it was stored. */
export type StoredWatchdogEvent = WatchdogDomainEvent & { readonly createdAt: Date };

export interface FiringOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Firings that deliver, per alert per minute (ALERT_MAX_FIRINGS_PER_MINUTE); 60 when absent. */
  readonly maxPerMinute?: number;
  /** A stored watchdog event by id, null when there is none (the firing job reads it). */
  readonly storedEvent?: (id: string) => Promise<StoredWatchdogEvent | null>;
  readonly observer?: FiringObserver;
  /** Grouped alerts' groups (groups.service.ts); one over the same database and jobs when absent. */
  readonly groups?: AlertGroups;
}

export type FireOutcome =
  | 'fired'
  | HeldStatus
  | 'silenced'
  | 'acknowledged'
  | 'grouped'
  | 'duplicate'
  | 'disabled';

export class AlertFiring {
  readonly #o: FiringOptions;

  readonly #groups: AlertGroups;

  constructor(options: FiringOptions) {
    this.#o = options;
    this.#groups = options.groups ?? new AlertGroups(options);
  }

  /** In the transaction that stores `events`: one firing job each (see the file comment). */
  async enqueue(tx: Executor, events: readonly { readonly id: string }[]): Promise<void> {
    // Before the start there is no queue to send to, and no worker: a process that stores events
    // without having started (a command, a test) leaves them to the instances that hear them.
    if (this.#o.jobs.state === 'created' || this.#o.jobs.state === 'stopped') return;
    for (const { id } of events) {
      await this.#o.jobs.send(fireJob, { eventId: id }, { tx, id: fireJobId(id) });
    }
  }

  /**
   * An event was committed (heard from any instance): its firing job is sent (nothing happens when
   * the event's own transaction sent it) and this instance's worker woken to take it now.
   */
  async heard(eventId: string): Promise<void> {
    try {
      await this.#o.jobs.send(fireJob, { eventId }, { id: fireJobId(eventId) });
    } catch (error) {
      this.#o.logger.warn({ err: error, eventId }, 'could not send the firing job of an event');
    }
    this.#o.jobs.wake(fireJob);
  }

  /**
   * The firing job: fires the stored event `eventId`. A failure is logged (the event's id, never
   * the event or the statement's parameters) and thrown again, short, for the job to be retried.
   */
  async fireStored(eventId: string): Promise<number> {
    try {
      const stored = this.#o.storedEvent ? await this.#o.storedEvent(eventId) : null;
      if (!stored) {
        // Removed by retention before its firing could run, or never stored here.
        this.#o.logger.info({ eventId }, 'no stored event to fire alerts for');
        return 0;
      }
      return await this.fireEvent(alertEventOf(stored), stored.createdAt);
    } catch (error) {
      this.#o.observer?.failed();
      this.#o.logger.warn({ err: error, eventId }, 'alerts could not fire; the firing will be retried');
      throw new Error(`the firing of event ${eventId} failed (${failureReason(error)})`);
    }
  }

  /**
   * Every enabled `watchdog_event` alert whose filter the event passes, and that existed when the
   * event occurred, fires (once per event); returns how many fired. All of them in one transaction,
   * with one statement per step, however many alerts match. Throws when the transaction fails.
   * `storedAt`, when the event is a stored one, is where the firing lag is measured from.
   */
  async fireEvent(event: AlertEvent, storedAt?: Date): Promise<number> {
    const candidates = await enabledAlertsByTrigger(this.#o.database.db, ['watchdog_event']);
    const matched = candidates.filter((alert) => watches(alert, event));
    if (matched.length === 0) return 0;
    const outcomes = [...(await this.fireAll(matched, event)).values()];
    if (storedAt && outcomes.some((o) => o !== 'duplicate')) {
      this.#o.observer?.lag((this.#o.clock.now().getTime() - storedAt.getTime()) / 1_000);
    }
    return outcomes.filter((o) => o === 'fired').length;
  }

  /** Fires the alerts of `event` now (as its firing job does); see `fireEvent`. */
  onWatchdogEvent(event: AlertEvent): Promise<number> {
    return this.fireEvent(event);
  }

  /** Fires `alert` for `event` (see the file comment); returns what happened. */
  async fire(alert: Alert, event: AlertEvent): Promise<FireOutcome> {
    return (await this.fireAll([alert], event)).get(keyOf(alert)) ?? 'duplicate';
  }

  /** Fires each alert for `event` in one transaction; the outcome per alert (`owner\0id`). */
  async fireAll(matched: readonly Alert[], event: AlertEvent): Promise<Map<string, FireOutcome>> {
    const now = this.#o.clock.now();
    const max = this.#o.maxPerMinute ?? DEFAULT_MAX_FIRINGS_PER_MINUTE;
    let enqueued = 0;
    const outcomes = await this.#o.database.db.transaction(async (tx) => {
      const outcomes = new Map<string, FireOutcome>(matched.map((a) => [keyOf(a), 'duplicate']));
      // Steps 1-3 but the jobs: one statement (firing.repository.ts), once the alerts' rows are
      // locked in one order (firings of other events may be updating the same alerts).
      await lockAlertRows(tx, matched);
      // Silences are read here, in the firing's transaction: whichever instance fires, it sees them.
      const { held, open } = partitionSilenced(
        matched,
        await activeSilences(tx, [...new Set(matched.map((a) => a.owner))], now),
        event,
        now,
      );
      // An acknowledged condition's repeats are recorded, not sent, until its episode resolves.
      const acknowledged = await acknowledgedEpisodes(
        tx,
        open.map((alert) => ({ alert, incidentKey: incidentKeyOf(alert, event) })),
      );
      const isAcknowledged = (a: Alert) => acknowledged.has(episodePairKey(a, incidentKeyOf(a, event)));
      const heldFirings = await insertHeldFirings(
        tx,
        [
          ...held.map((h) => ({ alert: h.alert, status: 'silenced' as const, silencedBy: h.silencedBy })),
          ...open.filter(isAcknowledged).map((alert) => ({ alert, status: 'acknowledged' as const })),
        ],
        event,
        now,
      );
      for (const h of heldFirings) outcomes.set(keyOf(h.alert), h.status);
      const firing = open.filter((a) => !isAcknowledged(a));
      const grouped = new Set(firing.filter((a) => a.grouping).map(keyOf));
      const claimed = firing.length > 0 ? await claimFirings(tx, firing, event, now, max, grouped) : [];
      await markFiringsHeld(
        tx,
        claimed.flatMap((c) => (c.status === 'fired' ? [] : [{ firingId: c.firingId, status: c.status }])),
      );
      const byKey = new Map(matched.map((a) => [keyOf(a), a]));
      const alertOf = (c: { owner: string; alertId: string }) =>
        byKey.get(keyOf({ owner: c.owner, id: c.alertId }))!;
      // Each firing joins its condition's episode; one that notifies opens it when there is none.
      await joinEpisodes(
        tx,
        [
          ...heldFirings
            .filter((h) => h.status === 'acknowledged')
            .map((h) => ({ alert: h.alert, firingId: h.firingId, open: false })),
          ...claimed.map((c) => ({ alert: alertOf(c), firingId: c.firingId, open: c.status === 'fired' })),
        ].map((m) => ({ ...m, incidentKey: incidentKeyOf(m.alert, event) })),
        event,
        now,
      );
      for (const c of claimed) {
        const alert = alertOf(c);
        if (c.status === 'fired' && alert.grouping) {
          await this.#groups.join(tx, { ...alert, grouping: alert.grouping }, c.firingId, event, now);
          outcomes.set(keyOf(alert), 'grouped');
        } else outcomes.set(keyOf(alert), c.status);
      }
      const deliveryIds = claimed.flatMap((c) => c.deliveryIds);
      if (deliveryIds.length > 0) {
        await this.#o.jobs.sendMany(
          deliverJob,
          deliveryIds.map((deliveryId) => ({ deliveryId })),
          { tx },
        );
      }
      enqueued = deliveryIds.length;
      return outcomes;
    });
    // Committed: this instance's delivery workers take them now rather than at their next poll.
    if (enqueued > 0) this.#o.jobs.wake(deliverJob);
    this.#count(outcomes);
    return outcomes;
  }

  #count(outcomes: ReadonlyMap<string, FireOutcome>): void {
    const observer = this.#o.observer;
    if (!observer) return;
    for (const outcome of [
      'fired',
      'cooldown',
      'rate_limited',
      'silenced',
      'acknowledged',
      'grouped',
    ] as const) {
      const n = [...outcomes.values()].filter((o) => o === outcome).length;
      if (n > 0) observer.recorded(outcome, n);
    }
  }
}

/**
 * Whether a `watchdog_event` alert watches `event`: its filter passes it, and the alert existed
 * when it occurred (an alert watches what happens from its creation on, not events already under way).
 */
function watches(alert: Alert, event: AlertEvent): boolean {
  return (
    alert.trigger.type === 'watchdog_event' &&
    event.occurredAt.getTime() >= alert.createdAt.getTime() &&
    matchesFilter(alert.trigger.eventFilter, event)
  );
}

/** Why a firing failed, in a few words: the outage, or the SQLSTATE, never the statement. */
function failureReason(error: unknown): string {
  const unavailable = databaseUnavailableReason(error);
  if (unavailable) return unavailable;
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const { code, cause } = e as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') return `SQLSTATE ${code}`;
    e = cause;
  }
  return (error as Error)?.name || 'error';
}

function keyOf(alert: AlertKey): string {
  return `${alert.owner}\u0000${alert.id}`;
}
