/**
 * The contract every watchdog detector keeps: a pure function from plain market data (already
 * fetched by the market-data layer) and settings to findings. Detectors read no clock and do no
 * I/O; where time matters it is part of the input (`now`), so a runner with an injected clock and a
 * test with a fixed date see the same behaviour. A detector reports every anomalous subject it sees
 * in one call, never only the first.
 */

/** Ordered from lowest; rank comparisons go through severityRank. */
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/** Watchdog names as the dashboard addresses them. */
export const WATCHDOG_NAMES = [
  'earnings_anomaly',
  'unusual_volume',
  'whale_movement',
  'funding_rate',
  'liquidity_drop',
  'correlation_breakdown',
  'exchange_outage',
  'price_anomaly',
] as const;
export type WatchdogName = (typeof WATCHDOG_NAMES)[number];

/** Event types carried by findings (and later by stored events). */
export const EVENT_TYPES = [
  'earnings_anomaly',
  'unusual_volume',
  'whale_movement',
  'funding_spike',
  'liquidity_drop',
  'correlation_break',
  'exchange_outage',
  'price_anomaly',
  'flash_crash',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The event types each watchdog may emit. */
export const WATCHDOG_EVENT_TYPES: Readonly<Record<WatchdogName, readonly EventType[]>> = {
  earnings_anomaly: ['earnings_anomaly'],
  unusual_volume: ['unusual_volume'],
  whale_movement: ['whale_movement'],
  funding_rate: ['funding_spike'],
  liquidity_drop: ['liquidity_drop'],
  correlation_breakdown: ['correlation_break'],
  exchange_outage: ['exchange_outage'],
  price_anomaly: ['price_anomaly', 'flash_crash'],
};

export interface Finding<D = unknown> {
  readonly eventType: EventType;
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

export type Detector<I, S, D> = (input: I, settings: S) => Finding<D>[];

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
