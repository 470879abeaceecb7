/** The events of one filter: the newest stored ones first, then each live one as it arrives. */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, useQuery, useSubscription } from '../../api.ts';
import { Badge, Empty, ErrorNote, Loading } from '../../ui.tsx';
import { EVENTS_QUERY, EVENTS_SUBSCRIPTION, type EventFilter, label, type WatchdogEvent } from './model.ts';

/** Events kept in the list; older ones drop off the end. */
const KEEP = 200;
/** Events shown at start. */
const START = 50;

/** Adds events to a newest-first list without repeats (a replay after a reconnection repeats some). */
function merge(list: readonly WatchdogEvent[], added: readonly WatchdogEvent[]): WatchdogEvent[] {
  const seen = new Set(list.map((e) => e.id));
  const fresh = added.filter((e) => !seen.has(e.id) && seen.add(e.id));
  if (fresh.length === 0) return list as WatchdogEvent[];
  // Ids are time-sortable (later events have greater ids); occurredAt breaks ties across instances.
  return [...fresh, ...list]
    .sort((a, b) => b.occurredAt.localeCompare(a.occurredAt) || b.id.localeCompare(a.id))
    .slice(0, KEEP);
}

export function Feed({
  filter,
  filtered,
  onOpen,
}: {
  filter: EventFilter;
  filtered: boolean;
  onOpen: (event: WatchdogEvent) => void;
}) {
  const [events, setEvents] = useState<WatchdogEvent[]>([]);
  const [liveError, setLiveError] = useState<ApiError | undefined>(undefined);
  // The query tells "none stored" from "not loaded yet"; the subscription's replay (`last`) covers
  // events stored between the query and the subscription's start.
  const start = useQuery<{ watchdogEvents: { events: WatchdogEvent[] } }>(EVENTS_QUERY, {
    filter,
    limit: START,
  });
  useEffect(() => {
    if (start.data) setEvents((list) => merge(list, start.data?.watchdogEvents.events ?? []));
  }, [start.data]);
  useSubscription<{ watchdogEvents: WatchdogEvent }>(
    EVENTS_SUBSCRIPTION,
    { filter, last: START },
    (data) => {
      setLiveError(undefined);
      setEvents((list) => merge(list, [data.watchdogEvents]));
    },
    [],
    setLiveError,
  );

  const error = start.error ?? liveError;
  return (
    <>
      {error ? <ErrorNote error={error} action={start.error ? start.refetch : undefined} /> : null}
      {events.length > 0 ? (
        <>
          <p class="hint">
            {events.length >= KEEP
              ? `The newest ${KEEP} events, newest first.`
              : `${events.length} events, newest first.`}
          </p>
          <ol class="ov-feed">
            {events.map((event) => (
              <li key={event.id}>
                <EventRow event={event} onOpen={onOpen} />
              </li>
            ))}
          </ol>
        </>
      ) : start.loading ? (
        <Loading what="events" />
      ) : start.error ? null : filtered ? (
        <Empty>No events match these filters. New ones that do will appear here as they happen.</Empty>
      ) : (
        <Empty>
          No events yet. With SIMULATED_ACTIVITY=demo the watchdogs report simulated events within a minute or
          two; otherwise events appear here as the watchdogs see them.
        </Empty>
      )}
    </>
  );
}

function EventRow({ event, onOpen }: { event: WatchdogEvent; onOpen: (event: WatchdogEvent) => void }) {
  const when = new Date(event.occurredAt);
  const today = when.toDateString() === new Date().toDateString();
  return (
    <button type="button" class="ov-event" onClick={() => onOpen(event)}>
      <time class="ov-when" dateTime={event.occurredAt} title={when.toLocaleString()}>
        {today ? when.toLocaleTimeString() : when.toLocaleString()}
      </time>
      <Badge tone={event.severity.toLowerCase()}>{event.severity}</Badge>
      <span class="ov-who">{label(event.watchdog)}</span>
      <span class="ov-asset mono">{event.symbol ?? 'market-wide'}</span>
      <span class="ov-desc">{event.description}</span>
    </button>
  );
}
