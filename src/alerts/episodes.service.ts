/**
 * Acknowledging and resolving (episode.model.ts; the semantics are in docs/alerts.md). An
 * acknowledged episode's repeats are recorded and not sent until it resolves; PagerDuty hears of
 * the acknowledgement (the only receiver that tracks incidents). An episode resolves when its
 * condition clears (a threshold or condition alert re-arms), when a watchdog-event condition is
 * not repeated for the alert's resolve timeout (the minute sweep), or by hand; with the alert's
 * `send_resolved`, a `resolved` notice goes to every target. A grouped alert's notifications are
 * its groups' (groups.service.ts): acknowledging or resolving one of a group's notices does so for
 * the group and every open episode in it, and a group ends when its last episode does.
 */
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle, Executor } from '../platform/db/database.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { type Alert, type AlertKey, DEFAULT_RESOLVE_TIMEOUT_SECONDS } from './alert.model.ts';
import { alertEventOfStored } from './alert-event.wire.ts';
import { EpisodeConflictError, FiringNotFoundError } from './alerts.errors.ts';
import { findAlert } from './alerts.repository.ts';
import { deliverJob } from './delivery/delivery.jobs.ts';
import { conditionIncidentKey, type Firing, groupIncidentKey, type ResolvedReason } from './episode.model.ts';
import {
  acknowledgeEpisode,
  clearedEpisodes,
  type EpisodeRow,
  lockEpisode,
  lockFiring,
  openEpisode,
  quietEpisodes,
  type Resolution,
  resolveEpisodes,
} from './episodes.repository.ts';
import type { EpisodeActions } from './firing-record.service.ts';
import { firingById } from './firings.repository.ts';
import { episodesOfGroup, lockGroup, updateGroup } from './groups.repository.ts';
import { type AlertGroups, sendNotice } from './groups.service.ts';

/** The least resolve timeout an alert may have: the sweep looks no further back. */
const MIN_RESOLVE_TIMEOUT_SECONDS = 60;

export interface AlertEpisodesOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly groups: AlertGroups;
}

/** Who acts on a firing, and why. */
export interface Actor {
  readonly by: string;
  readonly note: string | null;
}

export class AlertEpisodes implements EpisodeActions {
  readonly #o: AlertEpisodesOptions;

  constructor(options: AlertEpisodesOptions) {
    this.#o = options;
  }

  /**
   * Acknowledges the episode of `key`'s firing `firingId` (or, for a group's notice, the group and
   * its open episodes). Acknowledging again keeps the first acknowledgement. Answers the firing.
   */
  async acknowledge(key: AlertKey, firingId: string, by: string, note: string | null): Promise<Firing> {
    const actor: Actor = { by, note };
    return this.#act(key, firingId, async (tx, alert, target, now) => {
      if (target.kind === 'group') {
        const group = await lockGroup(tx, target.groupId);
        if (!group || group.resolvedAt) throw new EpisodeConflictError('EPISODE_RESOLVED', firingId);
        if (group.acknowledgedAt) return 0;
        await updateGroup(tx, group.id, {
          acknowledgedAt: now,
          acknowledgedBy: actor.by,
          acknowledgementNote: actor.note,
        });
        const open = await episodesOfGroup(tx, group.id, {
          openOnly: true,
          unacknowledgedOnly: true,
          newestFirst: true,
        });
        for (const e of open) await acknowledgeEpisode(tx, e.id, { ...actor, at: now });
        const last = open[0];
        if (!last) return 0;
        return this.#acknowledgedNotice(
          tx,
          alert,
          last,
          groupIncidentKey(group.groupKey),
          `ack:group:${group.id}`,
          actor,
          now,
          group.id,
        );
      }
      const episode = await lockEpisode(tx, alert, target.episodeId);
      if (!episode || episode.resolvedAt) throw new EpisodeConflictError('EPISODE_RESOLVED', firingId);
      if (episode.acknowledgedAt) return 0;
      const acked = await acknowledgeEpisode(tx, episode.id, { ...actor, at: now });
      // A grouped alert's incident is its group's: one episode's acknowledgement is not PagerDuty's.
      if (!acked || alert.grouping) return 0;
      return this.#acknowledgedNotice(
        tx,
        alert,
        acked,
        acked.incidentKey,
        `ack:${acked.id}`,
        actor,
        now,
        null,
      );
    });
  }

  /**
   * Resolves the episode of `key`'s firing `firingId` by hand (or, for a group's notice, the group's
   * open episodes and so the group). One already resolved is answered as it is.
   */
  async resolve(key: AlertKey, firingId: string, by: string, note: string | null): Promise<Firing> {
    const actor: Actor = { by, note };
    return this.#act(key, firingId, async (tx, alert, target, now) => {
      const resolution: Resolution = { reason: 'manual', by: actor.by, note: actor.note, at: now };
      if (target.kind === 'group') {
        const open = await episodesOfGroup(tx, target.groupId, {
          openOnly: true,
          unacknowledgedOnly: false,
          newestFirst: true,
        });
        await resolveEpisodes(
          tx,
          open.map((e) => e.id),
          resolution,
        );
        return this.#o.groups.endQuiet(tx, alert, now, resolution);
      }
      return this.#resolve(tx, alert, [target.episodeId], resolution);
    });
  }

  /** A threshold or condition alert re-armed: its condition's open episode resolves (`cleared`). */
  async resolveCleared(alert: Alert): Promise<void> {
    const now = this.#o.clock.now();
    const key = conditionIncidentKey(alert);
    if (!key) return;
    let sent = 0;
    await this.#o.database.db.transaction(async (tx) => {
      const episode = await openEpisode(tx, alert, key);
      if (episode)
        sent = await this.#resolve(tx, alert, [episode.id], {
          reason: 'cleared',
          by: null,
          note: null,
          at: now,
        });
    });
    if (sent > 0) this.#o.jobs.wake(deliverJob);
  }

  /**
   * The minute sweep: watchdog-event conditions not repeated for their alert's resolve timeout
   * resolve (`timeout`); threshold and condition episodes whose alert is armed again (cleared
   * without its evaluation ending them, or the alert was rewritten) resolve (`cleared`); the
   * groups left without an open episode end. Answers how many episodes resolved.
   */
  async sweep(): Promise<number> {
    const now = this.#o.clock.now();
    const db = this.#o.database.db;
    const quiet = await quietEpisodes(db, new Date(now.getTime() - MIN_RESOLVE_TIMEOUT_SECONDS * 1_000), 500);
    const cleared = await clearedEpisodes(db, 500);
    let resolved = 0;
    let sent = 0;
    for (const [k, episodes] of byAlert([...quiet, ...cleared])) {
      const key: AlertKey = { owner: episodes[0]!.owner, id: episodes[0]!.alertId };
      try {
        await db.transaction(async (tx) => {
          const alert = await findAlert(tx, key);
          if (!alert) return;
          const ids =
            alert.trigger.type === 'watchdog_event'
              ? quietPast(quiet, k, alert.resolveTimeoutSeconds ?? DEFAULT_RESOLVE_TIMEOUT_SECONDS, now)
              : alert.armed
                ? cleared.filter((e) => alertKeyOf(e) === k).map((e) => e.id)
                : [];
          const reason = alert.trigger.type === 'watchdog_event' ? 'timeout' : 'cleared';
          sent += await this.#resolve(tx, alert, ids, { reason, by: null, note: null, at: now });
          resolved += ids.length;
        });
      } catch (error) {
        this.#o.logger.warn(
          { err: error, alertId: key.id },
          'episodes could not be resolved; the next sweep tries again',
        );
      }
    }
    if (sent > 0) this.#o.jobs.wake(deliverJob);
    return resolved;
  }

  /** Ends episodes `ids` of `alert`; the notices that follow (see the file comment); deliveries stored. */
  async #resolve(
    tx: Executor,
    alert: Alert,
    ids: readonly string[],
    resolution: Resolution,
  ): Promise<number> {
    const ended = await resolveEpisodes(tx, ids, resolution);
    if (ended.length === 0) return 0;
    if (alert.grouping) return this.#o.groups.endQuiet(tx, alert, resolution.at, resolution);
    if (!alert.sendResolved) return 0;
    let deliveries = 0;
    for (const e of ended) deliveries += await this.#resolvedNotice(tx, alert, e, resolution.reason);
    return deliveries;
  }

  #resolvedNotice(tx: Executor, alert: Alert, e: EpisodeRow, reason: ResolvedReason): Promise<number> {
    const resolvedAt = e.resolvedAt ?? this.#o.clock.now();
    return sendNotice(this.#o.jobs, tx, {
      alert,
      eventId: `resolved:${e.id}`,
      event: alertEventOfStored(e.lastEvent),
      notice: {
        kind: 'resolved',
        incidentKey: e.incidentKey,
        startedAt: e.startedAt,
        resolvedAt,
        durationSeconds: Math.max(0, Math.round((resolvedAt.getTime() - e.startedAt.getTime()) / 1_000)),
        reason,
        by: e.resolvedBy,
        note: e.resolutionNote,
      },
      at: resolvedAt,
      episodeId: e.id,
    });
  }

  #acknowledgedNotice(
    tx: Executor,
    alert: Alert,
    e: EpisodeRow,
    incidentKey: string,
    eventId: string,
    actor: Actor,
    at: Date,
    groupId: string | null,
  ): Promise<number> {
    return sendNotice(this.#o.jobs, tx, {
      alert,
      eventId,
      event: alertEventOfStored(e.lastEvent),
      notice: { kind: 'acknowledged', incidentKey, by: actor.by, at, note: actor.note },
      at,
      episodeId: groupId ? null : e.id,
      groupId,
      methods: ['pagerduty'],
    });
  }

  /**
   * Runs `act` on `key`'s firing `firingId` in one transaction (the alert and the firing must be
   * the caller's: NOT_FOUND otherwise), wakes the deliveries it stored, answers the firing after.
   */
  async #act(
    key: AlertKey,
    firingId: string,
    act: (tx: Executor, alert: Alert, target: ActTarget, now: Date) => Promise<number>,
  ): Promise<Firing> {
    const now = this.#o.clock.now();
    const sent = await this.#o.database.db.transaction(async (tx) => {
      const alert = await findAlert(tx, key);
      if (!alert) throw new NotFoundError('alert', key.id);
      const firing = await lockFiring(tx, key, firingId);
      if (!firing) throw new FiringNotFoundError(firingId);
      const target: ActTarget | null =
        firing.kind === 'group' && firing.groupId
          ? { kind: 'group', groupId: firing.groupId }
          : firing.episodeId
            ? { kind: 'episode', episodeId: firing.episodeId }
            : null;
      if (!target) throw new EpisodeConflictError('FIRING_HAS_NO_EPISODE', firingId);
      return act(tx, alert, target, now);
    });
    if (sent > 0) this.#o.jobs.wake(deliverJob);
    const firing = await firingById(this.#o.database.db, key, firingId);
    if (!firing) throw new FiringNotFoundError(firingId);
    return firing;
  }
}

type ActTarget =
  | { readonly kind: 'group'; readonly groupId: string }
  | { readonly kind: 'episode'; readonly episodeId: string };

type SweptEpisode = { readonly id: string; readonly owner: string; readonly alertId: string };

const alertKeyOf = (e: SweptEpisode) => `${e.owner}\u0000${e.alertId}`;

/** Episodes by their alert. */
function byAlert(episodes: readonly SweptEpisode[]): Map<string, SweptEpisode[]> {
  const out = new Map<string, SweptEpisode[]>();
  for (const e of episodes) out.set(alertKeyOf(e), [...(out.get(alertKeyOf(e)) ?? []), e]);
  return out;
}

/** The ids of the quiet episodes of alert `key` whose last event is `timeoutSeconds` old at `now`. */
function quietPast(
  quiet: ReadonlyArray<SweptEpisode & { readonly lastEventAt: Date }>,
  key: string,
  timeoutSeconds: number,
  now: Date,
): string[] {
  return quiet
    .filter((e) => alertKeyOf(e) === key && e.lastEventAt.getTime() + timeoutSeconds * 1_000 <= now.getTime())
    .map((e) => e.id);
}
