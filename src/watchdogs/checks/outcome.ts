import type { Finding } from '../detectors/finding.ts';
import type { AssetDescriber, CheckGap, CheckOutcome } from '../watchdog.ts';
import { assetsOf } from './assets.ts';
import type { Settled, Subject, Subjects } from './shared.ts';

/** The values fetched for each subject, with the subjects whose fetch failed as gaps. */
export function split<T>(subjects: readonly Subject[], results: readonly Settled<T>[]) {
  const fetched: { subject: Subject; value: T }[] = [];
  const gaps: CheckGap[] = [];
  results.forEach((r, i) => {
    const subject = subjects[i]!;
    if (r.ok) fetched.push({ subject, value: r.value });
    else
      gaps.push({ subject: subject.symbol, error: r.error, ...(r.deferred ? { deferred: r.deferred } : {}) });
  });
  return { fetched, gaps };
}

/** `checked` counts every subject looked for, gaps included: all gaps means the cycle failed. */
export function outcomeOf<F extends Finding>(
  watched: Subjects,
  fetchGaps: readonly CheckGap[],
  findings: readonly F[],
  describe: AssetDescriber,
): CheckOutcome<F> {
  return {
    findings,
    checked: watched.subjects.length + watched.gaps.length,
    gaps: [...watched.gaps, ...fetchGaps],
    assets: assetsOf(
      describe,
      watched.subjects,
      findings.map((f) => f.symbol),
    ),
  };
}
