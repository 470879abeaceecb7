/**
 * The silences' GraphQL operations as the REST routes and MCP tools run them (as the caller), and
 * their answers in the wire shape (snake_case; enum values in their lower-case spelling).
 */
import { enumName, fromEnumName } from '../platform/graphql/enum-values.ts';
import { EVENT_TYPES, SEVERITIES, WATCHDOG_NAMES } from '../watchdogs/watchdog-event.ts';
import type { CheckedSilenceWire } from './silence-input.wire.ts';

const SILENCE_FIELDS =
  'id owner matchers { eventTypes severities assets watchdogs alertIds } startsAt endsAt comment createdBy createdAt state';

export const LIST_SILENCES = `query ListSilences($include_expired: Boolean) {
  alertSilences(includeExpired: $include_expired) { ${SILENCE_FIELDS} }
}`;
export const CREATE_SILENCE = `mutation CreateSilence($matchers: AlertSilenceMatchersInput, $starts_at: DateTime, $ends_at: DateTime!, $comment: String!) {
  createAlertSilence(input: { matchers: $matchers, startsAt: $starts_at, endsAt: $ends_at, comment: $comment }) { ${SILENCE_FIELDS} }
}`;
export const EXPIRE_SILENCE = `mutation ExpireSilence($silence_id: String!) {
  expireAlertSilence(id: $silence_id) { ${SILENCE_FIELDS} }
}`;
export const DELETE_SILENCE = `mutation DeleteSilence($silence_id: String!) { deleteAlertSilence(id: $silence_id) }`;

export interface SilenceData {
  readonly id: string;
  readonly owner: string;
  readonly matchers: {
    readonly eventTypes: readonly string[];
    readonly severities: readonly string[];
    readonly assets: readonly string[];
    readonly watchdogs: readonly string[];
    readonly alertIds: readonly string[];
  };
  readonly startsAt: string;
  readonly endsAt: string;
  readonly comment: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly state: string;
}

/** A checked wire silence as the create mutation's variables (enum values in GraphQL spelling). */
export function silenceVariables(w: CheckedSilenceWire): Record<string, unknown> {
  const m = w.matchers;
  return {
    matchers: {
      eventTypes: m.event_types.map(enumName),
      severities: m.severities.map(enumName),
      assets: m.assets,
      watchdogs: m.watchdogs.map(enumName),
      alertIds: m.alert_ids,
    },
    ...(w.starts_at ? { starts_at: w.starts_at } : {}),
    ends_at: w.ends_at,
    comment: w.comment,
  };
}

const eventType = fromEnumName(EVENT_TYPES);
const severity = fromEnumName(SEVERITIES);
const watchdog = fromEnumName(WATCHDOG_NAMES);

export function silenceWire(s: SilenceData) {
  return {
    silence_id: s.id,
    owner: s.owner,
    matchers: {
      event_types: s.matchers.eventTypes.map(eventType),
      severities: s.matchers.severities.map(severity),
      assets: s.matchers.assets,
      watchdogs: s.matchers.watchdogs.map(watchdog),
      alert_ids: s.matchers.alertIds,
    },
    starts_at: s.startsAt,
    ends_at: s.endsAt,
    comment: s.comment,
    created_by: s.createdBy,
    created_at: s.createdAt,
    state: s.state.toLowerCase(),
  };
}
