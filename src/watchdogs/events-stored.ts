/**
 * Listeners called inside the transaction that stores watchdog events: what they write (a job to
 * act on the events, say) commits with the events or not at all, so a step that follows an event is
 * never lost between the event's commit and the step (a transactional outbox). The watchdogs know
 * nothing of their listeners; the composition root wires them.
 *
 * Listeners are kept per database handle, not per event bus: every bus that stores events on the
 * handle (the watchdogs' own, or another made on the same handle) calls them.
 */
import type { DatabaseHandle, Transaction } from '../platform/db/database.ts';
import type { WatchdogDomainEvent } from './watchdog-event.ts';

/** Runs in the events' transaction: a rejection rolls the events back. */
export type EventsStoredListener = (tx: Transaction, events: readonly WatchdogDomainEvent[]) => Promise<void>;

const listeners = new WeakMap<DatabaseHandle, Set<EventsStoredListener>>();

/** `listener` is called in every transaction that stores events on `database`; returns the removal. */
export function onEventsStored(database: DatabaseHandle, listener: EventsStoredListener): () => void {
  const set = listeners.get(database) ?? new Set<EventsStoredListener>();
  listeners.set(database, set);
  set.add(listener);
  return () => {
    set.delete(listener);
  };
}

/** Calls the listeners of `database`, one after the other, in `tx`. */
export async function eventsStored(
  database: DatabaseHandle,
  tx: Transaction,
  events: readonly WatchdogDomainEvent[],
): Promise<void> {
  if (events.length === 0) return;
  for (const listener of listeners.get(database) ?? []) await listener(tx, events);
}
