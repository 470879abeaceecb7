/**
 * The candle chart: TradingView's lightweight-charts (loaded with the symbol page only), candles with
 * volume on its own scale underneath, Vigil's indicator series (SMA, EMA, Bollinger) as lines over the
 * candles, live ticks into the last candle. The container's data-* attributes say what is drawn, for tests and for a quick look.
 */
import type {
  CandlestickData,
  HistogramData,
  IChartApi,
  ISeriesApi,
  Time,
  UTCTimestamp,
} from 'lightweight-charts';
import { applyTick, type Candle, type TickEffect } from './live-bars.ts';
import type { OverlayLine } from './overlay-lines.ts';

type Lib = typeof import('lightweight-charts');

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888888';
}

/** `#rrggbb` with an alpha; other notations stay opaque. */
function faded(colour: string, alpha: string): string {
  return /^#[0-9a-f]{6}$/i.test(colour) ? `${colour}${alpha}` : colour;
}

const at = (seconds: number) => seconds as UTCTimestamp;

function localTime(time: Time): string {
  return new Date((time as number) * 1000).toLocaleString();
}

/** Tick marks in local time (the chart's own are UTC). */
function tickMark(time: Time, type: number): string {
  const d = new Date((time as number) * 1000);
  if (type === 0) return String(d.getFullYear());
  if (type === 1) return d.toLocaleDateString(undefined, { month: 'short' });
  if (type === 2) return d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
  return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** Enough decimals for the price's size: 2 for shares and BTC, more for a coin worth cents. */
function priceFormat(price: number) {
  const precision = price >= 100 ? 2 : price >= 1 ? 4 : 8;
  return { type: 'price' as const, precision, minMove: 10 ** -precision };
}

export class PriceChart {
  readonly #lib: Lib;
  readonly #el: HTMLElement;
  readonly #chart: IChartApi;
  readonly #candles: ISeriesApi<'Candlestick'>;
  readonly #volume: ISeriesApi<'Histogram'>;
  readonly #theme: MutationObserver;
  readonly #resize: ResizeObserver;
  #data: Candle[] = [];
  #step = 86_400;
  #ticks = 0;
  #moved = false;
  readonly #lines = new Map<string, { line: OverlayLine; series: ISeriesApi<'Line'> }>();

  constructor(lib: Lib, el: HTMLElement) {
    this.#lib = lib;
    this.#el = el;
    this.#chart = lib.createChart(el, {
      autoSize: true, // follows the container through a ResizeObserver (360 px phones too)
      // The library's logo injects a <style> element (the CSP refuses it) and links out with the page's
      // address; the page credits TradingView under the chart instead, as the licence asks.
      layout: { attributionLogo: false },
      localization: { timeFormatter: localTime },
      timeScale: { tickMarkFormatter: tickMark, rightOffset: 3 },
      rightPriceScale: { scaleMargins: { top: 0.08, bottom: 0.26 } },
    });
    this.#candles = this.#chart.addSeries(lib.CandlestickSeries);
    this.#volume = this.#chart.addSeries(lib.HistogramSeries, {
      priceScaleId: 'volume',
      priceFormat: { type: 'volume' },
      lastValueVisible: false,
      priceLineVisible: false,
    });
    this.#chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    this.#paint();
    // The theme switch sets data-theme on <html>: repaint with the new variables.
    this.#theme = new MutationObserver(() => this.#paint());
    this.#theme.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    // autoSize keeps the bar spacing on a resize: until the user scrolls or zooms, show every candle.
    this.#resize = new ResizeObserver(() => {
      if (!this.#moved) this.#chart.timeScale().fitContent();
    });
    this.#resize.observe(el);
    for (const type of ['pointerdown', 'wheel', 'keydown']) {
      el.addEventListener(type, () => (this.#moved = true), { passive: true });
    }
  }

  /** Replaces every candle (a new symbol, interval or range). */
  setCandles(candles: readonly Candle[], step: number): void {
    this.#data = candles.map((c) => ({ ...c }));
    this.#step = step;
    this.#ticks = 0;
    this.#moved = false;
    this.#candles.applyOptions({ priceFormat: priceFormat(candles[candles.length - 1]?.close ?? 1) });
    this.#candles.setData(this.#data.map((c) => this.#candle(c)));
    this.#volume.setData(this.#data.filter((c) => c.volume !== undefined).map((c) => this.#bar(c)));
    this.#chart.timeScale().applyOptions({ timeVisible: step < 86_400, secondsVisible: false });
    this.#chart.timeScale().fitContent();
    this.#mark();
  }

  /** A live price: moves the last candle, or opens the next one. */
  tick(price: number, seconds: number): TickEffect {
    const effect = applyTick(this.#data, price, seconds, this.#step);
    if (effect === 'stale') return effect;
    const last = this.#data[this.#data.length - 1]!;
    this.#candles.update(this.#candle(last));
    this.#ticks += 1;
    this.#mark();
    return effect;
  }

  /** Shows exactly these overlay lines (each on the candles' price scale and times). */
  setOverlays(lines: readonly OverlayLine[]): void {
    for (const [id, entry] of this.#lines) {
      if (lines.some((l) => l.id === id)) continue;
      this.#chart.removeSeries(entry.series);
      this.#lines.delete(id);
    }
    for (const line of lines) {
      const series = this.#lines.get(line.id)?.series ?? this.#chart.addSeries(this.#lib.LineSeries);
      series.applyOptions(this.#lineOptions(line));
      series.setData(line.points.map((p) => ({ time: at(p.time), value: p.value })));
      this.#lines.set(line.id, { line, series });
    }
  }

  dispose(): void {
    this.#theme.disconnect();
    this.#resize.disconnect();
    this.#chart.remove();
  }

  #lineOptions(line: OverlayLine) {
    return {
      title: line.title,
      color: cssVar(line.colour),
      // The middle band is the SMA of the bands: thinner and dashed, so the envelope reads first.
      lineWidth: (line.dashed ? 1 : 2) as 1 | 2,
      lineStyle: line.dashed ? this.#lib.LineStyle.Dashed : this.#lib.LineStyle.Solid,
      priceFormat: priceFormat(line.points[line.points.length - 1]?.value ?? 1),
      priceLineVisible: false,
      crosshairMarkerVisible: false,
    };
  }

  #candle(c: Candle): CandlestickData<Time> {
    return { time: at(c.time), open: c.open, high: c.high, low: c.low, close: c.close };
  }

  #bar(c: Candle): HistogramData<Time> {
    const up = c.close >= c.open;
    return { time: at(c.time), value: c.volume ?? 0, color: faded(cssVar(up ? '--up' : '--down'), '66') };
  }

  #paint(): void {
    const text = cssVar('--text');
    const border = cssVar('--border');
    this.#chart.applyOptions({
      layout: {
        background: { color: cssVar('--panel') },
        textColor: text,
        fontFamily: 'system-ui, sans-serif',
      },
      grid: { vertLines: { color: faded(border, '80') }, horzLines: { color: faded(border, '80') } },
      rightPriceScale: { borderColor: border },
      timeScale: { borderColor: border },
      crosshair: {
        vertLine: { labelBackgroundColor: cssVar('--accent') },
        horzLine: { labelBackgroundColor: cssVar('--accent') },
      },
    });
    const up = cssVar('--up');
    const down = cssVar('--down');
    this.#candles.applyOptions({
      upColor: up,
      downColor: down,
      borderUpColor: up,
      borderDownColor: down,
      wickUpColor: up,
      wickDownColor: down,
    });
    this.#volume.setData(this.#data.filter((c) => c.volume !== undefined).map((c) => this.#bar(c)));
    for (const { line, series } of this.#lines.values()) series.applyOptions({ color: cssVar(line.colour) });
  }

  /** What is drawn, on the container: the test contract reads these. */
  #mark(): void {
    const last = this.#data[this.#data.length - 1];
    this.#el.dataset.candles = String(this.#data.length);
    this.#el.dataset.lastClose = last ? String(last.close) : '';
    this.#el.dataset.lastTime = last ? new Date(last.time * 1000).toISOString() : '';
    this.#el.dataset.ticks = String(this.#ticks);
  }
}
