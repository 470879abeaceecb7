/** The watch list: symbols kept in this browser (local storage), canonical as Vigil spells them. */
import { StoredValue } from '../../store.ts';

export const DEFAULT_WATCHLIST: readonly string[] = ['BTC/USDT', 'ETH/USDT', 'AAPL', 'MSFT'];

/** The prices subscription follows at most 50 symbols. */
export const MAX_WATCHED = 50;

export const watchlist = new StoredValue<readonly string[]>('vigil.watchlist', DEFAULT_WATCHLIST);

export function addSymbol(symbol: string): void {
  const list = watchlist.get();
  if (!list.includes(symbol)) watchlist.set([...list, symbol]);
}

export function removeSymbol(symbol: string): void {
  watchlist.set(watchlist.get().filter((s) => s !== symbol));
}
