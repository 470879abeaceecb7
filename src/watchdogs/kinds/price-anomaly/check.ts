/**
 * price_anomaly: each watched symbol's 1-minute bars over the detector's window ending at the cycle
 * time, read as price points (the open at a bar's start, the close at its end or now for the bar
 * still forming) and handed to its detector.
 */
import type { Bar } from '../../../market-data/types.ts';
import { outcomeOf, split } from '../../checks/outcome.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, subjectsFor } from '../../checks/shared.ts';
import type { Check, CheckDeps, CheckSetup } from '../../watchdog.ts';
import type { PriceAnomalyFinding, PriceAnomalyInput, PriceAnomalySettings, PricePoint } from './detector.ts';

const MINUTE = 60_000;

export function priceAnomalyCheck(
  { marketData, describe }: CheckDeps,
  setup: CheckSetup<PriceAnomalySettings, PriceAnomalyInput, PriceAnomalyFinding>,
): Check<PriceAnomalyFinding> {
  const { windowMs } = setup.thresholds;
  return async ({ now, signal }) => {
    const watched = subjectsFor(setup.symbols, marketData, 'bars');
    // From the start of the minute holding the window's start, so its first price is inside.
    const start = new Date(Math.floor((now.getTime() - windowMs) / MINUTE) * MINUTE);
    const results = await mapLimited(watched.subjects, FETCH_CONCURRENCY, signal, (s) =>
      charged(marketData, () => marketData.bars(s.instrument, '1m', start, now)),
    );
    const { fetched, gaps } = split(watched.subjects, results);
    const series = fetched.map(({ subject, value }) => ({
      symbol: subject.symbol,
      points: pricePoints(value.value, now),
    }));
    return outcomeOf(watched, gaps, setup.detect({ now, series }), describe);
  };
}

/** A bar's open at its start and its close at its end (or at `now` for the bar still forming). */
export function pricePoints(bars: readonly Bar[], now: Date, barMs = MINUTE): PricePoint[] {
  const points: PricePoint[] = [];
  for (const b of bars) {
    const end = Math.min(b.time.getTime() + barMs, now.getTime());
    points.push({ time: b.time, price: b.open }, { time: new Date(end), price: b.close });
  }
  return points;
}
