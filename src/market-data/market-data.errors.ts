import { AppError, type ErrorCodeTable } from '../platform/errors.ts';
import type { ProviderError } from './providers/provider-errors.ts';

/** The market-data error codes and what they mean on every surface. */
export const MARKET_DATA_ERRORS = {
  UNKNOWN_SYMBOL: { status: 404, description: 'No provider knows the symbol.' },
  NOT_SUPPORTED: { status: 422, description: 'No configured provider offers this kind of data for it.' },
  MARKET_DATA_UNAVAILABLE: {
    status: 503,
    description:
      'Every provider that could answer failed; `details.attempts` says how. Never a made-up value.',
  },
  TOO_MANY_SYMBOLS: {
    status: 400,
    description:
      'One operation asked for market data on more distinct instruments than allowed; `details.limit` says how many. Split it.',
  },
} as const satisfies ErrorCodeTable;

export interface AttemptSummary {
  readonly provider: string;
  readonly error: string;
  readonly kind: string;
}

/** Every provider that could answer says the symbol does not exist. */
export class UnknownSymbolError extends AppError {
  constructor(symbol: string, attempts: readonly AttemptSummary[]) {
    super('UNKNOWN_SYMBOL', `unknown symbol ${symbol}: no provider knows it`, { symbol, attempts });
  }
}

/** No configured provider offers this kind of data for this instrument. */
export class NotSupportedError extends AppError {
  constructor(what: string, symbol: string | undefined, configured: readonly string[]) {
    super(
      'NOT_SUPPORTED',
      `no configured provider offers ${what}${symbol ? ` for ${symbol}` : ''} (providers: ${configured.join(', ')})`,
      { what, ...(symbol ? { symbol } : {}), providers: configured },
    );
  }
}

/** Providers exist for the request but all failed: an error, never a made-up value. */
export class MarketDataUnavailableError extends AppError {
  constructor(what: string, symbol: string | undefined, errors: readonly ProviderError[]) {
    const attempts = errors.map((e) => ({ provider: e.provider, kind: e.kind, error: e.message }));
    const retry = errors.map((e) => e.details.retryAfterMs).filter((ms): ms is number => ms !== undefined);
    super(
      'MARKET_DATA_UNAVAILABLE',
      `${what}${symbol ? ` for ${symbol}` : ''} is unavailable: every provider failed (${attempts
        .map((a) => `${a.provider}: ${a.kind}`)
        .join('; ')})`,
      {
        ...(symbol ? { symbol } : {}),
        attempts,
        ...(retry.length === errors.length && retry.length > 0
          ? { retryAfterSeconds: Math.max(1, Math.ceil(Math.min(...retry) / 1000)) }
          : {}),
      },
    );
  }
}

/** One operation asked for more distinct instruments than `limit` (aliases and nested fields count). */
export class TooManySymbolsError extends AppError {
  constructor(limit: number) {
    super(
      'TOO_MANY_SYMBOLS',
      `this operation asks for market data on more than ${limit} distinct instruments; at most ${limit} per operation`,
      { limit },
    );
  }
}

/**
 * The calling client spent its share of upstream provider calls (answers from the cache stay
 * free). Uses the platform's RATE_LIMITED code, so every surface answers 429 with Retry-After.
 */
export class UpstreamBudgetError extends AppError {
  constructor(perMinute: number, retryAfterMs: number) {
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super(
      'RATE_LIMITED',
      `upstream market-data budget spent: at most ${perMinute} provider calls per minute per client ` +
        `(cached answers are free). Retry after ${retryAfterSeconds}s.`,
      { limit: perMinute, retryAfterSeconds },
    );
  }
}
