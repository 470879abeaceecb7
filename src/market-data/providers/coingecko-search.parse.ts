import { USD_EQUIVALENTS } from '../instruments.ts';
import { COIN_IDS, COINGECKO } from './coingecko.parse.ts';
import type { InstrumentMatch } from './provider.ts';
import { badResponse } from './provider-errors.ts';

/**
 * /search?query=...: `{coins:[{id, name, symbol, market_cap_rank, ...}], exchanges, ...}`, best
 * first. Many tokens borrow a famous ticker, so a coin Vigil knows keeps only its own CoinGecko id
 * (the real BTC, not a token called BTC) and any other ticker keeps its first, best-ranked coin.
 * Coins are written against USDT, as a bare coin is everywhere else (stablecoins against USD).
 */
export function parseCoinSearch(body: unknown): InstrumentMatch[] {
  const coins = (body as { coins?: unknown } | null)?.coins;
  if (!Array.isArray(coins)) throw badResponse(COINGECKO, 'search without coins');
  const seen = new Set<string>();
  const matches: InstrumentMatch[] = [];
  for (const coin of coins as Array<Record<string, unknown> | null>) {
    const id = typeof coin?.id === 'string' ? coin.id : '';
    const base = typeof coin?.symbol === 'string' ? coin.symbol.trim().toUpperCase() : '';
    if (!id || !/^[A-Z0-9]{2,10}$/.test(base) || seen.has(base)) continue;
    const known = COIN_IDS[base];
    if (known !== undefined && known !== id) continue;
    seen.add(base);
    const quote = USD_EQUIVALENTS.has(base) ? 'USD' : 'USDT';
    const name = typeof coin?.name === 'string' && coin.name.trim() ? coin.name.trim() : base;
    matches.push({
      instrument: { symbol: `${base}/${quote}`, assetClass: 'crypto', base, quote },
      name,
      exchange: null,
    });
  }
  return matches;
}
