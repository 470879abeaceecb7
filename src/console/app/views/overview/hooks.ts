/** Timers the overview's live parts share. */
import { useEffect, useRef, useState } from 'preact/hooks';

/** The current time, moving every `ms`, so that "2 min ago" keeps true. */
export function useNow(ms = 5_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * Runs `run` `delay` ms after `signal` changes, and at most once per `delay`: a burst of events
 * costs one refresh (a plain debounce would starve while events keep coming). Also every `every` ms.
 */
export function useRefresh(run: () => void, signal: unknown, delay: number, every: number): void {
  const latest = useRef(run);
  latest.current = run;
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (pending.current !== undefined) return;
    pending.current = setTimeout(() => {
      pending.current = undefined;
      latest.current();
    }, delay);
  }, [signal]);
  useEffect(() => {
    const timer = setInterval(() => latest.current(), every);
    return () => {
      clearInterval(timer);
      if (pending.current !== undefined) clearTimeout(pending.current);
      pending.current = undefined;
    };
  }, [every]);
}
