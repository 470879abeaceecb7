/** Events of the last 24 h by severity: a bar per severity (uPlot), and the same numbers as a table. */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { ApiError } from '../../api.ts';
import { Card, ErrorNote, formatNumber, Loading } from '../../ui.tsx';
import { label, SEVERITIES } from './model.ts';
import type { Recent } from './recent.ts';

export function SeverityCard({ recent, error }: { recent: Recent | undefined; error: ApiError | undefined }) {
  const counts = recent ? SEVERITIES.map((s) => recent.bySeverity[s]) : undefined;
  const prefix = recent?.capped ? 'at least ' : '';
  const summary = counts
    ? `Bar chart, events in the last 24 hours: ${SEVERITIES.map((s, i) => `${label(s)} ${prefix}${counts[i]}`).join(', ')}.`
    : '';
  return (
    <Card title="Events by severity (24 h)">
      {error ? <ErrorNote error={error} /> : null}
      {recent && counts ? (
        <>
          <BarChart counts={counts} label={summary} />
          <table class="ov-counts">
            <caption class="hint">
              {`${prefix}${formatNumber(recent.total)} in the last 24 h; ${formatNumber(recent.kept)} kept in all.`}
            </caption>
            <thead>
              <tr>
                {SEVERITIES.map((s) => (
                  <th key={s} scope="col" class="num">
                    {label(s)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              <tr>
                {counts.map((n, i) => (
                  <td key={SEVERITIES[i]} class="num">
                    {formatNumber(n)}
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
        </>
      ) : error ? null : (
        <Loading what="counts" />
      )}
    </Card>
  );
}

/** The theme's colours, read from the CSS variables (a canvas cannot use var()). */
function colours(): { text: string; grid: string; bars: string[] } {
  const style = getComputedStyle(document.documentElement);
  const get = (name: string) => style.getPropertyValue(name).trim();
  return {
    text: get('--muted'),
    grid: get('--border'),
    bars: SEVERITIES.map((s) => get(`--${s.toLowerCase()}`)),
  };
}

/** The data as uPlot wants it: one series per severity, each with its one bar (so each has its colour). */
function toData(counts: readonly number[]): uPlot.AlignedData {
  const xs = counts.map((_, i) => i);
  return [xs, ...counts.map((n, i) => xs.map((x) => (x === i ? n : null)))];
}

function options(width: number, counts: readonly number[]): uPlot.Options {
  const c = colours();
  const bars = uPlot.paths.bars?.({ size: [0.6, 64] });
  const axis = { stroke: c.text, grid: { stroke: c.grid, width: 1 }, ticks: { show: false } };
  return {
    width,
    height: 180,
    legend: { show: false },
    cursor: { show: false },
    scales: {
      x: { time: false, range: [-0.5, counts.length - 0.5] },
      y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] },
    },
    axes: [
      {
        ...axis,
        grid: { show: false },
        splits: () => counts.map((_, i) => i),
        values: (_u, splits) => splits.map((i) => label(SEVERITIES[i] ?? '')),
      },
      {
        ...axis,
        size: 44,
        values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? formatNumber(v) : '')),
      },
    ],
    series: [
      {},
      ...SEVERITIES.map((s, i) => ({
        label: label(s),
        fill: c.bars[i],
        stroke: c.bars[i],
        width: 0,
        points: { show: false },
        ...(bars ? { paths: bars } : {}),
      })),
    ],
  };
}

function BarChart({ counts, label: text }: { counts: readonly number[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const theme = useTheme();
  // A new chart when the theme changes (the colours are baked into its options).
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const chart = new uPlot(options(el.clientWidth || 300, counts), toData(counts), el);
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: el.clientWidth || 300, height: 180 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = undefined;
    };
  }, [theme]);
  useEffect(() => {
    plot.current?.setData(toData(counts));
  }, [counts.join(',')]);
  return <div class="ov-chart" ref={box} role="img" aria-label={text} />;
}

/** The page's theme ('light' or 'dark', set by the shell on <html data-theme>), followed as it changes. */
function useTheme(): string {
  const read = () => document.documentElement.dataset.theme ?? 'light';
  const [theme, setTheme] = useState(read);
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(read()));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}
