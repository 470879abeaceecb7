import { AppError, type ErrorCodeTable } from '../platform/errors.ts';
import type { ProviderError } from './providers/provider-errors.ts';
import { providerReason } from './providers/provider-reason.ts';

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
  /** The provider's own words ("Invalid symbol."), for the message; not part of `details`. */
  readonly reason?: string;
}

/** What one provider answered, as errors list it. */
export function attemptOf(error: ProviderError): AttemptSummary {
  const { provider, kind, message } = error;
  return {
    provider,
    kind,
    error: message,
    ...(error.details.reason ? { reason: error.details.reason } : {}),
  };
}

/** A message naming every provider's reason stays one readable line: at most this long. */
const MAX_MESSAGE_CHARS = 600;

/**
 * Every provider that could answer says the symbol does not exist. The message keeps what each
 * said ("unknown symbol XYZ: no provider knows it (yahoo: Data doesn't exist for ...; binance:
 * Invalid symbol.)"), so a caller sees why without reading `details.attempts`.
 */
export class UnknownSymbolError extends AppError {
  constructor(symbol: string, attempts: readonly AttemptSummary[]) {
    const said = attempts
      .filter((a) => a.kind === 'unknown_symbol')
      .map((a) => `${a.provider}: ${a.reason ? providerReason(a.reason) : 'does not know it'}`);
    super(
      'UNKNOWN_SYMBOL',
      providerReason(
        `unknown symbol ${symbol}: no provider knows it${said.length > 0 ? ` (${said.join('; ')})` : ''}`,
        MAX_MESSAGE_CHARS,
      ),
      { symbol, attempts: attempts.map(({ provider, kind, error }) => ({ provider, kind, error })) },
    );
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
      providerReason(
        `${what}${symbol ? ` for ${symbol}` : ''} is unavailable: every provider failed (${errors
          .map((e) => `${e.provider}: ${e.kind}, ${e.reason}`)
          .join('; ')})`,
        MAX_MESSAGE_CHARS,
      ),
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
