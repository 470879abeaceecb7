import { describe, expect, it } from 'vitest';
import type { FundingRate } from '../../../market-data/types.ts';
import { DEFAULT_FUNDING_RATE_SETTINGS, detectFundingRate } from './detector.ts';

const rate = (symbol: string, r: number, intervalHours = 8, venue = 'binance'): FundingRate => ({
  symbol,
  venue,
  rate: r,
  intervalHours,
  markPrice: null,
  nextFundingTime: null,
  asOf: new Date('2026-03-10T08:00:00Z'),
});

describe('detectFundingRate', () => {
  it('grades the absolute 8-hour rate and reports every spiking symbol', () => {
    const findings = detectFundingRate({
      rates: [rate('BTC/USDT', 0.0015), rate('ETH/USDT', -0.004), rate('SOL/USDT', 0.0001)],
    });
    expect(findings.map((f) => [f.symbol, f.severity, f.eventType])).toEqual([
      ['BTC/USDT', 'high', 'funding_spike'],
      ['ETH/USDT', 'critical', 'funding_spike'],
    ]);
    expect(findings[1]!.description).toContain('shorts pay longs');
  });

  it('does not fire exactly at 0.1 %, and is high exactly at 0.3 %', () => {
    const findings = detectFundingRate({ rates: [rate('A', 0.001), rate('B', -0.003)] });
    expect(findings.map((f) => [f.symbol, f.severity])).toEqual([['B', 'high']]);
  });

  it('scales rates of shorter intervals to 8 hours', () => {
    const [f] = detectFundingRate({ rates: [rate('A', 0.0004, 1)] });
    expect(f!.data.ratePer8h).toBeCloseTo(0.0032, 12);
    expect(f!.severity).toBe('critical');
  });

  it('keeps venues of one symbol apart', () => {
    const findings = detectFundingRate({ rates: [rate('A', 0.002, 8, 'x'), rate('A', 0.002, 8, 'y')] });
    expect(findings.map((f) => f.subject)).toEqual(['A@x', 'A@y']);
  });

  it('skips malformed rates and takes thresholds from settings', () => {
    expect(detectFundingRate({ rates: [rate('A', Number.NaN), rate('B', 0.01, 0)] })).toEqual([]);
    const settings = { ...DEFAULT_FUNDING_RATE_SETTINGS, highRatePer8h: 0.0001 };
    expect(detectFundingRate({ rates: [rate('A', 0.0002)] }, settings)).toHaveLength(1);
  });
});
