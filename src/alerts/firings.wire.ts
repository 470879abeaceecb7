/**
 * The record of firings and episodes on the REST routes and MCP tools: the GraphQL documents they
 * run (camelCase variables, so the tools take alert_id and firing_id and still accept alertId and
 * firingId),
 * their data, and the answers in the wire shape: snake_case, enum values in their lower-case
 * spelling, a firing's event as the webhook body's `event`.
 */
import { enumName, fromEnumName } from '../platform/graphql/enum-values.ts';
import { SEVERITIES, WATCHDOG_NAMES } from '../watchdogs/watchdog-event.ts';
import type { AlertEventType } from './alert-event.model.ts';
import type { AlertEventWire } from './alert-event.wire.ts';
import type { FiringStatus } from './alerts.sql.ts';
import type { EpisodeState } from './episode.model.ts';

const EVENT_FIELDS =
  'eventId type severity description asset { symbol assetType name market exchange currency pair } occurredAt watchdog data sample';
const EPISODE_FIELDS =
  'id alertId incidentKey state startedAt lastEventAt firings durationSeconds acknowledgedAt acknowledgedBy acknowledgementNote resolvedAt resolvedReason resolvedBy resolutionNote';
const FIRING_FIELDS = `id alertId status kind event { ${EVENT_FIELDS} } firedAt silencedBy groupKey episode { ${EPISODE_FIELDS} }`;

export const LIST_FIRINGS = `query ListAlertFirings($alertId: ID!, $limit: Int, $status: [AlertFiringStatus!]) {
  alertFirings(alertId: $alertId, first: $limit, status: $status) { ${FIRING_FIELDS} }
}`;
export const LIST_EPISODES = `query ListAlertEpisodes($alertId: ID!, $limit: Int, $state: [AlertEpisodeState!]) {
  alertEpisodes(alertId: $alertId, first: $limit, state: $state) { ${EPISODE_FIELDS} }
}`;
export const ACKNOWLEDGE_FIRING = `mutation AcknowledgeAlertFiring($alertId: ID!, $firingId: ID!, $note: String) {
  acknowledgeAlertFiring(alertId: $alertId, firingId: $firingId, note: $note) { ${FIRING_FIELDS} }
}`;
export const RESOLVE_FIRING = `mutation ResolveAlertFiring($alertId: ID!, $firingId: ID!, $note: String) {
  resolveAlertFiring(alertId: $alertId, firingId: $firingId, note: $note) { ${FIRING_FIELDS} }
}`;

/** The lower-case values of the statuses and states, as the wire spells them. */
export const FIRING_STATUSES = [
  'fired',
  'cooldown',
  'rate_limited',
  'silenced',
  'acknowledged',
  'grouped',
  'test',
] as const satisfies readonly FiringStatus[];
export const EPISODE_STATES = [
  'firing',
  'acknowledged',
  'resolved',
] as const satisfies readonly EpisodeState[];

export interface EpisodeData {
  readonly id: string;
  readonly alertId: string;
  readonly incidentKey: string;
  readonly state: string;
  readonly startedAt: string;
  readonly lastEventAt: string;
  readonly firings: number;
  readonly durationSeconds: number;
  readonly acknowledgedAt: string | null;
  readonly acknowledgedBy: string | null;
  readonly acknowledgementNote: string | null;
  readonly resolvedAt: string | null;
  readonly resolvedReason: string | null;
  readonly resolvedBy: string | null;
  readonly resolutionNote: string | null;
}

export interface FiringData {
  readonly id: string;
  readonly alertId: string;
  readonly status: string;
  readonly kind: string;
  readonly event: {
    readonly eventId: string;
    readonly type: string;
    readonly severity: string;
    readonly description: string;
    readonly asset: {
      readonly symbol: string;
      readonly assetType: string;
      readonly name: string | null;
      readonly market: string | null;
      readonly exchange: string | null;
      readonly currency: string | null;
      readonly pair: readonly string[] | null;
    } | null;
    readonly occurredAt: string;
    readonly watchdog: string | null;
    readonly data: Readonly<Record<string, unknown>>;
    readonly sample: boolean;
  };
  readonly firedAt: string;
  readonly silencedBy: string | null;
  readonly groupKey: string | null;
  readonly episode: EpisodeData | null;
}

/** Wire statuses or states (lower case, checked by the caller) as the GraphQL enum's names. */
export const enumNames = (values: readonly string[]): string[] => values.map(enumName);

const severity = fromEnumName(SEVERITIES);
const watchdog = fromEnumName(WATCHDOG_NAMES);
const lower = (name: string) => name.toLowerCase();

export function episodeWire(e: EpisodeData) {
  return {
    episode_id: e.id,
    incident_key: e.incidentKey,
    state: lower(e.state),
    started_at: e.startedAt,
    last_event_at: e.lastEventAt,
    firings: e.firings,
    duration_seconds: e.durationSeconds,
    acknowledged_at: e.acknowledgedAt,
    acknowledged_by: e.acknowledgedBy,
    acknowledgement_note: e.acknowledgementNote,
    resolved_at: e.resolvedAt,
    resolved_reason: e.resolvedReason && lower(e.resolvedReason),
    resolved_by: e.resolvedBy,
    resolution_note: e.resolutionNote,
  };
}

/** The event as the webhook body carries it (alert-event.wire.ts): optional asset parts only when known. */
function eventWire(e: FiringData['event']): AlertEventWire {
  const a = e.asset;
  return {
    event_id: e.eventId,
    type: e.type as AlertEventType,
    severity: severity(e.severity),
    description: e.description,
    asset: a && {
      symbol: a.symbol,
      asset_type: a.assetType,
      ...(a.name !== null ? { name: a.name } : {}),
      ...(a.market !== null ? { market: a.market } : {}),
      ...(a.exchange !== null ? { exchange: a.exchange } : {}),
      ...(a.currency !== null ? { currency: a.currency } : {}),
      ...(a.pair !== null ? { pair: [a.pair[0] ?? '', a.pair[1] ?? ''] as const } : {}),
    },
    timestamp: e.occurredAt,
    watchdog: e.watchdog === null ? null : watchdog(e.watchdog),
    data: e.data,
    metadata: e.sample ? { test: true } : {},
  };
}

export function firingWire(f: FiringData) {
  return {
    firing_id: f.id,
    alert_id: f.alertId,
    status: lower(f.status),
    kind: lower(f.kind),
    event: eventWire(f.event),
    fired_at: f.firedAt,
    silenced_by: f.silencedBy,
    group_key: f.groupKey,
    episode: f.episode && episodeWire(f.episode),
  };
}
