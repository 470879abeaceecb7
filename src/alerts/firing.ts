/**
 * Firing: an event that matches an enabled alert fires it once, whichever instances heard the
 * event. In one transaction:
 *   1. the (alert, event) firing row is inserted; its unique index means only the first instance
 *      to try goes on (the others find it and stop);
 *   2. the cooldown is taken: `last_triggered` moves to now only if the cooldown has passed; if it
 *      has not, the firing is kept as `cooldown` and nothing is delivered;
 *   3. one delivery per method is stored, and one delivery job per delivery is enqueued.
 * The cooldown lives in the alert's row, so it holds across restarts and instances.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { EventFilterInput } from './alert.schema.ts';
import type { AlertRow } from './alert.view.ts';
import { alertFirings, alerts } from './alerts.sql.ts';
import { deliverJob } from './delivery.jobs.ts';
import { claimFirings } from './firing.repository.ts';
import { type MatchableEvent, matchesFilter } from './matcher.ts';

/** An event as alerts deliver it: the dashboard event shape (the watchdog is null for threshold triggers). */
export interface AlertEvent extends MatchableEvent {
  readonly event_id: string;
  readonly description: string;
  readonly timestamp: string;
  readonly asset: {
    readonly symbol: string;
    readonly asset_type: string;
    readonly [k: string]: unknown;
  } | null;
  readonly data: unknown;
  readonly [k: string]: unknown;
}

export interface FiringOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
}

export type FireOutcome = 'fired' | 'cooldown' | 'duplicate' | 'disabled';

export class AlertFiring {
  readonly #o: FiringOptions;

  constructor(options: FiringOptions) {
    this.#o = options;
  }

  /**
   * Every enabled `watchdog_event` alert whose filter the event passes, and that existed when the
   * event occurred, fires (once per event). All of them in one transaction, with one statement per
   * step, however many alerts match.
   */
  async onWatchdogEvent(event: AlertEvent): Promise<number> {
    const candidates = await this.#o.database.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.enabled, true), eq(alerts.triggerType, 'watchdog_event')));
    const occurred = Date.parse(event.timestamp);
    // An alert watches what happens from its creation on, not events that were already under way.
    const matched = candidates.filter(
      (alert) =>
        occurred >= alert.createdAt.getTime() &&
        matchesFilter((alert.config.trigger as { event_filter: EventFilterInput }).event_filter, event),
    );
    if (matched.length === 0) return 0;
    try {
      const outcomes = await this.fireAll(matched, event);
      return [...outcomes.values()].filter((o) => o === 'fired').length;
    } catch (error) {
      this.#o.logger.warn(
        { err: error, eventId: event.event_id, alerts: matched.length },
        'alerts could not fire',
      );
      return 0;
    }
  }

  /** Fires `alert` for `event` (see the file comment); returns what happened. */
  async fire(alert: AlertRow, event: AlertEvent): Promise<FireOutcome> {
    return (await this.fireAll([alert], event)).get(keyOf(alert)) ?? 'duplicate';
  }

  /** Fires each alert for `event` in one transaction; the outcome per alert (`owner\0id`). */
  async fireAll(matched: readonly AlertRow[], event: AlertEvent): Promise<Map<string, FireOutcome>> {
    const now = this.#o.clock.now();
    let enqueued = 0;
    const outcomes = await this.#o.database.db.transaction(async (tx) => {
      const outcomes = new Map<string, FireOutcome>(matched.map((a) => [keyOf(a), 'duplicate']));
      // Steps 1-3 but the jobs: one statement (firing.repository.ts).
      const claimed = await claimFirings(tx, matched, event, now);
      const cooling = claimed.filter((c) => !c.taken).map((c) => c.firingId);
      if (cooling.length > 0) {
        await tx.update(alertFirings).set({ status: 'cooldown' }).where(inArray(alertFirings.id, cooling));
      }
      const deliveryIds = claimed.flatMap((c) => c.deliveryIds);
      if (deliveryIds.length > 0) {
        await this.#o.jobs.sendMany(
          deliverJob,
          deliveryIds.map((deliveryId) => ({ deliveryId })),
          { tx },
        );
      }
      for (const c of claimed)
        outcomes.set(keyOf({ owner: c.owner, id: c.alertId }), c.taken ? 'fired' : 'cooldown');
      enqueued = deliveryIds.length;
      return outcomes;
    });
    // Committed: this instance's delivery workers take them now rather than at their next poll.
    if (enqueued > 0) this.#o.jobs.wake(deliverJob);
    return outcomes;
  }
}

function keyOf(alert: { readonly owner: string; readonly id: string }): string {
  return `${alert.owner}\u0000${alert.id}`;
}
