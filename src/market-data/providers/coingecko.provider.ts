import type { Dispatcher } from 'undici';
import type { Clock } from '../../platform/clock.ts';
import { systemClock } from '../../platform/clock.ts';
import {
  type AssetClass,
  BAR_INTERVAL_MS,
  type Bar,
  type BarInterval,
  type CryptoStats,
  type Instrument,
  type Quote,
} from '../types.ts';
import {
  aggregate,
  COINGECKO,
  type CoinPair,
  coinGeckoError,
  coinPair,
  inRange,
  parseOhlc,
  quoteFromSimplePrice,
  responseTime,
  statsFromMarkets,
} from './coingecko.parse.ts';
import { parseCoinSearch } from './coingecko-search.parse.ts';
import type { CircuitState } from './http/circuit-breaker.ts';
import { type HttpRequest, type HttpResponse, ProviderHttp } from './http/provider-http.ts';
import type {
  BarsCall,
  Capability,
  InstrumentCall,
  InstrumentMatch,
  MarketDataProvider,
  SearchCall,
} from './provider.ts';
import { unknownSymbol, unsupported } from './provider-errors.ts';

export interface CoinGeckoOptions {
  /** `https://api.coingecko.com/api/v3` (no trailing slash). */
  readonly baseUrl: string;
  /** Demo-plan key, sent as `x-cg-demo-api-key`; the keyless public API works without one. */
  readonly apiKey?: string | undefined;
  readonly dispatcher?: Dispatcher;
  /** Requests per second (default 0.5: the free tier's 30 a minute), burst 5. */
  readonly ratePerSecond?: number;
  readonly burst?: number;
  readonly clock?: Clock;
}

const CAPABILITIES: ReadonlySet<Capability> = new Set(['quote', 'cryptoStats', 'bars', 'search']);
const ASSET_CLASSES: ReadonlySet<AssetClass> = new Set(['crypto']);
const DAY_MS = 86_400_000;
const HALF_HOUR_MS = 1_800_000;
const FOUR_HOURS_MS = 14_400_000;

/**
 * How each interval is built from /ohlc, whose candle size CoinGecko picks from `days` (1: 30
 * minutes; 7, 14, 30: 4 hours; more: 4 days) and whose window always ends now. Hours are two
 * 30-minute candles and days six 4-hour candles, merged only when complete. 1m-15m candles do not
 * exist on the public API; daily closes from /market_chart are not OHLC and are not dressed up as it.
 */
const PLANS: Partial<Record<BarInterval, { readonly candleMs: number; readonly days: readonly number[] }>> = {
  '30m': { candleMs: HALF_HOUR_MS, days: [1] },
  '1h': { candleMs: HALF_HOUR_MS, days: [1] },
  '1d': { candleMs: FOUR_HOURS_MS, days: [7, 14, 30] },
};

/**
 * CoinGecko's aggregated (cross-exchange) prices, 24 h statistics with market capitalisation,
 * OHLC candles and coin search. Stablecoin-quoted instruments are priced in USD (see vsCurrency()).
 */
export function createCoinGeckoProvider(options: CoinGeckoOptions): MarketDataProvider {
  return new CoinGeckoProvider(options);
}

class CoinGeckoProvider implements MarketDataProvider {
  readonly id = COINGECKO;
  readonly displayName = 'CoinGecko';
  readonly live = true;
  readonly capabilities = CAPABILITIES;
  readonly assetClasses = ASSET_CLASSES;
  readonly #clock: Clock;
  readonly #http: ProviderHttp;

  constructor(options: CoinGeckoOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#http = new ProviderHttp({
      provider: COINGECKO,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      ratePerSecond: options.ratePerSecond ?? 0.5,
      burst: options.burst ?? 5,
      ...(options.apiKey ? { headers: { 'x-cg-demo-api-key': options.apiKey } } : {}),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
  }

  circuit(): CircuitState {
    return this.#http.circuit.state;
  }

  supports(capability: Capability, instrument?: Instrument): boolean {
    if (!CAPABILITIES.has(capability)) return false;
    return !instrument || coinPair(instrument) !== undefined;
  }

  async quote({ instrument, signal }: InstrumentCall): Promise<Quote> {
    const pair = pairOf(instrument);
    const res = await this.#get(
      {
        path: '/simple/price',
        query: {
          ids: pair.id,
          vs_currencies: pair.vs,
          include_24hr_change: true,
          include_24hr_vol: true,
          include_last_updated_at: true,
        },
        signal,
      },
      instrument.symbol,
    );
    return quoteFromSimplePrice(res.body, instrument, pair, responseTime(res.date, res.headers.age));
  }

  async cryptoStats({ instrument, signal }: InstrumentCall): Promise<CryptoStats> {
    const pair = pairOf(instrument);
    const res = await this.#get(
      { path: '/coins/markets', query: { vs_currency: pair.vs, ids: pair.id }, signal },
      instrument.symbol,
    );
    return statsFromMarkets(res.body, instrument, pair, responseTime(res.date, res.headers.age));
  }

  async search({ query, limit, signal }: SearchCall): Promise<InstrumentMatch[]> {
    const res = await this.#get({ path: '/search', query: { query }, signal }, query);
    return parseCoinSearch(res.body).slice(0, limit);
  }

  async bars({ instrument, interval, start, end, signal }: BarsCall): Promise<Bar[]> {
    const pair = pairOf(instrument);
    const plan = PLANS[interval];
    if (!plan) throw unsupported(COINGECKO, `${interval} bars (its OHLC candles are 30 minutes or longer)`);
    const lookback = this.#clock.now().getTime() - start.getTime();
    const days = plan.days.find((d) => d * DAY_MS >= lookback);
    if (days === undefined) {
      throw unsupported(COINGECKO, `${interval} bars starting more than ${plan.days.at(-1)} days ago`);
    }
    if (end.getTime() <= start.getTime()) return [];
    const res = await this.#get(
      {
        path: `/coins/${encodeURIComponent(pair.id)}/ohlc`,
        query: { vs_currency: pair.vs, days },
        signal,
      },
      instrument.symbol,
    );
    const candles = parseOhlc(res.body, plan.candleMs);
    return inRange(aggregate(candles, plan.candleMs, BAR_INTERVAL_MS[interval]), start, end);
  }

  /** GET that returns a 2xx answer and turns CoinGecko's error answers into ProviderErrors. */
  async #get(req: HttpRequest, symbol: string): Promise<HttpResponse> {
    const res = await this.#http.get(req);
    const error = coinGeckoError(res.status, res.body, symbol);
    if (error) throw error;
    return res;
  }
}

function pairOf(instrument: Instrument): CoinPair {
  if (instrument.assetClass !== 'crypto')
    throw unsupported(COINGECKO, `${instrument.assetClass} instruments`);
  const pair = coinPair(instrument);
  if (!pair) throw unknownSymbol(COINGECKO, instrument.symbol, 'no CoinGecko id or vs_currency for it');
  return pair;
}
