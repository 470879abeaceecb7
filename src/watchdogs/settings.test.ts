import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../config.ts';
import { DEFAULT_DETECTOR_SETTINGS, resolveWatchdogSettings } from './settings.ts';

const resolve = (env: Record<string, string>) => resolveWatchdogSettings(parseConfig(env).watchdogs);

describe('resolveWatchdogSettings', () => {
  it('defaults: every watchdog every 60 s, detector defaults, the SCAN universes, daily timescale', () => {
    const s = resolve({});
    expect(Object.values(s.intervalsMs)).toEqual(Array(8).fill(60_000));
    expect(s.detectors).toEqual(DEFAULT_DETECTOR_SETTINGS);
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
    expect(problems).toMatch(/WATCHDOG_THRESHOLDS.price_anomaly.criticalMove: must be a non-negative number/);
  });

  it('refuses thresholds that are not a JSON object', () => {
    expect(() => resolve({ WATCHDOG_THRESHOLDS: '[1]' })).toThrow(/must be a JSON object/);
    expect(() => resolve({ WATCHDOG_THRESHOLDS: '{oops' })).toThrow(/is not JSON/);
  });
});
