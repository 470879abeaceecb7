/** The watch list: symbols kept in this browser, their quotes, then live prices as they come. */
import { useState } from 'preact/hooks';
import { fetchQuery, useQuery, useStore, useSubscription } from '../../api.ts';
import { Card, Empty, ErrorNote, FieldError, Loading } from '../../ui.tsx';
import {
  asApiError,
  PRICES_SUBSCRIPTION,
  type PriceTick,
  QUOTE_QUERY,
  QUOTES_QUERY,
  type QuoteResult,
  type SourcedQuote,
} from './queries.ts';
import { WatchRow } from './watch-row.tsx';
import { addSymbol, MAX_WATCHED, removeSymbol, watchlist } from './watchlist-store.ts';

const ADD_ID = 'mk-add';

export function WatchList() {
  const symbols = useStore(watchlist);
  return (
    <>
      <h1>Markets</h1>
      <Card title="Watch list">
        <AddSymbol symbols={symbols} />
        {symbols.length === 0 ? (
          <Empty>Your watch list is empty. Add a symbol such as AAPL, BTC/USDT or EUR/USD.</Empty>
        ) : (
          <WatchTable symbols={symbols} />
        )}
        <p class="hint">
          Kept in this browser. Prices stream live; change is against the previous close (24 h ago for
          crypto); the sparkline shows the last 48 hourly closes, then the live ticks.
        </p>
      </Card>
    </>
  );
}

function AddSymbol({ symbols }: { symbols: readonly string[] }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const wanted = text.trim();
    if (!wanted) return setError('Type a symbol, such as AAPL, BTC/USDT or EUR/USD.');
    if (symbols.length >= MAX_WATCHED)
      return setError(`The watch list holds at most ${MAX_WATCHED} symbols.`);
    setBusy(true);
    try {
      // Vigil checks the symbol and spells it its own way (btc is BTC/USDT).
      const { quote } = await fetchQuery<{ quote: SourcedQuote }>(QUOTE_QUERY, { symbol: wanted });
      const canonical = quote.instrument.symbol;
      if (symbols.includes(canonical)) setError(`${canonical} is already in your watch list.`);
      else {
        addSymbol(canonical);
        setText('');
        setError(undefined);
      }
    } catch (caught) {
      const problem = asApiError(caught);
      setError(problem.fields.symbol ?? problem.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="mk-add" onSubmit={submit} noValidate>
      <label for={ADD_ID}>Add symbol</label>
      <div class="row">
        <input
          id={ADD_ID}
          value={text}
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
          placeholder="AAPL, BTC/USDT, EUR/USD"
          autocomplete="off"
          spellcheck={false}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? `${ADD_ID}-error` : undefined}
        />
        <button type="submit" disabled={busy}>
          Add
        </button>
      </div>
      <FieldError id={`${ADD_ID}-error`} message={error} />
    </form>
  );
}

function WatchTable({ symbols }: { symbols: readonly string[] }) {
  const quotes = useQuery<{ quotes: QuoteResult[] }>(QUOTES_QUERY, { symbols }, [symbols.join('|')]);
  const [ticks, setTicks] = useState<Record<string, PriceTick>>({});
  const [streamError, setStreamError] = useState<string | undefined>(undefined);
  const results = quotes.data?.quotes ?? [];
  // Only symbols Vigil could price are followed: one unknown symbol would fail the whole stream.
  const priced = results.filter((r) => r.quote).map((r) => r.requested);

  useSubscription<{ prices: PriceTick }>(
    PRICES_SUBSCRIPTION,
    { symbols: priced, intervalMs: 1000 },
    ({ prices }) => {
      setStreamError(undefined);
      setTicks((prev) => {
        const next = { ...prev };
        for (const name of prices.requested) next[name] = prices;
        return next;
      });
    },
    [priced.join('|')],
    (e) => setStreamError(e.message),
    priced.length > 0,
  );

  const remove = (symbol: string) => {
    removeSymbol(symbol);
    document.getElementById(ADD_ID)?.focus(); // the row and its button are gone
  };

  if (quotes.error && !quotes.data) return <ErrorNote error={quotes.error} action={quotes.refetch} />;
  if (!quotes.data) return <Loading what="the watch list" />;
  return (
    <>
      {streamError ? <ErrorNote error={`Live prices stopped: ${streamError}`} /> : null}
      <div class="table-wrap mk-wrap">
        <table class="mk-table">
          <thead>
            <tr>
              <th scope="col">Symbol</th>
              <th scope="col" class="num">
                Price
              </th>
              <th scope="col" class="num">
                Change
              </th>
              <th scope="col">Market</th>
              <th scope="col">Trend</th>
              <th scope="col">
                <span class="mk-sr">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {symbols.map((s) => (
              <WatchRow
                key={s}
                symbol={s}
                result={results.find((r) => r.requested === s)}
                tick={ticks[s]}
                onRemove={remove}
              />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
