/** A symbol's page: its quote, a candle chart of a range with volume, Vigil's overlays, live ticks. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useQuery, useStore, useSubscription } from '../../api.ts';
import { href } from '../../router.ts';
import { Store } from '../../store.ts';
import { Card, Empty, ErrorNote, Loading } from '../../ui.tsx';
import { Candles } from './candles.tsx';
import { fits, INTERVALS, intervalSeconds, RANGES } from './live-bars.ts';
import { type Overlay, type OverlayLine, overlayLines } from './overlay-lines.ts';
import { Overlays } from './overlays.tsx';
import {
  type BarInterval,
  PRICES_SUBSCRIPTION,
  type PriceTick,
  QUOTE_QUERY,
  type SourcedQuote,
} from './queries.ts';
import { QuoteHead } from './quote-head.tsx';
import { useBars } from './use-bars.ts';
import { addSymbol, watchlist } from './watchlist-store.ts';

export function SymbolPage({ symbol }: { symbol: string }) {
  const [rangeId, setRangeId] = useState('1w');
  const range = RANGES.find((r) => r.id === rangeId) ?? RANGES[1]!;
  const [interval, setBarInterval] = useState<BarInterval>(range.interval);
  const [round, setRound] = useState(0);
  const [overlays, setOverlays] = useState<Record<Overlay, boolean>>({
    sma: false,
    ema: false,
    bollinger: false,
  });
  const ticks = useMemo(() => new Store<PriceTick | null>(null), [symbol]);
  const [live, setLive] = useState<string | undefined>(undefined);

  const quote = useQuery<{ quote: SourcedQuote }>(QUOTE_QUERY, { symbol }, [symbol]);
  const bars = useBars(symbol, interval, range.seconds, round);
  const lines = useMemo(
    () => (bars.candles ? overlayLines(bars.candles, bars.lines, overlays) : []),
    [bars.candles, bars.lines, overlays],
  );
  useSubscription<{ prices: PriceTick }>(
    PRICES_SUBSCRIPTION,
    { symbols: [symbol], intervalMs: 1000 },
    (data) => {
      setLive(undefined);
      ticks.set(data.prices);
    },
    [symbol, ticks],
    (e) => setLive(e.message),
  );

  // Vigil spells the symbol its own way (btc is BTC/USDT): the address follows.
  const canonical = quote.data?.quote.instrument.symbol;
  useEffect(() => {
    if (canonical && canonical !== symbol) location.replace(href('markets', canonical));
  }, [canonical, symbol]);

  const pickRange = (id: string) => {
    const next = RANGES.find((r) => r.id === id) ?? range;
    setRangeId(next.id);
    setBarInterval(next.interval);
  };

  return (
    <>
      <p class="mk-back">
        <a href={href('markets')}>← Watch list</a>
      </p>
      <div class="mk-title">
        <h1>{symbol}</h1>
        {bars.name ? <span class="muted">{bars.name}</span> : null}
        <WatchButton symbol={symbol} />
      </div>
      <QuoteHead quote={quote.data?.quote} error={quote.error} ticks={ticks} />
      {live ? <ErrorNote error={`Live prices stopped: ${live}`} /> : null}
      <Card title="Chart">
        <div class="row mk-controls">
          <label>
            Range
            <select
              value={range.id}
              onChange={(e) => pickRange((e.currentTarget as HTMLSelectElement).value)}
            >
              {RANGES.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Interval
            <select
              value={interval}
              onChange={(e) => setBarInterval((e.currentTarget as HTMLSelectElement).value as BarInterval)}
            >
              {INTERVALS.map((i) => (
                <option key={i.id} value={i.id} disabled={!fits(i.id, range.seconds)}>
                  {i.label}
                  {fits(i.id, range.seconds) ? '' : ' (too many bars)'}
                </option>
              ))}
            </select>
          </label>
        </div>
        <ChartBody
          symbol={symbol}
          bars={bars}
          step={intervalSeconds(interval)}
          lines={lines}
          ticks={ticks}
          retry={() => setRound((r) => r + 1)}
        />
        <Overlays on={overlays} onChange={setOverlays} />
        <p class="hint">
          Candles from Vigil's bars{bars.lineage ? ` (provider: ${bars.lineage.used.join(', ') || '—'})` : ''}
          , in your local time; each live tick moves the last candle, or opens the next one when its interval
          has passed. Charts:{' '}
          <a href="https://www.tradingview.com/" rel="noopener noreferrer">
            TradingView Lightweight Charts™
          </a>
          .
        </p>
      </Card>
    </>
  );
}

function ChartBody({
  symbol,
  bars,
  step,
  lines,
  ticks,
  retry,
}: {
  symbol: string;
  bars: ReturnType<typeof useBars>;
  step: number;
  lines: readonly OverlayLine[];
  ticks: Store<PriceTick | null>;
  retry: () => void;
}) {
  if (bars.error) return <ErrorNote error={bars.error} action={retry} />;
  if (!bars.candles) return <Loading what="the bars" />;
  return (
    <>
      {bars.loading ? <Loading what="the bars" /> : null}
      {bars.candles.length === 0 ? (
        <Empty>
          No bars in this range (the market may have been closed all along); pick a longer range. Live ticks
          still draw a candle as they come.
        </Empty>
      ) : null}
      <Candles symbol={symbol} candles={bars.candles} step={step} lines={lines} ticks={ticks} />
    </>
  );
}

function WatchButton({ symbol }: { symbol: string }) {
  const list = useStore(watchlist);
  if (list.includes(symbol)) return <span class="muted mk-watched">In your watch list</span>;
  return (
    <button type="button" onClick={() => addSymbol(symbol)}>
      Add to watch list
    </button>
  );
}
