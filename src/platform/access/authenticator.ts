import { AppError } from '../errors.ts';
import { RateGate } from '../ws/socket-limits.ts';
import type { Presented } from './credentials.ts';
import { anonymousPrincipal, type Principal, UnauthenticatedError } from './principal.ts';

/** What the key store says about a presented secret. */
export type KeyCheck =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly reason: 'invalid' | 'revoked' | 'expired' };

export type KeyVerifier = (secret: string) => Promise<KeyCheck>;

export type Authentication =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly error: AppError };

export interface AuthenticatorOptions {
  /** AUTH_REQUIRED: without it, a caller with no key is anonymous with every scope. */
  readonly required: boolean;
  readonly verify: KeyVerifier;
  /**
   * Whether a secret may be a real key, from memory alone (a key verified recently, or one whose
   * public prefix is a real key's). A locked-out address (too many failures) is refused unread
   * unless its key may be real: a shared address (NAT) where someone guesses does not lock out the
   * holders of real keys, while random guesses still cost no lookup.
   */
  readonly known?: (secret: string) => boolean;
  /**
   * Failed presentations one address may make per minute (AUTH_MAX_FAILURES_PER_MINUTE, also the
   * burst); further ones are refused with 429 before the key store is asked.
   */
  readonly maxFailuresPerMinute: number;
  /** Addresses whose failures are remembered at once (oldest forgotten first). */
  readonly maxTrackedAddresses?: number;
}

const REASONS = {
  invalid: 'the API key is not valid',
  revoked: 'the API key has been revoked',
  expired: 'the API key has expired',
} as const;

/**
 * Turns what a caller presented into a principal, the same way on every surface. A missing key is
 * the anonymous principal (allowed everything unless AUTH_REQUIRED, refused otherwise); a presented
 * key is never downgraded to anonymous when it is wrong. Failures are counted per address, so
 * guessing keys (or inventing them to look like fresh clients) buys neither a budget nor unbounded
 * lookups.
 */
export class Authenticator {
  readonly #failures = new Map<string, RateGate>();
  readonly #maxTracked: number;

  constructor(private readonly options: AuthenticatorOptions) {
    this.#maxTracked = options.maxTrackedAddresses ?? 10_000;
  }

  get required(): boolean {
    return this.options.required;
  }

  /** `address` is the client's limit key (`ip:<address>`), under which failures are counted. */
  async authenticate(presented: Presented, address: string): Promise<Authentication> {
    if (presented.kind === 'none') {
      if (!this.options.required) return { ok: true, principal: anonymousPrincipal(false) };
      return {
        ok: false,
        error: new UnauthenticatedError(
          'an API key is required: send "Authorization: Bearer <key>" or "X-API-Key: <key>"',
          'missing',
        ),
      };
    }
    const known = presented.kind === 'key' && this.options.known?.(presented.secret) === true;
    // The attempt is paid for before the lookup and given back when it succeeds, so concurrent
    // guesses cannot all pass the check before the first failure is counted.
    const gate = known ? undefined : this.#gateOf(address);
    if (gate && !gate.tryTake().ok) return { ok: false, error: this.#tooMany(gate) };
    if (presented.kind === 'malformed') {
      return { ok: false, error: new UnauthenticatedError(presented.problem, 'malformed') };
    }
    const check = await this.options.verify(presented.secret);
    if (check.ok) {
      gate?.giveBack();
      return check;
    }
    return { ok: false, error: new UnauthenticatedError(REASONS[check.reason], check.reason) };
  }

  #gateOf(address: string): RateGate {
    let gate = this.#failures.get(address);
    if (!gate) {
      if (this.#failures.size >= this.#maxTracked) {
        this.#failures.delete(this.#failures.keys().next().value!);
      }
      const perMinute = this.options.maxFailuresPerMinute;
      gate = new RateGate(perMinute / 60, perMinute);
      this.#failures.set(address, gate);
    }
    return gate;
  }

  #tooMany(gate: RateGate): AppError {
    const retryAfterSeconds = Math.max(1, Math.ceil(gate.msUntilToken() / 1000));
    return new AppError(
      'RATE_LIMITED',
      `too many failed API key attempts from this address (AUTH_MAX_FAILURES_PER_MINUTE); retry in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }
}
