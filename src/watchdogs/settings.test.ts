import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../config.ts';
import { WATCHDOG_NAMES } from './registry.ts';
import { DEFAULT_DETECTOR_SETTINGS, resolveWatchdogSettings } from './settings.ts';

const resolve = (env: Record<string, string>) => resolveWatchdogSettings(parseConfig(env).watchdogs);

describe('resolveWatchdogSettings', () => {
  it('defaults: every watchdog every 60 s, detector defaults, the SCAN universes, daily timescale', () => {
    const s = resolve({});
    expect(Object.values(s.intervalsMs)).toEqual(WATCHDOG_NAMES.map(() => 60_000));
    expect(s.detectors).toEqual(DEFAULT_DETECTOR_SETTINGS);
    expect(s.watchdogs.map((w) => w.name)).toEqual([...WATCHDOG_NAMES]);
    expect(s.symbols).toContain('AAPL');
    expect(s.symbols).toContain('BTC/USDT');
    expect(s.timescale).toBe('daily');
    expect(s.run).toBe(true);
  });

  it('applies intervals, thresholds and symbols, key by key', () => {
    const s = resolve({
      WATCHDOG_INTERVAL_SECONDS: '30',
      WATCHDOG_INTERVALS: 'earnings_anomaly:600',
      WATCHDOG_THRESHOLDS: '{"price_anomaly":{"highMove":0.03},"funding_rate":{"criticalRatePer8h":0.005}}',
      WATCHDOG_SYMBOLS: 'MSFT,ETH/USDT',
    });
    expect(s.intervalsMs.earnings_anomaly).toBe(600_000);
    expect(s.intervalsMs.price_anomaly).toBe(30_000);
    expect(s.detectors.price_anomaly).toEqual({ ...DEFAULT_DETECTOR_SETTINGS.price_anomaly, highMove: 0.03 });
    expect(s.detectors.funding_rate.criticalRatePer8h).toBe(0.005);
    expect(s.symbols).toEqual(['MSFT', 'ETH/USDT']);
  });

  it('demo activity on the simulated market reads minutes, not days', () => {
    const s = resolve({ SIMULATED_ACTIVITY: 'demo' });
    expect(s.timescale).toBe('minute');
    expect(s.detectors.correlation_breakdown.shortWindowMs).toBe(30 * 60_000);
    expect(s.detectors.price_anomaly.windowMs).toBe(5 * 60_000);
    // A threshold set by the operator still wins over a demo default.
    expect(
      resolve({ SIMULATED_ACTIVITY: 'demo', WATCHDOG_THRESHOLDS: '{"price_anomaly":{"windowMs":60000}}' })
        .detectors.price_anomaly.windowMs,
    ).toBe(60_000);
  });

  it('names every wrong entry at once', () => {
    let error: unknown;
    try {
      resolve({
        WATCHDOG_INTERVALS: 'nope:60,price_anomaly:2',
        WATCHDOG_THRESHOLDS: '{"nope":{},"price_anomaly":{"highMov":1,"criticalMove":-1}}',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/WATCHDOG_INTERVALS: nope:60 is not name:seconds/);
    expect(problems).toMatch(/WATCHDOG_INTERVALS: price_anomaly must be whole seconds from 5 to 86400/);
    expect(problems).toMatch(/WATCHDOG_THRESHOLDS: nope is not a watchdog/);
    expect(problems).toMatch(/WATCHDOG_THRESHOLDS.price_anomaly.highMov: unknown/);
    expect(problems).toMatch(/WATCHDOG_THRESHOLDS.price_anomaly.criticalMove: must be a number above 0/);
  });

  it('refuses thresholds that cannot work, naming the watchdog and the key', () => {
    const problems = (thresholds: object) => {
      try {
        resolve({ WATCHDOG_THRESHOLDS: JSON.stringify(thresholds) });
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    expect(problems({ price_anomaly: { criticalMove: 0.04 } })).toEqual([
      'WATCHDOG_THRESHOLDS.price_anomaly.criticalMove: must be above highMove (0.05)',
    ]);
    expect(problems({ price_anomaly: { highMove: 0.2 } })).toEqual([
      'WATCHDOG_THRESHOLDS.price_anomaly.highMove: must be below criticalMove (0.1)',
    ]);
    expect(
      problems({
        price_anomaly: { windowMs: 0, flashCrashDrop: 1 },
        liquidity_drop: { criticalRatio: 0.6 },
        unusual_volume: { highRatio: 0.8, minBaselineDays: 40 },
        correlation_breakdown: { longWindowMs: 86_400_000 },
        whale_movement: { highUsd: 500_000 },
        funding_rate: { highRatePer8h: '0.1%' },
        exchange_outage: { slowMs: -1 },
        earnings_anomaly: { mediumSurprise: 0.3 },
      }),
    ).toEqual([
      'WATCHDOG_THRESHOLDS.earnings_anomaly.mediumSurprise: must be below highSurprise (0.2)',
      'WATCHDOG_THRESHOLDS.unusual_volume.highRatio: must be a number above 1',
      'WATCHDOG_THRESHOLDS.unusual_volume.minBaselineDays: must be at most averageDays (30)',
      'WATCHDOG_THRESHOLDS.whale_movement.highUsd: must be above minUsd (1000000)',
      'WATCHDOG_THRESHOLDS.funding_rate.highRatePer8h: must be a number above 0',
      'WATCHDOG_THRESHOLDS.liquidity_drop.criticalRatio: must be below highRatio (0.5)',
      'WATCHDOG_THRESHOLDS.correlation_breakdown.longWindowMs: must be above shortWindowMs (604800000)',
      'WATCHDOG_THRESHOLDS.exchange_outage.slowMs: must be a whole number of milliseconds above 0',
      'WATCHDOG_THRESHOLDS.price_anomaly.flashCrashDrop: must be a fraction above 0 and below 1',
      'WATCHDOG_THRESHOLDS.price_anomaly.windowMs: must be a whole number of milliseconds above 0',
    ]);
  });

  it('checks the demo replacements with the operator values over them', () => {
    // The demo long window is 6 hours: a 1-hour short window fits it, a 7-hour one does not.
    const demo = (thresholds: object) =>
      resolve({ SIMULATED_ACTIVITY: 'demo', WATCHDOG_THRESHOLDS: JSON.stringify(thresholds) });
    expect(
      demo({ correlation_breakdown: { shortWindowMs: 3_600_000 } }).detectors.correlation_breakdown,
    ).toMatchObject({
      shortWindowMs: 3_600_000,
      longWindowMs: 6 * 3_600_000,
    });
    expect(() => demo({ correlation_breakdown: { shortWindowMs: 7 * 3_600_000 } })).toThrow(
      'WATCHDOG_THRESHOLDS.correlation_breakdown.shortWindowMs: must be below longWindowMs (21600000)',
    );
  });

  it('refuses thresholds that are not a JSON object', () => {
    expect(() => resolve({ WATCHDOG_THRESHOLDS: '[1]' })).toThrow(/must be a JSON object/);
    expect(() => resolve({ WATCHDOG_THRESHOLDS: '{oops' })).toThrow(/is not JSON/);
  });
});
