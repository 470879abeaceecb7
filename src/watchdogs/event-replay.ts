import { ValidationError } from '../platform/errors.ts';
import { type EventFilter, MAX_EVENT_LIMIT, matchesEventFilter } from './event-filter.ts';
import { isEventId } from './event-id.ts';
import type { ReplayQuery, WatchdogEvent } from './events.repository.ts';

export type { ReplayQuery, ReplayResult } from './events.repository.ts';

/**
 * A replay: the stored events a live feed starts with, so a client that connects sees the recent
 * past at once and a client that reconnects resumes where it left off. Pure: the parsing of the
 * request, the selection it makes, and how the live events that overlap it are told apart.
 *
 * - `last`: the newest N stored events that pass the feed's filter (1..MAX_REPLAY_EVENTS);
 * - `since`: an event id (the events stored after it, not itself: resume after the last one seen,
 *   without a gap or a repeat) or an ISO 8601 date-time (events that occurred at or after it, as
 *   the `since` of a query); with `last` too, the newest `last` of those; alone, the newest
 *   MAX_REPLAY_EVENTS of them.
 *
 * Replayed events come oldest first, before any live event; the live events heard while the
 * replay was read follow, without those the replay already held.
 */

/** Events one replay holds at most (the bound on what it loads at once): the recent-events `limit`. */
export const MAX_REPLAY_EVENTS = MAX_EVENT_LIMIT;

/** A replay as a caller asks for it; both fields optional, neither: no replay. */
export interface ReplayInput {
  readonly since?: string | null | undefined;
  readonly last?: number | null | undefined;
}

export interface ReplayRequest {
  /** Newest events at most, 1..MAX_REPLAY_EVENTS. */
  readonly last: number;
  /** Exclusive: only events whose id is greater. */
  readonly afterId: string | undefined;
  /** Inclusive: only events that occurred at or after it. */
  readonly since: Date | undefined;
}

/** What a replay reads: a request narrowed by the feed's filter. */
/** A date, or a date and a time with its offset (a time without one would be the server's local time). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/i;

/** Longest `since` worth reading: an id is 26 characters, a date-time about 30. */
const MAX_SINCE_LENGTH = 64;

/** The replay asked for, or undefined for none; ValidationError naming `since` or `last`. */
export function parseReplay(input: ReplayInput): ReplayRequest | undefined {
  const { since, last } = input;
  if (since == null && last == null) return undefined;
  if (last != null && (!Number.isInteger(last) || last < 1 || last > MAX_REPLAY_EVENTS)) {
    throw new ValidationError('last', `must be an integer from 1 to ${MAX_REPLAY_EVENTS}`);
  }
  let afterId: string | undefined;
  let sinceTime: Date | undefined;
  if (since != null) {
    const text = typeof since === 'string' ? since.trim() : '';
    if (text.length <= MAX_SINCE_LENGTH && isEventId(text.toUpperCase())) afterId = text.toUpperCase();
    else if (text.length <= MAX_SINCE_LENGTH && ISO_DATE_TIME.test(text)) {
      sinceTime = new Date(text);
      if (Number.isNaN(sinceTime.getTime())) sinceTime = undefined;
    }
    if (afterId === undefined && sinceTime === undefined) {
      throw new ValidationError(
        'since',
        'must be an event id (01JXP3YV8Q...) or an ISO 8601 date-time (2025-06-11T15:00:00Z)',
      );
    }
  }
  return { last: last ?? MAX_REPLAY_EVENTS, afterId, since: sinceTime };
}

/** The request narrowed by `filter`: a time in `since` and one in the filter both hold (the later wins). */
export function replayQuery(request: ReplayRequest, filter: EventFilter): ReplayQuery {
  const { since } = request;
  return {
    filter: {
      ...filter,
      since: since && filter.since && filter.since > since ? filter.since : (since ?? filter.since),
    },
    afterId: request.afterId,
    last: request.last,
  };
}

/** Whether the query would select `event` if it were stored (the SQL of the read says the same). */
export function replaySelects(query: ReplayQuery, event: WatchdogEvent): boolean {
  return (query.afterId === undefined || event.id > query.afterId) && matchesEventFilter(event, query.filter);
}

/**
 * Tells which live events a replay already delivered. A feed listens before the replay is read, so
 * an event stored just before the read is both in the replay and, a moment later, heard live; it
 * must go out once. The feed delivers events in the order they were committed (those announced
 * together in id order), so once a live event arrives that the query selects, that is newer than
 * every replayed one and that is not among them, it was committed after the read, and no replayed
 * event can still come: the ids are forgotten then, and memory is held only across that overlap.
 */
export class ReplayOverlap {
  readonly #ids: Set<string>;
  readonly #newest: string;

  constructor(
    private readonly query: ReplayQuery,
    replayed: readonly WatchdogEvent[],
  ) {
    this.#ids = new Set(replayed.map((e) => e.id));
    this.#newest = replayed.at(-1)?.id ?? '';
  }

  /** Ids still watched for. */
  get size(): number {
    return this.#ids.size;
  }

  /** True for a live event the replay held (each such event is reported once). */
  repeats(event: WatchdogEvent): boolean {
    if (this.#ids.size === 0 || !replaySelects(this.query, event)) return false;
    if (this.#ids.delete(event.id)) return true;
    if (event.id > this.#newest) this.#ids.clear();
    return false;
  }
}
