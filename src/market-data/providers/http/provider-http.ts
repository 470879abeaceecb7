import type { Dispatcher } from 'undici';
import { loadUndici } from '../../../platform/http/undici.ts';
import { ProviderError } from '../provider-errors.ts';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.ts';
import { ProviderLimiter, sleep } from './provider-limiter.ts';

/**
 * Outbound HTTP for one provider: a token-bucket rate limit that serves interactive callers first
 * (provider-limiter.ts), retries with exponential backoff and jitter on 429/5xx/network failures
 * (honouring Retry-After), a circuit breaker, and errors typed as ProviderError. Everything is
 * bounded by the caller's AbortSignal (the arbiter's timeout).
 *
 * 2xx and the 4xx answers an adapter must interpret itself (404 unknown symbol, 400 invalid
 * parameter...) are returned; 401/403 (unauthorized), 429 and 5xx are handled here.
 */
export interface ProviderHttpOptions {
  readonly provider: string;
  readonly baseUrl: string;
  /** Requests per second allowed to this provider (sustained) and the burst above it. */
  readonly ratePerSecond: number;
  readonly burst?: number;
  /**
   * Tokens of the burst that background work may not take (default: half the burst, rounded
   * down), so an interactive caller finds one at once even while the watchdogs' checks run.
   */
  readonly interactiveReserve?: number;
  /** Retries after the first attempt for retryable failures (default 2). */
  readonly maxRetries?: number;
  readonly baseBackoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly breaker?: Partial<CircuitBreakerOptions>;
  /** Upper bound of one get() (its retries included), on top of the caller's signal. */
  readonly timeoutMs?: number;
  /** Sent with every request (User-Agent, API-key headers). */
  readonly headers?: Readonly<Record<string, string>>;
  /** undici dispatcher; tests pass a MockAgent, production the global one. */
  readonly dispatcher?: Dispatcher;
  /** Randomness for jitter (tests make it deterministic). */
  readonly random?: () => number;
}

export interface HttpRequest {
  /** Path appended to the base URL (`/v8/finance/chart/AAPL`), or an absolute URL. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON when the body is JSON, else the raw text. */
  readonly body: unknown;
  /** The response's Date header: when the upstream produced it (null if absent). */
  readonly date: Date | null;
}

const USER_AGENT = 'vigil/0.1 (+https://github.com/vigil; market data service)';

export class ProviderHttp {
  readonly #o: Required<
    Omit<ProviderHttpOptions, 'dispatcher' | 'breaker' | 'headers' | 'timeoutMs' | 'interactiveReserve'>
  > &
    ProviderHttpOptions;
  readonly #limiter: ProviderLimiter;
  readonly #breaker: CircuitBreaker;

  constructor(options: ProviderHttpOptions) {
    this.#o = {
      burst: Math.max(1, Math.ceil(options.ratePerSecond)),
      maxRetries: 2,
      baseBackoffMs: 250,
      maxBackoffMs: 5_000,
      random: Math.random,
      ...options,
    };
    this.#limiter = new ProviderLimiter({
      provider: options.provider,
      ratePerSecond: this.#o.ratePerSecond,
      burst: this.#o.burst,
      ...(options.interactiveReserve !== undefined ? { interactiveReserve: options.interactiveReserve } : {}),
      ...(options.timeoutMs ? { maxWaitMs: options.timeoutMs } : {}),
    });
    this.#breaker = new CircuitBreaker(options.breaker);
  }

  get provider(): string {
    return this.#o.provider;
  }

  /** The caller's signal, also bounded by this provider's own `timeoutMs` when one is set. */
  bound(signal: AbortSignal): AbortSignal {
    return this.#o.timeoutMs ? AbortSignal.any([signal, AbortSignal.timeout(this.#o.timeoutMs)]) : signal;
  }

  get circuit(): CircuitBreaker {
    return this.#breaker;
  }

  async get(request: HttpRequest): Promise<HttpResponse> {
    const { provider } = this.#o;
    const req = { ...request, signal: this.bound(request.signal) };
    const url = this.#url(req);
    for (let attempt = 0; ; attempt++) {
      // A caller that has already given up costs no token and says nothing about the upstream.
      if (req.signal.aborted) throw transportError(provider, req.signal.reason, req.signal);
      if (this.#breaker.state === 'open') throw this.#circuitOpen();
      await this.#limiter.take(req.signal);
      // Asked only now: a half-open circuit hands out its single trial to a request that is sent,
      // not to one that then gives up waiting for a token and would hold the trial forever.
      if (!this.#breaker.allow()) throw this.#circuitOpen();
      let failure: ProviderError;
      try {
        const response = await this.#send(url, req);
        if (response.status < 400 || (response.status < 500 && ![401, 403, 429].includes(response.status))) {
          this.#breaker.success();
          return response;
        }
        failure = statusError(provider, response);
        if (failure.kind === 'unauthorized') {
          // A refused key is an answer about us, not the provider's health.
          this.#breaker.success();
          throw failure;
        }
      } catch (error) {
        if (error instanceof ProviderError && !error.transient) throw error;
        failure = error instanceof ProviderError ? error : transportError(provider, error, req.signal);
      }
      this.#breaker.failure();
      if (failure.kind === 'timeout' && req.signal.aborted) throw failure;
      if (attempt >= this.#o.maxRetries) throw failure;
      // An upstream that asks for a long pause gets it: fail now and let arbitration fall back.
      if ((failure.details.retryAfterMs ?? 0) > this.#o.maxBackoffMs) throw failure;
      const wait = this.#backoff(attempt, failure.details.retryAfterMs);
      if (!(await sleep(wait, req.signal))) {
        throw failure.kind === 'rate_limited'
          ? failure
          : new ProviderError(
              provider,
              'timeout',
              `gave up after ${attempt + 1} attempts: ${failure.message}`,
            );
      }
    }
  }

  #circuitOpen(): ProviderError {
    const remainingMs = this.#breaker.remainingMs();
    return new ProviderError(
      this.#o.provider,
      'circuit_open',
      `circuit open after repeated failures; retry in ${Math.ceil(remainingMs / 1000)}s`,
      { retryAfterMs: remainingMs },
    );
  }

  #url(req: HttpRequest): string {
    const url = new URL(/^https?:\/\//.test(req.path) ? req.path : `${this.#o.baseUrl}${req.path}`);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  async #send(url: string, req: HttpRequest): Promise<HttpResponse> {
    // undici loads with the first call to a live provider (a simulated market never makes one).
    const { request } = await loadUndici();
    const response = await request(url, {
      method: 'GET',
      signal: req.signal,
      headers: { 'user-agent': USER_AGENT, accept: 'application/json', ...this.#o.headers, ...req.headers },
      ...(this.#o.dispatcher ? { dispatcher: this.#o.dispatcher } : {}),
    });
    const text = await response.body.text();
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    let body: unknown = text;
    if (text.length > 0 && /^\s*[[{]/.test(text)) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const date = headers.date ? new Date(headers.date) : null;
    return {
      status: response.statusCode,
      headers,
      body,
      date: date && !Number.isNaN(date.getTime()) ? date : null,
    };
  }

  #backoff(attempt: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return retryAfterMs;
    const ceiling = Math.min(this.#o.maxBackoffMs, this.#o.baseBackoffMs * 2 ** attempt);
    return Math.round(ceiling / 2 + (this.#o.random() * ceiling) / 2);
  }
}

function statusError(provider: string, response: HttpResponse): ProviderError {
  const detail = describeBody(response.body);
  if (response.status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
    return new ProviderError(provider, 'rate_limited', `rate limited (429)${detail}`, {
      status: 429,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  if (response.status === 401 || response.status === 403) {
    return new ProviderError(provider, 'unauthorized', `refused (${response.status})${detail}`, {
      status: response.status,
    });
  }
  return new ProviderError(provider, 'upstream', `upstream error (${response.status})${detail}`, {
    status: response.status,
  });
}

function transportError(provider: string, error: unknown, signal: AbortSignal): ProviderError {
  if (
    signal.aborted ||
    (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))
  ) {
    return new ProviderError(provider, 'timeout', 'no answer before the deadline', { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(provider, 'upstream', `network error: ${message}`, { cause: error });
}

function describeBody(body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const text = b.error ?? b.msg ?? b.message ?? b.description ?? b.Information ?? b.Note;
    if (text !== undefined)
      return `: ${typeof text === 'string' ? text : JSON.stringify(text)}`.slice(0, 240);
  }
  return typeof body === 'string' && body.length > 0 ? `: ${body.slice(0, 120)}` : '';
}

/** Retry-After as delta-seconds or an HTTP date; capped at 5 minutes. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  // Number('') is 0: a blank header must not read as "retry now".
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  const seconds = Number(trimmed);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : new Date(trimmed).getTime() - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(300_000, Math.max(0, Math.round(ms)));
}
