/** One watched symbol: its live price, change, market state and sparkline, and its Remove button. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useQuery } from '../../api.ts';
import { href } from '../../router.ts';
import { formatPrice } from '../../ui.tsx';
import { Change, StateBadge } from './bits.tsx';
import type { PriceTick, QuoteResult } from './queries.ts';
import { SPARK_QUERY } from './queries.ts';
import { type Point, Sparkline } from './sparkline.tsx';

/** Hourly closes in the sparkline: two days of crypto, about a week of a listed share's sessions. */
const SPARK_BARS = 48;
/** Live points kept after them (a few minutes at one tick a second). */
const SPARK_TICKS = 300;

function useSparkPoints(symbol: string, tick: PriceTick | undefined): Point[] {
  const from = useMemo(() => new Date(Date.now() - 14 * 86_400_000).toISOString(), [symbol]);
  const bars = useQuery<{ bars: { nodes: { time: string; close: number }[] } }>(
    SPARK_QUERY,
    { symbol, from },
    [symbol, from],
  );
  const [live, setLive] = useState<Point[]>([]);
  useEffect(() => {
    if (!tick) return;
    const point = { t: new Date(tick.asOf).getTime(), v: tick.price };
    setLive((prev) =>
      prev.length > 0 && prev[prev.length - 1]!.t >= point.t ? prev : [...prev, point].slice(-SPARK_TICKS),
    );
  }, [tick]);
  const history = (bars.data?.bars.nodes ?? [])
    .slice(-SPARK_BARS)
    .map((b) => ({ t: new Date(b.time).getTime(), v: b.close }));
  const end = history[history.length - 1]?.t ?? 0;
  return [...history, ...live.filter((p) => p.t > end)];
}

export function WatchRow({
  symbol,
  result,
  tick,
  onRemove,
}: {
  symbol: string;
  result: QuoteResult | undefined;
  tick: PriceTick | undefined;
  onRemove: (symbol: string) => void;
}) {
  const points = useSparkPoints(symbol, tick);
  const q = result?.quote;
  return (
    <tr>
      <th scope="row" class="mk-sym">
        <a href={href('markets', symbol)}>{symbol}</a>
        {result?.instrument?.name ? <span class="mk-name muted">{result.instrument.name}</span> : null}
      </th>
      {result?.error ? (
        <td colSpan={4} class="mk-row-error">
          {result.error.message}
        </td>
      ) : (
        <>
          <td class="num">
            {formatPrice(tick?.price ?? q?.price)}{' '}
            <span class="muted mk-cur">{tick?.currency ?? q?.currency}</span>
          </td>
          <td class="num">
            <Change percent={tick?.changePercent ?? q?.changePercent} />
          </td>
          <td>
            <StateBadge state={tick?.marketState ?? q?.marketState} />
          </td>
          <td>
            <Sparkline symbol={symbol} points={points} />
          </td>
        </>
      )}
      <td>
        <button type="button" class="danger" aria-label={`Remove ${symbol}`} onClick={() => onRemove(symbol)}>
          Remove
        </button>
      </td>
    </tr>
  );
}
