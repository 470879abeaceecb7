import { builder } from '../builder.ts';
import { pushSource } from '../platform/graphql/direct-delivery.ts';
import { enumName, enumValues } from '../platform/graphql/enum-values.ts';
import { sharedResults } from '../platform/graphql/shared-subscriptions.ts';
import { DEFAULT_EVENT_LIMIT, MAX_EVENT_LIMIT, MAX_FILTER_VALUES, parseEventQuery } from './event-filter.ts';
import { eventIterator } from './event-iterator.ts';
import { MAX_REPLAY_EVENTS, parseReplay, ReplayOverlap, replayQuery } from './event-replay.ts';
import type { EventPage, WatchdogEvent } from './events.repository.ts';
import type { EventAsset } from './events.sql.ts';
import { EVENT_TYPE_INFO, type EventType } from './registry.ts';
import { watchdogsDeps } from './watchdogs.deps.ts';
import { EventSeverityEnum, WatchdogNameEnum } from './watchdogs.graphql.ts';

/** Watchdog events: the stored history (newest first, with cursors) and the live feed. */

/** From each watchdog's descriptor: what the event reports, and which watchdog emits it. */
const EVENT_TYPE_DESCRIPTIONS = Object.fromEntries(
  Object.entries(EVENT_TYPE_INFO).map(([type, info]) => [
    type,
    `${info.description} (watchdog ${enumName(info.watchdog)}).`,
  ]),
) as Record<EventType, string>;

export const WatchdogEventTypeEnum = builder.enumType('WatchdogEventType', {
  description: 'What a watchdog event reports.',
  values: enumValues(EVENT_TYPE_DESCRIPTIONS),
});

const EventAssetRef = builder.objectRef<EventAsset>('WatchdogEventAsset').implement({
  description: 'What an event is about. Value object: not normalised (it belongs to its event).',
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Symbol as watched: AAPL, BTC/USDT.' }),
    assetType: t.exposeString('assetType', {
      description: 'Kind of asset in lower case: `equity`, `crypto`, `fx`, `index`, ...',
    }),
    name: t.string({ nullable: true, description: 'Name, when known.', resolve: (a) => a.name ?? null }),
    market: t.string({
      nullable: true,
      description: 'Market code of a listing (US, UK, ...); null when none applies.',
      resolve: (a) => a.market ?? null,
    }),
    exchange: t.string({
      nullable: true,
      description: 'Exchange or venue, when known.',
      resolve: (a) => a.exchange ?? null,
    }),
    currency: t.string({
      nullable: true,
      description: 'Currency of its prices, when known.',
      resolve: (a) => a.currency ?? null,
    }),
    pair: t.stringList({
      nullable: true,
      description: 'For a pair finding (a correlation break): the two symbols; null otherwise.',
      resolve: (a) => (a.pair ? [...a.pair] : null),
    }),
  }),
});

export const WatchdogEventRef = builder.objectRef<WatchdogEvent>('WatchdogEvent').implement({
  description:
    'Something a watchdog saw, stored for the retention period. Entity: id is the event id (time-sortable).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Stable, unique event id; later events have greater ids.' }),
    watchdog: t.field({
      type: WatchdogNameEnum,
      description: 'The watchdog that emitted it.',
      resolve: (e) => e.watchdog,
    }),
    eventType: t.field({
      type: WatchdogEventTypeEnum,
      description: 'What it reports.',
      resolve: (e) => e.eventType,
    }),
    severity: t.field({
      type: EventSeverityEnum,
      description: 'How serious it is.',
      resolve: (e) => e.severity,
    }),
    symbol: t.exposeString('symbol', {
      nullable: true,
      description: 'Symbol it is about; null for a market-wide event (an exchange outage).',
    }),
    asset: t.field({
      type: EventAssetRef,
      nullable: true,
      description: 'What it is about; null for a market-wide event.',
      resolve: (e) => e.asset ?? null,
    }),
    description: t.exposeString('description', { description: 'What was seen, in one sentence.' }),
    occurredAt: t.expose('occurredAt', {
      type: 'DateTime',
      description: 'When the condition was seen (UTC).',
    }),
    data: t.field({
      type: 'JSON',
      description: 'The measured values and the thresholds they were compared with (per event type).',
      resolve: (e) => e.data,
    }),
  }),
});

const EventPageRef = builder.objectRef<EventPage>('WatchdogEventPage').implement({
  description: 'One page of events, newest first. Value object: not normalised (one per query).',
  fields: (t) => ({
    events: t.field({
      type: [WatchdogEventRef],
      description: 'The events, newest first.',
      resolve: (p) => p.events,
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as `cursor` for the next (older) page; null when no older event matches.',
    }),
  }),
});

const LIST = `at most ${MAX_FILTER_VALUES} values; empty or absent: any`;

export const EventFilterInput = builder.inputType('WatchdogEventFilter', {
  description:
    'Which events: fields are AND-ed, values inside one list OR-ed. An event about no asset (an exchange ' +
    'outage) passes any symbol filter.',
  fields: (t) => ({
    severities: t.field({ type: [EventSeverityEnum], description: `Severities (${LIST}).` }),
    eventTypes: t.field({ type: [WatchdogEventTypeEnum], description: `Event types (${LIST}).` }),
    symbols: t.stringList({ description: `Symbols as watched, AAPL or BTC/USDT (${LIST}).` }),
    watchdogs: t.field({ type: [WatchdogNameEnum], description: `Emitting watchdogs (${LIST}).` }),
    since: t.field({ type: 'DateTime', description: 'Events that occurred at or after this time.' }),
    until: t.field({
      type: 'DateTime',
      description: 'Events that occurred before this time (after `since`).',
    }),
  }),
});

builder.queryField('watchdogEvents', (t) =>
  t.field({
    type: EventPageRef,
    description: 'Stored events, newest first, a page at a time.',
    args: {
      filter: t.arg({ type: EventFilterInput, description: 'Which events (default: all).' }),
      limit: t.arg.int({
        defaultValue: DEFAULT_EVENT_LIMIT,
        description: `Events per page, 1 to ${MAX_EVENT_LIMIT}.`,
      }),
      cursor: t.arg.string({ description: '`nextCursor` of the previous page; absent for the newest.' }),
    },
    resolve: (_root, args, ctx) =>
      watchdogsDeps(ctx).watchdogs.events({ ...args.filter, limit: args.limit, cursor: args.cursor }),
  }),
);

builder.queryField('watchdogEvent', (t) =>
  t.field({
    type: WatchdogEventRef,
    nullable: true,
    description: 'One stored event; null when there is none with this id (or it passed its retention).',
    args: { id: t.arg.id({ required: true, description: 'The event id.' }) },
    resolve: (_root, { id }, ctx) => watchdogsDeps(ctx).watchdogs.event(String(id)),
  }),
);

builder.subscriptionField('watchdogEvents', (t) =>
  t.field({
    ...sharedResults(),
    type: WatchdogEventRef,
    description:
      'Events as they are stored, from any instance, from now on; with `last` or `since`, the stored events ' +
      'before them first (a replay), oldest first, then the live ones without a gap or a repeat. A reader ' +
      'that falls far behind loses the oldest undelivered live events rather than holding the server’s memory.',
    args: {
      filter: t.arg({
        type: EventFilterInput,
        description: 'Which events (default: all); the replay passes it too.',
      }),
      last: t.arg.int({
        description:
          `Replay: start with the newest \`last\` stored events (1 to ${MAX_REPLAY_EVENTS}) that pass the filter ` +
          '(and `since`, when given). Absent, and `since` absent: no replay.',
      }),
      since: t.arg.string({
        description:
          'Replay: start with the stored events after this point. An event id (the `id` of the last event a ' +
          'client received) selects those stored after it, not itself: a reconnecting client resumes without ' +
          'a gap or a repeat. An ISO 8601 date-time (2025-06-11T15:00:00Z) selects those that occurred at or ' +
          `after it. At most \`last\` of them, or ${MAX_REPLAY_EVENTS} without it: the newest ones; page ` +
          'through the `watchdogEvents` query for more.',
      }),
    },
    subscribe: async (_root, args, ctx) => {
      // Checked before the feed starts: a bad filter or replay fails the subscription, naming the field.
      const filter = parseEventQuery({ ...args.filter });
      const replay = parseReplay({ last: args.last, since: args.since });
      const events = eventIterator((listener) => watchdogsDeps(ctx).watchdogs.subscribe(filter, listener));
      if (replay) {
        // Read once the feed listens: an event stored meanwhile is live, or replayed, or both (once).
        try {
          const stored = await watchdogsDeps(ctx).watchdogs.replayEvents(replay, filter);
          events.replay(stored.events, new ReplayOverlap(replayQuery(replay, filter), stored.events));
        } catch (error) {
          await events.return?.();
          throw error;
        }
      }
      // Events can be pushed to a transport that delivers directly (see direct-delivery.ts).
      return pushSource(events, (offer, batch) => events.offerTo(offer, batch));
    },
    resolve: (event) => event,
  }),
);
