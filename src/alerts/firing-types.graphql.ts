import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { EventSeverityEnum, WatchdogNameEnum } from '../watchdogs/watchdogs.graphql.ts';
import type { AlertEvent, AlertEventAsset } from './alert-event.model.ts';
import { alertsDeps } from './alerts.deps.ts';
import type { FiringKind, FiringStatus } from './alerts.sql.ts';
import {
  type Episode,
  type EpisodeState,
  episodeDurationSeconds,
  type Firing,
  type ResolvedReason,
} from './episode.model.ts';

/**
 * The firing record's types (episode.model.ts): a firing with its event and episode, an episode
 * with its state and who acknowledged or resolved it. Its queries and mutations are in
 * firings.graphql.ts.
 */

export const FiringStatusEnum = builder.enumType('AlertFiringStatus', {
  description: 'What became of a firing.',
  values: enumValues<FiringStatus>({
    fired: 'It delivered (or its notice did): one delivery per target.',
    cooldown: 'The alert’s cooldown held it: nothing was delivered.',
    rate_limited:
      'The alert’s firing rate bound (ALERT_MAX_FIRINGS_PER_MINUTE) held it: nothing was delivered.',
    silenced: 'A silence or mute window held it (`silencedBy` says which): nothing was delivered.',
    acknowledged:
      'Its condition’s episode was acknowledged: recorded, not delivered, until the episode resolves.',
    grouped: 'It joined its group (`groupKey`), whose notification delivers it.',
    test: 'A test-send’s sample event, delivered whatever the alert’s state.',
  }),
});

const FiringKindEnum = builder.enumType('AlertFiringKind', {
  description: 'What a firing’s deliveries say.',
  values: enumValues<FiringKind>({
    event: 'One event of the alert’s condition.',
    group: 'A group’s notification listing its events.',
    resolved: 'An episode (or group) resolved.',
    acknowledged: 'Somebody acknowledged an episode (sent to PagerDuty only).',
  }),
});

export const EpisodeStateEnum = builder.enumType('AlertEpisodeState', {
  description: 'Where an episode is: firing, optionally acknowledged, then resolved (final).',
  values: enumValues<EpisodeState>({
    firing: 'Open: its condition’s firings deliver.',
    acknowledged: 'Open and acknowledged: its condition’s firings are recorded but not delivered.',
    resolved: 'Ended; the next firing of its condition opens a new episode.',
  }),
});

const ResolvedReasonEnum = builder.enumType('AlertEpisodeResolvedReason', {
  description: 'How an episode ended.',
  values: enumValues<ResolvedReason>({
    cleared: 'Its condition cleared (threshold and custom-condition alerts re-armed).',
    timeout: 'No event of its condition for the alert’s resolveTimeoutSeconds (watchdog-event alerts).',
    manual: 'Somebody resolved it (`resolvedBy`, `resolutionNote`).',
  }),
});

const AssetRef = builder.objectRef<AlertEventAsset>('AlertFiringEventAsset').implement({
  description: 'What a firing’s event is about. Value object: not normalised (it belongs to its event).',
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Symbol as watched: AAPL, BTC/USDT.' }),
    assetType: t.exposeString('assetType', {
      description: 'Kind of asset in lower case: `equity`, `crypto`, ...',
    }),
    name: t.string({ nullable: true, description: 'Name, when known.', resolve: (a) => a.name ?? null }),
    market: t.string({
      nullable: true,
      description: 'Market code, when known.',
      resolve: (a) => a.market ?? null,
    }),
    exchange: t.string({
      nullable: true,
      description: 'Exchange, when known.',
      resolve: (a) => a.exchange ?? null,
    }),
    currency: t.string({
      nullable: true,
      description: 'Currency, when known.',
      resolve: (a) => a.currency ?? null,
    }),
    pair: t.stringList({
      nullable: true,
      description: 'For a pair finding: the two symbols; null otherwise.',
      resolve: (a) => (a.pair ? [...a.pair] : null),
    }),
  }),
});

const EventRef = builder.objectRef<AlertEvent>('AlertFiringEvent').implement({
  description:
    'The event a firing is about (a group notice’s newest, a resolution’s last), as the webhook body’s `event` carries it. Value object: not normalised.',
  fields: (t) => ({
    eventId: t.exposeString('id', {
      description: 'The event id (`event.event_id` of the webhook body; a test-send’s starts with `test-`).',
    }),
    type: t.exposeString('type', {
      description:
        'The event type as the webhook body spells it: a watchdog event type (`flash_crash`, ...) or the alert’s own trigger (`price_threshold`, `volume_threshold`, `custom_condition`).',
    }),
    severity: t.field({
      type: EventSeverityEnum,
      description: 'How serious it is.',
      resolve: (e) => e.severity,
    }),
    description: t.exposeString('description', { description: 'What was seen, in one sentence.' }),
    asset: t.field({
      type: AssetRef,
      nullable: true,
      description: 'What it is about; null for a market-wide event.',
      resolve: (e) => e.asset,
    }),
    occurredAt: t.field({ type: 'DateTime', description: 'When it was seen.', resolve: (e) => e.occurredAt }),
    watchdog: t.field({
      type: WatchdogNameEnum,
      nullable: true,
      description: 'The watchdog that emitted it; null for the alerts’ own triggers.',
      resolve: (e) => e.watchdog,
    }),
    data: t.field({ type: 'JSON', description: 'The measured values.', resolve: (e) => e.data }),
    sample: t.exposeBoolean('sample', { description: 'True for a test-send’s sample event.' }),
  }),
});

export const EpisodeRef = builder.objectRef<Episode>('AlertEpisode').implement({
  description:
    'One condition of one alert (its incident key), from its first firing until it resolves; at most one open per alert and key.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Its id, chosen by the server.' }),
    alertId: t.exposeString('alertId', { description: 'The alert.' }),
    incidentKey: t.exposeString('incidentKey', {
      description:
        'Its condition: `<event type>/<symbol or ->` (watchdog events), `<trigger type>/<symbol>` (thresholds), `custom_condition/-`; PagerDuty’s dedup_key is `vigil/<alert id>/<incident key>`.',
    }),
    state: t.field({ type: EpisodeStateEnum, description: 'Where it is.', resolve: (e) => e.state }),
    startedAt: t.field({ type: 'DateTime', description: 'Its first firing.', resolve: (e) => e.startedAt }),
    lastEventAt: t.field({
      type: 'DateTime',
      description: 'Its latest firing (delivered or not).',
      resolve: (e) => e.lastEventAt,
    }),
    firings: t.exposeInt('firings', { description: 'Firings of its condition so far, delivered or not.' }),
    durationSeconds: t.int({
      description: 'Seconds from its start to its resolution (to now while it lasts).',
      resolve: (e, _args, ctx) => episodeDurationSeconds(e, alertsDeps(ctx).alerts.firingRecord.now()),
    }),
    acknowledgedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was acknowledged (the first acknowledgement); null if never.',
      resolve: (e) => e.acknowledgedAt,
    }),
    acknowledgedBy: t.exposeString('acknowledgedBy', {
      nullable: true,
      description: 'The name of the key that acknowledged it.',
    }),
    acknowledgementNote: t.exposeString('acknowledgementNote', {
      nullable: true,
      description: 'The note given with the acknowledgement.',
    }),
    resolvedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it resolved; null while open.',
      resolve: (e) => e.resolvedAt,
    }),
    resolvedReason: t.field({
      type: ResolvedReasonEnum,
      nullable: true,
      description: 'How it resolved; null while open.',
      resolve: (e) => e.resolvedReason,
    }),
    resolvedBy: t.exposeString('resolvedBy', {
      nullable: true,
      description: 'The name of the key that resolved it (MANUAL); null otherwise.',
    }),
    resolutionNote: t.exposeString('resolutionNote', {
      nullable: true,
      description: 'The note given when it was resolved by hand.',
    }),
  }),
});

export const FiringRef = builder.objectRef<Firing>('AlertFiring').implement({
  description:
    'One firing of an alert: an event that matched it, or a notice (a group, a resolution, an acknowledgement).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Its id; pass it to acknowledge or resolve its episode.' }),
    alertId: t.exposeString('alertId', { description: 'The alert.' }),
    status: t.field({ type: FiringStatusEnum, description: 'What became of it.', resolve: (f) => f.status }),
    kind: t.field({ type: FiringKindEnum, description: 'What its deliveries say.', resolve: (f) => f.kind }),
    event: t.field({ type: EventRef, description: 'The event it is about.', resolve: (f) => f.event }),
    firedAt: t.field({ type: 'DateTime', description: 'When it fired.', resolve: (f) => f.firedAt }),
    silencedBy: t.exposeString('silencedBy', {
      nullable: true,
      description: 'A SILENCED firing: `silence:<id>` or `mute_window:<index>`; null otherwise.',
    }),
    groupKey: t.exposeString('groupKey', {
      nullable: true,
      description:
        'A grouped alert’s firing: its group’s key (`watchdog=volume_spike,asset=AAPL`, `*`); null otherwise.',
    }),
    episode: t.field({
      type: EpisodeRef,
      nullable: true,
      description: 'Its condition’s episode; null for test-sends, silenced firings and group notices.',
      resolve: (f) => f.episode,
    }),
  }),
});
