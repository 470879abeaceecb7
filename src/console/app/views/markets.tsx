/**
 * Markets: the watch list (#/markets) and a symbol's page (#/markets/<symbol>). The candle chart's
 * library loads with a symbol page only, so the watch list stays light.
 */
import { SymbolPage } from './markets/symbol-page.tsx';
import { WatchList } from './markets/watch-list.tsx';

export default function Markets({ param }: { param?: string }) {
  // A new symbol is a new page: its state (range, overlays, ticks) starts afresh.
  return param ? <SymbolPage key={param} symbol={param} /> : <WatchList />;
}
