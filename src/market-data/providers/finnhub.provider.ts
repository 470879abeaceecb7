import type { Dispatcher } from 'undici';
import type { Clock } from '../../platform/clock.ts';
import { systemClock } from '../../platform/clock.ts';
import type {
  AssetClass,
  Bar,
  BarInterval,
  EarningsReport,
  Instrument,
  Quote,
  VenueStatus,
} from '../types.ts';
import {
  FINNHUB,
  parseCandles,
  parseEarningsCalendar,
  parseQuote,
  parseSymbolSearch,
} from './finnhub.parse.ts';
import type { CircuitState } from './http/circuit-breaker.ts';
import { type HttpRequest, type HttpResponse, ProviderHttp } from './http/provider-http.ts';
import { probeVenue } from './http/venue-probe.ts';
import type {
  BarsCall,
  Call,
  Capability,
  EarningsCall,
  InstrumentCall,
  InstrumentMatch,
  MarketDataProvider,
  SearchCall,
} from './provider.ts';
import { ProviderError, unsupported } from './provider-errors.ts';

export interface FinnhubOptions {
  /** `https://finnhub.io/api/v1` (no trailing slash). */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Upper bound per call on top of the caller's signal. */
  readonly timeoutMs?: number;
  readonly dispatcher?: Dispatcher;
  /** Default 55/60 per second with a burst of 5: never more than the free tier's 60 calls a minute. */
  readonly ratePerSecond?: number;
  readonly burst?: number;
  readonly clock?: Clock;
}

const CAPABILITIES: ReadonlySet<Capability> = new Set(['quote', 'bars', 'earnings', 'venueStatus', 'search']);
const ASSET_CLASSES: ReadonlySet<AssetClass> = new Set(['equity', 'etf']);
const RESOLUTIONS: Readonly<Record<BarInterval, string>> = {
  '1m': '1',
  '5m': '5',
  '15m': '15',
  '30m': '30',
  '1h': '60',
  '1d': 'D',
};
/** Probed by venueStatus: a symbol Finnhub always quotes, on the cheapest endpoint. */
const PROBE_SYMBOL = 'AAPL';

/**
 * Finnhub: US equities and ETFs, keyed (X-Finnhub-Token header, so the key stays out of URLs and
 * logs). Quotes, the earnings calendar, symbol search, and candles, which free keys are refused.
 */
export function createFinnhubProvider(options: FinnhubOptions): MarketDataProvider {
  if (!options.apiKey) throw new Error('finnhub: an API key is required');
  return new FinnhubProvider(options);
}

class FinnhubProvider implements MarketDataProvider {
  readonly id = FINNHUB;
  readonly displayName = 'Finnhub';
  readonly live = true;
  readonly capabilities = CAPABILITIES;
  readonly assetClasses = ASSET_CLASSES;
  readonly #clock: Clock;
  readonly #http: ProviderHttp;

  constructor(options: FinnhubOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#http = new ProviderHttp({
      provider: FINNHUB,
      baseUrl: options.baseUrl,
      ratePerSecond: options.ratePerSecond ?? 55 / 60,
      burst: options.burst ?? 5,
      headers: { 'x-finnhub-token': options.apiKey },
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  }

  circuit(): CircuitState {
    return this.#http.circuit.state;
  }

  supports(capability: Capability, instrument?: Instrument): boolean {
    if (!CAPABILITIES.has(capability)) return false;
    if (!instrument || capability === 'venueStatus') return true;
    return supportsInstrument(capability, instrument);
  }

  async quote({ instrument, signal }: InstrumentCall): Promise<Quote> {
    const symbol = symbolFor('quote', instrument);
    const response = await this.#get({ path: '/quote', query: { symbol }, signal });
    return parseQuote(response.body, instrument.symbol);
  }

  async earnings({ instrument, from, to, signal }: EarningsCall): Promise<EarningsReport[]> {
    const symbol = symbolFor('earnings', instrument);
    // The calendar filters by calendar date, the call by instant (a report late on a New York day
    // falls on the next UTC date): ask a day wider, then cut exactly.
    const response = await this.#get({
      path: '/calendar/earnings',
      query: { from: isoDate(from, -1), to: isoDate(to, 1), symbol },
      signal,
    });
    return parseEarningsCalendar(response.body, instrument.symbol, from, to);
  }

  async bars({ instrument, interval, start, end, signal }: BarsCall): Promise<Bar[]> {
    const symbol = symbolFor('bars', instrument);
    const query = {
      symbol,
      resolution: RESOLUTIONS[interval],
      from: Math.floor(start.getTime() / 1000),
      to: Math.ceil(end.getTime() / 1000),
    };
    let response: HttpResponse;
    try {
      response = await this.#get({ path: '/stock/candle', query, signal });
    } catch (error) {
      throw premiumOnly(error);
    }
    const from = start.getTime();
    const to = end.getTime();
    return parseCandles(response.body, interval === '1d').filter(
      (bar) => bar.time.getTime() >= from && bar.time.getTime() < to,
    );
  }

  async search({ query, limit, signal }: SearchCall): Promise<InstrumentMatch[]> {
    const response = await this.#get({ path: '/search', query: { q: query }, signal });
    return parseSymbolSearch(response.body).slice(0, limit);
  }

  async venueStatus({ signal }: Call): Promise<VenueStatus[]> {
    return [
      await probeVenue(
        FINNHUB,
        async () =>
          parseQuote(
            (await this.#get({ path: '/quote', query: { symbol: PROBE_SYMBOL }, signal })).body,
            PROBE_SYMBOL,
          ),
        this.#clock,
      ),
    ];
  }

  /** GET that returns a 200 answer; any other is a bad response. */
  async #get(req: HttpRequest): Promise<HttpResponse> {
    const response = await this.#http.get(req);
    if (response.status !== 200) {
      throw new ProviderError(FINNHUB, 'bad_response', `${req.path} answered HTTP ${response.status}`, {
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

/** Finnhub writes share classes with a dot (BRK.B), as Vigil does. */
function symbolFor(capability: Capability, instrument: Instrument): string {
  if (!supportsInstrument(capability, instrument)) {
    throw unsupported(FINNHUB, `${instrument.assetClass} ${instrument.symbol} (${instrument.market ?? '-'})`);
  }
  return instrument.symbol;
}

/** A refused candle request says why: free keys are not allowed candles. */
function premiumOnly(error: unknown): unknown {
  if (!(error instanceof ProviderError && error.kind === 'unauthorized')) return error;
  return new ProviderError(
    FINNHUB,
    'unauthorized',
    `/stock/candle needs a premium Finnhub key (${error.message.replace(`${FINNHUB}: `, '')})`,
    error.details,
  );
}

/** YYYY-MM-DD of `date` shifted by `days` (UTC). */
function isoDate(date: Date, days: number): string {
  return new Date(date.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}
