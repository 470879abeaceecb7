/**
 * THE list of watchdogs. Each is one folder under kinds/ exporting one descriptor (descriptor.ts),
 * and everything that lists watchdogs derives from this list: their names, their event types and
 * the severities those carry, the schema's enums and their descriptions, the settings (defaults,
 * demo replacements, validation), the checks the runner schedules and the health it reports.
 * Adding a watchdog: its folder under kinds/, and one line here.
 */
import type { AnyWatchdog, EventTypeInfo } from './descriptor.ts';
import { correlationBreakdown } from './kinds/correlation-breakdown/index.ts';
import { earningsAnomaly } from './kinds/earnings-anomaly/index.ts';
import { exchangeOutage } from './kinds/exchange-outage/index.ts';
import { fundingRate } from './kinds/funding-rate/index.ts';
import { liquidityDrop } from './kinds/liquidity-drop/index.ts';
import { priceAnomaly } from './kinds/price-anomaly/index.ts';
import { unusualVolume } from './kinds/unusual-volume/index.ts';
import { whaleMovement } from './kinds/whale-movement/index.ts';

/** In the order the dashboard, the health list and the schema's enums show them. */
export const WATCHDOGS = [
  earningsAnomaly,
  unusualVolume,
  whaleMovement,
  fundingRate,
  liquidityDrop,
  correlationBreakdown,
  exchangeOutage,
  priceAnomaly,
] as const;

export type RegisteredWatchdog = (typeof WATCHDOGS)[number];
/** Watchdog names as the dashboard addresses them. */
export type WatchdogName = RegisteredWatchdog['name'];
/** The event types of a list of watchdogs. */
export type EventTypeOf<W extends AnyWatchdog> = W extends unknown ? keyof W['events'] & string : never;
/** Event types carried by findings and stored events. */
export type EventType = EventTypeOf<RegisteredWatchdog>;

/** A watchdog's event types, in the order it declares them. */
function eventTypesOf<W extends RegisteredWatchdog>(watchdog: W): EventTypeOf<W>[] {
  return Object.keys(watchdog.events) as EventTypeOf<W>[];
}

/** By watchdog name, in registry order. */
function byName<V>(value: (watchdog: RegisteredWatchdog) => V): Readonly<Record<WatchdogName, V>> {
  return Object.fromEntries(WATCHDOGS.map((w) => [w.name, value(w)])) as Record<WatchdogName, V>;
}

/** Non-empty, as the schema's enums and zod's want them. */
function nonEmpty<T>(values: readonly T[]): readonly [T, ...T[]] {
  const [first, ...rest] = values;
  if (first === undefined) throw new Error('no watchdog is registered');
  return [first, ...rest];
}

export const WATCHDOG_NAMES = nonEmpty(WATCHDOGS.map((w) => w.name));
export const EVENT_TYPES = nonEmpty(WATCHDOGS.flatMap((w) => eventTypesOf(w)));

/** What each watchdog watches, in a sentence. */
export const WATCHDOG_SUMMARIES = byName((w) => w.summary);

/** The event types each watchdog may emit. */
export const WATCHDOG_EVENT_TYPES: Readonly<Record<WatchdogName, readonly EventType[]>> =
  byName(eventTypesOf);

/** Each event type: what it reports, the severities it carries, and the watchdog that emits it. */
export const EVENT_TYPE_INFO = Object.fromEntries(
  WATCHDOGS.flatMap((w) =>
    Object.entries<EventTypeInfo>(w.events).map(([type, info]) => [type, { ...info, watchdog: w.name }]),
  ),
) as Readonly<Record<EventType, EventTypeInfo & { readonly watchdog: WatchdogName }>>;
