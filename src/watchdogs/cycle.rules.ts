/**
 * What one check's outcome makes of the cycle, and the words its health keeps. Pure: the runner
 * applies the verdict to the watchdog's state.
 */
import type { CheckOutcome } from './watchdog.ts';

export type CheckResult = 'ok' | 'degraded' | 'deferred' | 'failed' | 'skipped';

export type CycleVerdict =
  | { readonly result: 'ok' }
  /** Some subjects lacked data: the findings apply, the health says what was missing. */
  | { readonly result: 'degraded'; readonly lastError: string }
  /**
   * Nothing could be had only because the providers kept their budget for interactive callers:
   * no failure (it says nothing of the watchdog or the providers, and does not count toward
   * `errors` or failing), but no findings either, so the re-arm memory is left alone.
   */
  | { readonly result: 'deferred'; readonly lastError: string }
  /** Nothing could be had and something really failed. */
  | { readonly result: 'failed'; readonly lastError: string };

/** Subjects named in a summary of skipped ones, at most. */
const NAMED_SUBJECTS = 5;

export function cycleVerdict(outcome: CheckOutcome): CycleVerdict {
  const { gaps, checked } = outcome;
  if (gaps.length === 0) return { result: 'ok' };
  const lastError = summarizeGaps(outcome);
  // `checked` counts every subject looked for, gaps included: all gaps means nothing was had.
  if (checked > 0 && gaps.length < checked) return { result: 'degraded', lastError };
  return gaps.every((g) => g.deferred) ? { result: 'deferred', lastError } : { result: 'failed', lastError };
}

/** The gaps in words: the real failures first (the first one's error), then what was skipped. */
export function summarizeGaps(outcome: CheckOutcome): string {
  const of = Math.max(outcome.checked, outcome.gaps.length);
  const failed = outcome.gaps.filter((g) => !g.deferred);
  const deferred = outcome.gaps.filter((g) => g.deferred);
  const parts: string[] = [];
  const first = failed[0];
  if (first) {
    const more = failed.length > 1 ? ` (and ${failed.length - 1} more)` : '';
    parts.push(`no data for ${failed.length} of ${of}: ${first.subject}: ${first.error}${more}`);
  }
  if (deferred.length > 0) {
    const named = deferred.slice(0, NAMED_SUBJECTS).map((g) => g.subject);
    const others = deferred.length > named.length ? `, and ${deferred.length - named.length} more` : '';
    parts.push(
      `${deferred.length} of ${of} skipped for want of provider budget (${named.join(', ')}${others}): ` +
        'the providers serve interactive callers first; asked again next cycle',
    );
  }
  return parts.length > 0 ? parts.join('; ') : 'nothing could be checked';
}
