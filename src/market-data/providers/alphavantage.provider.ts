import type { Dispatcher } from 'undici';
import type { Clock } from '../../platform/clock.ts';
import { systemClock } from '../../platform/clock.ts';
import type { AssetClass, Bar, EarningsReport, Instrument, Quote } from '../types.ts';
import { ALPHAVANTAGE, parseDailySeries, parseEarnings, parseGlobalQuote } from './alphavantage.parse.ts';
import type { CircuitState } from './http/circuit-breaker.ts';
import { type HttpResponse, ProviderHttp } from './http/provider-http.ts';
import type { BarsCall, Capability, EarningsCall, InstrumentCall, MarketDataProvider } from './provider.ts';
import { ProviderError, unsupported } from './provider-errors.ts';

export interface AlphaVantageOptions {
  /** `https://www.alphavantage.co` (no trailing slash). */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Upper bound per call on top of the caller's signal. */
  readonly timeoutMs?: number;
  readonly dispatcher?: Dispatcher;
  /** Default 4 a minute with a burst of 2: never more than the free tier's 5 calls in a minute. */
  readonly ratePerSecond?: number;
  readonly burst?: number;
  /** Calls of the burst background work leaves to interactive callers (default 1). */
  readonly interactiveReserve?: number;
  readonly clock?: Clock;
}

const CAPABILITIES: ReadonlySet<Capability> = new Set(['quote', 'bars', 'earnings']);
const ASSET_CLASSES: ReadonlySet<AssetClass> = new Set(['equity', 'etf']);
/** `compact` holds the latest 100 trading days; ranges reaching further back need `full`. */
const COMPACT_REACH_MS = 135 * 86_400_000;

/**
 * Alpha Vantage: US equities and ETFs, keyed. Quotes (GLOBAL_QUOTE), daily bars (TIME_SERIES_DAILY)
 * and quarterly earnings (EARNINGS). Refusals arrive as HTTP 200 messages; the parsers turn them
 * into ProviderErrors.
 */
export function createAlphaVantageProvider(options: AlphaVantageOptions): MarketDataProvider {
  if (!options.apiKey) throw new Error('alphavantage: an API key is required');
  return new AlphaVantageProvider(options);
}

class AlphaVantageProvider implements MarketDataProvider {
  readonly id = ALPHAVANTAGE;
  readonly displayName = 'Alpha Vantage';
  readonly live = true;
  readonly capabilities = CAPABILITIES;
  readonly assetClasses = ASSET_CLASSES;
  readonly #clock: Clock;
  readonly #http: ProviderHttp;
  readonly #apiKey: string;

  constructor(options: AlphaVantageOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#apiKey = options.apiKey;
    this.#http = new ProviderHttp({
      provider: ALPHAVANTAGE,
      baseUrl: options.baseUrl,
      // A burst of 2 so one call can be kept for clients while the watchdogs' checks take the other
      // (with a burst of 1 a check's call leaves a client 12 s to wait, past its deadline); 4 a
      // minute so that 2 at once and one every 15 s after still make at most 5 in any minute.
      ratePerSecond: options.ratePerSecond ?? 4 / 60,
      burst: options.burst ?? 2,
      ...(options.interactiveReserve !== undefined ? { interactiveReserve: options.interactiveReserve } : {}),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  }

  circuit(): CircuitState {
    return this.#http.circuit.state;
  }

  supports(capability: Capability, instrument?: Instrument): boolean {
    if (!CAPABILITIES.has(capability)) return false;
    return instrument ? supportsInstrument(capability, instrument) : true;
  }

  async quote({ instrument, signal }: InstrumentCall): Promise<Quote> {
    const response = await this.#query('quote', 'GLOBAL_QUOTE', instrument, signal);
    return parseGlobalQuote(response.body, instrument.symbol, response.date);
  }

  async bars({ instrument, interval, start, end, signal }: BarsCall): Promise<Bar[]> {
    if (interval !== '1d') throw unsupported(ALPHAVANTAGE, `${interval} bars (daily only)`);
    const outputsize = this.#clock.now().getTime() - start.getTime() > COMPACT_REACH_MS ? 'full' : 'compact';
    const response = await this.#query('bars', 'TIME_SERIES_DAILY', instrument, signal, { outputsize });
    const from = start.getTime();
    const to = end.getTime();
    return parseDailySeries(response.body, instrument.symbol).filter(
      (bar) => bar.time.getTime() >= from && bar.time.getTime() < to,
    );
  }

  async earnings({ instrument, from, to, signal }: EarningsCall): Promise<EarningsReport[]> {
    const response = await this.#query('earnings', 'EARNINGS', instrument, signal);
    return parseEarnings(response.body, instrument.symbol, from, to);
  }

  /** One call of the /query endpoint (function `fn`) for an instrument the capability supports. */
  async #query(
    capability: Capability,
    fn: string,
    instrument: Instrument,
    signal: AbortSignal,
    extra: Record<string, string> = {},
  ): Promise<HttpResponse> {
    if (!supportsInstrument(capability, instrument)) {
      throw unsupported(
        ALPHAVANTAGE,
        `${instrument.assetClass} ${instrument.symbol} (${instrument.market ?? '-'})`,
      );
    }
    const response = await this.#http.get({
      path: '/query',
      // Share classes are written with a dash at Alpha Vantage (BRK-B).
      query: { function: fn, symbol: instrument.symbol.replace('.', '-'), ...extra, apikey: this.#apiKey },
      signal,
    });
    if (response.status !== 200) {
      throw new ProviderError(ALPHAVANTAGE, 'bad_response', `${fn} answered HTTP ${response.status}`, {
        status: response.status,
      });
    }
    return response;
  }
}

function supportsInstrument(capability: Capability, instrument: Instrument): boolean {
  return (
    ASSET_CLASSES.has(instrument.assetClass) &&
    (instrument.market ?? 'US') === 'US' &&
    // ETFs publish no earnings.
    (capability !== 'earnings' || instrument.assetClass === 'equity')
  );
}
