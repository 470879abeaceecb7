/**
 * Exchange / provider outage from reachability probes: a timeout is worse than an error (the venue
 * may be hanging every caller), and an answer slower than the threshold is a degradation. Findings
 * are market-wide: no asset, the venue is the subject.
 */
import type { Finding, Severity } from '../../detectors/finding.ts';

export interface ExchangeOutageSettings {
  /** A successful probe slower than this (ms) is `medium`. */
  readonly slowMs: number;
}

export const DEFAULT_EXCHANGE_OUTAGE_SETTINGS: ExchangeOutageSettings = Object.freeze({ slowMs: 2_000 });

export interface ReachabilityResult {
  readonly venue: string;
  readonly outcome: 'ok' | 'error' | 'timeout';
  /** Round-trip time; null when there was no answer. */
  readonly latencyMs: number | null;
  /** Error text or status of a failed probe. */
  readonly detail?: string;
}

export interface ExchangeOutageInput {
  readonly probes: readonly ReachabilityResult[];
}

export interface ExchangeOutageData {
  readonly venue: string;
  readonly condition: 'slow' | 'error' | 'timeout';
  readonly latencyMs: number | null;
  readonly detail: string | null;
  readonly slowMs: number;
}

/** An outage, failure or slow answer of a venue. */
export type ExchangeOutageFinding = Finding<ExchangeOutageData, 'exchange_outage'>;

/** Upstream error text is not ours to size: events and descriptions keep a bounded prefix. */
const MAX_DETAIL = 200;

const SEVERITY: Readonly<Record<ExchangeOutageData['condition'], Severity>> = {
  slow: 'medium',
  error: 'high',
  timeout: 'critical',
};

export function detectExchangeOutage(
  input: ExchangeOutageInput,
  settings: ExchangeOutageSettings = DEFAULT_EXCHANGE_OUTAGE_SETTINGS,
): ExchangeOutageFinding[] {
  const findings: ExchangeOutageFinding[] = [];
  for (const p of input.probes) {
    const condition =
      p.outcome !== 'ok' ? p.outcome : p.latencyMs !== null && p.latencyMs > settings.slowMs ? 'slow' : null;
    if (!condition) continue;
    const what =
      condition === 'slow'
        ? `answered in ${p.latencyMs} ms (slower than ${settings.slowMs} ms)`
        : condition === 'timeout'
          ? 'did not answer in time'
          : `failed${p.detail ? `: ${p.detail.slice(0, MAX_DETAIL)}` : ''}`;
    findings.push({
      eventType: 'exchange_outage',
      severity: SEVERITY[condition],
      symbol: null,
      subject: p.venue,
      description: `${p.venue} ${what}`,
      data: {
        venue: p.venue,
        condition,
        latencyMs: p.latencyMs,
        detail: p.detail?.slice(0, MAX_DETAIL) ?? null,
        slowMs: settings.slowMs,
      },
    });
  }
  return findings;
}
