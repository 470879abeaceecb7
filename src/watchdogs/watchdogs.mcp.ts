import type { Scheduler, TimerHandle } from '../platform/clock.ts';
import type { McpResourceTemplate } from '../platform/mcp/mcp-resources.ts';
import { type EventData, WATCHDOG_EVENTS } from './dashboard/dashboard.documents.ts';
import { eventPageWire } from './dashboard/dashboard.wire.ts';
import { ANY_EVENT } from './event-filter.ts';
import type { WatchdogsApi } from './watchdogs-api.ts';

/** A subscribed `vigil://events` is reported changed at most once per this interval. */
export const EVENTS_RESOURCE_INTERVAL_MS = 1_000;
/** Events a read returns (the newest). */
export const EVENTS_RESOURCE_LIMIT = 50;

interface EventsData {
  readonly watchdogEvents: { readonly events: EventData[]; readonly nextCursor: string | null };
}

/**
 * `vigil://events`: the newest watchdog events, as the dashboard routes send them. A read runs the
 * GraphQL `watchdogEvents` query as the reader. A subscription is checked with the same query (a
 * reader that may not read it may not watch it), then listens to the event feed and reports a
 * change at most once a second however many events arrive, so a burst costs one notification.
 */
export function eventsResource(deps: {
  readonly watchdogs: WatchdogsApi;
  readonly clock: Scheduler;
}): McpResourceTemplate {
  return {
    uriTemplate: 'vigil://events',
    name: 'events',
    title: 'Recent watchdog events',
    description:
      `The ${EVENTS_RESOURCE_LIMIT} newest watchdog events, newest first. JSON: {events: [{event_id, type, severity, ` +
      'description, asset {symbol, asset_type} or null, timestamp, watchdog, data, metadata}], next_cursor} (older ' +
      'events: the get-watchdog-events tool with that cursor). Subscribe to be told when events arrive (at most once a second).',
    mimeType: 'application/json',

    list() {
      return [{ uri: 'vigil://events', name: 'events', title: 'Recent watchdog events' }];
    },

    async read(_params, call) {
      const data = await call<EventsData>(WATCHDOG_EVENTS, { limit: EVENTS_RESOURCE_LIMIT });
      return eventPageWire(data.watchdogEvents);
    },

    async watch(_params, onChange, call) {
      await call(WATCHDOG_EVENTS, { limit: 1 });
      let timer: TimerHandle | undefined;
      let lastAt = Number.NEGATIVE_INFINITY;
      let stopped = false;
      const report = () => {
        timer = undefined;
        if (stopped) return;
        lastAt = deps.clock.now().getTime();
        onChange();
      };
      const leave = deps.watchdogs.subscribe(ANY_EVENT, () => {
        if (stopped || timer !== undefined) return;
        const wait = lastAt + EVENTS_RESOURCE_INTERVAL_MS - deps.clock.now().getTime();
        if (wait <= 0) report();
        else timer = deps.clock.setTimeout(report, wait);
      });
      return () => {
        if (stopped) return;
        stopped = true;
        leave();
        deps.clock.clearTimeout(timer);
      };
    },
  };
}
