import type { Dispatcher } from 'undici';
import type { Clock } from '../../platform/clock.ts';
import { systemClock } from '../../platform/clock.ts';
import { yahooSymbol } from '../instruments.ts';
import {
  type AssetClass,
  type Bar,
  type BarInterval,
  ASSET_CLASSES as EVERY_ASSET_CLASS,
  type Instrument,
  type Profile,
  type Quote,
  type VenueStatus,
} from '../types.ts';
import type { CircuitState } from './http/circuit-breaker.ts';
import { type HttpResponse, ProviderHttp } from './http/provider-http.ts';
import { probeVenue } from './http/venue-probe.ts';
import type {
  BarsCall,
  Call,
  Capability,
  InstrumentCall,
  InstrumentMatch,
  MarketDataProvider,
  SearchCall,
} from './provider.ts';
import { ProviderError, unsupported } from './provider-errors.ts';
import {
  barsInRange,
  cookieHeader,
  parseChart,
  parseCrumb,
  parseSearch,
  profileFromQuoteV7,
  quoteFromChart,
  YAHOO,
} from './yahoo.parse.ts';

export interface YahooOptions {
  /** `https://query1.finance.yahoo.com` (no trailing slash). */
  readonly baseUrl: string;
  /** Where Yahoo sets the session cookie the crumb is bound to (default: see yahooSessionUrl). */
  readonly cookieUrl?: string | undefined;
  /** Upper bound per call on top of the caller's signal. */
  readonly timeoutMs?: number;
  readonly dispatcher?: Dispatcher;
  readonly ratePerSecond?: number;
  readonly burst?: number;
  readonly clock?: Clock;
}

const CAPABILITIES: ReadonlySet<Capability> = new Set(['quote', 'bars', 'profile', 'venueStatus', 'search']);
const ASSET_CLASSES: ReadonlySet<AssetClass> = new Set(EVERY_ASSET_CLASS);
const INTERVALS: Readonly<Record<BarInterval, string>> = {
  '1m': '1m',
  '5m': '5m',
  '15m': '15m',
  '30m': '30m',
  '1h': '60m',
  '1d': '1d',
};
/** Probed by venueStatus: an index that always has data, on the endpoint every call depends on. */
const PROBE_TICKER = '^GSPC';

/** Yahoo's own session host: it answers 404 and sets the cookie quote v7 needs. */
export const YAHOO_SESSION_HOST = 'https://fc.yahoo.com';

/**
 * Where the session cookie comes from: the configured URL, else Yahoo's session host when the API is
 * Yahoo's own, else the API base itself (a mirror or a test double serves its session on its own
 * host, so pointing YAHOO_BASE_URL elsewhere never leaks a request to Yahoo).
 */
export function yahooSessionUrl(baseUrl: string, configured?: string): string {
  if (configured) return configured;
  const host = new URL(baseUrl).hostname;
  return host === 'yahoo.com' || host.endsWith('.yahoo.com') ? YAHOO_SESSION_HOST : baseUrl;
}

interface Session {
  readonly cookie: string;
  readonly crumb: string;
}

/**
 * The cookie and crumb quote v7 needs. Concurrent callers share one session request (run under the
 * first caller's deadline); a failed one is forgotten so the next call starts over.
 */
class YahooSession {
  #session: Promise<Session> | undefined;

  constructor(
    private readonly http: ProviderHttp,
    private readonly cookieUrl: string,
  ) {}

  /** The current session, or a new one when there is none or the current one is `stale`. */
  current(signal: AbortSignal, stale?: Promise<Session>): Promise<Session> {
    if (!this.#session || this.#session === stale) {
      const pending = this.#open(signal);
      this.#session = pending;
      pending.catch(() => {
        if (this.#session === pending) this.#session = undefined;
      });
    }
    return this.#session;
  }

  async #open(signal: AbortSignal): Promise<Session> {
    const consent = await this.http.get({ path: this.cookieUrl, signal });
    const cookie = cookieHeader(consent.headers['set-cookie']);
    if (!cookie) throw new ProviderError(YAHOO, 'unauthorized', `no session cookie from ${this.cookieUrl}`);
    const answer = await this.http.get({ path: '/v1/test/getcrumb', headers: { cookie }, signal });
    const crumb = answer.status === 200 ? parseCrumb(answer.body) : undefined;
    if (!crumb) {
      throw new ProviderError(YAHOO, 'unauthorized', `no crumb for the session (HTTP ${answer.status})`, {
        status: answer.status,
      });
    }
    return { cookie, crumb };
  }
}

/**
 * Yahoo Finance through its public web endpoints. Chart v8 and search v1 answer without a session;
 * quote v7 (used for profiles) needs a cookie and the crumb bound to it, fetched once and refreshed
 * when Yahoo stops accepting them.
 */
export function createYahooProvider(options: YahooOptions): MarketDataProvider {
  return new YahooProvider(options);
}

class YahooProvider implements MarketDataProvider {
  readonly id = YAHOO;
  readonly displayName = 'Yahoo Finance';
  readonly live = true;
  readonly capabilities = CAPABILITIES;
  readonly assetClasses = ASSET_CLASSES;
  readonly #clock: Clock;
  readonly #http: ProviderHttp;
  readonly #session: YahooSession;

  constructor(options: YahooOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#http = new ProviderHttp({
      provider: YAHOO,
      baseUrl: options.baseUrl,
      ratePerSecond: options.ratePerSecond ?? 2,
      burst: options.burst ?? 5,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
    this.#session = new YahooSession(this.#http, yahooSessionUrl(options.baseUrl, options.cookieUrl));
  }

  circuit(): CircuitState {
    return this.#http.circuit.state;
  }

  supports(capability: Capability, instrument?: Instrument): boolean {
    if (!CAPABILITIES.has(capability)) return false;
    if (!instrument || capability === 'venueStatus') return true;
    return ASSET_CLASSES.has(instrument.assetClass) && yahooSymbol(instrument) !== undefined;
  }

  async quote({ instrument, signal }: InstrumentCall): Promise<Quote> {
    // One daily bar of the latest session: the meta carries the price, the bar its open.
    const data = await this.#chart(instrument, { range: '1d', interval: '1d' }, signal);
    return quoteFromChart(data, instrument.symbol, instrument.assetClass);
  }

  async bars({ instrument, interval, start, end, signal }: BarsCall): Promise<Bar[]> {
    const query = {
      interval: INTERVALS[interval],
      period1: Math.floor(start.getTime() / 1000),
      period2: Math.ceil(end.getTime() / 1000),
      events: 'div|split',
      includePrePost: 'false',
    };
    const data = await this.#chart(instrument, query, signal);
    return barsInRange(data.bars, start, end);
  }

  async profile({ instrument, signal }: InstrumentCall): Promise<Profile> {
    const symbol = tickerOf(instrument);
    // One deadline for the whole call (session and quote), as each get() bounds only itself.
    const response = await this.#quoteV7(symbol, this.#http.bound(signal));
    if (response.status >= 400) {
      throw new ProviderError(YAHOO, 'bad_response', `quote v7 answered ${response.status}`, {
        status: response.status,
      });
    }
    // The response Date stands in only when the row carries no regularMarketTime.
    return profileFromQuoteV7(response.body, symbol, instrument, response.date ?? this.#clock.now());
  }

  async search({ query, limit, signal }: SearchCall): Promise<InstrumentMatch[]> {
    const response = await this.#http.get({
      path: '/v1/finance/search',
      query: { q: query, quotesCount: Math.min(limit * 2, 50), newsCount: 0, listsCount: 0 },
      signal,
    });
    if (response.status >= 400) {
      throw new ProviderError(YAHOO, 'bad_response', `search answered ${response.status}`, {
        status: response.status,
      });
    }
    // Asked for twice as many: options and unknown markets are dropped from Yahoo's list.
    return parseSearch(response.body).slice(0, limit);
  }

  async venueStatus({ signal }: Call): Promise<VenueStatus[]> {
    return [
      await probeVenue(
        YAHOO,
        async () => {
          const response = await this.#http.get({
            path: `/v8/finance/chart/${encodeURIComponent(PROBE_TICKER)}`,
            query: { range: '1d', interval: '1d' },
            signal,
          });
          parseChart(response.body, response.status, PROBE_TICKER);
        },
        this.#clock,
      ),
    ];
  }

  async #chart(instrument: Instrument, query: Record<string, string | number>, signal: AbortSignal) {
    const path = `/v8/finance/chart/${encodeURIComponent(tickerOf(instrument))}`;
    const response = await this.#http.get({ path, query, signal });
    return parseChart(response.body, response.status, instrument.symbol);
  }

  /**
   * Quote v7 for `symbol` within the session. Yahoo expires crumbs and cookies without notice: a
   * refused session is renewed once.
   */
  async #quoteV7(symbol: string, signal: AbortSignal): Promise<HttpResponse> {
    const fetchQuote = async (session: Session) =>
      this.#http.get({
        path: '/v7/finance/quote',
        query: { symbols: symbol, crumb: session.crumb },
        headers: { cookie: session.cookie },
        signal,
      });
    const used = this.#session.current(signal);
    try {
      return await fetchQuote(await used);
    } catch (error) {
      if (!(error instanceof ProviderError && error.kind === 'unauthorized')) throw error;
      return fetchQuote(await this.#session.current(signal, used));
    }
  }
}

function tickerOf(instrument: Instrument): string {
  const mapped = yahooSymbol(instrument);
  if (!mapped) throw unsupported(YAHOO, `${instrument.assetClass} ${instrument.symbol}`);
  return mapped;
}
