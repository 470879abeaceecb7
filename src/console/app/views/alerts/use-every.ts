/** A timer for views that poll what has no subscription. */
import { useEffect, useRef } from 'preact/hooks';

/** Runs `fn` every `ms` while mounted (the latest `fn`, without restarting the timer). */
export function useEvery(ms: number, fn: () => void): void {
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => {
    const timer = setInterval(() => latest.current(), ms);
    return () => clearInterval(timer);
  }, [ms]);
}
