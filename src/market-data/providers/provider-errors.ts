import { providerReason } from './provider-reason.ts';

/**
 * What can go wrong inside a provider, as typed errors. Arbitration reads `kind` to decide whether
 * to fall back, how to score the provider's health, and what to tell the caller. These never reach
 * a client directly: the market-data service turns them into domain errors with lineage.
 */
export type ProviderErrorKind =
  | 'unknown_symbol'
  | 'rate_limited'
  | 'unauthorized'
  | 'upstream'
  | 'timeout'
  | 'bad_response'
  | 'unsupported'
  | 'circuit_open'
  /** Background work skipped for want of this provider's budget, kept for interactive callers. */
  | 'deferred';

/** A provider error's message is cut here (its reason, shown in callers' messages, at 160). */
const MAX_MESSAGE_CHARS = 300;

export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: ProviderErrorKind,
    message: string,
    readonly details: {
      readonly status?: number;
      readonly retryAfterMs?: number;
      readonly cause?: unknown;
      /** The provider's own words on why (an unknown symbol's "Invalid symbol."), shown to callers. */
      readonly reason?: string;
    } = {},
  ) {
    // Messages reach every surface (attempts, lineage, health): no credential, HTML page or endless body.
    super(
      `${provider}: ${providerReason(message, MAX_MESSAGE_CHARS)}`,
      details.cause !== undefined ? { cause: details.cause } : undefined,
    );
    this.name = 'ProviderError';
  }

  /** Why, in a few words a caller can read: the provider's own reason, else this error's message. */
  get reason(): string {
    const own = this.details.reason;
    if (own) return providerReason(own);
    const prefix = `${this.provider}: `;
    return providerReason(this.message.startsWith(prefix) ? this.message.slice(prefix.length) : this.message);
  }

  /** Worth asking the same provider again later (as opposed to a permanent answer). */
  get transient(): boolean {
    return (
      this.kind === 'rate_limited' ||
      this.kind === 'upstream' ||
      this.kind === 'timeout' ||
      this.kind === 'circuit_open' ||
      this.kind === 'deferred'
    );
  }
}

/** `detail` is the provider's reason ("Invalid symbol."), repeated in the caller's error message. */
export const unknownSymbol = (provider: string, symbol: string, detail?: string) =>
  new ProviderError(
    provider,
    'unknown_symbol',
    `unknown symbol ${symbol}${detail ? ` (${detail})` : ''}`,
    detail ? { reason: detail } : {},
  );

export const unsupported = (provider: string, what: string) =>
  new ProviderError(provider, 'unsupported', `does not provide ${what}`);

export const badResponse = (provider: string, what: string, cause?: unknown) =>
  new ProviderError(provider, 'bad_response', `unexpected response: ${what}`, { cause });
