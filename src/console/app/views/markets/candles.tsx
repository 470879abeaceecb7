/** The candle chart's component: loads the chart library on first use and feeds it. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Store } from '../../store.ts';
import { ErrorNote, Loading } from '../../ui.tsx';
import type { Candle } from './live-bars.ts';
import type { OverlayLine } from './overlay-lines.ts';
import type { PriceChart } from './price-chart.ts';
import type { PriceTick } from './queries.ts';

export function Candles({
  symbol,
  candles,
  step,
  lines,
  ticks,
}: {
  symbol: string;
  candles: readonly Candle[];
  step: number;
  /** Vigil's overlay lines switched on. */
  lines: readonly OverlayLine[];
  /** The page's latest tick; each new one is streamed into the chart. */
  ticks: Store<PriceTick | null>;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [chart, setChart] = useState<PriceChart | undefined>(undefined);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let made: PriceChart | undefined;
    let live = true;
    Promise.all([import('lightweight-charts'), import('./price-chart.ts')])
      .then(([lib, { PriceChart }]) => {
        if (!live || !box.current) return;
        made = new PriceChart(lib, box.current);
        setChart(made);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
      made?.dispose();
    };
  }, []);

  useEffect(() => chart?.setCandles(candles, step), [chart, candles, step]);
  useEffect(() => chart?.setOverlays(lines), [chart, lines]);
  useEffect(() => {
    if (!chart) return undefined;
    return ticks.subscribe((tick) => {
      if (tick) chart.tick(tick.price, Math.floor(new Date(tick.asOf).getTime() / 1000));
    });
  }, [chart, ticks]);

  if (failed) return <ErrorNote error="The chart could not be loaded. Reload the page." />;
  return (
    <figure class="mk-figure" aria-label={`Candle chart of ${symbol} with volume`}>
      {chart ? null : <Loading what="the chart" />}
      <div class="chart mk-chart" data-testid="price-chart" ref={box} />
    </figure>
  );
}
