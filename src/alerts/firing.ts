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
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { Alert, AlertKey } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { enabledAlertsByTrigger } from './alerts.repository.ts';
import { deliverJob } from './delivery/delivery.jobs.ts';
import { claimFirings, markFiringsCooling } from './firing.repository.ts';
import { matchesFilter } from './matcher.ts';

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
    const candidates = await enabledAlertsByTrigger(this.#o.database.db, ['watchdog_event']);
    const matched = candidates.filter((alert) => watches(alert, event));
    if (matched.length === 0) return 0;
    try {
      const outcomes = await this.fireAll(matched, event);
      return [...outcomes.values()].filter((o) => o === 'fired').length;
    } catch (error) {
      this.#o.logger.warn({ err: error, eventId: event.id, alerts: matched.length }, 'alerts could not fire');
      return 0;
    }
  }

  /** Fires `alert` for `event` (see the file comment); returns what happened. */
  async fire(alert: AlertKey, event: AlertEvent): Promise<FireOutcome> {
    return (await this.fireAll([alert], event)).get(keyOf(alert)) ?? 'duplicate';
  }

  /** Fires each alert for `event` in one transaction; the outcome per alert (`owner\0id`). */
  async fireAll(matched: readonly AlertKey[], event: AlertEvent): Promise<Map<string, FireOutcome>> {
    const now = this.#o.clock.now();
    let enqueued = 0;
    const outcomes = await this.#o.database.db.transaction(async (tx) => {
      const outcomes = new Map<string, FireOutcome>(matched.map((a) => [keyOf(a), 'duplicate']));
      // Steps 1-3 but the jobs: one statement (firing.repository.ts).
      const claimed = await claimFirings(tx, matched, event, now);
      await markFiringsCooling(
        tx,
        claimed.filter((c) => !c.taken).map((c) => c.firingId),
      );
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

function keyOf(alert: AlertKey): string {
  return `${alert.owner}\u0000${alert.id}`;
}
