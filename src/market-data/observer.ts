/**
 * What market data reports as it works, for metrics: the app passes its metrics in (deps.ts), tests
 * and tools pass nothing. Provider ids, outcomes and data kinds are small fixed sets.
 */
export interface MarketDataObserver {
  /** One provider call: `ok` or the provider error kind, and its duration (retries included). */
  providerCall(provider: string, outcome: string, seconds: number): void;
  /** One cache lookup; a request that joins a load already under way is a hit. */
  cacheLookup(kind: string, hit: boolean): void;
}

export const UNOBSERVED: MarketDataObserver = { providerCall() {}, cacheLookup() {} };
