/**
 * Funding-rate spike on perpetual futures. Venues settle every 1, 4 or 8 hours; rates are scaled
 * to an 8-hour interval so one threshold means the same carry cost everywhere. Extreme funding in
 * either direction signals a crowded side, so the absolute value is graded.
 */
import type { FundingRate } from '../../../market-data/types.ts';
import { type Finding, gradeAbove, pct } from '../../detectors/finding.ts';

export interface FundingRateSettings {
  /** Absolute rate per 8 hours (fraction: 0.001 = 0.1 %) above which it is `high`. */
  readonly highRatePer8h: number;
  /** Above this it is `critical`. */
  readonly criticalRatePer8h: number;
}

export const DEFAULT_FUNDING_RATE_SETTINGS: FundingRateSettings = Object.freeze({
  highRatePer8h: 0.001,
  criticalRatePer8h: 0.003,
});

export interface FundingRateInput {
  readonly rates: readonly FundingRate[];
}

export interface FundingRateData {
  readonly venue: string;
  readonly rate: number;
  readonly intervalHours: number;
  readonly ratePer8h: number;
  readonly highRatePer8h: number;
  readonly criticalRatePer8h: number;
}

/** A funding spike. */
export type FundingRateFinding = Finding<FundingRateData, 'funding_spike'>;

export function detectFundingRate(
  input: FundingRateInput,
  settings: FundingRateSettings = DEFAULT_FUNDING_RATE_SETTINGS,
): FundingRateFinding[] {
  const findings: FundingRateFinding[] = [];
  for (const r of input.rates) {
    if (!Number.isFinite(r.rate) || !(r.intervalHours > 0)) continue;
    const ratePer8h = r.intervalHours === 8 ? r.rate : (r.rate * 8) / r.intervalHours;
    const severity = gradeAbove(Math.abs(ratePer8h), [
      [settings.highRatePer8h, 'high'],
      [settings.criticalRatePer8h, 'critical'],
    ]);
    if (!severity) continue;
    findings.push({
      eventType: 'funding_spike',
      severity,
      symbol: r.symbol,
      // One symbol may trade on several venues, each with its own funding.
      subject: `${r.symbol}@${r.venue}`,
      description:
        `${r.symbol} funding on ${r.venue} is ${pct(ratePer8h, true)} per 8h ` +
        `(${ratePer8h > 0 ? 'longs pay shorts' : 'shorts pay longs'})`,
      data: {
        venue: r.venue,
        rate: r.rate,
        intervalHours: r.intervalHours,
        ratePer8h,
        highRatePer8h: settings.highRatePer8h,
        criticalRatePer8h: settings.criticalRatePer8h,
      },
    });
  }
  return findings;
}
