import { describe, expect, it } from 'vitest';
import { DEFAULT_EXCHANGE_OUTAGE_SETTINGS, detectExchangeOutage } from './detector.ts';

describe('detectExchangeOutage', () => {
  it('grades slow, error and timeout, and reports every venue', () => {
    const findings = detectExchangeOutage({
      probes: [
        { venue: 'binance', outcome: 'ok', latencyMs: 120 },
        { venue: 'yahoo', outcome: 'ok', latencyMs: 2500 },
        { venue: 'finnhub', outcome: 'error', latencyMs: 80, detail: 'HTTP 503' },
        { venue: 'coingecko', outcome: 'timeout', latencyMs: null },
      ],
    });
    expect(findings.map((f) => [f.subject, f.severity, f.data.condition])).toEqual([
      ['yahoo', 'medium', 'slow'],
      ['finnhub', 'high', 'error'],
      ['coingecko', 'critical', 'timeout'],
    ]);
    expect(findings.every((f) => f.symbol === null && f.eventType === 'exchange_outage')).toBe(true);
    expect(findings[1]!.description).toContain('HTTP 503');
  });

  it('is not slow exactly at the threshold', () => {
    const { slowMs } = DEFAULT_EXCHANGE_OUTAGE_SETTINGS;
    const probe = (latencyMs: number) => ({ venue: 'x', outcome: 'ok' as const, latencyMs });
    expect(detectExchangeOutage({ probes: [probe(slowMs)] })).toEqual([]);
    expect(detectExchangeOutage({ probes: [probe(slowMs + 1)] })).toHaveLength(1);
    expect(detectExchangeOutage({ probes: [probe(600)] }, { slowMs: 500 })).toHaveLength(1);
  });

  it('bounds upstream error text', () => {
    const [f] = detectExchangeOutage({
      probes: [{ venue: 'x', outcome: 'error', latencyMs: null, detail: 'e'.repeat(5000) }],
    });
    expect(f!.data.detail!.length).toBe(200);
  });
});
