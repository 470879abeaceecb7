import type { MarketDataConfig, ProviderId } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import { createAlphaVantageProvider } from './alphavantage.provider.ts';
import { createBinanceProvider } from './binance.provider.ts';
import { createCoinGeckoProvider } from './coingecko.provider.ts';
import { createFinnhubProvider } from './finnhub.provider.ts';
import type { MarketDataProvider } from './provider.ts';
import { createSimulatedProvider } from './simulated/simulated.provider.ts';
import { createYahooProvider } from './yahoo.provider.ts';

/** What the monitoring watches, which the simulated market acts out in demo activity. */
export interface Watched {
  /** `config.watchdogs.correlationPairs`. */
  readonly correlationPairs?: readonly (readonly [string, string])[];
  /** `config.watchdogs.symbols`. */
  readonly symbols?: readonly string[];
}

/** Builds the configured providers, in configuration order (the tie-breaker of arbitration). */
export function createProviders(
  config: MarketDataConfig,
  clock: Clock,
  watched: Watched = {},
): MarketDataProvider[] {
  return config.providers.map((id) => createProvider(id, config, clock, watched));
}

function createProvider(
  id: ProviderId,
  config: MarketDataConfig,
  clock: Clock,
  watched: Watched,
): MarketDataProvider {
  switch (id) {
    case 'simulated':
      return createSimulatedProvider({
        ...config.simulated,
        clock,
        correlationPairs: watched.correlationPairs,
        watchedSymbols: watched.symbols,
      });
    case 'yahoo':
      return createYahooProvider({
        baseUrl: config.yahoo.baseUrl,
        cookieUrl: config.yahoo.sessionUrl,
        timeoutMs: config.timeoutMs,
        clock,
      });
    case 'binance':
      return createBinanceProvider({ ...config.binance, clock });
    case 'coingecko':
      return createCoinGeckoProvider({
        baseUrl: config.coingecko.baseUrl,
        ...(config.coingecko.apiKey ? { apiKey: config.coingecko.apiKey } : {}),
        clock,
      });
    case 'alphavantage':
      return createAlphaVantageProvider({
        baseUrl: config.alphavantage.baseUrl,
        apiKey: config.alphavantage.apiKey!,
        timeoutMs: config.timeoutMs,
        clock,
      });
    case 'finnhub':
      return createFinnhubProvider({
        baseUrl: config.finnhub.baseUrl,
        apiKey: config.finnhub.apiKey!,
        timeoutMs: config.timeoutMs,
        clock,
      });
  }
}
