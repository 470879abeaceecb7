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
import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle, Transaction } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { EventFilterInput } from './alert.schema.ts';
import type { AlertRow } from './alert.view.ts';
import { alertDeliveries, alertFirings, alerts } from './alerts.sql.ts';
import { deliverJob } from './delivery.jobs.ts';
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
   * event occurred, fires (once per event).
   */
  async onWatchdogEvent(event: AlertEvent): Promise<number> {
    const candidates = await this.#o.database.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.enabled, true), eq(alerts.triggerType, 'watchdog_event')));
    let fired = 0;
    const occurred = Date.parse(event.timestamp);
    for (const alert of candidates) {
      // An alert watches what happens from its creation on, not events that were already under way.
      if (occurred < alert.createdAt.getTime()) continue;
      const filter = (alert.config.trigger as { event_filter: EventFilterInput }).event_filter;
      if (!matchesFilter(filter, event)) continue;
      try {
        if ((await this.fire(alert, event)) === 'fired') fired++;
      } catch (error) {
        this.#o.logger.warn(
          { err: error, alertId: alert.id, eventId: event.event_id },
          'alert could not fire',
        );
      }
    }
    return fired;
  }

  /** Fires `alert` for `event` (see the file comment); returns what happened. */
  async fire(alert: AlertRow, event: AlertEvent): Promise<FireOutcome> {
    const now = this.#o.clock.now();
    return this.#o.database.db.transaction(async (tx) => {
      const firingId = randomUUID();
      const [claimed] = await tx
        .insert(alertFirings)
        .values({
          id: firingId,
          owner: alert.owner,
          alertId: alert.id,
          eventId: event.event_id,
          status: 'fired',
          event: event as Record<string, unknown>,
          firedAt: now,
        })
        .onConflictDoNothing()
        .returning({ id: alertFirings.id });
      if (!claimed) return 'duplicate';
      const cutoff = new Date(now.getTime() - alert.cooldownSeconds * 1_000);
      const [taken] = await tx
        .update(alerts)
        .set({ lastTriggered: now, triggerCount: sql`${alerts.triggerCount} + 1` })
        .where(
          and(
            eq(alerts.owner, alert.owner),
            eq(alerts.id, alert.id),
            eq(alerts.enabled, true),
            or(isNull(alerts.lastTriggered), lte(alerts.lastTriggered, cutoff)),
          ),
        )
        .returning({ methods: alerts.deliveryMethods, enabled: alerts.enabled });
      if (!taken) {
        await tx.update(alertFirings).set({ status: 'cooldown' }).where(eq(alertFirings.id, firingId));
        return 'cooldown';
      }
      await this.enqueueDeliveries(tx, alert, firingId, taken.methods, now);
      return 'fired';
    });
  }

  /** One delivery (and its job) per method, in the caller's transaction. */
  async enqueueDeliveries(
    tx: Transaction,
    alert: Pick<AlertRow, 'owner' | 'id'>,
    firingId: string,
    methods: readonly AlertRow['deliveryMethods'][number][],
    now: Date,
  ): Promise<string[]> {
    const ids: string[] = [];
    for (const method of methods) {
      const id = randomUUID();
      await tx.insert(alertDeliveries).values({
        id,
        firingId,
        owner: alert.owner,
        alertId: alert.id,
        method,
        status: 'pending',
        createdAt: now,
        updatedAt: now,
      });
      await this.#o.jobs.send(deliverJob, { deliveryId: id }, { tx });
      ids.push(id);
    }
    return ids;
  }
}
