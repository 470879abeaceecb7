export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  readonly failureThreshold: number;
  /** How long an open circuit refuses calls before letting one trial through. */
  readonly cooldownMs: number;
}

export type CircuitState = 'closed' | 'open' | 'half_open';

/** Of several breakers, the state that says most about trouble: open, then half-open, then closed. */
export function worstCircuit(...states: readonly CircuitState[]): CircuitState {
  if (states.includes('open')) return 'open';
  return states.includes('half_open') ? 'half_open' : 'closed';
}

/**
 * Closed -> open after `failureThreshold` consecutive failures; open -> half-open after the
 * cooldown, which lets exactly one trial call through: success closes, failure re-opens.
 */
export class CircuitBreaker {
  readonly #o: CircuitBreakerOptions;
  #failures = 0;
  #openedAt: number | undefined;
  #trialInFlight = false;

  constructor(
    options: Partial<CircuitBreakerOptions> = {},
    private readonly now: () => number = () => Date.now(),
  ) {
    this.#o = { failureThreshold: 5, cooldownMs: 30_000, ...options };
  }

  get state(): CircuitState {
    if (this.#openedAt === undefined) return 'closed';
    return this.now() - this.#openedAt >= this.#o.cooldownMs ? 'half_open' : 'open';
  }

  allow(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'half_open' && !this.#trialInFlight) {
      this.#trialInFlight = true;
      return true;
    }
    return false;
  }

  remainingMs(): number {
    return this.#openedAt === undefined ? 0 : Math.max(0, this.#o.cooldownMs - (this.now() - this.#openedAt));
  }

  success(): void {
    this.#failures = 0;
    this.#openedAt = undefined;
    this.#trialInFlight = false;
  }

  failure(): void {
    this.#failures++;
    if (this.#trialInFlight || this.#failures >= this.#o.failureThreshold) {
      this.#openedAt = this.now();
    }
    this.#trialInFlight = false;
  }
}
