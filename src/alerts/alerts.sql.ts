import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { DeliveryMethod } from './alert.model.ts';
import type { StoredAlertConfig } from './alert-config.wire.ts';
import type { StoredAlertEvent } from './alert-event.wire.ts';
import type { AttemptStatus } from './delivery/delivery.model.ts';
import type { FiringKind, FiringStatus } from './episode.model.ts';

/**
 * Alerts, owned by the principal that created them. The id is the client's (`alert_id`), unique
 * per owner. `last_triggered` is the cooldown clock: it is set in the transaction that fires, so
 * the cooldown holds across restarts and instances.
 */
export const alerts = pgTable(
  'alerts',
  {
    owner: text('owner').notNull(),
    id: text('id').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    enabled: boolean('enabled').notNull(),
    triggerType: text('trigger_type').notNull(),
    config: jsonb('config').$type<StoredAlertConfig>().notNull(),
    deliveryMethods: jsonb('delivery_methods').$type<DeliveryMethod[]>().notNull(),
    cooldownSeconds: integer('cooldown_seconds').notNull(),
    /** AES-256-GCM sealed JSON of the write-only fields; null when there are none. */
    secrets: text('secrets'),
    /** Which secrets are set (by their sealed names), so answers can say `has_password` without opening them. */
    secretFields: jsonb('secret_fields').$type<string[]>().notNull(),
    /** For threshold triggers: whether the condition must clear before it can fire again. */
    armed: boolean('armed').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastTriggered: timestamp('last_triggered', { withTimezone: true, mode: 'date' }),
    triggerCount: integer('trigger_count').notNull().default(0),
    /**
     * The firing rate bound (ALERT_MAX_FIRINGS_PER_MINUTE), as one time: each firing that delivers
     * moves it one interval (a minute / the bound) past the later of itself and now, and an alert
     * whose mark is more than a minute less one interval ahead of now is over its bound (a
     * generic cell rate algorithm: a burst of the bound, then the bound per minute). Null: unused.
     */
    rateMark: timestamp('rate_mark', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.owner, t.id] }),
    index('alerts_enabled_trigger_idx').on(t.enabled, t.triggerType),
  ],
);

export type { FiringKind, FiringStatus } from './episode.model.ts';

/**
 * One row per (alert, event) that matched: the unique index is what makes an event fire an alert
 * once however many instances heard it. `status` says whether it fired, or the cooldown or the
 * firing rate bound held it (then nothing is delivered).
 */
export const alertFirings = pgTable(
  'alert_firings',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    alertId: text('alert_id').notNull(),
    eventId: text('event_id').notNull(),
    status: text('status').$type<FiringStatus>().notNull(),
    /** The event as delivered (the dashboard wire shape, see alert-event.wire.ts). */
    event: jsonb('event').$type<StoredAlertEvent>().notNull(),
    firedAt: timestamp('fired_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** A `silenced` firing: what silenced it, `silence:<id>` or `mute_window:<index>` (silences.ts). */
    silencedBy: text('silenced_by'),
    /** What its deliveries say; `event` for the firing of an event. */
    kind: text('kind').$type<FiringKind>().notNull().default('event'),
    /** The episode of its condition (alert_episodes); null for test-sends, silenced firings and group notices. */
    episodeId: text('episode_id'),
    /** A grouped alert's firing: its group (alert_groups), for an event's firing and a group's notice. */
    groupId: text('group_id'),
    /** A notice's own data (not an event's): see StoredNotice in episode.model.ts. */
    notice: jsonb('notice').$type<Record<string, unknown>>(),
  },
  (t) => [
    uniqueIndex('alert_firings_once_idx').on(t.owner, t.alertId, t.eventId),
    index('alert_firings_alert_idx').on(t.owner, t.alertId, t.firedAt.desc()),
    index('alert_firings_group_idx').on(t.groupId, t.firedAt).where(sql`${t.groupId} is not null`),
  ],
);

/**
 * Episodes: one condition of one alert (its incident key, episode.model.ts), from the first firing
 * until it resolves (the condition cleared, no repeat for the alert's resolve timeout, or somebody
 * resolved it). At most one open episode per (alert, key): the partial unique index. While it is
 * acknowledged, its repeats are recorded as `acknowledged` and not sent.
 */
export const alertEpisodes = pgTable(
  'alert_episodes',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    alertId: text('alert_id').notNull(),
    incidentKey: text('incident_key').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastEventAt: timestamp('last_event_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** The episode's latest event, as delivered (what a `resolved` notice recalls). */
    lastEvent: jsonb('last_event').$type<StoredAlertEvent>().notNull(),
    firings: integer('firings').notNull().default(1),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true, mode: 'date' }),
    acknowledgedBy: text('acknowledged_by'),
    acknowledgementNote: text('acknowledgement_note'),
    resolvedAt: timestamp('resolved_at', { withTimezone: true, mode: 'date' }),
    /** `cleared`, `timeout` or `manual`. */
    resolvedReason: text('resolved_reason'),
    resolvedBy: text('resolved_by'),
    resolutionNote: text('resolution_note'),
  },
  (t) => [
    uniqueIndex('alert_episodes_open_idx')
      .on(t.owner, t.alertId, t.incidentKey)
      .where(sql`${t.resolvedAt} is null`),
    index('alert_episodes_alert_idx').on(t.owner, t.alertId, t.startedAt.desc()),
    index('alert_episodes_open_age_idx').on(t.lastEventAt).where(sql`${t.resolvedAt} is null`),
  ],
);

/**
 * Groups of a grouped alert's firings (group.model.ts): one open group per (alert, group key).
 * `flush_at` is when its next notification is due (null: nothing due); `last_sent_at` when the
 * last one went; `resolved_at` when every episode of its events had resolved.
 */
export const alertGroups = pgTable(
  'alert_groups',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    alertId: text('alert_id').notNull(),
    groupKey: text('group_key').notNull(),
    /** The group's label values, e.g. {"watchdog":"volume_spike","asset":"AAPL"}. */
    labels: jsonb('labels').$type<Record<string, string>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastEventAt: timestamp('last_event_at', { withTimezone: true, mode: 'date' }).notNull(),
    flushAt: timestamp('flush_at', { withTimezone: true, mode: 'date' }),
    lastSentAt: timestamp('last_sent_at', { withTimezone: true, mode: 'date' }),
    /** Notifications sent so far (the notice firings' sequence). */
    notices: integer('notices').notNull().default(0),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true, mode: 'date' }),
    acknowledgedBy: text('acknowledged_by'),
    acknowledgementNote: text('acknowledgement_note'),
    resolvedAt: timestamp('resolved_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('alert_groups_open_idx')
      .on(t.owner, t.alertId, t.groupKey)
      .where(sql`${t.resolvedAt} is null`),
    index('alert_groups_flush_idx').on(t.flushAt).where(sql`${t.flushAt} is not null`),
  ],
);

/** What a silence matches (silence.model.ts), as stored. */
export interface StoredSilenceMatchers {
  readonly event_types: string[];
  readonly severities: string[];
  readonly assets: string[];
  readonly watchdogs: string[];
  readonly alert_ids: string[];
}

/**
 * Silences: from `starts_at` until `ends_at`, the firings of the owner's alerts that the matchers
 * pass are recorded as `silenced` and deliver nothing. Read in the firing's transaction, so a
 * silence holds on every instance and across restarts.
 */
export const alertSilences = pgTable(
  'alert_silences',
  {
    owner: text('owner').notNull(),
    id: text('id').notNull(),
    matchers: jsonb('matchers').$type<StoredSilenceMatchers>().notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }).notNull(),
    comment: text('comment').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.id] }), index('alert_silences_ends_idx').on(t.owner, t.endsAt)],
);

/**
 * `held`: taken and given back without an attempt, because its owner's share of the workers was
 * taken or its destination is paused; the dispatcher takes it again when its turn comes.
 */
export type DeliveryStatus = 'pending' | 'sending' | 'retrying' | 'held' | 'delivered' | 'failed';

/**
 * One per target per firing (a chat id, an email recipient, the webhook), each with its own attempts,
 * retry schedule and record; its id is the `X-Vigil-Delivery` header, the same on every retry.
 */
export const alertDeliveries = pgTable(
  'alert_deliveries',
  {
    id: text('id').primaryKey(),
    firingId: text('firing_id').notNull(),
    owner: text('owner').notNull(),
    alertId: text('alert_id').notNull(),
    method: text('method').$type<DeliveryMethod>().notNull(),
    /**
     * The chat id, recipient address or webhook URL this delivery goes to. Null on deliveries
     * stored before deliveries were per target: those go to every target of their method at once.
     */
    target: text('target'),
    /**
     * Where it goes, as the delivery's fairness sees it (a webhook's host, an SMTP server, a chat
     * bot): set by its first attempt. A destination failing again and again is paused, and its
     * deliveries are held until it may be tried again.
     */
    destination: text('destination'),
    status: text('status').$type<DeliveryStatus>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    /** When an attempt took the delivery (`sending`); an old claim is an attempt whose worker died. */
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('alert_deliveries_alert_idx').on(t.owner, t.alertId, t.createdAt.desc()),
    index('alert_deliveries_status_idx').on(t.status, t.nextAttemptAt),
  ],
);

/** The delivery record: one row per attempt. */
export const alertDeliveryAttempts = pgTable(
  'alert_delivery_attempts',
  {
    deliveryId: text('delivery_id').notNull(),
    attempt: integer('attempt').notNull(),
    owner: text('owner').notNull(),
    alertId: text('alert_id').notNull(),
    method: text('method').$type<DeliveryMethod>().notNull(),
    status: text('status').$type<AttemptStatus>().notNull(),
    responseCode: integer('response_code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    attemptedAt: timestamp('attempted_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.deliveryId, t.attempt] }),
    index('alert_delivery_attempts_alert_idx').on(t.owner, t.alertId, t.attemptedAt.desc()),
  ],
);
