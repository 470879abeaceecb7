import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  EVENT_TYPE_INFO,
  EVENT_TYPES,
  type EventType,
  WATCHDOG_EVENT_TYPES,
  WATCHDOG_NAMES,
  WATCHDOG_SUMMARIES,
  WATCHDOGS,
  type WatchdogName,
} from './registry.ts';
import { DEFAULT_DETECTOR_SETTINGS } from './settings.ts';

describe('the watchdog registry', () => {
  it('lists the eight watchdogs in the dashboard order, their event types in declaration order', () => {
    expect(WATCHDOG_NAMES).toEqual([
      'earnings_anomaly',
      'unusual_volume',
      'whale_movement',
      'funding_rate',
      'liquidity_drop',
      'correlation_breakdown',
      'exchange_outage',
      'price_anomaly',
    ]);
    // The schema's WatchdogEventType enum lists them in this order.
    expect(EVENT_TYPES).toEqual([
      'earnings_anomaly',
      'unusual_volume',
      'whale_movement',
      'funding_spike',
      'liquidity_drop',
      'correlation_break',
      'exchange_outage',
      'price_anomaly',
      'flash_crash',
    ]);
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    expect(Object.keys(WATCHDOG_SUMMARIES)).toEqual(WATCHDOG_NAMES);
  });

  it('keeps the event types and severities of the compatibility table', () => {
    const table = Object.fromEntries(
      WATCHDOG_NAMES.map((name) => [
        name,
        WATCHDOG_EVENT_TYPES[name].map((type) => `${type}: ${EVENT_TYPE_INFO[type].severities.join('/')}`),
      ]),
    );
    expect(table).toEqual({
      earnings_anomaly: ['earnings_anomaly: medium/high'],
      unusual_volume: ['unusual_volume: high/critical'],
      whale_movement: ['whale_movement: medium/high/critical'],
      funding_rate: ['funding_spike: high/critical'],
      liquidity_drop: ['liquidity_drop: high/critical'],
      correlation_breakdown: ['correlation_break: medium/high'],
      exchange_outage: ['exchange_outage: medium/high/critical'],
      price_anomaly: ['price_anomaly: high/critical', 'flash_crash: critical'],
    });
    for (const type of EVENT_TYPES)
      expect(WATCHDOG_EVENT_TYPES[EVENT_TYPE_INFO[type].watchdog]).toContain(type);
  });

  it("every watchdog's defaults and demo replacements pass its own rules", () => {
    for (const watchdog of WATCHDOGS) {
      for (const demo of [false, true]) {
        const { watchdog: configured, problems } = watchdog.configure({}, demo);
        expect(problems, `${watchdog.name}, demo ${demo}`).toEqual([]);
        expect(Object.keys(configured.thresholds as object)).toEqual(Object.keys(watchdog.defaults));
      }
      expect(DEFAULT_DETECTOR_SETTINGS[watchdog.name]).toBe(watchdog.defaults);
      expect(watchdog.summary).toMatch(/^[A-Z].*\.$/);
    }
  });

  it('types its names and event types as the literal unions, not as strings', () => {
    expectTypeOf<WatchdogName>().toEqualTypeOf<
      | 'earnings_anomaly'
      | 'unusual_volume'
      | 'whale_movement'
      | 'funding_rate'
      | 'liquidity_drop'
      | 'correlation_breakdown'
      | 'exchange_outage'
      | 'price_anomaly'
    >();
    expectTypeOf<EventType>().toEqualTypeOf<
      | 'earnings_anomaly'
      | 'unusual_volume'
      | 'whale_movement'
      | 'funding_spike'
      | 'liquidity_drop'
      | 'correlation_break'
      | 'exchange_outage'
      | 'price_anomaly'
      | 'flash_crash'
    >();
    expectTypeOf(DEFAULT_DETECTOR_SETTINGS.price_anomaly.criticalMove).toEqualTypeOf<number>();
  });
});
