/**
 * A sparkline drawn as a small SVG (lighter than a chart library for forty rows): the recent hourly
 * closes Vigil has, then the live ticks, placed by time so the ticks extend its right edge.
 */
import { formatPrice } from '../../ui.tsx';

export interface Point {
  readonly t: number;
  readonly v: number;
}

const W = 120;
const H = 32;

function path(points: readonly Point[]): string {
  const t0 = points[0]!.t;
  const t1 = points[points.length - 1]!.t;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const p of points) {
    lo = Math.min(lo, p.v);
    hi = Math.max(hi, p.v);
  }
  const x = (t: number) => (t1 === t0 ? W : ((t - t0) / (t1 - t0)) * W);
  const y = (v: number) => (hi === lo ? H / 2 : 2 + (1 - (v - lo) / (hi - lo)) * (H - 4));
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join('');
}

export function Sparkline({ symbol, points }: { symbol: string; points: readonly Point[] }) {
  if (points.length < 2) return <span class="muted">—</span>;
  const first = points[0]!.v;
  const last = points[points.length - 1]!.v;
  const tone = last > first ? 'up' : last < first ? 'down' : 'flat';
  const label = `${symbol} trend: from ${formatPrice(first)} to ${formatPrice(last)}`;
  return (
    <svg
      class={`spark mk-spark mk-spark-${tone}`}
      viewBox={`0 0 ${W} ${H}`}
      width={W}
      height={H}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      <path d={path(points)} />
    </svg>
  );
}
