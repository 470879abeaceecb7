/**
 * price_anomaly: each watched symbol's 1-minute bars over the detector's window ending at the cycle
 * time, read as price points (the open at a bar's start, the close at its end or now for the bar
 * still forming) and handed to detectPriceAnomaly.
 */
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import type { Bar } from '../../market-data/types.ts';
import { detectPriceAnomaly, type PricePoint } from '../detectors/price-anomaly.detector.ts';
import { pct } from '../detectors/types.ts';
import type { WatchdogSettings } from '../settings.ts';
import type { WatchdogDefinition } from '../watchdog.ts';
import type { AssetDescriber } from './assets.ts';
import { outcomeOf, split } from './outcome.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, subjectsFor } from './shared.ts';

const MINUTE = 60_000;

export function createPriceAnomalyCheck(
  deps: { readonly marketData: MarketDataService; readonly describe: AssetDescriber },
  settings: WatchdogSettings,
): WatchdogDefinition {
  const { marketData, describe } = deps;
  const detector = settings.detectors.price_anomaly;
  return {
    name: 'price_anomaly',
    description:
      `Price moves beyond ${pct(detector.highMove)} within ${Math.round(detector.windowMs / MINUTE)} minutes; ` +
      `falls beyond ${pct(detector.flashCrashDrop)} are flash crashes`,
    intervalMs: settings.intervalsMs.price_anomaly,
    async check({ now, signal }) {
      const watched = subjectsFor(settings.symbols, marketData, 'bars');
      // From the start of the minute holding the window's start, so its first price is inside.
      const start = new Date(Math.floor((now.getTime() - detector.windowMs) / MINUTE) * MINUTE);
      const results = await mapLimited(watched.subjects, FETCH_CONCURRENCY, signal, (s) =>
        charged(marketData, () => marketData.bars(s.instrument, '1m', start, now)),
      );
      const { fetched, gaps } = split(watched.subjects, results);
      const series = fetched.map(({ subject, value }) => ({
        symbol: subject.symbol,
        points: pricePoints(value.value, now),
      }));
      const findings = detectPriceAnomaly({ now, series }, detector);
      return outcomeOf(watched, gaps, findings, describe);
    },
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
