import type { Rejection } from './reconcile.ts';

/** Where an answer came from. Every market-data result carries one. */
export interface Lineage {
  /** Providers asked, in the order they were asked. */
  readonly asked: readonly string[];
  /** Providers whose values make up the answer. */
  readonly used: readonly string[];
  /** Providers whose answer was not used, and why (failed, outlier, stale). */
  readonly rejected: readonly Rejection[];
  /** Share of answering providers that agreed with the answer (1 = unanimous or single source). */
  readonly agreement: number;
  /** True when a disagreement between providers was resolved (some value set aside). */
  readonly conflictResolved: boolean;
  /** Time the data describes (the quote's own time), never the time it was fetched. */
  readonly asOf: Date;
  /** When Vigil obtained it from the provider. */
  readonly retrievedAt: Date;
  /** True when a used provider is the simulated market (the value describes no real market). */
  readonly simulated: boolean;
  readonly cache: { readonly hit: boolean; readonly ageMs: number; readonly ttlMs: number };
}

export interface Sourced<T> {
  readonly value: T;
  readonly lineage: Lineage;
}
