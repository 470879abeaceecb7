/**
 * Short-window price move: the latest price against the first price inside the window ending at
 * `now`. A fall larger than the flash-crash threshold is reported as `flash_crash` (its own event
 * type, so alerts can ask for crashes only); any other move past the thresholds is `price_anomaly`.
 */
import type { Finding, Severity } from '../../detectors/finding.ts';
import { gradeAbove, pct } from '../../detectors/finding.ts';

export interface PriceAnomalySettings {
  /** Absolute move (fraction: 0.05 = 5 %) above which it is `high`. */
  readonly highMove: number;
  /** Above this it is `critical`. */
  readonly criticalMove: number;
  /** A fall larger than this is a `flash_crash` (always `critical`). */
  readonly flashCrashDrop: number;
  /** Length of the window ending at `now`. */
  readonly windowMs: number;
}

export const DEFAULT_PRICE_ANOMALY_SETTINGS: PriceAnomalySettings = Object.freeze({
  highMove: 0.05,
  criticalMove: 0.1,
  flashCrashDrop: 0.1,
  windowMs: 15 * 60_000,
});

export interface PricePoint {
  readonly time: Date;
  readonly price: number;
}

export interface PriceAnomalyInput {
  readonly now: Date;
  /** Per symbol, prices (ticks or bar closes) in any order; points outside the window are ignored. */
  readonly series: readonly { readonly symbol: string; readonly points: readonly PricePoint[] }[];
}

export interface PriceAnomalyData {
  readonly fromPrice: number;
  readonly fromTime: string;
  readonly toPrice: number;
  readonly toTime: string;
  /** Signed fraction: -0.12 is a 12 % fall. */
  readonly change: number;
  readonly windowMs: number;
  readonly highMove: number;
  readonly criticalMove: number;
  readonly flashCrashDrop: number;
}

/** A large move, or a fall large enough to be a crash. */
export type PriceAnomalyFinding = Finding<PriceAnomalyData, 'price_anomaly' | 'flash_crash'>;

export function detectPriceAnomaly(
  input: PriceAnomalyInput,
  settings: PriceAnomalySettings = DEFAULT_PRICE_ANOMALY_SETTINGS,
): PriceAnomalyFinding[] {
  const now = input.now.getTime();
  const start = now - settings.windowMs;
  const findings: PriceAnomalyFinding[] = [];
  for (const { symbol, points } of input.series) {
    let first: PricePoint | undefined;
    let last: PricePoint | undefined;
    for (const p of points) {
      const t = p.time.getTime();
      if (t < start || t > now || !(p.price > 0)) continue;
      if (!first || t < first.time.getTime()) first = p;
      if (!last || t >= last.time.getTime()) last = p;
    }
    if (!first || !last || first === last) continue;
    const change = (last.price - first.price) / first.price;
    const crash = -change > settings.flashCrashDrop;
    const severity: Severity | undefined = crash
      ? 'critical'
      : gradeAbove(Math.abs(change), [
          [settings.highMove, 'high'],
          [settings.criticalMove, 'critical'],
        ]);
    if (!severity) continue;
    const minutes = Math.round((last.time.getTime() - first.time.getTime()) / 60_000);
    findings.push({
      eventType: crash ? 'flash_crash' : 'price_anomaly',
      severity,
      symbol,
      subject: symbol,
      description:
        `${crash ? 'Flash crash: ' : ''}${symbol} moved ${pct(change, true)} in ${minutes} min ` +
        `(${first.price} -> ${last.price})`,
      data: {
        fromPrice: first.price,
        fromTime: first.time.toISOString(),
        toPrice: last.price,
        toTime: last.time.toISOString(),
        change,
        windowMs: settings.windowMs,
        highMove: settings.highMove,
        criticalMove: settings.criticalMove,
        flashCrashDrop: settings.flashCrashDrop,
      },
    });
  }
  return findings;
}
