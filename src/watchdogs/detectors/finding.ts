/**
 * The contract every watchdog detector keeps: a pure function from plain market data (already
 * fetched by its check) and thresholds to findings. Detectors read no clock and do no I/O; where
 * time matters it is part of the input (`now`), so a runner with an injected clock and a test with
 * a fixed date see the same behaviour. A detector reports every anomalous subject it sees in one
 * call, never only the first.
 */

/** Ordered from lowest; rank comparisons go through severityRank. */
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/** `E`: the event types the finding's watchdog declares (see its descriptor). */
export interface Finding<D = unknown, E extends string = string> {
  readonly eventType: E;
  readonly severity: Severity;
  /** The asset the finding is about; null for market-wide findings (an exchange outage). */
  readonly symbol: string | null;
  /**
   * What the condition is about, for re-arming: the symbol, a pair (`A~B`) or a venue. Two
   * findings with the same subject and event type describe the same persisting condition.
   */
  readonly subject: string;
  readonly description: string;
  /** The measured values and the thresholds they were compared with. */
  readonly data: D;
}

/** A detector: its input (what its check fetched) and its thresholds to findings. */
export type Detector<I, T, F extends Finding = Finding> = (input: I, thresholds: T) => F[];

/**
 * Severity of the highest threshold the value exceeds (strictly: a value exactly at a threshold
 * does not pass it), or undefined. Rules are in ascending threshold order.
 */
export function gradeAbove(
  value: number,
  rules: readonly (readonly [number, Severity])[],
): Severity | undefined {
  let out: Severity | undefined;
  for (const [threshold, severity] of rules) if (value > threshold) out = severity;
  return out;
}

/** Percent text for descriptions: 2 decimals, signed when asked. */
export function pct(fraction: number, signed = false): string {
  const s = (fraction * 100).toFixed(2);
  return signed && fraction > 0 ? `+${s}%` : `${s}%`;
}
