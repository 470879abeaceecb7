/**
 * Earnings surprise: reported EPS against the consensus estimate. Only reports published within
 * the look-back window count, so an old surprise does not fire forever; a beat and a miss of the
 * same size are equally anomalous.
 */
import type { EarningsReport } from '../../../market-data/types.ts';
import { type Finding, gradeAbove, pct } from '../../detectors/finding.ts';

export interface EarningsAnomalySettings {
  /** Surprise (absolute, as a fraction of |estimate|) above which a report is `medium`. */
  readonly mediumSurprise: number;
  /** Above this it is `high`. */
  readonly highSurprise: number;
  /** Reports published longer ago than this are not considered. */
  readonly lookbackMs: number;
}

export const DEFAULT_EARNINGS_ANOMALY_SETTINGS: EarningsAnomalySettings = Object.freeze({
  mediumSurprise: 0.1,
  highSurprise: 0.2,
  lookbackMs: 3 * 86_400_000,
});

export interface EarningsAnomalyInput {
  readonly now: Date;
  readonly reports: readonly EarningsReport[];
}

export interface EarningsAnomalyData {
  readonly reportDate: string;
  readonly reportedEps: number;
  readonly estimatedEps: number;
  /** Signed fraction: +0.25 is a 25 % beat. */
  readonly surprise: number;
  readonly mediumSurprise: number;
  readonly highSurprise: number;
}

/** An earnings surprise. */
export type EarningsAnomalyFinding = Finding<EarningsAnomalyData, 'earnings_anomaly'>;

export function detectEarningsAnomaly(
  input: EarningsAnomalyInput,
  settings: EarningsAnomalySettings = DEFAULT_EARNINGS_ANOMALY_SETTINGS,
): EarningsAnomalyFinding[] {
  const now = input.now.getTime();
  // The latest published report per symbol: an older one in the window is already superseded.
  const latest = new Map<string, EarningsReport & { reportedEps: number; estimatedEps: number }>();
  for (const r of input.reports) {
    const at = r.reportDate.getTime();
    if (at > now || now - at > settings.lookbackMs) continue;
    if (r.reportedEps === null || r.estimatedEps === null || r.estimatedEps === 0) continue;
    const seen = latest.get(r.symbol);
    if (!seen || seen.reportDate.getTime() < at)
      latest.set(r.symbol, { ...r, reportedEps: r.reportedEps, estimatedEps: r.estimatedEps });
  }
  const findings: EarningsAnomalyFinding[] = [];
  for (const r of latest.values()) {
    const surprise = (r.reportedEps - r.estimatedEps) / Math.abs(r.estimatedEps);
    const severity = gradeAbove(Math.abs(surprise), [
      [settings.mediumSurprise, 'medium'],
      [settings.highSurprise, 'high'],
    ]);
    if (!severity) continue;
    findings.push({
      eventType: 'earnings_anomaly',
      severity,
      symbol: r.symbol,
      subject: r.symbol,
      description:
        `${r.symbol} earnings ${surprise > 0 ? 'beat' : 'missed'} the estimate by ${pct(Math.abs(surprise))} ` +
        `(reported EPS ${r.reportedEps}, estimated ${r.estimatedEps})`,
      data: {
        reportDate: r.reportDate.toISOString(),
        reportedEps: r.reportedEps,
        estimatedEps: r.estimatedEps,
        surprise,
        mediumSurprise: settings.mediumSurprise,
        highSurprise: settings.highSurprise,
      },
    });
  }
  return findings;
}
