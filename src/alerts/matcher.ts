/**
 * Does a watchdog event match an alert's `watchdog_event` trigger? Fields are AND-ed, the values of
 * one list OR-ed, and an empty list means any. As on the dashboard, an event about no asset (an
 * exchange outage) passes an asset filter: an outage concerns every asset traded there.
 */
import type { EventFilterInput } from './alert.schema.ts';

export interface MatchableEvent {
  readonly type: string;
  readonly severity: string;
  readonly watchdog: string | null;
  readonly asset: { readonly symbol: string } | null;
}

export function matchesFilter(filter: EventFilterInput, event: MatchableEvent): boolean {
  if (filter.event_types.length > 0 && !(filter.event_types as readonly string[]).includes(event.type))
    return false;
  if (filter.severities.length > 0 && !(filter.severities as readonly string[]).includes(event.severity))
    return false;
  if (
    filter.watchdogs.length > 0 &&
    (event.watchdog === null || !(filter.watchdogs as readonly string[]).includes(event.watchdog))
  )
    return false;
  if (
    filter.assets.length > 0 &&
    event.asset !== null &&
    !filter.assets.includes(event.asset.symbol.toUpperCase())
  )
    return false;
  return true;
}
