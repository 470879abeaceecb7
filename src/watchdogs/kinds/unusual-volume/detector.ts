/**
 * Unusual volume: the current session's volume against the average daily volume of the sessions
 * before it. The current session is excluded from its own baseline, or a spike would dilute the
 * average it is measured against. Days without a published volume are skipped, not counted as 0.
 */

import type { Bar } from '../../../market-data/types.ts';
import { mean, sampleStdDev } from '../../../quant/indicators/index.ts';
import { type Finding, gradeAbove } from '../../detectors/finding.ts';

export interface UnusualVolumeSettings {
  /** Volume / average above which the session is `high`. */
  readonly highRatio: number;
  /** Above this it is `critical`. */
  readonly criticalRatio: number;
  /** Sessions in the baseline average (the most recent ones before the current session). */
  readonly averageDays: number;
  /** Fewer baseline sessions with a volume than this: no judgement. */
  readonly minBaselineDays: number;
}

export const DEFAULT_UNUSUAL_VOLUME_SETTINGS: UnusualVolumeSettings = Object.freeze({
  highRatio: 3,
  criticalRatio: 5,
  averageDays: 30,
  minBaselineDays: 10,
});

export interface UnusualVolumeInput {
  /** Daily bars per symbol, oldest first; the last bar is the current session. */
  readonly series: readonly { readonly symbol: string; readonly bars: readonly Bar[] }[];
  /** What one bar spans, for descriptions (default `day`; demo activity reads 1-minute bars). */
  readonly barUnit?: 'day' | 'minute';
}

export interface UnusualVolumeData {
  readonly volume: number;
  readonly averageVolume: number;
  readonly ratio: number;
  /** Standard deviations above the baseline mean; null when the baseline does not vary. */
  readonly zScore: number | null;
  readonly baselineDays: number;
  readonly highRatio: number;
  readonly criticalRatio: number;
}

/** A volume spike. */
export type UnusualVolumeFinding = Finding<UnusualVolumeData, 'unusual_volume'>;

export function detectUnusualVolume(
  input: UnusualVolumeInput,
  settings: UnusualVolumeSettings = DEFAULT_UNUSUAL_VOLUME_SETTINGS,
): UnusualVolumeFinding[] {
  const findings: UnusualVolumeFinding[] = [];
  for (const { symbol, bars } of input.series) {
    const volume = bars.at(-1)?.volume;
    if (volume === null || volume === undefined) continue;
    const baseline: number[] = [];
    for (let i = bars.length - 2; i >= 0 && baseline.length < settings.averageDays; i--) {
      const v = bars[i]!.volume;
      if (v !== null && Number.isFinite(v)) baseline.push(v);
    }
    if (baseline.length < settings.minBaselineDays) continue;
    const averageVolume = mean(baseline);
    if (!(averageVolume > 0)) continue;
    const ratio = volume / averageVolume;
    const severity = gradeAbove(ratio, [
      [settings.highRatio, 'high'],
      [settings.criticalRatio, 'critical'],
    ]);
    if (!severity) continue;
    const sd = sampleStdDev(baseline);
    findings.push({
      eventType: 'unusual_volume',
      severity,
      symbol,
      subject: symbol,
      description: `${symbol} volume ${volume} is ${ratio.toFixed(2)}x its ${baseline.length}-${input.barUnit ?? 'day'} average (${Math.round(averageVolume)})`,
      data: {
        volume,
        averageVolume,
        ratio,
        zScore: sd > 0 ? (volume - averageVolume) / sd : null,
        baselineDays: baseline.length,
        highRatio: settings.highRatio,
        criticalRatio: settings.criticalRatio,
      },
    });
  }
  return findings;
}
