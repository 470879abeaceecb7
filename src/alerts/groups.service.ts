/**
 * Grouped alerts' notifications (group.model.ts; the semantics are in docs/alerts.md). A firing
 * that would deliver joins its group instead (`join`, in the firing's transaction) and sets when
 * the group notifies next; a job sent for that time (`flush`) takes the group under its row's lock,
 * so whichever instance runs it, one notification goes out: a notice firing listing the events
 * that joined since the last one, with one delivery per target. With nothing new, a group that is
 * still open is reminded after the repeat interval. When every episode of its events has resolved
 * the group ends (`endQuiet`), with a `resolved` notice when the alert sends them.
 */
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle, Executor } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { Alert, AlertGrouping, AlertKey } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { alertEventOfStored } from './alert-event.wire.ts';
import { findAlert } from './alerts.repository.ts';
import { deliverJob } from './delivery/delivery.jobs.ts';
import { groupIncidentKey, type ResolvedReason } from './episode.model.ts';
import { flushAfterEvent, groupOf, repeatAfter } from './group.model.ts';
import { flushGroupJob, flushGroupJobId } from './groups.jobs.ts';
import {
  addToGroup,
  dueGroups,
  endQuietGroups,
  episodesOfGroup,
  type GroupRow,
  lockGroup,
  markSent,
  openGroup,
  pendingFirings,
  updateGroup,
} from './groups.repository.ts';
import { insertNotice } from './notices.repository.ts';

/** Events one notification lists at most; more wait for the next (after the group interval). */
export const MAX_EVENTS_PER_NOTIFICATION = 500;

export interface AlertGroupsOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class AlertGroups {
  readonly #o: AlertGroupsOptions;

  constructor(options: AlertGroupsOptions) {
    this.#o = options;
  }

  /**
   * In the firing's transaction: `firingId`, a firing of the grouped `alert` that would deliver,
   * joins its group and waits for the group's next notification (whose job is sent in `tx`).
   */
  async join(
    tx: Executor,
    alert: Alert & { grouping: AlertGrouping },
    firingId: string,
    event: AlertEvent,
    now: Date,
  ): Promise<void> {
    const group = await openGroup(tx, alert, groupOf(alert.grouping, event), now);
    const flushAt = flushAfterEvent(alert.grouping, group, group.flushAt, now);
    await addToGroup(tx, group, firingId, flushAt, now);
    if (!group.flushAt || group.flushAt.getTime() !== flushAt.getTime())
      await this.#schedule(tx, group.id, flushAt);
  }

  /** The flush job: the group's notification, when it is due (see the file comment). */
  async flush(groupId: string): Promise<void> {
    let sent = 0;
    await this.#o.database.db.transaction(async (tx) => {
      const now = this.#o.clock.now();
      const group = await lockGroup(tx, groupId);
      // Not due (moved later, sent by another instance, ended): the job of its new time sends it.
      if (!group || group.resolvedAt || !group.flushAt || group.flushAt.getTime() > now.getTime() + 50)
        return;
      const alert = await findAlert(tx, { owner: group.owner, id: group.alertId });
      if (!alert?.grouping) {
        await updateGroup(tx, group.id, { flushAt: null });
        return;
      }
      sent = await this.#notify(tx, alert as Alert & { grouping: AlertGrouping }, group, now);
    });
    if (sent > 0) this.#o.jobs.wake(deliverJob);
  }

  /** Sends what lost jobs left due (the minute sweep); answers how many groups it looked at. */
  async sweep(): Promise<number> {
    const due = await dueGroups(this.#o.database.db, new Date(this.#o.clock.now().getTime() - 5_000), 100);
    for (const id of due) {
      try {
        await this.flush(id);
      } catch (error) {
        this.#o.logger.warn(
          { err: error, groupId: id },
          'a group notification could not be sent; it will be tried again',
        );
      }
    }
    return due.length;
  }

  /**
   * Ends `alert`'s groups that are over (every episode of their events resolved, no event
   * waiting); with `send_resolved`, each that had notified sends a `resolved` notice (`why`: its
   * episodes cleared or timed out, or somebody resolved the group). Answers the deliveries stored
   * (their jobs sent in `tx`).
   */
  async endQuiet(
    tx: Executor,
    alert: Alert,
    now: Date,
    why: { readonly reason: ResolvedReason; readonly by: string | null; readonly note: string | null } = {
      reason: 'cleared',
      by: null,
      note: null,
    },
  ): Promise<number> {
    let deliveries = 0;
    for (const group of await endQuietGroups(tx, alert, now)) {
      if (!alert.sendResolved || !group.notified) continue;
      const last = (
        await episodesOfGroup(tx, group.id, { unacknowledgedOnly: false, openOnly: false, newestFirst: true })
      )[0];
      if (!last) continue;
      const durationSeconds = Math.max(0, Math.round((now.getTime() - group.createdAt.getTime()) / 1_000));
      deliveries += await sendNotice(this.#o.jobs, tx, {
        alert,
        eventId: `resolved:group:${group.id}`,
        event: alertEventOfStored(last.lastEvent),
        notice: {
          kind: 'resolved',
          incidentKey: groupIncidentKey(group.groupKey),
          startedAt: group.createdAt,
          resolvedAt: now,
          durationSeconds,
          ...why,
        },
        at: now,
        groupId: group.id,
      });
    }
    return deliveries;
  }

  /** The group's next notification: its new events, or a reminder of its open ones. */
  async #notify(
    tx: Executor,
    alert: Alert & { grouping: AlertGrouping },
    group: GroupRow,
    now: Date,
  ): Promise<number> {
    const pending = await pendingFirings(tx, group.id, MAX_EVENTS_PER_NOTIFICATION);
    let events: AlertEvent[];
    const repeat = pending.length === 0;
    if (!repeat) {
      events = pending.map((f) => alertEventOfStored(f.event));
      await markSent(
        tx,
        pending.map((f) => f.id),
      );
    } else {
      const open = group.acknowledgedAt
        ? []
        : await episodesOfGroup(tx, group.id, {
            unacknowledgedOnly: true,
            openOnly: true,
            newestFirst: false,
          });
      events = open.map((e) => alertEventOfStored(e.lastEvent));
    }
    const newest = events.at(-1);
    if (!newest) {
      await updateGroup(tx, group.id, { flushAt: null });
      return 0;
    }
    const n = group.notices + 1;
    const deliveries = await sendNotice(this.#o.jobs, tx, {
      alert,
      eventId: `group:${group.id}:${n}`,
      event: newest,
      notice: {
        kind: 'group',
        incidentKey: groupIncidentKey(group.groupKey),
        groupKey: group.groupKey,
        labels: group.labels,
        events,
        repeat,
      },
      at: now,
      groupId: group.id,
    });
    // More than one notification holds: the rest go after the group interval, else a reminder.
    const more = pending.length === MAX_EVENTS_PER_NOTIFICATION;
    const next = more
      ? new Date(now.getTime() + alert.grouping.groupIntervalSeconds * 1_000)
      : repeatAfter(alert.grouping, now);
    await updateGroup(tx, group.id, { notices: n, lastSentAt: now, flushAt: next });
    await this.#schedule(tx, group.id, next);
    return deliveries;
  }

  async #schedule(tx: Executor, groupId: string, at: Date): Promise<void> {
    await this.#o.jobs.send(
      flushGroupJob,
      { groupId },
      { tx, id: flushGroupJobId(groupId, at), startAfter: at },
    );
  }
}

/** Stores a notice and sends its deliveries' jobs in `tx`; answers how many deliveries. */
export async function sendNotice(
  jobs: Jobs,
  tx: Executor,
  notice: Parameters<typeof insertNotice>[1] & { readonly alert: AlertKey },
): Promise<number> {
  const ids = await insertNotice(tx, notice);
  if (ids.length > 0) {
    await jobs.sendMany(
      deliverJob,
      ids.map((deliveryId) => ({ deliveryId })),
      { tx },
    );
  }
  return ids.length;
}
