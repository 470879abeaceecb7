/**
 * The last 24 h counted: by severity (the chart) and, since local midnight, by watchdog (the
 * board's "events today"). DashboardStats counts every event kept (the whole retention period), so
 * the 24 h numbers come from paging the events query with only the fields counting needs.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, apiError, fetchQuery } from '../../api.ts';
import { useRefresh } from './hooks.ts';
import { RECENT_QUERY, SEVERITIES, type Severity, STATS_QUERY } from './model.ts';

/** At most this many pages of 1000: beyond, the counts say "at least". */
const MAX_PAGES = 10;

export interface Recent {
  readonly bySeverity: Readonly<Record<Severity, number>>;
  readonly todayByWatchdog: Readonly<Record<string, number>>;
  readonly total: number;
  /** More events than counted (MAX_PAGES reached). */
  readonly capped: boolean;
  /** Every event kept, from dashboardStats. */
  readonly kept: number;
  readonly at: number;
}

interface Page {
  watchdogEvents: {
    events: { id: string; occurredAt: string; severity: Severity; watchdog: string }[];
    nextCursor: string | null;
  };
}

async function loadRecent(): Promise<Recent> {
  const now = Date.now();
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const filter = { since: new Date(now - 86_400_000).toISOString() };
  const stats = fetchQuery<{ dashboardStats: { totalEvents: number } }>(STATS_QUERY);
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  const todayByWatchdog: Record<string, number> = {};
  let cursor: string | null = null;
  let pages = 0;
  let total = 0;
  do {
    const page: Page = await fetchQuery<Page>(RECENT_QUERY, { filter, cursor });
    for (const event of page.watchdogEvents.events) {
      total += 1;
      bySeverity[event.severity] = (bySeverity[event.severity] ?? 0) + 1;
      if (new Date(event.occurredAt).getTime() >= midnight.getTime()) {
        todayByWatchdog[event.watchdog] = (todayByWatchdog[event.watchdog] ?? 0) + 1;
      }
    }
    cursor = page.watchdogEvents.nextCursor;
    pages += 1;
  } while (cursor && pages < MAX_PAGES);
  const kept = (await stats).dashboardStats.totalEvents;
  return { bySeverity, todayByWatchdog, total, capped: cursor !== null, kept, at: now };
}

/** The counts, refreshed a few seconds after events arrive (`signal`) and every minute (the window slides). */
export function useRecent(signal: number): { data?: Recent; error?: ApiError } {
  const [state, setState] = useState<{ data?: Recent; error?: ApiError }>({});
  const running = useRef(false);
  const again = useRef(false);
  const mounted = useRef(true);
  const run = () => {
    // One load at a time; a refresh asked for during a load runs once it ends.
    if (running.current) {
      again.current = true;
      return;
    }
    running.current = true;
    loadRecent()
      .then((data) => mounted.current && setState({ data }))
      .catch((e) => mounted.current && setState((s) => ({ ...s, error: apiError(e) })))
      .finally(() => {
        running.current = false;
        if (again.current && mounted.current) {
          again.current = false;
          run();
        }
      });
  };
  useEffect(() => {
    mounted.current = true;
    run();
    return () => {
      mounted.current = false;
    };
  }, []);
  useRefresh(run, signal, 3_000, 60_000);
  return state;
}
