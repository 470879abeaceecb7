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
  /** Default: the free tier's 5 requests per minute. */
  readonly ratePerSecond?: number;
  readonly burst?: number;
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
      ratePerSecond: options.ratePerSecond ?? 5 / 60,
      burst: options.burst ?? 1,
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
