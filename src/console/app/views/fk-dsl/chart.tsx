/**
 * The price history behind a result (FK-DSL answers are point values): daily closes from `bars`
 * over the statement's window, drawn with uPlot. Several assets are rebased to 100 at the first
 * common date so their paths compare.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { fetchQuery } from '../../api.ts';

const BARS = `query Bars($symbol: String!, $from: DateTime) {
  bars(symbol: $symbol, interval: ONE_DAY, from: $from, first: 1000) { nodes { time close } }
}`;

type Series = { symbol: string; times: number[]; closes: number[] };

async function load(symbol: string, bars: number): Promise<Series> {
  // Listed instruments trade about 5 days in 7: ask for enough calendar days, keep the last `bars`.
  const from = new Date(Date.now() - Math.ceil(bars * 1.5 + 10) * 86_400_000).toISOString();
  const data = await fetchQuery<{ bars: { nodes: { time: string; close: number }[] } }>(BARS, {
    symbol,
    from,
  });
  const nodes = data.bars.nodes.slice(-bars);
  return {
    symbol,
    times: nodes.map((n) => Date.parse(n.time) / 1000),
    closes: nodes.map((n) => n.close),
  };
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

const PALETTE = ['--accent', '--link', '--high', '--down', '--up', '--medium'];

function aligned(series: Series[]): uPlot.AlignedData {
  const joined = uPlot.join(series.map((s) => [s.times, s.closes] as uPlot.AlignedData));
  if (series.length < 2) return joined;
  // Rebase each asset to 100 at the first date every asset has.
  const start = joined[0].findIndex((_, i) => joined.slice(1).every((col) => col[i] != null));
  return [
    joined[0],
    ...joined.slice(1).map((col) => {
      const base = start >= 0 ? (col[start] as number) : Number.NaN;
      return Array.from(col as ArrayLike<number | null | undefined>, (v) =>
        v == null || !base ? null : (v / base) * 100,
      );
    }),
  ] as uPlot.AlignedData;
}

function options(series: Series[], width: number): uPlot.Options {
  const axis = {
    stroke: cssVar('--muted'),
    grid: { stroke: cssVar('--border'), width: 1 },
    ticks: { show: false },
  };
  return {
    width,
    height: 260,
    series: [
      {},
      ...series.map((s, i) => ({
        label: series.length > 1 ? `${s.symbol} (rebased)` : `${s.symbol} close`,
        stroke: cssVar(PALETTE[i % PALETTE.length]!),
        width: 1.5,
      })),
    ],
    axes: [axis, { ...axis, size: 70 }],
    legend: { show: true },
  };
}

export function PriceChart({ symbols, bars }: { symbols: readonly string[]; bars: number }) {
  const box = useRef<HTMLDivElement>(null);
  const [series, setSeries] = useState<Series[] | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  const [theme, setTheme] = useState(document.documentElement.dataset.theme);
  const key = symbols.join(',');

  useEffect(() => {
    let live = true;
    Promise.all(symbols.slice(0, 6).map((s) => load(s, bars)))
      .then((all) => live && setSeries(all.filter((s) => s.times.length > 1)))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [key, bars]);

  // Canvas colours come from the theme's variables: redraw when the theme changes.
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(document.documentElement.dataset.theme));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const el = box.current;
    if (!el || !series?.length) return;
    const plot = new uPlot(options(series, el.clientWidth || 600), aligned(series), el);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, theme]);

  if (failed) return <p class="muted">The price history could not be loaded for the chart.</p>;
  if (series && !series.length) return null;
  const what = symbols.length > 1 ? `${symbols.join(', ')} rebased to 100` : `${symbols[0]} daily close`;
  return (
    <figure class="fk-chart">
      <div ref={box} role="img" aria-label={`Chart: ${what}, last ${bars} daily bars`} />
      <figcaption class="hint">
        {what}, last {bars} daily bars (from the bars query).
      </figcaption>
    </figure>
  );
}
