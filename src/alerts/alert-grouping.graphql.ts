import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { type AlertGrouping, GROUPING_DEFAULTS, type GroupLabel } from './alert.model.ts';
import { GROUPING_RANGES } from './alert-grouping.wire.ts';

/**
 * An alert's grouping (alert.model.ts), in and out. As on every alert input, no default is declared
 * in GraphQL: the one wire schema (alert-grouping.wire.ts) applies them, so the descriptions state them.
 */

const LABEL_DESCRIPTIONS: Readonly<Record<GroupLabel, string>> = {
  watchdog: 'The watchdog that emitted the event.',
  asset: 'The symbol the event is about (`-` for an event about no asset).',
  event_type: 'The type of the event.',
};

export const GroupLabelEnum = builder.enumType('AlertGroupLabel', {
  description: "A label of a watchdog event that a grouped alert's groups are keyed by.",
  values: enumValues(LABEL_DESCRIPTIONS),
});

const range = (name: keyof typeof GROUPING_RANGES) =>
  `${GROUPING_RANGES[name].min} to ${GROUPING_RANGES[name].max} (default ${GROUPING_DEFAULTS[name]})`;

const GROUP_BY =
  'Labels that key a group, each at most once (empty or absent: one group for every firing of the alert).';
const GROUP_WAIT = `Seconds a new group waits before its first notification, ${range('groupWaitSeconds')}.`;
const GROUP_INTERVAL = `Seconds at least between two notifications of a group about new events, ${range('groupIntervalSeconds')}.`;
const REPEAT_INTERVAL = `Seconds without new events after which an unresolved group is notified again, ${range('repeatIntervalSeconds')}.`;

export const GroupingInput = builder.inputType('AlertGroupingInput', {
  description:
    'WATCHDOG_EVENT alerts only: firings gathered into groups, each notified as one message listing its events.',
  fields: (t) => ({
    groupBy: t.field({ type: [GroupLabelEnum], description: GROUP_BY }),
    groupWaitSeconds: t.int({ description: GROUP_WAIT }),
    groupIntervalSeconds: t.int({ description: GROUP_INTERVAL }),
    repeatIntervalSeconds: t.int({ description: REPEAT_INTERVAL }),
  }),
});

export const GroupingRef = builder.objectRef<AlertGrouping>('AlertGrouping').implement({
  description:
    "How a watchdog-event alert's firings are gathered into groups, each notified as one message listing its events. Value object: not normalised.",
  fields: (t) => ({
    groupBy: t.field({
      type: [GroupLabelEnum],
      description: 'Labels that key a group (empty: one group for every firing of the alert).',
      resolve: (g) => g.groupBy,
    }),
    groupWaitSeconds: t.exposeInt('groupWaitSeconds', { description: GROUP_WAIT }),
    groupIntervalSeconds: t.exposeInt('groupIntervalSeconds', { description: GROUP_INTERVAL }),
    repeatIntervalSeconds: t.exposeInt('repeatIntervalSeconds', { description: REPEAT_INTERVAL }),
  }),
});
