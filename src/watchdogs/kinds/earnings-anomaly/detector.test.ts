import { describe, expect, it } from 'vitest';
import type { EarningsReport } from '../../../market-data/types.ts';
import { DEFAULT_EARNINGS_ANOMALY_SETTINGS, detectEarningsAnomaly } from './detector.ts';

const now = new Date('2026-03-10T12:00:00Z');
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);
const report = (symbol: string, reportedEps: number | null, estimatedEps: number | null, at = hoursAgo(2)) =>
  ({
    symbol,
    reportDate: at,
    fiscalPeriodEnd: null,
    reportedEps,
    estimatedEps,
    surprisePercent: null,
  }) satisfies EarningsReport;

describe('detectEarningsAnomaly', () => {
  it('grades beats and misses by the size of the surprise', () => {
    const findings = detectEarningsAnomaly({
      now,
      reports: [report('AAPL', 12, 10), report('MSFT', 7, 10), report('NVDA', 10.5, 10)],
    });
    expect(findings.map((f) => [f.symbol, f.severity])).toEqual([
      ['AAPL', 'medium'],
      ['MSFT', 'high'],
    ]);
    expect(findings[1]!.data).toMatchObject({ surprise: -0.3, reportedEps: 7, estimatedEps: 10 });
    expect(findings[1]!.description).toContain('missed');
  });

  it('does not fire exactly at a threshold, and uses the next grade just above it', () => {
    const at = detectEarningsAnomaly({ now, reports: [report('A', 11, 10), report('B', 12, 10)] });
    expect(at.map((f) => [f.symbol, f.severity])).toEqual([['B', 'medium']]);
    const above = detectEarningsAnomaly({ now, reports: [report('A', 1101, 1000), report('B', 1201, 1000)] });
    expect(above.map((f) => f.severity)).toEqual(['medium', 'high']);
  });

  it('ignores reports outside the look-back window, in the future or incomplete', () => {
    const lookbackH = DEFAULT_EARNINGS_ANOMALY_SETTINGS.lookbackMs / 3_600_000;
    const findings = detectEarningsAnomaly({
      now,
      reports: [
        report('OLD', 20, 10, hoursAgo(lookbackH + 1)),
        report('SOON', 20, 10, hoursAgo(-1)),
        report('NOEST', 20, null),
        report('ZERO', 1, 0),
        report('EDGE', 20, 10, hoursAgo(lookbackH)),
      ],
    });
    expect(findings.map((f) => f.symbol)).toEqual(['EDGE']);
  });

  it('judges only the latest report of a symbol', () => {
    const findings = detectEarningsAnomaly({
      now,
      reports: [report('AAPL', 20, 10, hoursAgo(1)), report('AAPL', 10, 10, hoursAgo(0.5))],
    });
    expect(findings).toEqual([]);
  });

  it('takes thresholds from settings', () => {
    const settings = { ...DEFAULT_EARNINGS_ANOMALY_SETTINGS, mediumSurprise: 0.01 };
    expect(detectEarningsAnomaly({ now, reports: [report('A', 1020, 1000)] }, settings)).toHaveLength(1);
  });
});
