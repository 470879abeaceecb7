/**
 * Does an event match an alert's `watchdog_event` filter? Fields are AND-ed, the values of one list
 * OR-ed, and an empty list means any. As on the dashboard, an event about no asset (an exchange
 * outage) passes an asset filter: an outage concerns every asset traded there.
 */
import type { EventFilter } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';

export type MatchableEvent = Pick<AlertEvent, 'type' | 'severity' | 'watchdog'> & {
  readonly asset: { readonly symbol: string } | null;
};

export function matchesFilter(filter: EventFilter, event: MatchableEvent): boolean {
  if (filter.eventTypes.length > 0 && !includes(filter.eventTypes, event.type)) return false;
  if (filter.severities.length > 0 && !filter.severities.includes(event.severity)) return false;
  if (filter.watchdogs.length > 0 && (event.watchdog === null || !filter.watchdogs.includes(event.watchdog)))
    return false;
  if (
    filter.assets.length > 0 &&
    event.asset !== null &&
    !filter.assets.includes(event.asset.symbol.toUpperCase())
  )
    return false;
  return true;
}

/** Membership in a list of a narrower type (an event type of the watchdogs among the alerts' own). */
function includes<T extends string>(list: readonly T[], value: string): boolean {
  return list.some((item) => item === value);
}
