import { describe, expect, it } from 'vitest';
import { dayIndexOf, sessionOf } from './calendar.ts';
import { FactorModel } from './factors.ts';
import { MacroSeries } from './macro.ts';
import { Rand } from './rng.ts';

const rand = Rand.fromSeed('macro');
const NOW = Date.parse('2025-06-11T15:03:17Z');

describe('published macro series', () => {
  const macro = new MacroSeries(rand, new FactorModel(rand));

  it('publishes CPI monthly, mid next month, with realistic inflation', () => {
    const cpi = macro.observations('CPI', NOW);
    expect(cpi[0]!.periodMs).toBe(Date.UTC(2015, 0, 1));
    // May's CPI comes out on 13 June: on 11 June the latest is April's.
    expect(new Date(cpi.at(-1)!.periodMs).toISOString()).toBe('2025-04-01T00:00:00.000Z');
    for (let i = 1; i < cpi.length; i++) {
      expect(new Date(cpi[i]!.releaseMs).getUTCDate()).toBeGreaterThanOrEqual(12);
      expect(new Date(cpi[i]!.releaseMs).getUTCDate()).toBeLessThanOrEqual(14);
      expect(cpi[i]!.releaseMs).toBeGreaterThan(cpi[i]!.periodMs);
    }
    const yearly = cpi.slice(12).map((o, i) => o.value / cpi[i]!.value - 1);
    expect(Math.min(...yearly)).toBeGreaterThan(-0.03);
    expect(Math.max(...yearly)).toBeLessThan(0.12);
    expect(cpi.every((o) => o.releaseMs <= NOW)).toBe(true);
  });

  it('publishes unemployment monthly on a Friday and GDP quarterly', () => {
    const jobs = macro.observations('UNEMPLOYMENT', NOW);
    for (const o of jobs) {
      expect(new Date(o.releaseMs).getUTCDay()).toBe(5);
      expect(o.value).toBeGreaterThanOrEqual(3.2);
      expect(o.value).toBeLessThanOrEqual(15);
    }
    const gdp = macro.observations('GDP', NOW);
    expect(gdp.length).toBeGreaterThanOrEqual(40);
    expect(gdp.every((o) => new Date(o.periodMs).getUTCMonth() % 3 === 0)).toBe(true);
    expect(gdp.at(-1)!.value).toBeGreaterThan(gdp[0]!.value);
  });

  it('moves the fed funds rate in quarter-point steps at FOMC meetings only', () => {
    const fed = macro.observations('FED_RATE', NOW);
    let changes = 0;
    for (let i = 1; i < fed.length; i++) {
      const step = fed[i]!.value - fed[i - 1]!.value;
      if (Math.abs(step) < 1e-9) continue;
      changes++;
      expect(Math.abs(step / 0.25 - Math.round(step / 0.25))).toBeLessThan(1e-6);
      // Effective the trading day after a decision taken on a Wednesday.
      const previous = new Date(fed[i - 1]!.periodMs);
      expect(previous.getUTCDay()).toBe(3);
    }
    expect(changes).toBeGreaterThan(3);
    expect(fed.every((o) => sessionOf('us', dayIndexOf(o.periodMs)) !== null)).toBe(true);
    expect(Math.min(...fed.map((o) => o.value))).toBeGreaterThanOrEqual(0.08);
  });

  it('never shows a value before its release', () => {
    const early = macro.observations('CPI', Date.parse('2025-06-13T12:29:00Z'));
    const late = macro.observations('CPI', Date.parse('2025-06-13T12:31:00Z'));
    expect(late.length).toBe(early.length + 1);
    expect(late.slice(0, -1)).toEqual(early);
  });
});
