import {
  type CoinSpec,
  type FxSpec,
  type IndexSpec,
  type Levels,
  type Loadings,
  type MacroMarketSpec,
  path,
} from './universe-data.ts';

/**
 * Crypto, fx, index and daily macro instruments of the simulated universe (listed ones are in
 * universe-data.ts). Coins are anchored to their 2025-01-02 prices; the 2015 levels of coins that did
 * not trade yet are the model's own starting points.
 */
const coin = (
  symbol: string,
  name: string,
  industry: string,
  levels: Levels,
  [crypto, alt]: readonly [number, number],
  circulatingSupply: number,
  usdVolume: number,
): CoinSpec => ({
  symbol,
  name,
  industry,
  path: path(symbol, 'coin', 'crypto', levels, { crypto, alt, market: 0.15 }, usdVolume),
  circulatingSupply,
  stable: false,
});

const stable = (symbol: string, name: string, circulatingSupply: number, usdVolume: number): CoinSpec => ({
  symbol,
  name,
  industry: 'Stablecoin',
  path: path(`${symbol}/USD`, 'stable', 'crypto', [1, 1, 0.004], {}, usdVolume),
  circulatingSupply,
  stable: true,
});

export const COINS: readonly CoinSpec[] = [
  coin('BTC', 'Bitcoin', 'Layer 1', [315, 95_000, 0.62], [0.92, 0], 19.8e6, 2.5e9),
  coin('ETH', 'Ethereum', 'Smart Contract Platform', [1.5, 3_400, 0.78], [0.86, 0.2], 120.5e6, 1.4e9),
  coin('SOL', 'Solana', 'Smart Contract Platform', [1, 190, 0.9], [0.75, 0.45], 485e6, 6e8),
  coin('BNB', 'BNB', 'Exchange Token', [1, 700, 0.65], [0.72, 0.3], 142e6, 2e8),
  coin('XRP', 'XRP', 'Payments', [0.024, 2.3, 0.9], [0.7, 0.5], 57.6e9, 6e8),
  coin('ADA', 'Cardano', 'Smart Contract Platform', [0.03, 0.9, 0.85], [0.72, 0.45], 35.2e9, 2.5e8),
  coin('DOGE', 'Dogecoin', 'Meme', [0.0002, 0.33, 1.0], [0.65, 0.35], 147e9, 5e8),
  coin('AVAX', 'Avalanche', 'Smart Contract Platform', [1, 35, 0.9], [0.75, 0.45], 410e6, 2e8),
  coin('LINK', 'Chainlink', 'Oracle', [0.2, 20, 0.9], [0.72, 0.4], 638e6, 2e8),
  coin('LTC', 'Litecoin', 'Payments', [2.7, 105, 0.75], [0.75, 0.3], 75.4e6, 2e8),
  coin('DOT', 'Polkadot', 'Interoperability', [2, 6.5, 0.85], [0.72, 0.45], 1.5e9, 1.2e8),
  coin('TRX', 'TRON', 'Smart Contract Platform', [0.002, 0.25, 0.7], [0.6, 0.3], 86e9, 1.5e8),
  coin('XLM', 'Stellar', 'Payments', [0.005, 0.4, 0.85], [0.7, 0.5], 30.5e9, 1e8),
  coin('BCH', 'Bitcoin Cash', 'Payments', [300, 430, 0.8], [0.78, 0.25], 19.8e6, 1.5e8),
  coin('ATOM', 'Cosmos', 'Interoperability', [1, 6.5, 0.85], [0.72, 0.4], 390e6, 8e7),
  coin('NEAR', 'NEAR Protocol', 'Smart Contract Platform', [1, 5, 0.95], [0.72, 0.42], 1.2e9, 1e8),
  coin('UNI', 'Uniswap', 'Decentralized Exchange', [1, 13, 0.95], [0.7, 0.4], 600e6, 8e7),
  coin('ETC', 'Ethereum Classic', 'Smart Contract Platform', [0.8, 26, 0.85], [0.72, 0.35], 150e6, 6e7),
  stable('USDT', 'Tether', 139e9, 5e9),
  stable('USDC', 'USD Coin', 45e9, 1.5e9),
];

/** Quote assets every coin trades against (same underlying path, see universe.ts). */
export const COIN_QUOTES = ['USDT', 'USDC', 'USD'] as const;

/** Stablecoin against stablecoin has its own tiny-noise path (USDT/USDC is its inverse). */
export const USDC_USDT = path('USDC/USDT', 'stable', 'crypto', [1, 1, 0.004], {}, 4e8);

const fx = (base: string, quote: string, name: string, levels: Levels, loadings: Loadings): FxSpec => ({
  symbol: `${base}/${quote}`,
  base,
  quote,
  name,
  path: path(`${base}/${quote}`, 'fx', 'fx', levels, loadings, 0),
});

export const FX: readonly FxSpec[] = [
  fx('EUR', 'USD', 'Euro / US Dollar', [1.21, 1.035, 0.075], { dollar: -0.85 }),
  fx('GBP', 'USD', 'British Pound / US Dollar', [1.56, 1.25, 0.085], { dollar: -0.75 }),
  fx('USD', 'JPY', 'US Dollar / Japanese Yen', [120, 157, 0.095], { dollar: 0.6, rates: 0.3 }),
  fx('USD', 'CHF', 'US Dollar / Swiss Franc', [0.99, 0.91, 0.08], { dollar: 0.8 }),
];

export const INDICES: readonly IndexSpec[] = [
  { symbol: '^GSPC', name: 'S&P 500', exchange: 'SNP', etf: 'SPY', scale: 10.02 },
  { symbol: '^NDX', name: 'NASDAQ 100', exchange: 'NASDAQ', etf: 'QQQ', scale: 41.2 },
  { symbol: '^DJI', name: 'Dow Jones Industrial Average', exchange: 'DJI', etf: 'DIA', scale: 100.4 },
];

/** Macro series that move every day (quoted like markets); monthly and quarterly ones are in macro.ts. */
export const MACRO_MARKETS: readonly MacroMarketSpec[] = [
  {
    symbol: 'US10Y',
    name: 'US 10-Year Treasury Yield (%)',
    path: path('US10Y', 'rate', 'us', [2.17, 4.57, 0.25], { rates: 0.9 }, 0),
    decimals: 3,
  },
  {
    symbol: 'US2Y',
    name: 'US 2-Year Treasury Yield (%)',
    path: path('US2Y', 'rate', 'us', [0.66, 4.28, 0.3], { rates: 0.75 }, 0),
    decimals: 3,
  },
  {
    symbol: 'VIX',
    name: 'CBOE Volatility Index',
    path: path('VIX', 'vix', 'us', [17, 17, 0.85], { market: -0.8 }, 0),
    decimals: 2,
  },
  {
    symbol: 'DXY',
    name: 'US Dollar Index',
    path: path('DXY', 'fx', 'fx', [90, 108.5, 0.07], { dollar: 0.95 }, 0),
    decimals: 3,
  },
];
